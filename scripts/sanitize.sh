#!/usr/bin/env bash
# The whole unit-test suite under ThreadSanitizer and under AddressSanitizer, each with its own
# scratch path (.build-tsan, .build-asan) so the normal .build is untouched. Prints each
# sanitizer's build and test wall times; exits non-zero if any run failed or reported.
# Usage: scripts/sanitize.sh [thread|address]...   (default: both)
# TSAN_FILTER / ASAN_FILTER: a `swift test --filter` regex to narrow a run (default: the whole suite).
#
# Both run the suite in parallel, as `swift test` does: every suite runs its tests on
# TestSupport's ThreadPerBlockingJobExecutor (`.offThePool`), so a test that blocks (a child
# process, a broker, a poll) holds a thread of its own, never one of Swift's two pool threads,
# and cannot starve the others. Left out under ASan: the test that bounds the daemon's RSS while
# stdout is stopped (ASan's shadow memory and its 256 MB quarantine of freed blocks are RSS by
# design; the soak, scripts/soak.sh, checks RSS on the release build instead). Under TSan that
# test bounds the RSS's growth, not its size (TSan's shadow memory is RSS too).
set -uo pipefail
cd "$(dirname "$0")/.."
kinds=("$@"); [ ${#kinds[@]} -gt 0 ] || kinds=(thread address)
status=0
# What failed in each run, printed again after the last one so the log's tail names it.
report=$(mktemp /tmp/syncscan-sanitize.XXXXXX)
trap 'rm -f "$report"' EXIT
# ThreadSanitizer cannot see Synchronization.Mutex on Linux (a futex): two threads that take one
# in turn are reported as a race only when they happen to meet, so a run may pass or fail by
# chance. Shared state goes behind SystemCalls.LockedValue (a pthread mutex); say where it does not.
if futex=$(grep -rnE '\bMutex(<|\()' Sources Tests --include='*.swift' | grep -vE '^[^:]+:[0-9]+:\s*//'); then
    for kind in "${kinds[@]}"; do
        if [ "$kind" = thread ]; then
            echo "sanitize thread: Synchronization's Mutex, which ThreadSanitizer cannot see, is used here (use SystemCalls.LockedValue):" | tee -a "$report"
            echo "$futex" | tee -a "$report"
            status=1
        fi
    done
fi
for kind in "${kinds[@]}"; do
    case $kind in
        thread) scratch=.build-tsan filter=${TSAN_FILTER:-} skip= ;;
        address) scratch=.build-asan filter=${ASAN_FILTER:-} skip=aStoppedStdoutReaderNeitherStallsCaptureNorGrowsMemory ;;
        *) echo "unknown sanitizer $kind" >&2; exit 2 ;;
    esac
    start=$(date +%s)
    build_log=$(mktemp /tmp/syncscan-sanitize-build.XXXXXX)
    if ! swift build --build-tests --sanitize="$kind" --scratch-path "$scratch" 2>&1 | tee "$build_log"; then
        { echo "sanitize $kind: build failed after $(( $(date +%s) - start )) s:"
          grep -E "error:" "$build_log" | grep -v '^ *[|`]' | head -40; } | tee -a "$report"
        rm -f "$build_log"; status=1; continue
    fi
    rm -f "$build_log"
    built=$(date +%s)
    # halt_on_error: any report fails the run (TSan otherwise only prints and exits 66 at the end).
    # No suppressions: shared state is behind SystemCalls.LockedValue (a pthread mutex TSan sees),
    # never Synchronization.Mutex (a futex TSan cannot see on Linux).
    # UNIT_TEST_SANITIZER: a test of the daemon's RSS bounds only its growth under a sanitizer.
    UNIT_TEST_REPORT=$report UNIT_TEST_SANITIZER=$kind \
    TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1} \
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:halt_on_error=1} \
        UNIT_TEST_LIMIT=${UNIT_TEST_LIMIT:-1200} scripts/unit-tests.sh --skip-build --sanitize="$kind" --scratch-path "$scratch" \
            ${filter:+--filter "$filter"} ${skip:+--skip "$skip"}
    rc=$?
    [ $rc -eq 0 ] || status=1
    echo "sanitize $kind: build $(( built - start )) s, tests $(( $(date +%s) - built )) s, exit $rc" | tee -a "$report"
done
if [ $status -ne 0 ]; then
    echo "sanitize: failed; what each run said of it:"
    cat "$report"
fi
exit $status
