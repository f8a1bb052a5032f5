#!/usr/bin/env bash
# boot.sh WORK - boot the VM build.sh made; systemd runs vtest.service (guest-systemd.sh, output
# in WORK/job/results.txt, status in WORK/job/done), which powers off. Console: WORK/run/console.log.
# TIMEOUT (s, default 600), VM_MEM (MiB, default 2048), VM_ACCEL (auto|tcg|kvm).
set -uo pipefail
WORK=$(cd "$1" && pwd); shift
cd "$WORK"; mkdir -p run; : > run/console.log; rm -f job/results.txt job/done job/failed
APPEND="console=ttyS0 panic=-1 mitigations=off loglevel=4 systemd.show_status=1 systemd.unit=multi-user.target $*"
ACCEL=${VM_ACCEL:-auto}
if [ "$ACCEL" = auto ]; then ACCEL=tcg; [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo && ACCEL=kvm; fi
if [ "$ACCEL" = kvm ]; then ACC=(-accel kvm -cpu host); else ACC=(-accel tcg,thread=multi -cpu max); fi
T0=$(date +%s.%N)
timeout -k 10 "${TIMEOUT:-600}" qemu-system-x86_64 "${ACC[@]}" -m "${VM_MEM:-2048}" -smp 2 \
  -nodefaults -no-reboot -display none -monitor none \
  -bios /usr/share/qemu/qboot.rom -kernel vmlinux -initrd initramfs.cpio -append "$APPEND" \
  -serial file:run/console.log \
  -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
  -virtfs local,path="$WORK/layer",mount_tag=layer,security_model=none,readonly=on,multidevs=remap \
  -virtfs local,path="$WORK/job",mount_tag=job,security_model=none,multidevs=remap \
  </dev/null > run/qemu.out 2>&1
rc=$?
echo "boot.sh: qemu exit $rc ($ACCEL), wall $(awk -v a=$T0 -v b=$(date +%s.%N) 'BEGIN{printf "%.1f", b-a}') s; test $(cat job/done 2>/dev/null || echo 'did not finish')" >&2
[ -f job/done ]
