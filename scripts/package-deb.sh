#!/usr/bin/env bash
# package-deb.sh [--output DIR] [--no-lintian] - builds syncscan_<version>_<arch>.deb from the
# release build (`make install` into a staging tree: static Swift runtime, zxing-cpp linked in)
# and checks it with lintian. Prints the package's path on stdout; everything else on stderr.
#
#   /usr/bin/syncscan, /usr/libexec/swift/linux/swift-backtrace-static (the crash backtracer)
#   /usr/lib/systemd/system: syncscan.service, syncscan@.service, syncscan-http@.socket
#   /etc/syncscan/syncscan.yaml, video0.yaml: conffiles (an edited one is kept across upgrades)
#   /usr/share/doc/syncscan: README.md, copyright, changelog.gz, examples/ (the systemd drop-ins)
#   /usr/share/man/man1/syncscan.1.gz, /usr/share/man/man5/syncscan.yaml.5.gz
# Depends is computed by dpkg-shlibdeps from the binary's libraries (GStreamer's core, app and
# video libraries among them). GStreamer's plugins are loaded at run time, so no library names
# them: the ones the GStreamer input uses are Recommends (a camera or a Y4M pipe needs none):
# -base (decodebin, videoconvert, appsink), -good (rtspsrc, souphttpsrc, the RTP depayloaders,
# qtdemux, matroskademux), -bad (h264parse, HLS), -libav (the H.264/H.265 decoders). Not
# gstreamer1.0-rtsp: it holds only rtspclientsink, which sends a stream to a server. The maintainer scripts
# (packaging/debian) reload systemd and never enable or start an instance.
# A native package (syncscan is its own upstream): the version is syncscanVersion's.
# Environment: SYNCSCAN_SCRATCH (SwiftPM build directory, default .build); DEBFULLNAME and
# DEBEMAIL, the maintainer. Without DEBEMAIL the package names syncscan@localhost, fine for a
# local install: lintian's bogus-mail-host errors are then suppressed (and said so); a package
# to publish needs a real address.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$ROOT/.build/deb; LINT=1
while (($#)); do
  case $1 in
    --output) OUT=$2; shift 2 ;;
    --no-lintian) LINT=0; shift ;;
    *) echo "package-deb: unknown argument $1 (--output DIR, --no-lintian)" >&2; exit 2 ;;
  esac
done
say() { echo "[package-deb] $*" >&2; }
for tool in dpkg-deb dpkg-shlibdeps fakeroot; do
  command -v $tool >/dev/null || { echo "package-deb: $tool is missing: run scripts/setup.sh --tests (apt: dpkg-dev fakeroot)" >&2; exit 1; }
done
VERSION=$(sed -n 's/.*static let syncscanVersion = "\(.*\)".*/\1/p' "$ROOT/Sources/syncscan/Syncscan.swift")
[ -n "$VERSION" ] || { echo "package-deb: no syncscanVersion in Sources/syncscan/Syncscan.swift" >&2; exit 1; }
FULL=$VERSION
MAINTAINER="${DEBFULLNAME:-syncscan developers} <${DEBEMAIL:-syncscan@localhost}>"
ARCH=$(dpkg --print-architecture)
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
P=$WORK/syncscan

say "make install into a staging tree (release build)"
make -C "$ROOT" --no-print-directory install DESTDIR="$P" PREFIX=/usr LIBEXECDIR=/usr/libexec \
  UNITDIR=/usr/lib/systemd/system SYSCONFDIR=/etc SWIFT_SCRATCH="${SYNCSCAN_SCRATCH:-$ROOT/.build}" >&2
