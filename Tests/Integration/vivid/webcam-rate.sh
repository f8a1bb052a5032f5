#!/usr/bin/env bash
# webcam-rate.sh - the camera mode chosen by frame rate, on a real kernel: vivid's webcam input
# (whose highest rate falls as the size grows) in the VM, `syncscan run` with no device.fps and
# with --fps 5, the frame interval measured from the kernel's timestamps (the frame records' pts).
#
#   Tests/Integration/vivid/webcam-rate.sh [--keep]
#
# Uses SYNCSCAN_BIN, else the debug build (.build/debug/syncscan, built if missing). Prints what
# `syncscan devices` marks, what the runs logged as chosen, each run's median frame interval,
# one "ok"/"FAIL" line per check and last "N passed, M failed". vivid's webcam sizes and rates
# (kernel 6.1): 320x180 up to 60 fps, 640x360 40, 640x480 25, 1280x720 12.5, 1920x1080 5;
# with the defaults (largest size within 1280x720, device.fps 30, device.min_fps 10) run takes
# 1280x720 at 12.5 fps: a median interval of 80 ms; with --fps 5, 200 ms.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
KEEP=0; [ "${1:-}" = --keep ] && KEEP=1
say() { echo "[webcam-rate] $*" >&2; }
BIN=${SYNCSCAN_BIN:-}
if [ -z "$BIN" ]; then
  swift build --package-path "$ROOT" --product syncscan >&2 || { say "swift build failed"; echo "0 passed, 1 failed"; exit 1; }
  BIN=$(swift build --package-path "$ROOT" --product syncscan --show-bin-path)/syncscan
fi
T=$(mktemp -d /tmp/syncscan-webcam-rate.XXXXXX)
cat > "$T/guest.sh" <<'EOF'
set -u
BIN=$1 OUT=$2
v4l2-ctl -d /dev/video0 --list-formats-ext > "$OUT/formats.txt" 2>&1
"$BIN" devices > "$OUT/devices.txt" 2>&1
run() {  # NAME FRAMES ARGS...: the run's JSON lines, stderr and G_PARM's rate while it streams
  local name=$1 n=$2; shift 2
  timeout -k 5 300 "$BIN" run --source /dev/video0 --max-frames "$n" --emit-frames --duplicate-window 0 "$@" \
    > "$OUT/$name.jsonl" 2> "$OUT/$name.err" &
  local pid=$!
  local end=$(( $(cut -d. -f1 /proc/uptime) + 120 ))
  until grep -qs '^{"type":"frame"' "$OUT/$name.jsonl" || [ "$(cut -d. -f1 /proc/uptime)" -ge $end ]; do sleep 0.2; done
  v4l2-ctl -d /dev/video0 --get-parm --get-fmt-video > "$OUT/$name.parm" 2>&1
  wait $pid; echo $? > "$OUT/$name.rc"
}
run default 60
run fps5 30 --fps 5
EOF
VIVID_OPTS="n_devs=1 node_types=0x1 num_inputs=1 input_types=0x0 vid_cap_nr=0" \
  "$ROOT/Tests/Integration/vivid/vm.sh" --no-loop --share "$T" --timeout 900 -- bash "$T/guest.sh" "$BIN" "$T" >&2
vm_rc=$?
PASSED=0 FAILED=0
check() { local name=$1; shift; if "$@"; then PASSED=$((PASSED + 1)); echo "ok   $name"; else FAILED=$((FAILED + 1)); echo "FAIL $name"; fi; }
# The median frame interval in ms by the kernel's clock: between consecutive frame records that
# carry a pts, the pts difference over the sequence difference (frames the kernel skipped while
# no buffer was free, discontinuity records without a pts, count as frame periods).
median_interval() {
  jq -s '[.[] | select(.type == "frame" and .pts != null) | [.seq, .pts]] as $f
         | [range(1; $f | length) | ($f[.][1] - $f[. - 1][1]) / ($f[.][0] - $f[. - 1][0])] | sort
         | if length == 0 then null else .[length / 2 | floor] * 1000 end' "$T/$1.jsonl" 2>/dev/null
}
near() { awk -v v="$1" -v e="$2" 'BEGIN {exit !(v != "null" && v != "" && v > e * 0.95 && v < e * 1.05)}'; }
check "the VM ran the runs (vm.sh exit 0)" test "$vm_rc" = 0
echo "  devices: $(grep -E 'run chooses|\*' "$T/devices.txt" 2>/dev/null | head -3 | tr '\n' ' ')"
for name in default fps5; do
  echo "  $name: exit $(cat "$T/$name.rc" 2>/dev/null); $(grep -m1 'camera streaming' "$T/$name.err")"
  echo "  $name: G_PARM while streaming: $(grep -E 'Frames per second|Width/Height|Pixel Format' "$T/$name.parm" 2>/dev/null | tr -s ' \t' ' ' | tr '\n' ';')"
  echo "  $name: median frame interval from the kernel timestamps: $(median_interval $name) ms over $(grep -c '^{"type":"frame"' "$T/$name.jsonl" 2>/dev/null) frames"
done
check "syncscan devices marks the mode run chooses (1280x720 at 12.5 fps)" grep -qsE 'run chooses.*1280x720.*12\.5' "$T/devices.txt"
default_ok() { [ "$(cat "$T/default.rc" 2>/dev/null)" = 0 ] && grep -qs "1280/720" "$T/default.parm" && near "$(median_interval default)" 80; }
fps5_ok() { [ "$(cat "$T/fps5.rc" 2>/dev/null)" = 0 ] && near "$(median_interval fps5)" 200; }
check "no device.fps: 1280x720 at its highest rate, 12.5 fps (median interval 80 ms from the kernel timestamps)" default_ok
check "--fps 5 below that is honoured (median interval 200 ms)" fps5_ok
[ "$KEEP" = 1 ] || [ "$FAILED" != 0 ] || rm -rf "$T"
[ "$FAILED" = 0 ] || say "results kept in $T"
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
