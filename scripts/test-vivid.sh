#!/usr/bin/env bash
# test-vivid.sh - end-to-end test of syncscan against a real kernel V4L2 device (vivid in a VM).
#
#   scripts/test-vivid.sh                 build syncscan, run it in the VM for YUYV and GREY, check
#   scripts/test-vivid.sh --stand-in      check the harness only (v4l2-ctl capture + host zbarimg)
#   scripts/test-vivid.sh --check DIR     re-run only the host-side checks on a kept results DIR
# Options: --frames N (per format, default 240), --formats "YUYV GREY", --keep (keep the results
# directory even on success), --no-systemd (skip the second boot), --systemd-only (skip the first),
# --no-mjpeg (skip the MJPEG camera boot).
# The second boot (Tests/Integration/vivid/systemd/) runs systemd as PID 1, installs the .deb of
# scripts/package-deb.sh (release build on the host, checked by lintian; SYNCSCAN_DEB=FILE reuses
# one) with dpkg, checks the syncscan@video0 unit, unplug under systemd and vivid's kernel fault
# injection, and ends with apt-get purge.
# The third boot (Tests/Integration/vivid/mjpeg-loopback.sh, with the first boot's binary) is an
# MJPEG camera: v4l2loopback built for the VM's kernel (apt: linux-headers-<kernel>, a 5 s module
# build), fed ffmpeg's MJPEG of QR codes with a truncated JPEG; its checks count with the others.
# It took 46 s alone and 60 s as this third boot on the 2-core machine at a load average of 12 to 29.
# Environment: SYNCSCAN_BIN (use this binary, skip the build), SYNCSCAN_SCRATCH (swift build
# --scratch-path, default .build), UNPLUG_CYCLES (unplug/replug cycles in the systemd boot,
# default 12; 100 by hand takes about 30 more minutes), SYNCSCAN_VIVID_TIMEOUT (seconds a boot
# may take: 900 for the first, 2400 for the systemd boot, which took 1151 s on a loaded machine), plus vm.sh's (SYNCSCAN_VIVID_CACHE, VM_VERBOSE, ...).
#
# The host makes feed files of distinct QR frames ("syncscan-vivid-A/B/C", a few frames each,
# played in a loop on vivid's output node), boots ONE VM (Tests/Integration/vivid/vm.sh) that
# runs Tests/Integration/vivid/guest-run.sh, which captures with `syncscan run ... --emit-frames`
# once per format, then once more until codes were read in 8 frames (the payload run); then the
# host checks the JSON lines with jq. Prints a summary and, last, exactly "N passed, M failed";
# exits non-zero on any failure.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VIVID=$ROOT/Tests/Integration/vivid
say() { echo "[test-vivid] $*" >&2; }
die() { say "error: $*"; echo "0 passed, 1 failed"; exit 1; }

MODE=syncscan FRAMES=240 FORMATS="YUYV GREY" KEEP=0 CHECK_DIR= W=640 H=480 CREATED=0 SYSTEMD=1 PLAIN=1 MJPEG=1
PAYLOADS=(syncscan-vivid-A syncscan-vivid-B syncscan-vivid-C)
# Frames per payload in the feed; different lengths so a steady scan rate cannot alias onto one.
REPEATS=(10 12 14)
while [ $# -gt 0 ]; do
  case $1 in
    --stand-in) MODE=v4l2-ctl; shift ;;
    --check) CHECK_DIR=$(realpath "${2:?--check needs a results directory}"); shift 2 ;;
    --frames) FRAMES=${2:?}; shift 2 ;;
    --formats) FORMATS=${2:?}; shift 2 ;;
    --keep) KEEP=1; shift ;;
    --no-systemd) SYSTEMD=0; shift ;;
    --systemd-only) PLAIN=0; shift ;;
    --no-mjpeg) MJPEG=0; shift ;;
    -h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ $FRAMES =~ ^[1-9][0-9]*$ ]] || die "--frames must be a positive number, got '$FRAMES'"
for f in $FORMATS; do
  case $f in YUYV|GREY) ;; *) die "--formats: only YUYV and GREY are supported, got '$f'" ;; esac
done

