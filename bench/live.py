#!/usr/bin/env python3
"""A live camera stand-in: a 1920x1080 GREY Y4M pipe at a real frame rate, QR codes coming and going.

Feeds syncscan (release build) through a pipe at --fps, noting the wall time each frame starts to
be written, and reads syncscan's stdout (`--emit-frames`): every frame's ledger record and every
code line. Prints the share of frames dropped as lateData, how many code appearances were read,
and frame→line latency (line's `time` minus the frame's write start): median, p99 and max.
Each code shows for one second at its own place, with one-second gaps and overlaps, so codes
keep coming and going. Duplicate suppression is off, so every frame a code is read in gives a
line and a latency sample.
CPU is the process's user + system time per frame (wait4), reading and writing included; --blank
feeds frames with no code at all.
Usage: bench/live.py [--engine zxing] [--effort auto] [--seconds 20] [--fps 30] [--threads auto] [--runs 1] [--blank]
(needs: qrencode, a Swift toolchain)
"""
import argparse, datetime, json, os, statistics, subprocess, sys, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import release_syncscan  # noqa: E402
W, H = 1920, 1080


def qr_rows(payload, scale):
    """The QR code for `payload` as rows of bytes (0 dark, 255 light), `scale` pixels a module, 4-module margin."""
    text = subprocess.run(["qrencode", "-t", "ASCII", "-m", "4", payload], check=True,
                          capture_output=True, text=True).stdout.splitlines()
    rows = []
    for line in text:
        modules = line[::2]
        row = b"".join((b"\x00" if m == "#" else b"\xff") * scale for m in modules)
        rows.extend([row] * scale)
    return rows


def schedule(seconds, fps, blank=False):
    """Per appearance: (payload, first frame, last frame, x, y). One new code a second, each shown 1 s;
    every third second a second code overlaps, every fourth second is empty."""
    spots = [(120, 100), (1100, 140), (300, 600), (1300, 560), (760, 360)]
    shows = []
    if blank:
        return shows
    for s in range(seconds):
        if s % 4 == 3:
            continue
        x, y = spots[s % len(spots)]
        shows.append((f"syncscan live {s:04d}", s * fps, (s + 1) * fps - 1, x, y))
        if s % 3 == 2:
            x, y = spots[(s + 2) % len(spots)]
            shows.append((f"syncscan live {s:04d} b", s * fps + fps // 2, (s + 1) * fps + fps // 2 - 1, x, y))
    return shows


def frames(seconds, fps, scale, blank=False):
    shows = schedule(seconds, fps, blank)
    images = {p: qr_rows(p, scale) for p, *_ in shows}
    blank = bytes([255]) * (W * H)
    for n in range(seconds * fps):
        frame = bytearray(blank)
        for payload, first, last, x, y in shows:
            if first <= n <= last:
                for r, row in enumerate(images[payload]):
                    start = (y + r) * W + x
                    frame[start:start + len(row)] = row
        yield bytes(frame)


def run_once(args, syncscan):
    fps, seconds = args.fps, args.seconds
    prepared = list(frames(seconds, fps, args.scale, args.blank))  # rendered up front: the feeder only writes
    shows = schedule(seconds, fps, args.blank)
    cmd = [syncscan, "run", "--source", "-", "--engine", args.engine, "--effort", args.effort, "--emit-frames",
           "--duplicate-window", "0", "--log-level", "error"]
    if args.threads != "auto":
        cmd += ["--scanning-threads", args.threads]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout.read().decode().splitlines()))
    reader.start()
    written = {}
    proc.stdin.write(f"YUV4MPEG2 W{W} H{H} F{fps}:1 Ip A1:1 Cmono\n".encode())
    start = time.monotonic()
    for n, frame in enumerate(prepared):
        due = start + n / fps
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        written[n] = time.time()
        proc.stdin.write(b"FRAME\n" + frame)
        proc.stdin.flush()
    proc.stdin.close()
    reader.join()
    err = proc.stderr.read().decode(errors="replace")
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"syncscan failed:\n{err}")
    records = [json.loads(l) for l in lines]
    ledger = [r for r in records if r["type"] == "frame"]
    codes = [r for r in records if r["type"] == "code"]
    late = sum(1 for r in ledger if r["dropped"] == "lateData")
    latencies = []
    for c in codes:
        t = datetime.datetime.fromisoformat(c["time"].replace("Z", "+00:00")).timestamp()
        latencies.append((t - written[c["frame"]["seq"]]) * 1000)
    read = {c.get("text") for c in codes}
    shown = sum(1 for n in range(seconds * fps) for _, first, last, *_r in shows if first <= n <= last)
    expected = {p for p, *_ in shows}
    passes = {}
    for c in codes:
        passes[c["pass"]] = passes.get(c["pass"], 0) + 1
    return {"frames": len(ledger), "late": late, "passes": passes, "cpu": usage.ru_utime + usage.ru_stime, "read": len(read & expected), "expected": len(expected),
            "sightings": len(codes), "shown": shown, "latencies": sorted(latencies)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", default="zxing")
    ap.add_argument("--effort", default="auto", choices=["fast", "auto", "max"])
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--fps", type=int, default=30)
    ap.add_argument("--scale", type=int, default=6, help="pixels per QR module")
    ap.add_argument("--threads", default="auto")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--blank", action="store_true", help="no codes at all: what scanning empty frames costs")
    args = ap.parse_args()
    syncscan = release_syncscan()
    print(f"live pipe: {W}x{H} GREY at {args.fps} fps for {args.seconds} s, --engine {args.engine} --effort {args.effort}, "
          f"scanning threads {args.threads}")
    for i in range(args.runs):
        r = run_once(args, syncscan)
        lat = r["latencies"]
        p = lambda q: lat[min(len(lat) - 1, round((len(lat) - 1) * q))] if lat else float("nan")
        print(f"  run {i + 1}: frames {r['frames']}, lateData {r['late']} ({100 * r['late'] / max(1, r['frames']):.2f} %), "
              f"appearances read {r['read']}/{r['expected']}, sightings {r['sightings']}/{r['shown']}, "
              f"frame→line ms: median {p(0.5):.1f}, "
              f"p99 {p(0.99):.1f}, max {p(1.0):.1f} (n={len(lat)}), sightings by pass {r['passes']}, "
              f"CPU {1000 * r['cpu'] / max(1, r['frames']):.2f} ms/frame")


if __name__ == "__main__":
    main()
