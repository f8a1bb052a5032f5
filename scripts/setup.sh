#!/usr/bin/env bash
# Installs the Debian packages syncscan needs to build, test and make its sample (root, apt).
# Safe to run again: packages already present are skipped by apt.
set -euo pipefail
PKGS=(
  pkg-config libzbar-dev libv4l-dev libzxing-dev libturbojpeg0-dev libmosquitto-dev g++  # build: the C and C++ libraries (zxing-cpp is C++)
  zbar-tools qrencode zint ffmpeg jq  # sample and tests: codes, frames, zbarimg reference
  systemd make                        # tests: systemd-analyze verify/security; make install
  python3-prometheus-client           # tests: the metrics textfile through the Python client's parser
  mosquitto mosquitto-clients         # tests: a real MQTT broker (started by the tests on a free port) and mosquitto_sub
  libmicrohttpd-dev chromium          # build: the live view's HTTP server; tests: a headless browser loads the live view
  qemu-system-x86 qemu-system-data v4l-utils xz-utils busybox-static  # real-kernel V4L2 test (vivid VM)
)
missing=()
for p in "${PKGS[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  echo "setup: installing ${missing[*]}" >&2
  $SUDO apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi
command -v swift >/dev/null || { echo "setup: swift is not on PATH (Swift 6.2 or later is needed)" >&2; exit 1; }
