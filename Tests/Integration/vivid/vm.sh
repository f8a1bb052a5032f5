#!/usr/bin/env bash
# vm.sh - run one command inside a throw-away qemu VM that has a real V4L2 device.
#
#   vm.sh [OPTIONS] [--] COMMAND [ARG...]
#   vm.sh --prepare            install missing packages, build the kernel/initramfs cache
#
# The VM boots Debian's own kernel (downloaded with `apt-get download`, never installed)
# with the vivid test driver in loop mode: /dev/video1 (output, HDMI) is looped back to
# /dev/video0 (capture, HDMI), so a frame written to video1 comes back byte-exact on video0.
# The guest chroots into the host's `/` (shared read-only over virtio-9p), so every host
# binary runs unchanged; the project directory and every --share directory are shared
# read-write at the same absolute path.  The command runs as root in the project directory,
# with fresh tmpfs on /tmp, /run, /var/tmp (host files there are NOT visible: use --share).
#
# Options:
#   --format FOURCC   loop pixel format on both nodes (default YUYV); --no-loop skips setup
#   --size WxH        loop frame size (default 640x480)
#   --feed FILE       raw frames (FOURCC, WxH) played in a loop on the output node while
#                     COMMAND runs; copied into the VM
#   --share DIR       also share DIR read-write at the same path (repeatable)
#   --project DIR     the working directory (default: this repository's root)
#   --timeout SEC     wall-clock limit for the whole VM run (default 600)
#   --no-loop         load vivid but configure nothing
# Environment: SYNCSCAN_VIVID_CACHE (default /tmp/syncscan-vivid-cache),
#   VIVID_KERNEL_PKG (pin e.g. linux-image-6.1.0-56-amd64), VM_MEM (MB, default 1024),
#   VM_SMP (default 2), VM_ACCEL (auto|tcg|kvm), VM_VERBOSE=1 (print the guest console),
#   VIVID_OPTS (vivid's module options instead of the loop's; with --no-loop, e.g. the webcam
#   input: "n_devs=1 node_types=0x1 num_inputs=1 input_types=0x0 vid_cap_nr=0").
# In the guest, COMMAND can `source "$VIVID_LOOP_SH"` (loop.sh next to this file) to
# reconfigure the loop or start/stop a feeder; VIVID_CAPTURE_DEV, VIVID_OUTPUT_DEV,
# VIVID_FORMAT, VIVID_WIDTH, VIVID_HEIGHT are exported.
#
# Output: COMMAND's stdout+stderr (merged, via the guest's second serial port) on stdout;
# the runner's own messages and timings on stderr.
# Exit status: COMMAND's status; 124 on timeout; 125 when the VM or the vivid setup failed
# before COMMAND ran (the guest console tail is printed to stderr).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
say() { echo "[vm.sh] $*" >&2; }
fail() { say "error: $*"; exit 125; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

FORMAT=YUYV SIZE=640x480 FEED= TIMEOUT=600 LOOP=1 PREPARE=0
PROJECT=$(cd "$HERE/../../.." && pwd)
SHARES=()
while [ $# -gt 0 ]; do
  case $1 in
    --format) FORMAT=${2:?--format needs a FOURCC}; shift 2 ;;
    --size) SIZE=${2:?--size needs WxH}; shift 2 ;;
    --feed) FEED=${2:?--feed needs a file}; shift 2 ;;
    --share) SHARES+=("$(realpath "${2:?--share needs a directory}")"); shift 2 ;;
    --project) PROJECT=$(realpath "${2:?--project needs a directory}"); shift 2 ;;
    --timeout) TIMEOUT=${2:?--timeout needs seconds}; shift 2 ;;
    --no-loop) LOOP=0; shift ;;
    --prepare) PREPARE=1; shift ;;
    -h|--help) usage ;;
    --) shift; break ;;
    -*) say "unknown option $1"; usage ;;
    *) break ;;
  esac
