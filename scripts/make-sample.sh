#!/usr/bin/env bash
# Makes samples/generated/sample.y4m: 6 s of 640x480 greyscale video at 10 fps in which three QR
# codes and one Code 128 barcode appear and leave. Generated from qrencode/zint output, never committed.
#   t 0.0–2.0  QR "syncscan sample A"            (left)
#   t 1.0–3.5  QR "https://example.org/syncscan?id=42" (right)
#   t 3.0–5.0  Code 128 "SYNCSCAN-128"           (bottom)
#   t 4.5–6.0  QR "Grüße ✓ syncscan"             (centre)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$ROOT/samples/generated/sample.y4m}
[ -s "$OUT" ] && [ "$OUT" -nt "$0" ] && exit 0
mkdir -p "$(dirname "$OUT")"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
qrencode -s 6 -m 2 -o "$T/a.png" "syncscan sample A"
qrencode -s 5 -m 2 -o "$T/b.png" "https://example.org/syncscan?id=42"
zint -b 20 -d "SYNCSCAN-128" --height=50 --scale=1.5 -o "$T/c.png" >/dev/null
qrencode -s 6 -m 2 -o "$T/d.png" "Grüße ✓ syncscan"
ffmpeg -loglevel error -y -f lavfi -i "color=c=white:s=640x480:r=10:d=6" \
  -i "$T/a.png" -i "$T/b.png" -i "$T/c.png" -i "$T/d.png" -filter_complex \
  "[0][1]overlay=30:60:enable='between(t,0,1.99)'[v1];\
   [v1][2]overlay=380:40:enable='between(t,1,3.49)'[v2];\
   [v2][3]overlay=60:300:enable='between(t,3,4.99)'[v3];\
   [v3][4]overlay=230:150:enable='between(t,4.5,6)',format=gray" \
  -frames:v 60 -f yuv4mpegpipe "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "sample: $OUT ($(du -h "$OUT" | cut -f1))" >&2
