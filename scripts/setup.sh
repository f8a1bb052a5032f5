#!/usr/bin/env bash
# Installs the Debian packages syncscan needs (root, apt), then builds zxing-cpp 3.1.1 (static,
# with its C API and its writers) from its maintainers' source distribution on PyPI into /usr/local, where
# pkg-config and SwiftPM find it.
#
#   scripts/setup.sh           what building and running need, and the sample's tools (README's
#                              first command, scripts/run-sample.sh): no browser, emulator or linter
#   scripts/setup.sh --tests   that, and what the tests add (README's second command and CI),
#                              pymodbus (the Modbus tests' client) from PyPI with pip among them
#
# Safe to run again: packages already present are skipped by apt, and zxing-cpp when
# /usr/local already holds 3.1.1's static library (with its writers), C header and zxing.pc.
set -euo pipefail
case ${1:-} in
  "") TESTS=0 ;;
  --tests) TESTS=1 ;;
  *) echo "setup: unknown argument '$1' (scripts/setup.sh [--tests])" >&2; exit 2 ;;
esac
PKGS=(
  pkg-config libzbar-dev libv4l-dev libturbojpeg0-dev libmosquitto-dev libevdev-dev  # build: the C libraries
  libmodbus-dev                      # build: the Modbus TCP server's replies (libmodbus 3.1.6)
  libmicrohttpd-dev libcurl4-openssl-dev  # build: the live view's HTTP server; the webhook's HTTP client
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev  # build: the GStreamer input (1.22)
  gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-libav  # run: decoders (-libav), rtspsrc and souphttpsrc (-good), HLS (-bad)
  g++ cmake ninja-build python3-pip  # build: zxing-cpp 3.1.1 from its source distribution (C++20, fetched with pip)
  qrencode zint ffmpeg                # the sample (scripts/make-sample.sh): codes and frames
)
TEST_PKGS=(
  zbar-tools jq                       # tests: zbarimg as a reference reader; JSON lines checked
  systemd make                        # tests: systemd-analyze verify/security; make install
  python3-prometheus-client           # tests: the metrics textfile through the Python client's parser
  mosquitto mosquitto-clients         # tests: a real MQTT broker (started by the tests on a free port) and mosquitto_sub
  gstreamer1.0-tools python3-gi gir1.2-gst-rtsp-server-1.0  # tests: gst-launch-1.0; GStreamer's own RTSP server on a free port
  chromium                            # tests: a headless browser loads the live view
  openssl curl                        # tests: a self-signed certificate for HTTPS and a client that checks it
  gdb                                 # tests: every thread's stack of a unit suite past its time limit
  dpkg-dev fakeroot lintian           # scripts/package-deb.sh: Depends from dpkg-shlibdeps, the .deb, its check
  qemu-system-x86 qemu-system-data v4l-utils xz-utils busybox-static  # real-kernel V4L2 test (vivid VM)
)
((TESTS)) && PKGS+=("${TEST_PKGS[@]}")
missing=()
for p in "${PKGS[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  echo "setup: installing ${missing[*]}" >&2
  $SUDO apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi
command -v swift >/dev/null || { echo "setup: swift is not on PATH (Swift 6.2 or later is needed)" >&2; exit 1; }

# zxing-cpp: Debian 12 has 1.4 (no C API); syncscan links 3.1.1 statically through its C API
# (ZXing/ZXingC.h). The sdist's top CMakeLists.txt builds the Python module; its core/ is the library.
# Its writers (ZXING_WRITERS=NEW, the bundled libzint) are built too: the GS1 tests hold syncscan's AI
# table to GS1's syntax dictionary through libzint's checker, which zxing-cpp's creator runs.
ZXING_VERSION=3.1.1
ZXING_SDIST_SHA256=1051a521b21a9fe206702ad4186aeb195154e3e1badcd99576d030723f36382b
ZXING_PREFIX=/usr/local
if [ "$(PKG_CONFIG_PATH=$ZXING_PREFIX/lib/pkgconfig pkg-config --modversion zxing 2>/dev/null)" = "$ZXING_VERSION" ] \
    && [ -f "$ZXING_PREFIX/lib/libZXing.a" ] && [ -f "$ZXING_PREFIX/include/ZXing/ZXingC.h" ] \
    && grep -q -- '-l:libZXing.a' "$ZXING_PREFIX/lib/pkgconfig/zxing.pc" \
    && grep -q '^#define ZXING_USE_ZINT' "$ZXING_PREFIX/include/ZXing/Version.h"; then
  :
else
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  start=$(date +%s)
  echo "setup: building zxing-cpp $ZXING_VERSION into $ZXING_PREFIX" >&2
  # Only zxing-cpp itself as source (its build requirements, needed by pip to read its metadata, as wheels).
  # Debian's pip refuses nothing here: `download` installs nothing.
  python3 -m pip download --quiet --no-deps --no-binary zxing-cpp --dest "$work" "zxing-cpp==$ZXING_VERSION" >&2
  sdist="$work/zxing_cpp-$ZXING_VERSION.tar.gz"
  echo "$ZXING_SDIST_SHA256  $sdist" | sha256sum --check --quiet - \
    || { echo "setup: $sdist does not have the sha256 in scripts/setup.sh; not building it" >&2; exit 1; }
  tar -xzf "$sdist" -C "$work"
  cmake -S "$work/zxing_cpp-$ZXING_VERSION/core" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$ZXING_PREFIX" -DCMAKE_INSTALL_LIBDIR=lib -DBUILD_SHARED_LIBS=OFF \
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DZXING_C_API=ON -DZXING_READERS=ON -DZXING_WRITERS=NEW >&2
  cmake --build "$work/build" >&2
  $SUDO cmake --install "$work/build" >&2
  # The archive by file name: an -lZXing would find a shared libZXing first wherever the linker is
  # given a system library directory before this one (Debian's libzxing-dev, 1.4, for one).
  $SUDO sed -i 's/^Libs: .*/Libs: -L${libdir} -l:libZXing.a -lstdc++ -lm/' "$ZXING_PREFIX/lib/pkgconfig/zxing.pc"
  echo "setup: zxing-cpp $ZXING_VERSION built and installed in $(( $(date +%s) - start )) s" >&2
fi

# pymodbus: the Modbus tests' client (Tests/Support/Scripts/modbus-client.py) and bench/modbus.py's,
# a pinned version from PyPI (Debian 12's python3-pymodbus is 3.0.0). A Debian python3 that refuses
# pip installs (PEP 668) gets --break-system-packages: pymodbus needs no Debian package.
PYMODBUS_VERSION=3.6.9
if ((TESTS)) && ! python3 -c "import sys, pymodbus; sys.exit(pymodbus.__version__ != '$PYMODBUS_VERSION')" 2>/dev/null; then
  echo "setup: installing pymodbus $PYMODBUS_VERSION with pip" >&2
  python3 -m pip install --quiet "pymodbus==$PYMODBUS_VERSION" >&2 \
    || python3 -m pip install --quiet --break-system-packages "pymodbus==$PYMODBUS_VERSION" >&2
fi
