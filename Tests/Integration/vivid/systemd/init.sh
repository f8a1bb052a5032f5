#!/bin/sh
# initramfs /init: vivid + overlay (tmpfs upper; lower = 9p "layer" over the host's / on 9p),
# then systemd as PID 1. From the shared recipe tools/vivid/systemd/init.sh.
export PATH=/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
echo "SYSD_T init $(cut -d' ' -f1 /proc/uptime)"
fail() { echo "SYSD_FAIL $*"; echo "$*" > /job/failed 2>/dev/null; sync; sleep 1; poweroff -f; }
for m in virtio_pci 9pnet_virtio 9p overlay autofs4; do modprobe $m || fail "modprobe $m"; done
P9="trans=virtio,version=9p2000.L,msize=512000"
mount -t 9p -o $P9 job /job || fail "mount job share"
VIVID_OPTS=; SYSTEMD_ARGS=; . /job/config
modprobe vivid $VIVID_OPTS || fail "modprobe vivid $VIVID_OPTS"
mount -t 9p -o $P9,ro,cache=loose hostroot /host || fail "mount hostroot"
mount -t 9p -o $P9,ro,cache=loose layer /layer || fail "mount layer"
mount -t tmpfs -o mode=755,size=768m upper /ovl && mkdir -p /ovl/upper /ovl/work
mount -t overlay -o lowerdir=/layer:/host,upperdir=/ovl/upper,workdir=/ovl/work overlay /newroot \
  || fail "mount overlay"
mount --move /job /newroot/job || fail "move job"
# the host is a container: /.dockerenv makes systemd think so too (it then ignores systemd.unit=)
rm -f /newroot/.dockerenv
# fresh /tmp and /var/tmp, else systemd-tmpfiles walks the host's /tmp over 9p
mount -t tmpfs -o mode=1777 tmpfs /newroot/tmp; mount -t tmpfs -o mode=1777 tmpfs /newroot/var/tmp
echo "SYSD_T switch_root $(cut -d' ' -f1 /proc/uptime)"
for d in dev proc sys; do mount --move /$d /newroot/$d; done
exec switch_root /newroot /lib/systemd/systemd $SYSTEMD_ARGS
