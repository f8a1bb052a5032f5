#!/usr/bin/env bash
# One command from a fresh clone: install what building, running and testing need, build, run the unit and integration
# tests, then the real-kernel V4L2 test in a qemu VM with the vivid driver.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
scripts/setup.sh --tests
swift build --build-tests
UNIT_TEST_WATCH_CLOSES=1 scripts/unit-tests.sh --skip-build
scripts/test-vivid.sh
