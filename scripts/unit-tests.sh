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
#
# When the run fails, what failed is printed again at the end, out of the flood of passing lines:
# each failed test and its recorded issues, each sanitizer report (its first lines), each fatal
# error, and the tests that started and never finished (a crash takes the process down mid-test).
# UNIT_TEST_REPORT: a file that summary is appended to as well (scripts/sanitize.sh prints it
# again after its last run, so a CI log's tail names the cause whichever run failed).
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
if [ "$status" -ne 0 ]; then
    {
        echo "unit-tests: swift test $* exited $status; what failed:"
        python3 - "$log" <<'EOF'
import re, sys
lines = open(sys.argv[1], errors="replace").read().splitlines()
started, finished, said = [], set(), []
i = 0
while i < len(lines):
    line = lines[i]
    m = re.search(r"◇ Test (.+?) started\.", line)
    if m and not m.group(1).startswith("case "):
        started.append(m.group(1))
    m = re.search(r"[✔✘] Test (.+?) (?:with \d+ test cases? )?(?:passed|failed)", line)
    if m:
        finished.add(m.group(1))
    if "✘" in line:
        said.append(line)
        # An issue's details follow on indented lines.
        j = i + 1
        while j < len(lines) and j < i + 12 and lines[j].startswith((" ", "\t")) and "◇" not in lines[j] and "✔" not in lines[j]:
            said.append(lines[j]); j += 1
    elif re.search(r"(WARNING|ERROR): (ThreadSanitizer|AddressSanitizer|LeakSanitizer)|runtime error:", line):
        said.append(line)
        j = i + 1
        while j < len(lines) and j < i + 40 and not lines[j].startswith("SUMMARY:"):
            said.append(lines[j]); j += 1
        if j < len(lines) and lines[j].startswith("SUMMARY:"):
            said.append(lines[j])
        i = j
    elif "◇" not in line and "✔" not in line and re.search(r"Fatal error|fatal error:|error: Exited with|Segmentation fault|signal code|Illegal instruction", line):
        said.append(line)
    i += 1
print("\n".join("  " + line for line in said[:400]) or "  (no failed test or report by name)")
unfinished = [name for name in started if name not in finished]
if unfinished:
    print("unit-tests: started and never finished (a crash ends the process mid-test):")
    print("\n".join("  " + name for name in unfinished))
EOF
    } | tee -a "${UNIT_TEST_REPORT:-/dev/null}"
fi
exit $status