# ------------------------------------------------------------------ host tools
need=()
command -v jq >/dev/null || need+=(jq)
command -v qrencode >/dev/null || need+=(qrencode)
command -v ffmpeg >/dev/null || need+=(ffmpeg)
command -v zbarimg >/dev/null || need+=(zbar-tools)
if [ ${#need[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] || die "missing tools; install: sudo apt-get install ${need[*]}"
  say "installing ${need[*]}"
  { apt-get -q install -y --no-install-recommends "${need[@]}" || { apt-get -q update && \
    apt-get -q install -y --no-install-recommends "${need[@]}"; }; } >&2 || die "apt-get install ${need[*]} failed"
fi

bytes_per_pixel() { case $1 in YUYV) echo 2 ;; GREY) echo 1 ;; esac; }
ffmpeg_pix_fmt() { case $1 in YUYV) echo yuyv422 ;; GREY) echo gray ;; esac; }

# ------------------------------------------------------------------ run (unless --check)
VM_SECONDS=?
if [ -z "$CHECK_DIR" ]; then
  T=$(mktemp -d /tmp/syncscan-vivid-test.XXXXXX)
  CREATED=1
  BIN=-
  if [ $MODE = syncscan ] && [ $PLAIN = 1 ]; then
    if [ -n "${SYNCSCAN_BIN:-}" ]; then
      BIN=$(realpath "$SYNCSCAN_BIN") || die "SYNCSCAN_BIN=$SYNCSCAN_BIN does not exist"
    else
      build=(swift build --package-path "$ROOT" --product syncscan --scratch-path "${SYNCSCAN_SCRATCH:-$ROOT/.build}")
      say "${build[*]}"
      "${build[@]}" >&2 || die "swift build failed"
      BIN=$("${build[@]}" --show-bin-path)/syncscan
    fi
    [ -x "$BIN" ] || die "no executable syncscan at $BIN"
    HOST_BIN=$BIN  # mjpeg-loopback.sh shares its own directory with its VM: it gets the binary where it is
    # The guest sees fresh, empty /tmp /run /var/tmp: bring a binary from there along.
    case $BIN in /tmp/*|/run/*|/var/tmp/*|/dev/shm/*) cp "$BIN" "$T/syncscan"; BIN=$T/syncscan ;; esac
  fi
  # feeds: each payload as a centred QR code on white, REPEATS[i] frames of it, in a row
  for i in "${!PAYLOADS[@]}"; do
    qrencode -o "$T/qr-$i.png" -s 6 -m 4 "${PAYLOADS[$i]}" || die "qrencode failed"
  done
  # feed FORMAT QRPREFIX OUT: each payload's QR code (QRPREFIX-i.png) padded to WxH, in a row
  feed() {
    for i in "${!PAYLOADS[@]}"; do
      ffmpeg -loglevel error -y -i "$2-$i.png" -vf "pad=$W:$H:(ow-iw)/2:(oh-ih)/2:white" \
        -pix_fmt "$(ffmpeg_pix_fmt "$1")" -f rawvideo "$T/frame-$i.raw" || die "ffmpeg failed"
      for _ in $(seq "${REPEATS[$i]}"); do cat "$T/frame-$i.raw"; done
    done > "$3"
    rm -f "$T"/frame-*.raw
  }
  for f in $FORMATS; do feed "$f" "$T/qr" "$T/feed-$f.raw"; done
  # The keyboard wedge's Y4M (guest-input.sh): a frame each of a code, one the US keymap cannot
  # type (Grüße), and one that needs Shift; 320x240 GREY.
  if [ $MODE = syncscan ] && [ $PLAIN = 1 ]; then
    i=0
    for p in syncscan-vivid-A "Grüße" "Mixed Case: #1!"; do
      qrencode -o "$T/wedge-$i.png" -s 6 -m 4 "$p" || die "qrencode failed"
      ffmpeg -loglevel error -y -i "$T/wedge-$i.png" -vf "pad=320:240:(ow-iw)/2:(oh-ih)/2:white" -pix_fmt gray \
        -f rawvideo "$T/wedge-$i.raw" || die "ffmpeg failed"
      i=$((i + 1))
    done
    cat "$T"/wedge-0.raw "$T"/wedge-1.raw "$T"/wedge-2.raw \
      | ffmpeg -loglevel error -y -f rawvideo -pix_fmt gray -s 320x240 -r 10 -i - -f yuv4mpegpipe -pix_fmt gray "$T/wedge.y4m" \
      || die "ffmpeg (wedge.y4m) failed"
    rm -f "$T"/wedge-*.png "$T"/wedge-*.raw
  fi
  # The systemd boot's feed: GREY, the QR codes twice as large (12 px a module), since its daemon
  # asks for 160x120 of the 640x480 loop (3 px a module left after vivid's scaling).
  if [ $MODE = syncscan ] && [ $SYSTEMD = 1 ]; then
    for i in "${!PAYLOADS[@]}"; do
      qrencode -o "$T/qr12-$i.png" -s 12 -m 4 "${PAYLOADS[$i]}" || die "qrencode failed"
    done
    feed GREY "$T/qr12" "$T/feed-systemd.raw"
  fi
  printf 'MODE=%q FRAMES=%q FORMATS=%q W=%q H=%q\n' "$MODE" "$FRAMES" "$FORMATS" "$W" "$H" > "$T/params"
  # The V4L2 real-device Swift suite runs in the same boot, from the test bundle (scripts/test.sh
  # builds it first: swift build --build-tests); SYNCSCAN_XCTEST names another bundle. A missing
  # bundle fails its check.
  XCTEST=${SYNCSCAN_XCTEST:-${SYNCSCAN_SCRATCH:-$ROOT/.build}/debug/syncscanPackageTests.xctest}
  if [ $MODE = syncscan ]; then
    if [ -x "$XCTEST" ]; then realpath "$XCTEST" > "$T/xctest"; else echo "$XCTEST" > "$T/xctest-missing"; fi
  fi
  # Frames with a code the guest's payload run waits for (guest-run.sh reads it here).
  PAYLOAD_FRAMES=8
  printf 'PLAIN=%q SYSTEMD=%q PAYLOAD_FRAMES=%q\n' "$PLAIN" "$SYSTEMD" "$PAYLOAD_FRAMES" >> "$T/params"
  vm_rc=0
  if [ $PLAIN = 1 ]; then
    say "booting the vivid VM ($MODE, formats: $FORMATS, $FRAMES frames each; results in $T)"
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    "$VIVID/vm.sh" --no-loop --share "$T" --timeout "${SYNCSCAN_VIVID_TIMEOUT:-900}" -- \
      bash "$VIVID/guest-run.sh" "$MODE" "$BIN" "$T" "$FRAMES" "$W" "$H" $FORMATS 2>&1 | sed 's/^/  vm| /' >&2
    vm_rc=${PIPESTATUS[0]}
    VM_SECONDS=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  fi
  if [ $MODE = syncscan ] && [ $SYSTEMD = 1 ]; then
    # systemd as PID 1, syncscan installed from its .deb (scripts/package-deb.sh, release, built here)
    t0=$(date +%s.%N)
    DEB=${SYNCSCAN_DEB:-}
    if [ -z "$DEB" ]; then
      say "scripts/package-deb.sh (release build, lintian)"
      DEB=$(SYNCSCAN_SCRATCH="${SYNCSCAN_SCRATCH:-$ROOT/.build}" "$ROOT/scripts/package-deb.sh" --output "$T/deb") \
        || { say "package-deb.sh failed"; echo "FAIL systemd: scripts/package-deb.sh built the .deb and lintian passed it" > "$T/systemd-results.txt"; DEB=; }
    fi
    if [ -n "$DEB" ]; then
      say "booting the systemd vivid VM with $(basename "$DEB") (results in $T/sysvm/job)"
      if "$VIVID/systemd/build.sh" "$T/sysvm" "$DEB" "$T/feed-systemd.raw" >&2; then
        TIMEOUT=${SYNCSCAN_VIVID_TIMEOUT:-2400} "$VIVID/systemd/boot.sh" "$T/sysvm"
        sys_rc=$?
        cp "$T/sysvm/job/results.txt" "$T/systemd-results.txt" 2>/dev/null || : > "$T/systemd-results.txt"
        if [ $sys_rc != 0 ]; then
          say "the systemd VM did not finish: $(cat "$T/sysvm/job/failed" 2>/dev/null); console tail:"
          tail -30 "$T/sysvm/run/console.log" | tr -d '\r' >&2
          echo "FAIL systemd: the VM ran the test script to the end (boot.sh exit $sys_rc)" >> "$T/systemd-results.txt"
        fi
      else
        echo "FAIL systemd: build.sh prepared the VM" > "$T/systemd-results.txt"
      fi
      rm -rf "$T/sysvm/layer" "$T/sysvm/vmlinux" "$T/sysvm/initramfs.cpio"
    fi
    SYS_SECONDS=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  fi
  if [ $MODE = syncscan ] && [ $PLAIN = 1 ] && [ $MJPEG = 1 ]; then
    say "Tests/Integration/vivid/mjpeg-loopback.sh (an MJPEG camera on v4l2loopback, its own VM boot)"
    t0=$(date +%s.%N)
    SYNCSCAN_BIN=$HOST_BIN "$VIVID/mjpeg-loopback.sh" > "$T/mjpeg-results.txt"
    echo "exit $?" >> "$T/mjpeg-results.txt"
    awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", b - a }' > "$T/mjpeg.seconds"
  fi
  CHECK_DIR=$T
else
  [ -f "$CHECK_DIR/params" ] || die "$CHECK_DIR/params missing: not a results directory of this script"
  # shellcheck disable=SC1091
  source "$CHECK_DIR/params"
  vm_rc=0
fi
D=$CHECK_DIR

# ------------------------------------------------------------------ checks
PASSED=0 FAILED=0 SKIPPED=0
check() {  # check NAME DETAIL COMMAND... : pass when COMMAND succeeds
  local name=$1 detail=$2; shift 2
  if "$@"; then PASSED=$((PASSED + 1)); echo "ok   $name"
  else FAILED=$((FAILED + 1)); echo "FAIL $name${detail:+ ($detail)}"; fi
}
# judged FORMAT COUNT FILE JQ-ARGUMENTS... PROGRAM: a check for each "ok|FAIL<TAB>name<TAB>detail" line
# of `jq -rs JQ-ARGUMENTS... PROGRAM FILE`, which must exit 0 and print exactly COUNT lines.
judged() {
  local format=$1 count=$2 file=$3 verdicts rc lines verdict name detail; shift 3
  verdicts=$(jq -rs "$@" "$file" 2>&1); rc=$?
  lines=$(grep -c . <<< "$verdicts")
  check "$format: jq judged $(basename "$file") ($count checks)" "jq exit $rc, $lines lines: $(tail -2 <<< "$verdicts" | tr '\n' ' ')" \
    test "$rc $lines" = "0 $count"
  [ "$rc" = 0 ] || return 0
  while IFS=$'\t' read -r verdict name detail; do
    case $verdict in
      ok) check "$format: $name" "" true ;;
      *) check "$format: $name" "$detail" false ;;
    esac
  done <<< "$verdicts"
}
PLAIN=${PLAIN:-1} SYSTEMD=${SYSTEMD:-0} PAYLOAD_FRAMES=${PAYLOAD_FRAMES:-8}
if [ "$PLAIN" = 0 ]; then FORMATS=; fi
[ "$PLAIN" = 0 ] || {
check "VM booted and the guest script ran (exit 0)" "vm.sh exit $vm_rc" test "$vm_rc" = 0
check "v4l2-ctl --list-devices in the VM shows vivid's /dev/video0" "$(tr '\n\t' ' ' < "$D/list-devices.txt" 2>/dev/null)" \
  grep -qs $'^\t/dev/video0$' "$D/list-devices.txt"

}
EXPECTED_JSON=$(printf '%s\n' "${PAYLOADS[@]}" | jq -R . | jq -sc .)
SUMMARY=()

if [ "$MODE" = syncscan ] && [ "$PLAIN" = 1 ]; then
  check "syncscan devices and devices --json exit 0" "exit statuses: $(tr '\n' ' ' < "$D/devices.rc" 2>/dev/null)" \
    test "$(tr -d '\n' < "$D/devices.rc" 2>/dev/null)" = 00
  check "syncscan devices (text) names /dev/video0" "" grep -qs /dev/video0 "$D/devices.txt"
  devices_json() { jq -e "$1" "$D/devices.json" >/dev/null 2>&1; }
  check "syncscan devices --json lists /dev/video0 with vivid's card name" "$(head -c 300 "$D/devices.json" 2>/dev/null)" \
    devices_json 'type == "array" and any(.[]; .path == "/dev/video0" and (.card | test("vivid"; "i")))'
  check "syncscan devices --json leaves out the output-only node /dev/video1" "" \
    devices_json 'type == "array" and all(.[]; .path != "/dev/video1")'

  # One jq program judges a run's JSON lines; it prints one "ok|FAIL<TAB>name<TAB>detail" per check.
  # shellcheck disable=SC2016
  JUDGE='
    def pairs(a): [range(1; a | length) as $i | [a[$i - 1], a[$i]]];
    def frames: map(select(.type == "frame"));
    def codes: map(select(.type == "code"));
    . as $all | frames as $F | codes as $C | ($F | map(select(.dropped == null))) as $S
    | ($S | map({key: (.seq | tostring), value: .}) | from_entries) as $byseq
    | ([$C[].text] | unique) as $seen
    | [
      [all($all[]; .type == "frame" or .type == "code"), "every stdout line is a frame or code record",
       ($all | map(.type) | unique | tostring)],
      [($F | length) == $n, "\($n) frame records (--max-frames counts scanned and dropped)", "got \($F | length)"],
      [all(pairs($F)[]; .[1].seq == .[0].seq + 1), "frame records: seq consecutive, in order, each exactly once",
       (first(pairs($F)[] | select(.[1].seq != .[0].seq + 1)) // [] | map(.seq) | "first break: \(.)")],
      [all($F[]; .dropped == null or (.dropped | IN("lateData", "outOfBuffers", "discontinuity"))),
       "dropped frames carry a known reason", ($F | map(.dropped) | unique | tostring)],
      [($S | length) > 0 and all($S[]; .pts | type == "number"), "some frames scanned, each with a numeric pts",
       "\($S | length) scanned"],
      [all(pairs($S)[]; .[1].pts > .[0].pts), "pts of scanned frames strictly increasing",
       (first(pairs($S)[] | select(.[1].pts <= .[0].pts)) // [] | map({seq, pts}) | tostring)],
      [all($C[]; $byseq[.frame.seq | tostring] != null), "every code points at a scanned frame record (by seq)",
       ([$C[].frame.seq | select($byseq[tostring] == null)] | unique | "unmatched seqs \(.)")],
      [all($C[]; $byseq[.frame.seq | tostring] as $f | $f != null and .frame.pts == $f.pts),
       "every code carries its frame'"'"'s pts", ""],
      [all($C[]; .frame.width == $w and .frame.height == $h and .frame.format == $fmt),
       "every code'"'"'s frame is \($w)x\($h) \($fmt)", ($C | map(.frame | "\(.width)x\(.height) \(.format)") | unique | tostring)],
      [all($S[]; .seq as $s | .codes == ([$C[] | select(.frame.seq == $s)] | length)),
       "each scanned frame record counts exactly its code records", ""],
      [all(pairs($C)[]; .[1].frame.seq >= .[0].frame.seq), "codes come in increasing kernel sequence order", ""],
      [all($C[]; .symbology == "qrcode" and .text == (.data_b64 | @base64d)), "codes are qrcode with data_b64 == text", ""],
      [all($C[]; .text | IN($expected[])), "only the fed payloads decoded",
       ($seen - $expected | "unexpected: \(.)")]
    ] | .[] | "\(if .[0] then "ok" else "FAIL" end)\t\(.[1])\t\(.[2])"'
  JUDGE_CHECKS=13  # the lines JUDGE prints: fewer (jq stopped on a line it could not judge) fail the run
  # The payload run's lines (guest-run.sh: codes read until they were in $need frames, waited for):
  # which payload a scan meets depends on when the VM gets to scan, and a starved emulated CPU
  # scans a few of the 240 frames above; in $need frames with a code, two payloads are seen.
  # shellcheck disable=SC2016
  PAYLOAD_JUDGE='
    map(select(.type == "code")) as $C | ([$C[].text] | unique) as $seen | ([$C[].frame.seq] | unique | length) as $k
    | [[$k >= $need, "the payload run read codes in \($need) frames", "codes in \($k) frames"],
       [($seen | length) >= 2 and all($seen[]; IN($expected[])), "at least 2 of the 3 fed payloads decoded, and only those",
        "seen: \($seen) in \($k) frames with a code"]]
    | .[] | "\(if .[0] then "ok" else "FAIL" end)\t\(.[1])\t\(.[2])"'
  PAYLOAD_CHECKS=2
  # shellcheck disable=SC2016
  STATS='
    (map(select(.type == "frame"))) as $F
    | "frames \($F | length): scanned \($F | map(select(.dropped == null)) | length), dropped \($F | map(select(.dropped != null)) | length) \($F | map(select(.dropped != null) | .dropped) | group_by(.) | map({(.[0]): length}) | add // {} | tostring); codes \(map(select(.type == "code")) | length), payloads \(map(select(.type == "code") | .text) | unique)"'
fi

for f in $FORMATS; do
  rc=$(cat "$D/run-$f.rc" 2>/dev/null || echo missing)
  secs=$(cat "$D/run-$f.seconds" 2>/dev/null || echo ?)
  if [ "$MODE" = syncscan ]; then
    out=$D/run-$f.jsonl
    check "$f: syncscan run exits 0" "exit $rc; stderr: $(tail -3 "$D/run-$f.stderr" 2>/dev/null | tr '\n' ' ')" test "$rc" = 0
    if jq -s 'length' "$out" >/dev/null 2>&1; then
      check "$f: stdout is JSON lines" "" true
      judged "$f" "$JUDGE_CHECKS" "$out" --argjson n "$FRAMES" --argjson w "$W" --argjson h "$H" --arg fmt "$f" \
        --argjson expected "$EXPECTED_JSON" "$JUDGE"
      # Snapshots: every JPEG a code line names is in the directory and zbarimg reads the line's payload from it.
      named=$(jq -r 'select(.type == "code" and .snapshot != null) | "\(.snapshot)\t\(.text)"' "$out" | sort -u)
      nnamed=$(grep -c . <<< "$named")
      check "$f: code lines name JPEG snapshots" "none of $(jq -s 'map(select(.type == "code")) | length' "$out") code lines" \
        test "$nnamed" -gt 0
      undecoded=0
      while IFS=$'\t' read -r file text; do
        [ -n "$file" ] || continue
        zbarimg -q --raw "$D/snapshots-$f/$file" 2>/dev/null | grep -qxF "$text" || undecoded=$((undecoded + 1))
      done <<< "$named"
      check "$f: every named snapshot decodes to its line's payload (zbarimg)" "$undecoded of $nnamed do not" test "$undecoded" = 0
      SUMMARY+=("$f: $(jq -rs "$STATS" "$out"); snapshots named $nnamed; capture ${secs}s; stderr: $(tail -1 "$D/run-$f.stderr" 2>/dev/null)")
      prc=$(cat "$D/payloads-$f.rc" 2>/dev/null || echo missing)
      check "$f: the payload run exits 0 on SIGTERM" "exit $prc; stderr: $(tail -3 "$D/payloads-$f.stderr" 2>/dev/null | tr '\n' ' ')" \
        test "$prc" = 0
      judged "$f" "$PAYLOAD_CHECKS" "$D/payloads-$f.jsonl" --argjson need "$PAYLOAD_FRAMES" --argjson expected "$EXPECTED_JSON" \
        "$PAYLOAD_JUDGE"
    else
      check "$f: stdout is JSON lines" "$(grep -vn '^{' "$out" 2>/dev/null | head -2 | tr '\n' ' ')" false
      SUMMARY+=("$f: no usable output; capture ${secs}s")
    fi
  else
    size=$(( W * H * $(bytes_per_pixel "$f") ))
    raw=$D/capture-$f.raw
    check "$f: v4l2-ctl capture exits 0" "exit $rc" test "$rc" = 0
    got=$(stat -c %s "$raw" 2>/dev/null || echo 0)
    check "$f: captured $FRAMES whole frames" "got $got bytes, want $((FRAMES * size))" test "$got" = $((FRAMES * size))
    mkdir -p "$D/png-$f"
    ffmpeg -loglevel error -y -f rawvideo -pix_fmt "$(ffmpeg_pix_fmt "$f")" -s "${W}x$H" -i "$raw" "$D/png-$f/%04d.png" 2>/dev/null
    decoded=$(zbarimg -q --raw "$D/png-$f"/*.png 2>/dev/null)
    ndec=$(grep -c . <<< "$decoded")
    check "$f: every captured frame decodes on the host (zbarimg)" "$ndec of $FRAMES" test "$ndec" = "$FRAMES"
    bad=$(grep -vxF -f <(printf '%s\n' "${PAYLOADS[@]}") <<< "$decoded" | sort -u | tr '\n' ' ')
    check "$f: only the fed payloads decoded" "unexpected: $bad" test -z "$bad"
    distinct=$(sort -u <<< "$decoded" | grep -c .)
    check "$f: at least 2 of the 3 fed payloads decoded" "seen $distinct" test "$distinct" -ge 2
    SUMMARY+=("$f: frames $((got / size)), decoded $ndec, payloads $(sort <<< "$decoded" | uniq -c | awk '{printf "%s x%s ", $2, $1}'); capture ${secs}s")
  fi
done

if [ "$MODE" = syncscan ] && [ "$PLAIN" = 1 ]; then
  if [ -s "$D/xctest" ]; then detail=$(grep -a 'Test run with' "$D/xctest.out" 2>/dev/null | tail -1)
  else detail="no test bundle at $(cat "$D/xctest-missing" 2>/dev/null || echo ?): swift build --build-tests, or SYNCSCAN_XCTEST"; fi
  check "V4L2 real-device Swift tests pass in the VM (RealDeviceTests)" "$detail" \
    sh -c 'test -s "$1/xctest" && test "$(cat "$1/xctest.rc" 2>/dev/null)" = 0 && grep -aq "Test run with 3 tests in 1 suite passed" "$1/xctest.out"' _ "$D"
fi
# the keyboard wedge and key trigger checks (guest-input.sh): one "ok   NAME" / "FAIL NAME (detail)" line each
if [ "$MODE" = syncscan ] && [ "$PLAIN" = 1 ]; then
  if [ -f "$D/input-results.txt" ]; then
    echo "--- keyboard wedge and key trigger (uinput, evdev; $(grep '^input checks:' "$D/input-results.txt" | cut -d' ' -f3-)):"
    while IFS= read -r l; do
      case $l in
        "ok   "*) PASSED=$((PASSED + 1)); echo "$l" ;;
        "FAIL "*) FAILED=$((FAILED + 1)); echo "$l" ;;
      esac
    done < "$D/input-results.txt"
  else
    FAILED=$((FAILED + 1)); echo "FAIL input: no results from guest-input.sh"
  fi
fi
# the systemd boot's checks: its guest script printed one "ok   NAME" / "FAIL NAME (detail)" line each
if [ -f "$D/systemd-results.txt" ]; then
  echo "--- systemd boot (systemd as PID 1, the .deb installed, kernel faults; ${SYS_SECONDS:-?}s):"
  while IFS= read -r l; do
    case $l in
      "ok   "*) PASSED=$((PASSED + 1)); echo "$l" ;;
      "FAIL "*) FAILED=$((FAILED + 1)); echo "$l" ;;
      "skip "*) SKIPPED=$((SKIPPED + 1)); echo "$l" ;;
      *) [ "${VERBOSE_SYSTEMD:-1}" = 1 ] && echo "$l" ;;
    esac
  done < "$D/systemd-results.txt"
  grep -qE '^(ok   |FAIL )' "$D/systemd-results.txt" || { FAILED=$((FAILED + 1)); echo "FAIL systemd: the guest script reported no checks"; }
elif [ "$MODE" = syncscan ] && [ "$SYSTEMD" = 1 ]; then
  FAILED=$((FAILED + 1)); echo "FAIL systemd: no results from the systemd boot"
fi
# the MJPEG camera boot's checks: mjpeg-loopback.sh printed its run's lines, then one "ok"/"FAIL" line each
if [ -f "$D/mjpeg-results.txt" ]; then
  echo "--- MJPEG camera boot (v4l2loopback, mjpeg-loopback.sh; $(cat "$D/mjpeg.seconds" 2>/dev/null || echo ?)s):"
  while IFS= read -r l; do
    case $l in
      "ok   "*) PASSED=$((PASSED + 1)); echo "ok   mjpeg: ${l#ok   }" ;;
      "FAIL "*) FAILED=$((FAILED + 1)); echo "FAIL mjpeg: ${l#FAIL }" ;;
      "  "*) echo "$l" ;;
    esac
  done < "$D/mjpeg-results.txt"
  grep -q '^ok   ' "$D/mjpeg-results.txt" || { FAILED=$((FAILED + 1)); echo "FAIL mjpeg: mjpeg-loopback.sh reported no checks ($(tail -1 "$D/mjpeg-results.txt"))"; }
fi
echo "--- summary ($MODE): VM run ${VM_SECONDS}s (boot + setup + captures + power-off), results in $D"
for s in "${SUMMARY[@]}"; do echo "  $s"; done
if [ "$FAILED" = 0 ] && [ "$KEEP" = 0 ] && [ "$CREATED" = 1 ]; then rm -rf "$D"; fi
echo "$PASSED passed, $FAILED failed$( [ "$SKIPPED" = 0 ] || echo ", $SKIPPED skipped")"
[ "$FAILED" = 0 ]
