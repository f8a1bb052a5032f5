#!/usr/bin/env bash
# Builds the libFuzzer package in Fuzz/ ($FUZZ_CONFIG: debug (default, quicker to build) or release; -sanitize=fuzzer,address, its own .build) and
# runs each fuzzer for SECONDS (default 60) on a copy of its committed seeds (Fuzz/Seeds/NAME).
# Prints exec/s and total runs per fuzzer; exits non-zero if any fuzzer found a crash, a leak or
# a failed check (the reproducer is left in $FUZZ_ARTIFACTS, default Fuzz/.artifacts).
# libFuzzer's random seed is FUZZ_SEED (default 1): CI explores the same inputs on every run of
# the same code, so a red fuzz phase means the change, not the draw (a random draw once found a
# libzbar leak in CI; see FuzzDecoders). FUZZ_SEED=0 draws a new seed, for exploring by hand.
set -euo pipefail
SECONDS_EACH=${1:-60}
cd "$(dirname "$0")/../Fuzz"
FUZZERS=${FUZZERS:-"FuzzY4M FuzzJSONLine FuzzConfiguration FuzzDecoders FuzzRedaction FuzzGS1 FuzzLogText"}
ARTIFACTS=${FUZZ_ARTIFACTS:-$PWD/.artifacts}
mkdir -p "$ARTIFACTS"

: "${FUZZ_CONFIG:=debug}"
build_start=$(date +%s)
# -gnone and lld: the debug link with ld.gold and DWARF stops in gold itself ("internal error in
# format_file_lineno"). Without DWARF a crash's stack has no file:line; rebuild a reproducer's
# target without -gnone (lld links it) to get them.
FLAGS=(-c "$FUZZ_CONFIG" -Xswiftc -gnone -Xswiftc -use-ld=lld)
swift build "${FLAGS[@]}" \
    -Xswiftc -sanitize=fuzzer,address \
    -Xcc -fsanitize=fuzzer-no-link,address \
    2> >(grep -v 'Cannot export local symbol' >&2)
echo "fuzz build: $(( $(date +%s) - build_start )) s"
bin=$(swift build "${FLAGS[@]}" --show-bin-path)

status=0
for f in $FUZZERS; do
    corpus=$(mktemp -d)
    cp Seeds/"$f"/* "$corpus"/
    log=$(mktemp)
    start=$(date +%s)
    set +e
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} "$bin/$f" -max_total_time="$SECONDS_EACH" -max_len=4096 \
        -seed="${FUZZ_SEED:-1}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$ARTIFACTS/$f-" "$corpus" >"$log" 2>&1
    rc=$?
    set -e
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    echo "$f: ${runs:-?} runs, ${speed:-?} exec/s, $(( $(date +%s) - start )) s, corpus $(ls "$corpus" | wc -l) inputs, exit $rc"
    if [ "$rc" -ne 0 ]; then
        status=1
        echo "---- $f failed; the end of its log:"
        tail -60 "$log"
    fi
    rm -rf "$corpus" "$log"
done
exit $status
