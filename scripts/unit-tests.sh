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
#
# UNIT_TEST_WATCH_CLOSES=1 (scripts/test.sh sets it): scripts/close-watch.c is preloaded into the
# run (the test process, the daemons and tools it starts), and every close(2) of a descriptor that
# is not open fails the run with its stack. A double close is a race: in a process running tests
# side by side, the second close takes the number another test was given meanwhile, and that test
# fails far from the cause, rarely. Most double closes meet no reuse and get EBADF: reported every
# run. Not with a sanitizer (its own close interceptor comes first).
set -uo pipefail
LIMIT=${UNIT_TEST_LIMIT:-900}
log=$(mktemp /tmp/syncscan-unit-tests.XXXXXX)
trap 'rm -f "$log"' EXIT

watch_log=
if [ "${UNIT_TEST_WATCH_CLOSES:-0}" = 1 ]; then
    watch_dir=$(mktemp -d /tmp/syncscan-close-watch.XXXXXX)
    trap 'rm -f "$log"; rm -rf "$watch_dir"' EXIT
    cc -shared -fPIC -O1 -o "$watch_dir/close-watch.so" "$(dirname "$0")/close-watch.c" -ldl || exit 2
    watch_log=$watch_dir/closes.log
    export CLOSE_WATCH_LOG=$watch_log
    export LD_PRELOAD=$watch_dir/close-watch.so${LD_PRELOAD:+:$LD_PRELOAD}
fi

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
unset LD_PRELOAD
if [ -n "$watch_log" ] && [ -s "$watch_log" ]; then
    {
        echo "unit-tests: a descriptor was closed that was not open (a double close: a race with any test that opens one meanwhile); each with its stack:"
        python3 - "$watch_log" <<'EOF'
import re, subprocess, sys
# Frames as backtrace_symbols_fd prints them: BINARY(SYMBOL+0xOFFSET)[ADDRESS]; an offset from
# the binary's start (no symbol) is resolved with addr2line, names demangled by swift demangle.
for line in open(sys.argv[1], errors="replace"):
    line = line.rstrip("\n")
    m = re.match(r"(\S+)\((\S*?)\+(0x[0-9a-f]+)\)\[", line)
    if not m:
        print("  " + line); continue
    binary, symbol, offset = m.groups()
    where = symbol
    if not symbol and "close-watch" not in binary:
        try:
            out = subprocess.run(["addr2line", "-f", "-e", binary, offset], capture_output=True, text=True, timeout=30).stdout.split("\n")
            where = out[0] + " " + (out[1] if len(out) > 1 else "")
        except Exception:
            pass
    if where:
        try:
            where = subprocess.run(["swift", "demangle", "--simplified", "--compact"], input=where, capture_output=True, text=True, timeout=30).stdout.strip() or where
        except Exception:
            pass
    print("    " + (where or line) + "  (" + binary.rsplit("/", 1)[-1] + ")")
EOF
    } | tee -a "${UNIT_TEST_REPORT:-/dev/null}"
    [ "$status" -ne 0 ] || status=1
fi
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
    if m and not m.group(1).startswith("case ") and m.group(1) != "run":
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
