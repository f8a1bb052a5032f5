#!/usr/bin/env python3
"""A live camera stand-in: a 1920x1080 GREY Y4M pipe at a real frame rate, QR codes coming and going
(or bench/hardset.py's hard frames, or blank frames).

Feeds syncscan (release build) through a pipe at --fps, noting the wall time each frame starts to
be written, and reads syncscan's stdout (`--emit-frames`): every frame's ledger record and every
code line. Prints the share of frames dropped as lateData, how many code appearances were read,
and frame→line latency (line's `time` minus the frame's write start): median, p99 and max.
Each code shows for one second at its own place, with one-second gaps and overlaps, so codes
keep coming and going. Duplicate suppression is off, so every frame a code is read in gives a
line and a latency sample.
CPU is the process's user + system time per frame (wait4), reading and writing included; --blank
feeds frames with no code at all; --size WxH sets the frames' size (default 1920x1080).
--frames hard plays bench/hardset.py's 1280x720 frames instead (one degraded code each, every payload
different), each held for --hold frames (default 15, half a second at 30 fps), once through (--seconds
is ignored), --symbologies all; "read" is then the hard set's distinct payloads read, of those drawn.
--effort takes a comma-separated list (e.g. auto,fast): the efforts alternate run by run (A B A B …,
so machine noise hits each alike), and with more than one run a table of medians per effort follows.
Usage: bench/live.py [--engine zxing] [--effort auto[,fast]] [--seconds 20] [--fps 30] [--threads auto] [--runs 1]
                     [--blank] [--size WxH] [--frames qr|hard] [--hold 15]
(needs: qrencode, zint and ffmpeg for --frames hard, a Swift toolchain)
"""
import argparse, base64, datetime, json, os, statistics, subprocess, sys, threading, time

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


def frames(seconds, fps, scale, blank=False, w=W, h=H):
    shows = schedule(seconds, fps, blank)
    images = {p: qr_rows(p, scale) for p, *_ in shows}
    blank = bytes([255]) * (w * h)
    for n in range(seconds * fps):
        frame = bytearray(blank)
        for payload, first, last, x, y in shows:
            if first <= n <= last:
                for r, row in enumerate(images[payload]):
                    if y + r >= h:
                        break
                    start = (y + r) * w + x
                    row = row[:max(0, w - x)]
                    frame[start:start + len(row)] = row
        yield bytes(frame)


def hard_frames(hold):
    """bench/hardset.py's frames, each `hold` times; the payload shown in each frame."""
    import hardset
    os.makedirs(hardset.OUT, exist_ok=True)
    path = hardset.frames_path()
    expected = hardset.make_frames(path)
    size = hardset.W * hardset.H
    with open(path, "rb") as f:
        f.readline()
        images = []
        while f.read(len(b"FRAME\n")):
            images.append(f.read(size))
    prepared = [image for image in images for _ in range(hold)]
    payloads = [payload for (_n, payload, _c) in expected for _ in range(hold)]
    return prepared, payloads


