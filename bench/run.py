#!/usr/bin/env python3
"""syncscan's throughput benchmark against the bare zbar loop (the floor), on the same frames.

Makes 1280x720 greyscale frames with moving QR codes, then alternates runs of
  floor:    bench/zbar-floor FRAMES.y4m           (C, one zbar scanner, QR only)
  syncscan: syncscan run --source FRAMES.y4m      (release build, one scanning thread, QR only)
and prints medians of N runs each: frames/s, the ratio syncscan/floor, and peak RSS (wait4).
Usage: bench/run.py [--runs N] [--frames N]   (needs: gcc libzbar-dev qrencode ffmpeg, a Swift toolchain)
"""
import argparse, os, shutil, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench", "out")


def sh(*cmd, **kw):
    subprocess.run(cmd, check=True, **kw)


def make_frames(path, count):
    """1280x720 grey, QR codes drifting across a white frame (real content, not blank)."""
    if os.path.exists(path):
        return
    with tempfile.TemporaryDirectory() as t:
        sh("qrencode", "-s", "8", "-m", "2", "-o", f"{t}/a.png", "syncscan benchmark A")
        sh("qrencode", "-s", "5", "-m", "2", "-o", f"{t}/b.png", "https://example.org/bench?id=1234567890")
        sh("ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=white:s=1280x720:r=10",
           "-i", f"{t}/a.png", "-i", f"{t}/b.png", "-filter_complex",
           "[0][1]overlay=x='100+t*80':y=120[v];[v][2]overlay=x='900-t*60':y=380,format=gray",
           "-frames:v", str(count), "-f", "yuv4mpegpipe", path + ".tmp")
    os.replace(path + ".tmp", path)


def timed(cmd):
    """Wall seconds and peak RSS (KiB) of one run, stdout discarded."""
    start = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    elapsed = time.monotonic() - start
    err = p.stderr.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"benchmark command failed: {' '.join(cmd)}\n{err}")
    return elapsed, usage.ru_maxrss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--frames", type=int, default=40)
    args = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    frames = os.path.join(OUT, f"bench-1280x720-{args.frames}.y4m")
    make_frames(frames, args.frames)
    floor = os.path.join(OUT, "zbar-floor")
    sh("cc", "-O2", "-o", floor, os.path.join(ROOT, "bench", "zbar-floor.c"), "-lzbar")
    sh("swift", "build", "-c", "release", "--product", "syncscan", cwd=ROOT, stdout=subprocess.DEVNULL)
    syncscan = os.path.join(ROOT, ".build", "release", "syncscan")
    commands = {
        "floor": [floor, frames],
        "syncscan": [syncscan, "run", "--source", frames, "--symbologies", "qrcode",
                     "--scanning-threads", "1", "--duplicate-window", "0", "--log-level", "error"],
    }
    times = {k: [] for k in commands}
    rss = {k: [] for k in commands}
    timed(commands["floor"]); timed(commands["syncscan"])  # warm the page cache
    for _ in range(args.runs):  # interleaved, so machine noise hits both alike
        for name, cmd in commands.items():
            t, m = timed(cmd)
            times[name].append(t); rss[name].append(m)
    fps = {k: args.frames / statistics.median(v) for k, v in times.items()}
    print(f"frames: {args.frames} x 1280x720 GREY, QR only, 1 scanning thread, {args.runs} runs each (median)")
    for k in commands:
        print(f"  {k:9s} {fps[k]:7.2f} frames/s   wall {statistics.median(times[k]):.3f} s "
              f"(min {min(times[k]):.3f}, max {max(times[k]):.3f})   peak RSS {statistics.median(rss[k]) / 1024:.1f} MB")
    print(f"ratio syncscan/floor: {fps['syncscan'] / fps['floor']:.3f}x frames/s")
    print(f"syncscan peak RSS: {max(rss['syncscan']) / 1024:.1f} MB (max of runs)")


if __name__ == "__main__":
    main()
