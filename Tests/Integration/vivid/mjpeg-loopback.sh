#!/usr/bin/env bash
# mjpeg-loopback.sh - an MJPEG camera on the real kernel: a v4l2loopback device in the VM, fed
# by ffmpeg (`-c:v copy -f v4l2`) a stream of JPEG frames of known QR codes with a truncated JPEG
# among them; `syncscan run` captures it as MJPEG and decodes it itself.
#
#   Tests/Integration/vivid/mjpeg-loopback.sh [--keep]
#
# Host: builds v4l2loopback (Debian's v4l2loopback-dkms source) for the VM's kernel against
# Debian's headers for it (apt: linux-headers-<the VM's kernel>, a few seconds' build), makes the
# stream (qrencode + ffmpeg); uses SYNCSCAN_BIN, else the debug build. Checks: every payload
# read, every frame record's format MJPG, the truncated frame a counted drop (undecodable) and
# frames scanned after it, exit 0. Prints one "ok"/"FAIL" line per check, last "N passed, M failed".
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
KEEP=0; [ "${1:-}" = --keep ] && KEEP=1
say() { echo "[mjpeg-loopback] $*" >&2; }
die() { say "error: $*"; echo "0 passed, 1 failed"; exit 1; }
PAYLOADS=(syncscan-mjpeg-A syncscan-mjpeg-B syncscan-mjpeg-C)
BIN=${SYNCSCAN_BIN:-}
if [ -z "$BIN" ]; then
  swift build --package-path "$ROOT" --product syncscan >&2 || die "swift build failed"
  BIN=$(swift build --package-path "$ROOT" --product syncscan --show-bin-path)/syncscan
