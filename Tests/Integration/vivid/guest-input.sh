#!/usr/bin/env bash
# guest-input.sh - the keyboard wedge and the key trigger against the VM kernel's uinput and evdev
# (run by guest-run.sh INSIDE the vivid VM; vm.sh's /init loads uinput and evdev).
#
#   guest-input.sh BIN OUTDIR
#
# OUTDIR/wedge.y4m (made by test-vivid.sh) holds QR codes of syncscan-vivid-A, Grüße and
# "Mixed Case: #1!". Prints one "ok   NAME" / "FAIL NAME (detail)" line per check to
# OUTDIR/input-results.txt and keeps the daemon's stderr (input.stderr) beside it. One daemon,
# `BIN run --source y4m:- --no-discard-late --log-level debug` (every frame scanned, as a file's),
# with keyboard.enabled and trigger.key.device:
#  1. the wedge: the Y4M is piped in only once evdev-tool.py has found and opened the virtual
#     keyboard; it reads back what the kernel's evdev node delivered (struct input_event) and
#     decodes it with a US keymap of its own.
#  2. the key trigger: evdev-tool.py makes a uinput device with KEY_F12 (a foot switch) before the
#     daemon starts (its node is trigger.key.device); the daemon logs each press at debug; the
#     device is unplugged and plugged back and a second press counted.
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

# One daemon for both (each start of the debug binary costs tens of seconds under TCG): the foot
# switch exists before it starts; the Y4M is piped in once the reader has the keyboard open; the
# pipe stays open until the key checks are done.
NAME="syncscan wedge test"
K=/tmp/keydir
rm -rf "$K" /tmp/wedge-ready; mkdir -p "$K"
"${TOOL[@]}" key "syncscan foot switch" "$K" 2> "$OUT/input-key-tool.stderr" &
tool=$!
"${TOOL[@]}" read "$NAME" "$OUT/input-typed.txt" /tmp/wedge-ready 3 2> "$OUT/input-reader.stderr" &
reader=$!
wait_for 60 test -s "$K/node"
node=$(cat "$K/node" 2>/dev/null)
E=$OUT/input.stderr
{ wait_for 120 test -e /tmp/wedge-ready; cat "$OUT/wedge.y4m"; wait_for 200 test -e "$K/stop"; } \
  | SYNCSCAN_KEYBOARD_ENABLED=true SYNCSCAN_KEYBOARD_DEVICE_NAME="$NAME" \
    SYNCSCAN_TRIGGER_KEY_DEVICE="$node" SYNCSCAN_TRIGGER_KEY_CODE=KEY_F12 \
    timeout -k 5 240 "$BIN" run --source y4m:- --no-discard-late --log-level debug > "$OUT/input.jsonl" 2> "$E" &
daemon=$!
count() { grep -c "$1" "$E"; }
seen() { [ "$(count "$2")" -ge "$1" ]; }  # seen N PATTERN: N lines of the daemon's stderr match

# ---- 1. the keyboard wedge: the reader ends 3 s after the last key it read
wait "$reader"
check "wedge: the virtual keyboard was created (logged with its /dev/input node)" "$(grep -m1 keyboard "$E")" \
  sh -c 'grep "keyboard wedge: typing codes on a virtual keyboard" "$1" | grep -q "device=/dev/input/event"' _ "$E"
expected=$(printf 'syncscan-vivid-A\nMixed Case: #1!\n')
typed=$(cat "$OUT/input-typed.txt" 2>/dev/null; echo x); typed=${typed%x}
check "wedge: the kernel's evdev events type back each code and Enter, Grüße left out" \
  "typed $(printf %q "$typed"); reader: $(tail -1 "$OUT/input-reader.stderr" 2>/dev/null)" test "$typed" = "$expected"$'\n'
check "wedge: the refusal is one line naming the character" "$(count 'code not typed') lines" \
  test "$(grep -c "code not typed: 'ü' (U+00FC) at character 3 has no key on the us keyboard layout" "$E")" = 1

# ---- 2. the key trigger
check "key: the daemon opened the foot switch ($node)" "$(grep -m2 'key trigger' "$E" | tr '\n' ' ')" \
  wait_for 60 seen 1 'key trigger: reading KEY_F12'
touch "$K/press"
wait_for 30 seen 1 'key trigger: press'
check "key: a press of KEY_F12 is one press and one release (the autorepeat ignored)" \
  "presses $(count 'key trigger: press'), releases $(count 'key trigger: release')" \
  sh -c 'sleep 0.5; test "$(grep -c "key trigger: press" "$1")" = 1 && test "$(grep -c "key trigger: release" "$1")" = 1' _ "$E"
touch "$K/unplug"
check "key: the unplugged device is logged as gone" "$(grep -m1 -i 'error.*key trigger' "$E")" \
  wait_for 30 seen 1 'key trigger: .*went away'
touch "$K/replug"
wait_for 30 test -s "$K/replugged"
check "key: the device plugged back is opened again" "replugged as $(cat "$K/replugged" 2>/dev/null)" \
  wait_for 30 seen 2 'key trigger: reading KEY_F12'
touch "$K/press"
wait_for 30 seen 2 'key trigger: press'
touch "$K/stop" "$K/quit"
wait "$daemon"
rc=$?
wait "$tool"
summary=$(grep 'summary:' "$E" | tail -1)
check "syncscan run with keyboard.enabled and trigger.key.device exits 0" "exit $rc; $(tail -2 "$E" | tr '\n' ' ')" test "$rc" = 0
check "wedge: keyboard_typed=2 keyboard_refused=1 keyboard_dropped=0 in the summary" "$summary" \
  grep -q 'keyboard_typed=2 keyboard_refused=1 keyboard_dropped=0' <<< "$summary"
check "key: trigger_key_presses=2 trigger_key_reopens=1 in the summary" "$summary" \
  grep -q 'trigger_key_presses=2 trigger_key_reopens=1' <<< "$summary"
awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "input checks: %.1f s\n", b - a }' >> "$R"
exit 0
