#!/usr/bin/env bash
# One command from a fresh clone: install what building and running need (no test tools), build,
# make the sample, scan it.
# JSON lines go to stdout, the summary and logs to stderr.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
scripts/setup.sh
swift build -c release --product syncscan >&2
scripts/make-sample.sh
exec .build/release/syncscan run --source samples/generated/sample.y4m --symbologies qrcode,code128 "$@"