done
[ $PREPARE = 1 ] || [ $# -gt 0 ] || usage
[[ $SIZE =~ ^[0-9]+x[0-9]+$ ]] || fail "--size must be WIDTHxHEIGHT, got '$SIZE'"
[[ $FORMAT =~ ^[A-Z0-9\ ]{2,4}$ ]] || fail "--format must be a V4L2 fourcc such as YUYV or GREY, got '$FORMAT'"
[ -z "$FEED" ] || [ -r "$FEED" ] || fail "--feed $FEED is not a readable file"
for d in "$PROJECT" "${SHARES[@]}"; do
  [ -d "$d" ] || fail "not a directory: $d"
  case $d in /|/proc|/proc/*|/sys|/sys/*|/dev|/dev/*) fail "refusing to share $d read-write" ;; esac
done

# ------------------------------------------------------------------ host packages
APT_UPDATED=0
apt_retry() {  # apt-get "$@", once more after `apt-get update` if it fails
  apt-get -q -o DPkg::Lock::Timeout=600 "$@" >&2 && return 0
  [ $APT_UPDATED = 0 ] || return 1
  APT_UPDATED=1; apt-get -q -o DPkg::Lock::Timeout=600 update >&2 || return 1
  apt-get -q -o DPkg::Lock::Timeout=600 "$@" >&2
}
missing=()
command -v qemu-system-x86_64 >/dev/null || missing+=(qemu-system-x86)
[ -f /usr/share/qemu/qboot.rom ] || missing+=(qemu-system-data)
command -v v4l2-ctl >/dev/null || missing+=(v4l-utils)
command -v xz >/dev/null || missing+=(xz-utils)
[ -x /bin/busybox ] && dpkg -s busybox-static >/dev/null 2>&1 || missing+=(busybox-static)
if [ ${#missing[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] || fail "missing packages: ${missing[*]}; install them: sudo apt-get install ${missing[*]}"
  say "installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt_retry install -y --no-install-recommends "${missing[@]}" \
    || fail "apt-get install ${missing[*]} failed"
fi

# ------------------------------------------------------------------ kernel + initramfs cache
CACHE=${SYNCSCAN_VIVID_CACHE:-/tmp/syncscan-vivid-cache}
mkdir -p "$CACHE"
exec 8>"$CACHE/.lock"
flock 8   # concurrent runs wait for one builder

KPKG=${VIVID_KERNEL_PKG:-$(apt-cache depends linux-image-amd64 2>/dev/null \
  | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')}
if [ -z "$KPKG" ] && [ "$(id -u)" = 0 ]; then
  apt-get -q update >&2 && APT_UPDATED=1
  KPKG=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
fi
[ -n "$KPKG" ] || fail "cannot tell which kernel linux-image-amd64 points to (run apt-get update, or set VIVID_KERNEL_PKG)"
KVER=${KPKG#linux-image-}
KDIR=$CACHE/$KVER
# The modules the guest loads; modules.dep adds everything they need. uinput and evdev: the
# keyboard wedge and the key trigger (guest-input.sh).
ROOT_MODULES="vivid virtio_pci 9pnet_virtio 9p uinput evdev"

# .complete holds the module list the cache was made for: another list makes it again.
if [ ! -f "$KDIR/.complete" ] || [ "$(cat "$KDIR/.complete")" != "$ROOT_MODULES" ]; then
  say "preparing kernel $KPKG in $KDIR (one-time, about 20 s)"
  rm -rf "$KDIR/unpacked" "$KDIR/initramfs-modules" "$KDIR"/initramfs-*.cpio "$KDIR/vmlinux"; mkdir -p "$KDIR/unpacked"
  (cd "$KDIR" && apt_retry -o APT::Sandbox::User=root download "$KPKG") || fail "apt-get download $KPKG failed"
  deb=$(ls "$KDIR"/*.deb)
  dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$KDIR/unpacked" --wildcards './boot/vmlinuz-*' './lib/modules/*' \
    || fail "unpacking $deb failed"
  rm -f "$deb"
  # The bzImage holds a compressed ELF vmlinux; qemu boots that ELF directly through its
  # PVH entry point, which saves the slow in-guest decompression under TCG.
  vmlinuz=$KDIR/unpacked/boot/vmlinuz-$KVER
  for pair in 'xz -dc:\xfd7zXZ\x00' 'zstd -dc:\x28\xb5\x2f\xfd' 'gzip -dc:\x1f\x8b\x08'; do
    for off in $(LC_ALL=C grep -aboP "${pair#*:}" "$vmlinuz" | cut -d: -f1 | head -4); do
      tail -c +$((off + 1)) "$vmlinuz" | ${pair%%:*} > "$KDIR/vmlinux" 2>/dev/null || true
      [ "$(head -c 4 "$KDIR/vmlinux" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] && break 2
    done
  done
  if [ "$(head -c 4 "$KDIR/vmlinux" 2>/dev/null | od -An -tx1 | tr -d ' ')" != 7f454c46 ]; then
    say "no ELF vmlinux inside $vmlinuz; booting the bzImage (slower)"
    cp "$vmlinuz" "$KDIR/vmlinux"
  fi
  # initramfs tree: busybox + the module closure of ROOT_MODULES, with its own modules.dep
  M=$KDIR/unpacked/lib/modules/$KVER
  busybox depmod -b "$KDIR/unpacked" "$KVER" || fail "depmod over $KPKG failed"
  R=$KDIR/initramfs-modules
  mkdir -p "$R/lib/modules/$KVER"
  for m in $ROOT_MODULES; do
    line=$(grep -E "/${m}\.ko(\.xz|\.zst)?:" "$M/modules.dep") || fail "$KPKG has no $m module"
    for rel in ${line/:/}; do
      mkdir -p "$R/lib/modules/$KVER/$(dirname "$rel")"
      case $rel in   # busybox modprobe loads plain .ko files
        *.xz) xz -dc "$M/$rel" > "$R/lib/modules/$KVER/${rel%.xz}" ;;
        *.zst) zstd -qdc "$M/$rel" > "$R/lib/modules/$KVER/${rel%.zst}" ;;
        *) cp "$M/$rel" "$R/lib/modules/$KVER/$rel" ;;
      esac
    done
  done
  cp "$M/modules.builtin" "$M/modules.order" "$R/lib/modules/$KVER/"
  busybox depmod -b "$R" "$KVER" || fail "depmod over the initramfs modules failed"
  rm -rf "$KDIR/unpacked"
  echo "$ROOT_MODULES" > "$KDIR/.complete"
fi

# The guest's /init: mount the shares, load vivid, chroot into the host root, run job.sh.
INIT=$(cat <<'EOF_INIT'
#!/bin/sh
export PATH=/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
echo "VMT init $(cut -d' ' -f1 /proc/uptime)"
abort() { echo "VMFAIL $*"; echo "$*" > /job/failed; sync; poweroff -f; }
for m in virtio_pci 9pnet_virtio 9p; do modprobe $m || echo "VMFAIL modprobe $m"; done
p9="trans=virtio,version=9p2000.L,msize=512000"
mkdir -p /job /host
mount -t 9p -o $p9 job /job || abort "mount the job share"
. /job/config                        # VIVID_OPTS, SHARE_PATHS
modprobe vivid $VIVID_OPTS || abort "modprobe vivid $VIVID_OPTS"
for m in uinput evdev; do modprobe $m || echo "VMFAIL modprobe $m"; done
H=/host
mount -t 9p -o $p9,ro,cache=loose hostroot $H || abort "mount the host root"
mount -t proc proc $H/proc; mount -t sysfs sys $H/sys; mount -t devtmpfs dev $H/dev
mkdir -p $H/dev/pts $H/dev/shm; mount -t devpts devpts $H/dev/pts; mount -t tmpfs shm $H/dev/shm
for d in /tmp /run /var/tmp; do mount -t tmpfs -o mode=1777 tmpfs $H$d; done
mkdir -p $H/run/vm-job; mount -o bind /job $H/run/vm-job
i=0
for p in $SHARE_PATHS; do
  mkdir -p "$H$p" 2>/dev/null
  mount -t 9p -o $p9 share$i "$H$p" || abort "mount share$i at $p"
  i=$((i + 1))
done
echo 1 > /proc/sys/kernel/printk
stty -F /dev/ttyS1 raw -echo
echo "VMT ready $(cut -d' ' -f1 /proc/uptime)"
chroot $H /bin/bash /run/vm-job/job.sh < /dev/null > /dev/ttyS1 2>&1
echo $? > /job/rc
echo "VMT done $(cut -d' ' -f1 /proc/uptime)"
sync; poweroff -f
EOF_INIT
)
INITRD=$KDIR/initramfs-$(printf '%s' "$INIT" | sha256sum | cut -c1-12).cpio
if [ ! -s "$INITRD" ]; then
  R=$(mktemp -d /tmp/syncscan-vivid-initramfs.XXXXXX)
  mkdir -p "$R"/{bin,proc,sys,dev,job,host}
  cp /bin/busybox "$R/bin/busybox"
  for a in $(busybox --list); do [ "$a" = busybox ] || ln -s busybox "$R/bin/$a"; done
  cp -a "$KDIR/initramfs-modules/lib" "$R/"
  printf '%s\n' "$INIT" > "$R/init"; chmod 755 "$R/init"
  (cd "$R" && find . | busybox cpio -o -H newc > "$INITRD.tmp" 2>/dev/null) || fail "building $INITRD failed"
  mv "$INITRD.tmp" "$INITRD"; rm -rf "$R"
fi
flock -u 8
if [ $PREPARE = 1 ]; then say "ready: $KDIR/vmlinux $INITRD"; exit 0; fi

# ------------------------------------------------------------------ per-run job
JOB=$(mktemp -d /tmp/syncscan-vm-job.XXXXXX)
trap 'rm -rf "$JOB"' EXIT
# video0 = capture (one HDMI input, type 3), video1 = output (one HDMI output, bit 0)
VIVID_OPTS=${VIVID_OPTS:-"n_devs=1 node_types=0x101 num_inputs=1 input_types=0x3 num_outputs=1 output_types=0x1 vid_cap_nr=0 vid_out_nr=1"}
printf 'VIVID_OPTS=%q\nSHARE_PATHS=%q\n' "$VIVID_OPTS" "$PROJECT ${SHARES[*]}" > "$JOB/config"
GUEST_FEED=
if [ -n "$FEED" ]; then cp "$FEED" "$JOB/feed.raw"; GUEST_FEED=/run/vm-job/feed.raw; fi
{
  echo '# generated by vm.sh; runs in the guest, chrooted into the host root'
  printf 'export PATH=%q LANG=C.UTF-8 HOME=/tmp/home TERM=dumb\n' "$PATH"
  printf 'export VIVID_LOOP_SH=%q VIVID_CAPTURE_DEV=/dev/video0 VIVID_OUTPUT_DEV=/dev/video1\n' "$HERE/loop.sh"
  printf 'export VIVID_FORMAT=%q VIVID_WIDTH=%q VIVID_HEIGHT=%q\n' "$FORMAT" "${SIZE%x*}" "${SIZE#*x}"
  printf 'LOOP=%q FEED=%q\n' "$LOOP" "$GUEST_FEED"
  printf 'cd %q || exit 125\n' "$PROJECT"
  printf 'CMD=('; printf '%q ' "$@"; echo ')'
  cat <<'EOF_JOB'
mkdir -p "$HOME"
source "$VIVID_LOOP_SH" || exit 125
if [ "$LOOP" = 1 ]; then
  vivid_loop_setup "$VIVID_FORMAT" "$VIVID_WIDTH" "$VIVID_HEIGHT" || exit 125
  if [ -n "$FEED" ]; then vivid_feed_start "$FEED" || exit 125; fi
fi
"${CMD[@]}"
rc=$?
vivid_feed_stop
exit $rc
EOF_JOB
} > "$JOB/job.sh"

ACCEL=${VM_ACCEL:-auto}
if [ "$ACCEL" = auto ]; then   # KVM only with hardware virtualisation (PVM-style /dev/kvm hangs)
  ACCEL=tcg; [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo && ACCEL=kvm
fi
if [ "$ACCEL" = kvm ]; then ACC=(-accel kvm -cpu host); else ACC=(-accel tcg,thread=multi -cpu max); fi
QEMU=(qemu-system-x86_64 "${ACC[@]}" -m "${VM_MEM:-1024}" -smp "${VM_SMP:-2}"
  -nodefaults -no-reboot -display none -monitor none
  -bios /usr/share/qemu/qboot.rom -kernel "$KDIR/vmlinux" -initrd "$INITRD"
  -append "console=ttyS0 quiet panic=-1 mitigations=off"
  -serial "file:$JOB/console.log" -serial stdio
  -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap
  -virtfs "local,path=$JOB,mount_tag=job,security_model=none")
i=0
for p in "$PROJECT" "${SHARES[@]}"; do
  QEMU+=(-virtfs "local,path=$p,mount_tag=share$i,security_model=none,multidevs=remap"); i=$((i + 1))
done

T0=$(date +%s.%N)
set +e
timeout -k 5 "$TIMEOUT" "${QEMU[@]}" < /dev/null 2> "$JOB/qemu.err"
qrc=$?
set -e
WALL=$(awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
mark() { tr -d '\r' < "$JOB/console.log" 2>/dev/null | awk -v k="$1" '$1 == "VMT" && $2 == k { print $3 }'; }
if [ -f "$JOB/rc" ]; then
  rc=$(cat "$JOB/rc")
elif [ $qrc = 124 ] || [ $qrc = 137 ]; then
  say "timed out after ${TIMEOUT}s (--timeout)"; rc=124
else
  say "the VM stopped before the command finished (qemu exit $qrc): $(cat "$JOB/failed" 2>/dev/null || echo 'see console')"
  rc=125
fi
if [ "$rc" = 124 ] || [ "$rc" = 125 ] || [ "${VM_VERBOSE:-0}" = 1 ]; then
  [ -s "$JOB/qemu.err" ] && { say "--- qemu stderr"; cat "$JOB/qemu.err" >&2; }
  if [ -s "$JOB/console.log" ]; then
    say "--- guest console (last 40 lines)"; tr -d '\r' < "$JOB/console.log" | tail -40 >&2
  else
    say "the guest console is empty: the kernel never started (qemu exit $qrc, VM_MEM=${VM_MEM:-1024} MB)"
  fi
fi
ready=$(mark ready) done_=$(mark done)
say "timings: boot to ready ${ready:-?}s, command $( [ -n "$ready" ] && [ -n "$done_" ] \
  && awk -v a="$ready" -v b="$done_" 'BEGIN { printf "%.1f", b - a }' || echo '?')s, wall ${WALL}s ($ACCEL)"
say "exit status: $rc"
exit "$rc"