def run_once(args, syncscan, effort, hard=None):
    fps, seconds, (w, h) = args.fps, args.seconds, args.size
    if hard:
        prepared, payloads = hard
    else:  # rendered up front: the feeder only writes
        prepared = list(frames(seconds, fps, args.scale, args.blank, w, h))
        shows = schedule(seconds, fps, args.blank)
    cmd = [syncscan, "run", "--source", "-", "--engine", args.engine, "--effort", effort, "--emit-frames",
           "--duplicate-window", "0", "--log-level", "error"]
    if args.threads != "auto":
        cmd += ["--scanning-threads", args.threads]
    if args.symbologies:
        cmd += ["--symbologies", args.symbologies]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout.read().decode().splitlines()))
    reader.start()
    written = {}
    proc.stdin.write(f"YUV4MPEG2 W{w} H{h} F{fps}:1 Ip A1:1 Cmono\n".encode())
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
    text = lambda c: base64.b64decode(c["data_b64"]).decode("latin-1")
    read = {text(c) for c in codes}
    if hard:
        shown, expected = len(payloads), set(payloads)
        sightings = sum(1 for c in codes if text(c) == payloads[c["frame"]["seq"]])
    else:
        shown = sum(1 for n in range(seconds * fps) for _, first, last, *_r in shows if first <= n <= last)
        expected = {p for p, *_ in shows}
        sightings = len(codes)
    passes = {}
    for c in codes:
        passes[c["pass"]] = passes.get(c["pass"], 0) + 1
    return {"frames": len(ledger), "late": late, "passes": passes, "cpu": usage.ru_utime + usage.ru_stime, "read": len(read & expected), "expected": len(expected),
            "sightings": sightings, "shown": shown, "latencies": sorted(latencies)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", default="zxing")
    ap.add_argument("--effort", default="auto", help="fast, auto or max, or a comma-separated list to alternate")
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--fps", type=int, default=30)
    ap.add_argument("--scale", type=int, default=6, help="pixels per QR module")
    ap.add_argument("--threads", default="auto")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--blank", action="store_true", help="no codes at all: what scanning empty frames costs")
    ap.add_argument("--size", help="WxH of the frames (default 1920x1080; 1280x720, the only size, with --frames hard)")
    ap.add_argument("--frames", choices=["qr", "hard"], default="qr",
                    help="QR codes coming and going (default), or bench/hardset.py's frames")
    ap.add_argument("--symbologies", help="syncscan's --symbologies (default: its own; all with --frames hard)")
    ap.add_argument("--hold", type=int, default=15, help="with --frames hard: frames each hard-set frame is shown")
    args = ap.parse_args()
    efforts = args.effort.split(",")
    if any(e not in ("fast", "auto", "max") for e in efforts):
        sys.exit(f"--effort: fast, auto or max, not {args.effort}")
    if args.frames == "hard" and args.blank:
        sys.exit("--frames hard and --blank exclude each other")
    default = "1280x720" if args.frames == "hard" else f"{W}x{H}"
    args.size = tuple(int(v) for v in (args.size or default).split("x"))
    if args.frames == "hard" and args.size != (1280, 720):
        sys.exit("--frames hard: the hard set is 1280x720")
    hard = hard_frames(args.hold) if args.frames == "hard" else None
    if hard and not args.symbologies:
        args.symbologies = "all"
    syncscan = release_syncscan()
    what = (f"bench/hardset.py's {len(set(hard[1]))} frames, each held {args.hold} frames "
            f"({len(hard[0]) / args.fps:.1f} s)" if hard else
            f"{'blank frames' if args.blank else 'QR codes coming and going'} for {args.seconds} s")
    print(f"live pipe: {args.size[0]}x{args.size[1]} GREY at {args.fps} fps, {what}, --engine {args.engine} "
          f"--effort {' / '.join(efforts)} (alternating), scanning threads {args.threads}"
          + (f", --symbologies {args.symbologies}" if args.symbologies else ""))
    results = {e: [] for e in efforts}
    for i in range(args.runs):
        for effort in efforts:
            r = run_once(args, syncscan, effort, hard)
            lat = r["latencies"]
            p = lambda q: lat[min(len(lat) - 1, round((len(lat) - 1) * q))] if lat else float("nan")
            r.update(p50=p(0.5), p99=p(0.99), pct=100 * r["late"] / max(1, r["frames"]), ms=1000 * r["cpu"] / max(1, r["frames"]))
            results[effort].append(r)
            print(f"  run {i + 1} {effort}: frames {r['frames']}, lateData {r['late']} ({r['pct']:.2f} %), "
                  f"{'payloads' if hard else 'appearances'} read {r['read']}/{r['expected']}, sightings {r['sightings']}/{r['shown']}, "
                  f"frame→line ms: median {r['p50']:.1f}, "
                  f"p99 {r['p99']:.1f}, max {p(1.0):.1f} (n={len(lat)}), sightings by pass {r['passes']}, "
                  f"CPU {r['ms']:.2f} ms/frame", flush=True)
    if args.runs > 1:
        m = lambda rs, k: statistics.median(r[k] for r in rs)
        print(f"  medians of {args.runs} runs:")
        print(f"  {'effort':8s} {'lateData %':>10s} {'CPU ms/frame':>13s} {'read':>9s} {'sightings':>11s} "
              f"{'p50 ms':>8s} {'p99 ms':>8s}")
        for effort, rs in results.items():
            print(f"  {effort:8s} {m(rs, 'pct'):>10.2f} {m(rs, 'ms'):>13.2f} {m(rs, 'read'):>5g}/{rs[0]['expected']:<3d} "
                  f"{m(rs, 'sightings'):>11g} {m(rs, 'p50'):>8.1f} {m(rs, 'p99'):>8.1f}")


if __name__ == "__main__":
    main()