fi
"$ROOT/Tests/Integration/vivid/vm.sh" --prepare >&2 || die "vm.sh --prepare failed"
KPKG=${VIVID_KERNEL_PKG:-$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')}
K=${KPKG#linux-image-}
[ -n "$K" ] || die "no kernel package found (apt-cache depends linux-image-amd64)"
T=$(mktemp -d /tmp/syncscan-mjpeg-loopback.XXXXXX)
# ---- the module, for the VM's kernel
if [ ! -d "/usr/src/linux-headers-$K" ]; then
  say "installing linux-headers-$K"
  { apt-get -q install -y --no-install-recommends "linux-headers-$K" || { apt-get -q update && \
    apt-get -q install -y --no-install-recommends "linux-headers-$K"; }; } >&2 || die "apt-get install linux-headers-$K failed"
fi
(cd "$T" && apt-get -q -o APT::Sandbox::User=root download v4l2loopback-dkms >&2) || die "apt-get download v4l2loopback-dkms failed"
dpkg-deb -x "$T"/v4l2loopback-dkms_*.deb "$T/src" || die "unpacking v4l2loopback-dkms failed"
SRC=$(dirname "$(find "$T/src/usr/src" -name v4l2loopback.c | head -1)")
make -C "/usr/src/linux-headers-$K" M="$SRC" modules > "$T/module-build.log" 2>&1 || { tail -20 "$T/module-build.log" >&2; die "building v4l2loopback failed"; }
cp "$SRC/v4l2loopback.ko" "$T/" || die "no v4l2loopback.ko"
# ---- the stream: 10 frames of each payload, a truncated JPEG after the first payload's
for i in "${!PAYLOADS[@]}"; do
  qrencode -o "$T/qr-$i.png" -s 6 -m 4 "${PAYLOADS[$i]}" || die "qrencode failed"
  ffmpeg -loglevel error -y -i "$T/qr-$i.png" -vf "pad=640:480:(ow-iw)/2:(oh-ih)/2:white" -pix_fmt yuvj422p -q:v 3 \
    "$T/frame-$i.jpg" || die "ffmpeg failed"
done
{
  for _ in $(seq 10); do cat "$T/frame-0.jpg"; done
  head -c $(( $(stat -c %s "$T/frame-1.jpg") / 2 )) "$T/frame-1.jpg"   # truncated: no end of image
  for i in 1 2; do for _ in $(seq 10); do cat "$T/frame-$i.jpg"; done; done
} > "$T/stream.mjpeg"
cat > "$T/guest.sh" <<'EOF'
set -u
BIN=$1 OUT=$2
busybox insmod "$OUT/v4l2loopback.ko" video_nr=5 exclusive_caps=0 card_label=mjpegcam > "$OUT/insmod.log" 2>&1 || { echo "insmod failed"; cat "$OUT/insmod.log"; exit 1; }
ffmpeg -loglevel error -re -framerate 10 -stream_loop -1 -f mjpeg -i "$OUT/stream.mjpeg" -c:v copy -f v4l2 /dev/video5 \
  > "$OUT/ffmpeg.log" 2>&1 &
feeder=$!
end=$(( $(cut -d. -f1 /proc/uptime) + 120 ))
until v4l2-ctl -d /dev/video5 --get-fmt-video 2>/dev/null | grep -q "'MJPG'" || [ "$(cut -d. -f1 /proc/uptime)" -ge $end ]; do sleep 0.5; done
v4l2-ctl -d /dev/video5 --get-fmt-video --list-formats-ext > "$OUT/format.txt" 2>&1
# four passes of the 31-frame stream (124 frames): every payload and the truncated frame four times
timeout -k 5 600 "$BIN" run --source /dev/video5 --max-frames 124 --emit-frames --duplicate-window 0 --scanning-threads 1 \
  > "$OUT/run.jsonl" 2> "$OUT/run.err"
echo $? > "$OUT/run.rc"
kill $feeder 2>/dev/null
EOF
say "booting the VM (results in $T)"
"$ROOT/Tests/Integration/vivid/vm.sh" --no-loop --share "$T" --timeout 900 -- bash "$T/guest.sh" "$BIN" "$T" >&2
vm_rc=$?
PASSED=0 FAILED=0
check() { local name=$1; shift; if "$@"; then PASSED=$((PASSED + 1)); echo "ok   $name"; else FAILED=$((FAILED + 1)); echo "FAIL $name"; fi; }
j() { jq -s "$@" "$T/run.jsonl" 2>/dev/null; }
holds() { jq -se "$1" "$T/run.jsonl" >/dev/null 2>&1; }   # the JSON lines satisfy jq filter $1
echo "  run: exit $(cat "$T/run.rc" 2>/dev/null); $(grep -m1 'camera streaming' "$T/run.err")"
echo "  frames: $(j '[.[] | select(.type == "frame")] | length'), dropped by reason: $(j -c '[.[] | select(.type == "frame" and .dropped != null) | .dropped] | group_by(.) | map({(.[0]): length}) | add // {}')"
echo "  codes: $(j -c '[.[] | select(.type == "code") | .text] | group_by(.) | map({(.[0]): length}) | add // {}')"
echo "  summary: $(grep 'syncscan: summary' "$T/run.err")"
check "the VM ran the capture (vm.sh exit 0) and syncscan exited 0" sh -c '[ "$1" = 0 ] && [ "$(cat "$2/run.rc")" = 0 ]' _ "$vm_rc" "$T"
every_payload() { for p in "${PAYLOADS[@]}"; do jq -se --arg p "$p" 'any(.[]; .type == "code" and .text == $p)' "$T/run.jsonl" >/dev/null || return 1; done; }
check "every payload read from the MJPEG camera" every_payload
check "every code's frame.format is MJPG" holds '[.[] | select(.type == "code")] | length > 0 and all(.[]; .frame.format == "MJPG")'
check "the truncated JPEG is a counted drop (undecodable), in the ledger and the summary" \
  sh -c 'jq -se "any(.[]; .type == \"frame\" and .dropped == \"undecodable\")" "$1/run.jsonl" >/dev/null && grep -q "undecodable=[1-9]" "$1/run.err"' _ "$T"
after_drop() {
  jq -se '[.[] | select(.type == "frame")] as $f | ([$f[] | select(.dropped == "undecodable") | .seq] | first) as $d
          | $d != null and any($f[]; .seq > $d and .dropped == null and .codes > 0)' "$T/run.jsonl" >/dev/null
}
check "frames after the truncated one are scanned (codes read)" after_drop
check "the ledger: every sequence number once, in order" \
  holds '[.[] | select(.type == "frame") | .seq] as $s | length > 0 and all(range(1; $s | length); $s[.] == $s[. - 1] + 1)'
[ "$KEEP" = 1 ] || [ "$FAILED" != 0 ] || rm -rf "$T"
[ "$FAILED" = 0 ] || say "results kept in $T"
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
