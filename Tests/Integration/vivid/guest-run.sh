#!/usr/bin/env bash
# guest-run.sh - the guest half of scripts/test-vivid.sh; runs INSIDE the vivid VM (vm.sh).
#
#   guest-run.sh syncscan BIN OUTDIR FRAMES WIDTH HEIGHT FORMAT...
#   guest-run.sh v4l2-ctl -   OUTDIR FRAMES WIDTH HEIGHT FORMAT...     (harness check, no syncscan)
#
# For each FORMAT, in this one boot: configure the vivid loop for FORMAT WIDTHxHEIGHT, play
# OUTDIR/feed-FORMAT.raw on the output node, and capture FRAMES frames from the capture node
# (with `BIN run ... --emit-frames`, or with v4l2-ctl). Everything lands in OUTDIR (a host
# directory shared into the VM), for the host to check:
#   devices.txt devices.json devices.rc    `BIN devices [--json]` (syncscan mode)
#   list-devices.txt                       `v4l2-ctl --list-devices`
#   run-FORMAT.jsonl run-FORMAT.stderr     `BIN run` stdout / stderr (syncscan mode)
#   snapshots-FORMAT/                      the JPEG snapshots the code lines name (syncscan mode)
#   capture-FORMAT.raw                     captured frames (v4l2-ctl mode)
#   run-FORMAT.rc run-FORMAT.seconds       exit status and wall time of the capture
#   payloads-FORMAT.jsonl .stderr .rc      the payload run: codes until they were in PAYLOAD_FRAMES
#                                          frames, then SIGTERM (syncscan mode)
#   input-results.txt input-*              the keyboard wedge and key trigger checks (guest-input.sh),
#                                          when OUTDIR/wedge.y4m exists (syncscan mode)
# Exit status: 0 when every step ran (the host judges the results); 125 when the loop or the
# feeder could not be set up.
set -uo pipefail
[ $# -ge 7 ] || { sed -n '2,16p' "$0" >&2; exit 2; }
MODE=$1 BIN=$2 OUT=$3 FRAMES=$4 W=$5 H=$6
shift 6
: "${VIVID_LOOP_SH:?run this inside the VM started by vm.sh}"
source "$VIVID_LOOP_SH"
# Generous per-capture limit: decoding under TCG runs at a few frames per second.
CAPTURE_TIMEOUT=${CAPTURE_TIMEOUT:-240}
# Frames with a code the payload run waits for: scripts/test-vivid.sh's, in OUTDIR/params.
PAYLOAD_FRAMES=$(sed -n 's/.*PAYLOAD_FRAMES=\([0-9]*\).*/\1/p' "$OUT/params" 2>/dev/null)
PAYLOAD_FRAMES=${PAYLOAD_FRAMES:-8}

now() { cut -d' ' -f1 /proc/uptime; }
v4l2-ctl --list-devices > "$OUT/list-devices.txt" 2>&1
if [ "$MODE" = syncscan ]; then
  "$BIN" devices > "$OUT/devices.txt" 2> "$OUT/devices.stderr"; echo $? > "$OUT/devices.rc"
  "$BIN" devices --json > "$OUT/devices.json" 2>> "$OUT/devices.stderr"; echo $? >> "$OUT/devices.rc"
fi
# The V4L2 module's real-device Swift tests (enabled by VIVID_CAPTURE_DEV), when the host named
# a built test bundle in $OUT/xctest.
if [ -s "$OUT/xctest" ]; then
  VIVID_CAPTURE_DEV=/dev/video0 timeout "$CAPTURE_TIMEOUT" "$(cat "$OUT/xctest")" \
    --testing-library swift-testing --filter RealDeviceTests > "$OUT/xctest.out" 2>&1
  echo $? > "$OUT/xctest.rc"
fi

for fourcc in "$@"; do
  vivid_loop_setup "$fourcc" "$W" "$H" || exit 125
  # The feed is read 60 times a second: play it from guest RAM, not over 9p.
  cp "$OUT/feed-$fourcc.raw" /tmp/feed.raw || exit 125
  vivid_feed_start /tmp/feed.raw || exit 125
  t0=$(now)
  if [ "$MODE" = syncscan ]; then
    timeout -k 5 "$CAPTURE_TIMEOUT" "$BIN" run --source "$VIVID_CAPTURE_DEV" --fourcc "$fourcc" \
      --width "$W" --height "$H" --max-frames "$FRAMES" --emit-frames --duplicate-window 0 \
      --snapshot-dir "$OUT/snapshots-$fourcc" > "$OUT/run-$fourcc.jsonl" 2> "$OUT/run-$fourcc.stderr"
  else
    timeout -k 5 "$CAPTURE_TIMEOUT" v4l2-ctl -d "$VIVID_CAPTURE_DEV" --stream-mmap \
      --stream-count="$FRAMES" --stream-to="$OUT/capture-$fourcc.raw" > "$OUT/run-$fourcc.stderr" 2>&1
  fi
  echo $? > "$OUT/run-$fourcc.rc"
  awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f\n", b - a }' > "$OUT/run-$fourcc.seconds"
  if [ "$MODE" = syncscan ]; then
    # The payload run: codes read until they were in PAYLOAD_FRAMES frames (the event waited for;
    # a starved emulated CPU scans only a few of the FRAMES above), at most CAPTURE_TIMEOUT s, then
    # one SIGTERM. Its graceful stop (the frames in flight on that CPU) gets 30 s of its own, then
    # SIGKILL: no second SIGTERM, which would force the stop and exit 1.
    "$BIN" run --source "$VIVID_CAPTURE_DEV" --fourcc "$fourcc" \
      --width "$W" --height "$H" --duplicate-window 0 > "$OUT/payloads-$fourcc.jsonl" 2> "$OUT/payloads-$fourcc.stderr" &
    run=$!
    deadline=$(( $(date +%s) + CAPTURE_TIMEOUT ))
    while kill -0 "$run" 2>/dev/null && [ "$(date +%s)" -lt "$deadline" ] \
          && [ "$(jq -r 'select(.type == "code") | .frame.seq' "$OUT/payloads-$fourcc.jsonl" 2>/dev/null \
                  | sort -u | grep -c .)" -lt "$PAYLOAD_FRAMES" ]; do
      sleep 0.5
    done
    kill -TERM "$run" 2>/dev/null
    for _ in $(seq 1 60); do kill -0 "$run" 2>/dev/null || break; sleep 0.5; done
    kill -KILL "$run" 2>/dev/null
    wait "$run"; echo $? > "$OUT/payloads-$fourcc.rc"
  fi
  vivid_feed_stop
  rm -f /tmp/feed.raw
  echo "guest-run: $fourcc done in $(cat "$OUT/run-$fourcc.seconds") s, exit $(cat "$OUT/run-$fourcc.rc")"
done
# The keyboard wedge and the key trigger, through the kernel's uinput and evdev (input-results.txt).
if [ "$MODE" = syncscan ] && [ -s "$OUT/wedge.y4m" ]; then
  bash "$(dirname "${BASH_SOURCE[0]}")/guest-input.sh" "$BIN" "$OUT"
  echo "guest-run: $(tail -1 "$OUT/input-results.txt")"
fi
exit 0
