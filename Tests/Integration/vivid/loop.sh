# loop.sh - guest-side helpers for vivid's loop mode; source it (bash) inside the VM.
#
#   vivid_loop_setup FOURCC WIDTH HEIGHT [TIMINGS]
#                                          configure output -> capture loop (stops the feeder);
#                                          TIMINGS as v4l2-ctl's --set-dv-bt-timings takes them
#                                          (e.g. cvt,width=640,height=480,fps=40: a lower rate)
#   vivid_feed_start FILE                  play raw FOURCC WIDTHxHEIGHT frames on the output, looping
#   vivid_feed_stop                        stop the feeder (no-op when none runs)
#
# vm.sh sources this before the command and exports VIVID_LOOP_SH with its path, so a guest
# script can reconfigure the loop between runs (e.g. YUYV, then GREY) in one VM boot.
# The loop only works when both nodes are HDMI, use the same DV timings, the same fourcc,
# size and field, and the output streams; otherwise the capture node shows noise.
# Tested on Debian's 6.1 kernel, where `loop_video` is a capture-node control (6.8+ differ).
# Each v4l2-ctl call costs 0.2-0.5 s under TCG, so the setup uses few of them.

VIVID_CAPTURE_DEV=${VIVID_CAPTURE_DEV:-/dev/video0}
VIVID_OUTPUT_DEV=${VIVID_OUTPUT_DEV:-/dev/video1}
VIVID_FEEDER_PID=

vivid_loop_setup() {
  local fourcc=$1 w=$2 h=$3 timing=${4:-} cap out
  vivid_feed_stop
  # Same DV timings on both sides: the ones asked for, else the driver's first progressive entry
  # of this size (640x480 -> 640x480p59.94), else CVT timings at 60 Hz. vivid takes a standard
  # entry or valid CVT/GTF timings with a pixel clock of at least 14 MHz (seen on 6.1: CVT 640x480
  # at 30 fps refused, at 40 fps, 15.5 MHz, taken; its slowest standard entry is 1280x720p24).
  [ -n "$timing" ] || timing=$(v4l2-ctl -d "$VIVID_CAPTURE_DEV" --list-dv-timings | awk -v w="$w" -v h="$h" '
      /Index:/ { i = $2 } /Active width:/ { aw = $3 } /Active height:/ { ah = $3 }
      /Frame format: progressive/ && aw == w && ah == h { print "index=" i; exit }')
  [ -n "$timing" ] || timing=cvt,width=$w,height=$h,fps=60
  # loop_video=1: capture shows the output's frames; osd_text_mode=2: no text drawn over them
  cap=$(v4l2-ctl -d "$VIVID_CAPTURE_DEV" -c loop_video=1 -c osd_text_mode=2 --set-dv-bt-timings "$timing" \
        -v "width=$w,height=$h,pixelformat=$fourcc" -V) \
    || { echo "vivid_loop_setup: configuring $VIVID_CAPTURE_DEV ($timing, $fourcc ${w}x$h) failed" >&2; return 1; }
  out=$(v4l2-ctl -d "$VIVID_OUTPUT_DEV" --set-dv-bt-timings "$timing" \
        -x "width=$w,height=$h,pixelformat=$fourcc" -X) \
    || { echo "vivid_loop_setup: configuring $VIVID_OUTPUT_DEV ($timing, $fourcc ${w}x$h) failed" >&2; return 1; }
  # vivid silently substitutes a format it lacks (MJPG -> YUYV): refuse that.
  if ! grep -q "Pixel Format *: '$fourcc'" <<< "$cap"; then
    echo "vivid_loop_setup: vivid has no $fourcc capture format; it chose:" >&2
    grep 'Pixel Format' <<< "$cap" >&2; return 1
  fi
  if [ "$(grep -E 'Width/Height|Pixel Format|Field' <<< "$cap")" != \
       "$(grep -E 'Width/Height|Pixel Format|Field' <<< "$out")" ]; then
    echo "vivid_loop_setup: capture and output formats differ, the loop would show noise:" >&2
    echo "$cap" "$out" >&2; return 1
  fi
  echo "vivid loop: $fourcc ${w}x$h, dv timings $timing" >&2
}

vivid_feed_start() {
  local file=$1
  [ -r "$file" ] || { echo "vivid_feed_start: cannot read $file" >&2; return 1; }
  vivid_feed_stop
  v4l2-ctl -d "$VIVID_OUTPUT_DEV" --stream-out-mmap --stream-from="$file" --stream-loop \
    > /dev/null 2> /tmp/vivid-feeder.log &
  VIVID_FEEDER_PID=$!
  sleep 0.5   # let the first output buffers reach the driver before capture starts
  kill -0 "$VIVID_FEEDER_PID" 2>/dev/null \
    || { echo "vivid_feed_start: the feeder exited:" >&2; cat /tmp/vivid-feeder.log >&2; VIVID_FEEDER_PID=; return 1; }
}

vivid_feed_stop() {
  [ -n "$VIVID_FEEDER_PID" ] || return 0
  kill "$VIVID_FEEDER_PID" 2>/dev/null
  wait "$VIVID_FEEDER_PID" 2>/dev/null
  VIVID_FEEDER_PID=
  return 0
}
