#!/usr/bin/env bash
# The unit tests under ThreadSanitizer and AddressSanitizer, each with its own scratch path
# (.build-tsan, .build-asan) so the normal .build is untouched. Prints each run's wall time.
# Usage: scripts/sanitize.sh [thread|address]...   (default: both)
# TSAN_FILTER / ASAN_FILTER: a `swift test --filter` regex to narrow a run (default: the whole suite).
set -euo pipefail
cd "$(dirname "$0")/.."
kinds=("$@"); [ ${#kinds[@]} -gt 0 ] || kinds=(thread address)
for kind in "${kinds[@]}"; do
    case $kind in
        thread) scratch=.build-tsan filter=${TSAN_FILTER:-} ;;
        address) scratch=.build-asan filter=${ASAN_FILTER:-} ;;
        *) echo "unknown sanitizer $kind" >&2; exit 2 ;;
    esac
    start=$(date +%s)
    swift build --build-tests --sanitize="$kind" --scratch-path "$scratch"
    built=$(date +%s)
    # halt_on_error: any report fails the run (TSan otherwise only prints and exits 66 at the end).
    TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1} \
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:halt_on_error=1} \
        swift test --skip-build --sanitize="$kind" --scratch-path "$scratch" ${filter:+--filter "$filter"}
    echo "sanitize $kind: build $(( built - start )) s, tests $(( $(date +%s) - built )) s"
done
