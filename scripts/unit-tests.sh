#!/usr/bin/env bash
# unit-tests.sh - `swift test ARGS...` with a time limit: a test that never returns ends the run
# with the names of the tests still running and every thread's stack, not a CI job held until
# its own limit with nothing said.
#
#   scripts/unit-tests.sh --skip-build [swift test options...]
#
# UNIT_TEST_LIMIT: seconds the whole suite may take (default 900; it takes about 40 s on an idle
# 2-core machine and under 3 minutes under ThreadSanitizer). Past it: the tests that started and
# did not finish (from Swift Testing's own "started" / "passed" lines), then `thread apply all bt`
# of the test process from gdb (if installed), then the process is killed and this exits 124.
# Otherwise exits with `swift test`'s status. The whole output still goes to stdout.
set -uo pipefail
LIMIT=${UNIT_TEST_LIMIT:-900}
log=$(mktemp /tmp/syncscan-unit-tests.XXXXXX)
trap 'rm -f "$log"' EXIT

# Own process group, so the test bundle (a child of swift test) can be found and killed with it.
setsid swift test "$@" > "$log" 2>&1 &
runner=$!
tail -n +1 -f --pid="$runner" "$log" &
follower=$!
start=$(date +%s)
while kill -0 "$runner" 2>/dev/null; do
    if [ $(( $(date +%s) - start )) -ge "$LIMIT" ]; then
        echo "unit-tests: the suite is still running after $LIMIT s (UNIT_TEST_LIMIT); the tests that started and did not finish:"
        python3 - "$log" <<'EOF'
import re, sys
started, finished = [], set()
for line in open(sys.argv[1], errors="replace"):
    m = re.search(r"◇ Test (.+?) started\.", line)
    if m and not m.group(1).startswith("case "):
        started.append(m.group(1))
    m = re.search(r"[✔✘] Test (.+?) (?:with \d+ test cases? )?(?:passed|failed)", line)
    if m:
        finished.add(m.group(1))
unfinished = [name for name in started if name not in finished]
print("\n".join("  " + name for name in unfinished) or "  (none by name: the hang is outside a test)")
EOF
        for pid in $(pgrep -g "$runner" -f '\.xctest'); do
            if command -v gdb >/dev/null; then
                echo "unit-tests: every thread of the test process $pid (gdb):"
                timeout 120 gdb -p "$pid" -batch -ex 'thread apply all bt' 2>&1 | grep -E '^(Thread|#)' | head -400
            else
                echo "unit-tests: no gdb to print the stacks of the test process $pid"
            fi
        done
        kill -KILL -- "-$runner" 2>/dev/null
        wait "$runner" "$follower" 2>/dev/null
        exit 124
    fi
    sleep 2
done
wait "$runner"; status=$?
wait "$follower"
exit $status
