#!/usr/bin/env python3
"""Scanning throughput with JPEG snapshots against without, on the same 1280x720 frames.

The frames are run.py's (1280x720 grey, QR codes drifting across; up to 120 frames, the default,
a code is in every frame); duplicate window 0, so every frame's codes are emitted and every frame
with a code gets a snapshot (crop: frame, the costliest). Runs,
interleaved, N times each:
  ENGINE-plain:     syncscan run --engine ENGINE --scanning-threads 1 --duplicate-window 0
  ENGINE-snapshots: the same with --snapshot-dir DIR (emptied before each run)
and prints the median frames/s of each, the ratio (target >= 0.9), and the median JPEG encode time
per frame (the summary's snapshot_encode_p50, median over the runs).
Usage: bench/snapshots.py [--runs N] [--frames N] [--engines zbar,zxing]
"""
import argparse, os, re, shutil, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import OUT, ROOT, make_frames, sh, release_syncscan  # noqa: E402


def timed(cmd):
    """Wall seconds and stderr of one run, stdout discarded."""
    start = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.monotonic() - start
    err = p.stderr.decode(errors="replace")
    if p.returncode != 0:
        sys.exit(f"benchmark command failed: {' '.join(cmd)}\n{err}")
    return elapsed, err


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--frames", type=int, default=120)
    ap.add_argument("--engines", default="zbar,zxing")
    args = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    frames = os.path.join(OUT, f"bench-1280x720-plain-{args.frames}.y4m")
    make_frames(frames, args.frames, "plain")
    syncscan = release_syncscan()
    shots = tempfile.mkdtemp(prefix="syncscan-bench-snapshots-")
    base = [syncscan, "run", "--source", frames, "--scanning-threads", "1", "--duplicate-window", "0",
            "--log-level", "error", "--symbologies", "qrcode"]
    commands = {}
    for engine in args.engines.split(","):
        commands[f"{engine}-plain"] = base + ["--engine", engine]
        commands[f"{engine}-snapshots"] = base + ["--engine", engine, "--snapshot-dir", shots]
    times = {k: [] for k in commands}
    encode = {k: [] for k in commands}
    written = {k: [] for k in commands}
    try:
        for rnd in range(args.runs + 1):  # the first round warms the page cache and is not counted
            for name, cmd in commands.items():
                shutil.rmtree(shots, ignore_errors=True)
                os.makedirs(shots)
                t, err = timed(cmd)
                if rnd == 0:
                    continue
                times[name].append(t)
                m = re.search(r"snapshots_written=(\d+) .*snapshot_encode_p50=([\d.]+)ms", err)
                if m:
                    written[name].append(int(m.group(1)))
                    encode[name].append(float(m.group(2)))
    finally:
        shutil.rmtree(shots, ignore_errors=True)
    fps = {k: args.frames / statistics.median(v) for k, v in times.items()}
    print(f"frames: {args.frames} x 1280x720 GREY, QR codes (in every frame up to 120 frames), duplicate window 0, 1 scanning thread, "
          f"{args.runs} runs each (median)")
    for k in commands:
        extra = ""
        if encode[k]:
            extra = (f"   snapshots written {min(written[k])}-{max(written[k])}, "
                     f"JPEG encode {statistics.median(encode[k]):.2f} ms/frame (median of run medians)")
        print(f"  {k:18s} {fps[k]:8.2f} frames/s   wall {statistics.median(times[k]):.3f} s "
              f"(min {min(times[k]):.3f}, max {max(times[k]):.3f}){extra}")
    for engine in args.engines.split(","):
        print(f"ratio {engine}: with snapshots / without = {fps[f'{engine}-snapshots'] / fps[f'{engine}-plain']:.3f}x (target >= 0.9)")


if __name__ == "__main__":
    main()
