#!/usr/bin/env bash
# guest-input.sh - the keyboard wedge and the key trigger against the VM kernel's uinput and evdev
# (run by guest-run.sh INSIDE the vivid VM; vm.sh's /init loads uinput and evdev).
#
#   guest-input.sh BIN OUTDIR
#
# OUTDIR/wedge.y4m (made by test-vivid.sh) holds QR codes of syncscan-vivid-A, Grüße and
# "Mixed Case: #1!". Prints one "ok   NAME" / "FAIL NAME (detail)" line per check to
# OUTDIR/input-results.txt and keeps the daemon's stderr (input-*.stderr) beside it.
#  1. the wedge: `BIN run --source y4m:- --no-discard-late` (every frame scanned, as a file's)
#     with keyboard.enabled; the Y4M is piped in only once
#     evdev-tool.py has found and opened the virtual keyboard, which then reads back what the
#     kernel's evdev node delivered (struct input_event) and decodes it with a US keymap of its own.
#  2. the key trigger: evdev-tool.py makes a uinput device with KEY_F12 (a foot switch) before the
#     daemon starts; the daemon (trigger.key.device: its node, log_level debug) logs each press;
#     the device is unplugged and plugged back and a second press counted.
set -uo pipefail
BIN=$1 OUT=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOOL=(/usr/bin/python3 "$HERE/evdev-tool.py")
R=$OUT/input-results.txt
: > "$R"
check() {  # check NAME DETAIL COMMAND...
  local name=$1 detail=$2; shift 2
  if "$@"; then echo "ok   $name" >> "$R"; else echo "FAIL $name${detail:+ ($detail)}" >> "$R"; fi
}
# wait_for SECONDS COMMAND...: until COMMAND succeeds or SECONDS pass
wait_for() {
  local until=$(( $(date +%s) + $1 )); shift
  until "$@"; do [ "$(date +%s)" -lt "$until" ] || return 1; sleep 0.1; done
}
now() { cut -d' ' -f1 /proc/uptime; }
t0=$(now)
check "input: /dev/uinput exists in the VM (uinput loaded)" "$(ls -l /dev/uinput 2>&1)" test -c /dev/uinput

# ---- 1. the keyboard wedge
NAME="syncscan wedge test"
rm -f /tmp/wedge-ready
"${TOOL[@]}" read "$NAME" "$OUT/input-typed.txt" /tmp/wedge-ready 3 2> "$OUT/input-reader.stderr" &
reader=$!
{ wait_for 120 test -e /tmp/wedge-ready; cat "$OUT/wedge.y4m"; } \
  | SYNCSCAN_KEYBOARD_ENABLED=true SYNCSCAN_KEYBOARD_DEVICE_NAME="$NAME" timeout -k 5 240 "$BIN" run --source y4m:- \
      --no-discard-late > "$OUT/input-wedge.jsonl" 2> "$OUT/input-wedge.stderr"
rc=$?
wait "$reader"
summary=$(grep 'summary:' "$OUT/input-wedge.stderr" | tail -1)
check "wedge: syncscan run with keyboard.enabled exits 0" "exit $rc; $(tail -2 "$OUT/input-wedge.stderr" | tr '\n' ' ')" test "$rc" = 0
check "wedge: the virtual keyboard was created (logged with its /dev/input node)" "$(grep -m1 keyboard "$OUT/input-wedge.stderr")" \
  sh -c 'grep "keyboard wedge: typing codes on a virtual keyboard" "$1" | grep -q "device=/dev/input/event"' _ "$OUT/input-wedge.stderr"
expected=$(printf 'syncscan-vivid-A\nMixed Case: #1!\n')
typed=$(cat "$OUT/input-typed.txt" 2>/dev/null; echo x); typed=${typed%x}
check "wedge: the kernel's evdev events type back each code and Enter, Grüße left out" \
  "typed $(printf %q "$typed"); reader: $(tail -1 "$OUT/input-reader.stderr" 2>/dev/null)" test "$typed" = "$expected"$'\n'
check "wedge: keyboard_typed=2 keyboard_refused=1 keyboard_dropped=0 in the summary" "$summary" \
  grep -q 'keyboard_typed=2 keyboard_refused=1 keyboard_dropped=0' <<< "$summary"
check "wedge: the refusal is one line naming the character" "$(grep -c 'code not typed' "$OUT/input-wedge.stderr") lines" \
  test "$(grep -c "code not typed: 'ü' (U+00FC) at character 3 has no key on the us keyboard layout" "$OUT/input-wedge.stderr")" = 1

# ---- 2. the key trigger
K=/tmp/keydir
rm -rf "$K"; mkdir -p "$K"
"${TOOL[@]}" key "syncscan foot switch" "$K" 2> "$OUT/input-key-tool.stderr" &
tool=$!
wait_for 60 test -s "$K/node"
node=$(cat "$K/node" 2>/dev/null)
E=$OUT/input-key.stderr
: > "$E"
# A source that stays open and costs nothing to scan: one blank 64x64 frame, then the pipe held open.
{ printf 'YUV4MPEG2 W64 H64 F10:1 Ip A1:1 Cmono\nFRAME\n'; head -c 4096 /dev/zero | tr '\0' '\377'
  wait_for 200 test -e "$K/stop"; } \
  | SYNCSCAN_TRIGGER_KEY_DEVICE="$node" SYNCSCAN_TRIGGER_KEY_CODE=KEY_F12 timeout -k 5 240 "$BIN" run --source y4m:- --log-level debug \
      > /dev/null 2> "$E" &
daemon=$!
count() { grep -c "$1" "$E"; }
wait_for 60 test "$(count 'key trigger: reading KEY_F12')" -ge 1
check "key: the daemon opened the foot switch ($node)" "$(grep -m2 'key trigger' "$E" | tr '\n' ' ')" \
  test "$(count 'key trigger: reading KEY_F12')" -ge 1
touch "$K/press"
wait_for 30 test "$(count 'key trigger: press')" -ge 1
check "key: a press of KEY_F12 is one press and one release (the autorepeat ignored)" \
  "presses $(count 'key trigger: press'), releases $(count 'key trigger: release')" \
  sh -c 'sleep 0.5; test "$(grep -c "key trigger: press" "$1")" = 1 && test "$(grep -c "key trigger: release" "$1")" = 1' _ "$E"
touch "$K/unplug"
wait_for 30 test "$(count 'key trigger: .*went away')" -ge 1
check "key: the unplugged device is logged as gone" "$(grep -m1 -i 'error.*key trigger' "$E")" test "$(count 'key trigger: .*went away')" -ge 1
touch "$K/replug"
wait_for 30 test -s "$K/replugged"
wait_for 30 test "$(count 'key trigger: reading KEY_F12')" -ge 2
check "key: the device plugged back is opened again" "replugged as $(cat "$K/replugged" 2>/dev/null)" \
  test "$(count 'key trigger: reading KEY_F12')" -ge 2
touch "$K/press"
wait_for 30 test "$(count 'key trigger: press')" -ge 2
touch "$K/stop" "$K/quit"
wait "$daemon"
rc=$?
wait "$tool"
summary=$(grep 'summary:' "$E" | tail -1)
check "key: syncscan run with trigger.key.device exits 0" "exit $rc" test "$rc" = 0
check "key: trigger_key_presses=2 trigger_key_reopens=1 in the summary" "$summary" \
  grep -q 'trigger_key_presses=2 trigger_key_reopens=1' <<< "$summary"
awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "input checks: %.1f s\n", b - a }' >> "$R"
exit 0
