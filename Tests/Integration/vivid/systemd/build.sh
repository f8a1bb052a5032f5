#!/usr/bin/env bash
# build.sh WORK DEB FEED - prepare a systemd-as-PID-1 vivid VM in WORK (host side, run as root).
#
#   DEB     syncscan's .deb (scripts/package-deb.sh); the guest installs it with dpkg -i (its
#           dependencies are the host's, whose root the guest's is) and purges it at the end
#   FEED    raw GREY 640x480 QR frames the guest plays on vivid's output node (QR codes at 12 px
#           a module: the daemon asks for 160x120)
# Makes WORK/layer (udev, kernel modules, masked units, the .deb, test units and scripts, the
# test RTSP server),
# WORK/initramfs.cpio (init.sh), WORK/job (config, feed; results come back here). The kernel is
# vm.sh's cache (run `vm.sh --prepare` first); overlay/autofs4 modules and udev are fetched once
# with `apt-get download` into $CACHE/systemd (never installed on the host).
# Adapted from the shared recipe tools/vivid/systemd (build.sh, init.sh, vtest.service).
set -euo pipefail
WORK=$(mkdir -p "$1" && cd "$1" && pwd); DEB=$(realpath "$2"); FEED=$3
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VIVID=$(cd "$HERE/.." && pwd)
CACHE=${SYNCSCAN_VIVID_CACHE:-/tmp/syncscan-vivid-cache}
KPKG=${VIVID_KERNEL_PKG:-$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')}
K=${KPKG#linux-image-}
KDIR=$CACHE/$K
[ -f "$KDIR/.complete" ] || "$VIVID/vm.sh" --prepare >&2
X=$KDIR/systemd
exec 8>"$CACHE/.lock"; flock 8
if [ ! -f "$X/.complete" ]; then
  echo "build.sh: fetching overlay/autofs4 modules and udev for $K (one-time)" >&2
  rm -rf "$X"; mkdir -p "$X/debs" "$X/mods"
  (cd "$X/debs" && apt-get -q -o APT::Sandbox::User=root download "$KPKG" udev >&2)
  dpkg-deb --fsys-tarfile "$X"/debs/linux-image-*.deb | tar -x -C "$X/mods" --wildcards \
    "./lib/modules/$K/kernel/fs/overlayfs/*" "./lib/modules/$K/kernel/fs/autofs/*"
  mkdir -p "$X/udev"; dpkg-deb -x "$X"/debs/udev_*.deb "$X/udev"
  rm -rf "$X/debs"; touch "$X/.complete"
fi
flock -u 8
cd "$WORK"; mkdir -p job run
cp "$KDIR/vmlinux" vmlinux

# ---- layer: udev at merged-/usr paths (a real lib/ here would hide the host's /lib -> usr/lib)
L=layer; rm -rf $L; mkdir -p $L/usr/lib $L/usr/bin $L/etc $L/job $L/opt/vtest
cp -a "$X/udev/bin/." $L/usr/bin/; cp -a "$X/udev/lib/." $L/usr/lib/; cp -a "$X/udev/etc/udev" $L/etc/
# vivid and its dependencies (vm.sh's decompressed module tree) so the guest can rmmod/modprobe
mkdir -p $L/usr/lib/modules
cp -a "$KDIR/initramfs-modules/lib/modules/$K" $L/usr/lib/modules/
busybox depmod -b $L/usr "$K"
S=$L/etc/systemd/system; mkdir -p $S/multi-user.target.wants
# units that cannot work or only cost time in the VM
for u in postgresql.service postgresql@.service e2scrub_reap.service e2scrub_all.timer \
         getty.target getty@.service serial-getty@.service getty-static.service \
         systemd-timesyncd.service systemd-pstore.service \
         apt-daily.timer apt-daily-upgrade.timer man-db.timer fstrim.timer dpkg-db-backup.timer \
         systemd-tmpfiles-clean.timer proc-sys-fs-binfmt_misc.automount \
         ldconfig.service systemd-hwdb-update.service systemd-journal-catalog-update.service \
         systemd-update-done.service ${EXTRA_MASK:-}; do
  ln -sf /dev/null $S/$u
done
# the package, installed by the test script as a user would (dpkg -i)
cp "$DEB" $L/opt/vtest/syncscan.deb
cp "$HERE/vtest.service" $S/
ln -sf ../vtest.service $S/multi-user.target.wants/vtest.service
install -m 755 "$HERE/guest-systemd.sh" $L/opt/vtest/run-tests.sh
install -m 644 "$VIVID/loop.sh" $L/opt/vtest/loop.sh
install -m 755 "$VIVID/../../../scripts/rtsp-test-server.py" $L/opt/vtest/rtsp-test-server.py  # the IP camera instance's camera
cp "$FEED" job/feed.raw

# ---- initramfs: busybox, vm.sh's modules (virtio, 9p, vivid) + overlay + autofs4
R=$(mktemp -d "$WORK/irfs.XXXXXX")
mkdir -p "$R"/{bin,proc,sys,dev,host,layer,job,ovl,newroot}
cp /bin/busybox "$R/bin/busybox"
for a in $(busybox --list); do [ "$a" = busybox ] || ln -sf busybox "$R/bin/$a"; done
cp -a "$KDIR/initramfs-modules/lib" "$R/"
cp -a "$X/mods/lib/modules/$K/kernel/fs" "$R/lib/modules/$K/kernel/"
find "$R/lib/modules/$K/kernel/fs" -name '*.ko.xz' -exec xz -d {} +
busybox depmod -b "$R" "$K"
cp "$HERE/init.sh" "$R/init"; chmod 755 "$R/init"
(cd "$R" && find . | busybox cpio -o -H newc > ../initramfs.cpio 2>/dev/null)
rm -rf "$R"
echo 'VIVID_OPTS="n_devs=1 node_types=0x101 num_inputs=1 input_types=0x3 num_outputs=1 output_types=0x1 vid_cap_nr=0 vid_out_nr=1"' > job/config
echo "UNPLUG_CYCLES=${UNPLUG_CYCLES:-12}" >> job/config  # unplug/replug cycles in one boot (guest-systemd.sh)
echo "build.sh: kernel $K, initramfs $(du -h initramfs.cpio | cut -f1), layer $(du -sh layer | cut -f1)" >&2
