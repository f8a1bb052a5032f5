#!/usr/bin/env bash
# starve.sh - runs a command on a starved machine, to prove that its tests wait for events and
# not for time: every core busy with a CPU hog, and the command with all its descendants
# stopped (SIGSTOP) for STOP_SECONDS of every PERIOD_SECONDS, again and again, until it ends.
#
#   scripts/starve.sh [--runs N] [--stop S] [--period P] [--hogs H] -- COMMAND [ARG...]
#
#   scripts/starve.sh -- scripts/unit-tests.sh --skip-build          # the unit suite
#   scripts/starve.sh -- scripts/sanitize.sh thread                  # the TSan suite
#   scripts/starve.sh --runs 3 -- scripts/unit-tests.sh --skip-build
#
# Defaults: --stop 5 --period 15 (stopped 5 s of every 15 s), --hogs = the processors this
# process may run on, --runs 1. The whole tree is stopped at once (the test process, the daemons
# it started, their children), as a loaded machine or a suspended VM stops them: no test may
# count sleeps, expect a number of frames in a wall-clock window or assert a rate.
# Prints each run's wall time, exit status and the number of stops, then
# "starve: N of M runs passed"; exits 0 only if every run exited 0.
set -uo pipefail
RUNS=1 STOP=5 PERIOD=15 HOGS=$(nproc)
while [ $# -gt 0 ]; do
  case $1 in
    --runs) RUNS=${2:?}; shift 2 ;;
    --stop) STOP=${2:?}; shift 2 ;;
    --period) PERIOD=${2:?}; shift 2 ;;
    --hogs) HOGS=${2:?}; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "starve: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "starve: no command given (see --help)" >&2; exit 2; }
for v in "$RUNS" "$STOP" "$PERIOD" "$HOGS"; do
  [[ $v =~ ^[0-9]+$ ]] || { echo "starve: '$v' is not a whole number" >&2; exit 2; }
done
[ "$STOP" -lt "$PERIOD" ] || { echo "starve: --stop must be shorter than --period" >&2; exit 2; }

hogs=()
stop_hogs() { [ ${#hogs[@]} -eq 0 ] || kill "${hogs[@]}" 2>/dev/null; wait "${hogs[@]}" 2>/dev/null; hogs=(); }
# Every descendant of $1 (children first found, then theirs), from /proc: the test runner
# starts its own process groups (setsid), so a process-group signal would miss some.
descendants() {
  local p c
  for p in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
    echo "$p"; descendants "$p"
  done
}
# The ones of the given processes that are not stopped (state T) now.
running() {
  local p state
  for p in "$@"; do
    state=$(sed 's/.*) //; s/ .*//' /proc/"$p"/stat 2>/dev/null) || continue
    [ "$state" = T ] || echo "$p"
  done
}
trap 'stop_hogs; [ -n "${cmd:-}" ] && { for p in $cmd $(descendants "$cmd"); do kill -CONT "$p" 2>/dev/null; done; kill -TERM -- "-$cmd" 2>/dev/null; }; exit 130' INT TERM

passed=0
for run in $(seq 1 "$RUNS"); do
  for _ in $(seq 1 "$HOGS"); do ( while :; do :; done ) & hogs+=($!); done
  start=$(date +%s)
  setsid "$@" &
  cmd=$!
  stops=0
  while kill -0 "$cmd" 2>/dev/null; do
    # run for PERIOD - STOP seconds (waking early when the command ends), then stop the tree
    for _ in $(seq 1 $(( (PERIOD - STOP) * 2 ))); do kill -0 "$cmd" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$cmd" 2>/dev/null || break
    # A process the test itself stopped (a stdout reader it holds, say) stays as the test left it.
    tree=$(running "$cmd" $(descendants "$cmd"))
    # shellcheck disable=SC2086
    kill -STOP $tree 2>/dev/null; stops=$((stops + 1))
    sleep "$STOP"
    # shellcheck disable=SC2086
    kill -CONT $tree 2>/dev/null
  done
  wait "$cmd"; rc=$?
  cmd=
  stop_hogs
  echo "starve: run $run of $RUNS: exit $rc, wall $(( $(date +%s) - start )) s, stopped $stops times ($STOP s of every $PERIOD s, $HOGS CPU hogs)"
  [ $rc -eq 0 ] && passed=$((passed + 1))
done
echo "starve: $passed of $RUNS runs passed"
[ "$passed" -eq "$RUNS" ]