# Debugging information goes; the symbol table stays in /usr/bin/syncscan, so a crash backtrace
# (the units' SWIFT_BACKTRACE, symbolicate=fast) names functions, not bare addresses
# (packaging/debian/lintian-overrides says so to lintian).
strip --strip-debug --remove-section=.comment "$P/usr/bin/syncscan"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$P/usr/libexec/swift/linux/swift-backtrace-static"
strip --strip-all "$P/usr/libexec/syncscan/syncscan-start"
D=$P/usr/share/doc/syncscan
install -d -m 0755 "$D/examples" "$P/usr/share/man/man1" "$P/usr/share/man/man5" "$P/usr/share/lintian/overrides" "$P/DEBIAN"
install -m 0644 "$ROOT/packaging/debian/lintian-overrides" "$P/usr/share/lintian/overrides/syncscan"
install -m 0644 "$ROOT/README.md" "$D/README.md"
install -m 0644 "$ROOT/packaging/debian/copyright" "$D/copyright"
install -m 0644 "$ROOT"/systemd/*.conf "$D/examples/"
gzip -9n < "$ROOT/docs/man/syncscan.1" > "$P/usr/share/man/man1/syncscan.1.gz"
gzip -9n < "$ROOT/docs/man/syncscan.yaml.5" > "$P/usr/share/man/man5/syncscan.yaml.5.gz"
{
  echo "syncscan ($FULL) unstable; urgency=medium"
  echo
  echo "  * Release $VERSION, packaged from the source tree."
  echo
  echo " -- $MAINTAINER  $(date -R -d "@${SOURCE_DATE_EPOCH:-$(git -C "$ROOT" log -1 --format=%ct 2>/dev/null || date +%s)}")"
} | gzip -9n > "$D/changelog.gz"
chmod 0644 "$P/usr/share/man/man1/syncscan.1.gz" "$P/usr/share/man/man5/syncscan.yaml.5.gz" "$D/changelog.gz"
install -m 0755 "$ROOT"/packaging/debian/{postinst,prerm,postrm} "$P/DEBIAN/"
(cd "$P" && find etc -type f | sed 's|^|/|' | sort) > "$P/DEBIAN/conffiles"

# Depends from the ELF files' libraries (dpkg-shlibdeps wants a debian/control beside it).
mkdir -p "$WORK/src/debian"
printf 'Source: syncscan\n\nPackage: syncscan\nArchitecture: any\n' > "$WORK/src/debian/control"
DEPENDS=$(cd "$WORK/src" && dpkg-shlibdeps -O -e "$P/usr/bin/syncscan" -e "$P/usr/libexec/swift/linux/swift-backtrace-static" 2>&2 \
  | sed -n 's/^shlibs:Depends=//p')
[ -n "$DEPENDS" ] || { echo "package-deb: dpkg-shlibdeps gave no Depends" >&2; exit 1; }
GST_PLUGINS="gstreamer1.0-plugins-base, gstreamer1.0-plugins-good, gstreamer1.0-plugins-bad, gstreamer1.0-libav"
cat > "$P/DEBIAN/control" <<CONTROL
Package: syncscan
Version: $FULL
Architecture: $ARCH
Maintainer: $MAINTAINER
Installed-Size: $(du -sk --exclude=DEBIAN "$P" | cut -f1)
Depends: $DEPENDS
Recommends: v4l-utils, $GST_PLUGINS
Suggests: mosquitto-clients, jq
Section: video
Priority: optional
Homepage: https://localhost/syncscan
Description: barcode scanning daemon for cameras and video streams
 syncscan watches a camera (libv4l2), an IP camera (RTSP, MJPEG over HTTP), a
 video file (GStreamer) or a YUV4MPEG2 stream and reports every barcode it
 sees, each paired with the exact frame it was seen in: one JSON
 line per code on stdout (symbology, exact bytes, decoded text, corners,
 frame sequence and time), with zbar, zxing-cpp or both decoding.
 .
 Codes can also go to JPEG snapshots of their frame, to an MQTT broker with a
 spool (and Home Assistant discovery), to a Prometheus textfile and to a live
 view over HTTP. Frames dropped because the scanners were busy are counted
 with their reason. It runs as hardened systemd units, one per camera
 (syncscan@video0), tuned by /etc/syncscan/*.yaml; no instance is enabled by
 the package.
CONTROL
(cd "$P" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) > "$P/DEBIAN/md5sums"
chmod 0644 "$P/DEBIAN/control" "$P/DEBIAN/conffiles" "$P/DEBIAN/md5sums"

DEB=$OUT/syncscan_${FULL}_${ARCH}.deb
fakeroot dpkg-deb -Zxz --build "$P" "$DEB" >&2
say "built $DEB ($(du -h "$DEB" | cut -f1)); Depends: $DEPENDS"
if [ $LINT = 1 ]; then
  command -v lintian >/dev/null || { echo "package-deb: lintian is missing: run scripts/setup.sh --tests (apt: lintian)" >&2; exit 1; }
  # Errors fail; warnings are printed (packaging/debian/lintian-overrides gives the reason for each one kept).
  say "lintian"
  SUPPRESS=()
  if [ -z "${DEBEMAIL:-}" ]; then
    say "no DEBEMAIL: the maintainer is syncscan@localhost, lintian's bogus-mail-host errors suppressed"
    SUPPRESS=(--suppress-tags bogus-mail-host,bogus-mail-host-in-debian-changelog)
  fi
  lintian --fail-on error "${SUPPRESS[@]}" "$DEB" >&2 || { echo "package-deb: lintian reports errors in $DEB" >&2; exit 1; }
fi
echo "$DEB"
