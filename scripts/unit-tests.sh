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

# Own session, so the test bundle can be found and killed with it: swift test starts the bundle
# in a process group of its own, but in this session. --wait: where setsid has to fork (it was
# started as a process group leader), it waits for swift test and exits with its status.
setsid --wait swift test "$@" > "$log" 2>&1 &
runner=$!
# The session: swift test's pid, the runner's own unless setsid forked (then its child's).
session() {
    if [ "$(ps -o sid= -p "$runner" | tr -d ' ')" = "$runner" ]; then echo "$runner"; else pgrep -P "$runner" | head -1; fi
}
tail -n +1 -f --pid="$runner" "$log" &
follower=$!
start=$(date +%s)
while kill -0 "$runner" 2>/dev/null; do
    if [ $(( $(date +%s) - start )) -ge "$LIMIT" ]; then
        echo "unit-tests: the suite is still running after $LIMIT s (UNIT_TEST_LIMIT); the tests that started and did not finish:"
        python3 "$(dirname "$0")/unit-test-log.py" unfinished "$log"
        sid=$(session); sid=${sid:-$runner}
        for pid in $(pgrep -s "$sid" -f '\.xctest'); do
            if command -v gdb >/dev/null; then
                echo "unit-tests: every thread of the test process $pid (gdb):"
                timeout 120 gdb -p "$pid" -batch -ex 'thread apply all bt' 2>&1 | grep -E '^(Thread|#)' | head -400
            else
                echo "unit-tests: no gdb to print the stacks of the test process $pid"
            fi
        done
        pkill -KILL -s "$sid" 2>/dev/null
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
        python3 "$(dirname "$0")/unit-test-log.py" closes "$watch_log"
    } | tee -a "${UNIT_TEST_REPORT:-/dev/null}"
    [ "$status" -ne 0 ] || status=1
fi
if [ "$status" -ne 0 ]; then
    {
        echo "unit-tests: swift test $* exited $status; what failed:"
        python3 "$(dirname "$0")/unit-test-log.py" failures "$log"
    } | tee -a "${UNIT_TEST_REPORT:-/dev/null}"
fi
exit $status
