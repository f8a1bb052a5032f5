#!/usr/bin/env python3
"""Reads and CPU per frame of each decoder pass alone and of each effort, on codes made hard on purpose.

The frames are bench/recall.py's (--set recall, the default: 1280x720 GREY, one code each: QR, Micro
QR, Aztec, DataMatrix, PDF417, EAN-13, Code 128 at two sizes, clean, blurred, rotated, low contrast,
noisy) or bench/hardset.py's (--set hard: keystone, motion blur, low light with noise, JPEG, glare,
inverted, 1-pixel 1-D modules, two conditions combined). Each row is
one `syncscan run` (release build, one scanning thread, duplicate suppression off, --symbologies
all): a pass alone (`--engine hybrid --passes P`), then each effort of the zxing and hybrid
engines on the file (where `auto` runs every pass, as `max` does), then `auto` and `fast` on the
same frames fed as a live pipe at --fps (where `auto` runs a harder pass only on evidence and
within the frame's time). Prints codes read (of those drawn), CPU ms per frame (user + system,
median of --runs) and, for the pipe, frames dropped as lateData in each run. Then the union of the
passes alone, and whether each engine's `auto` on the file read every frame of that union its
passes read ("auto >= union: yes/no", listing the frames it missed).
Usage: bench/effort.py [--set recall|hard] [--runs 3] [--fps 10]   (needs: zint, ffmpeg, a Swift toolchain)
"""
import argparse, base64, json, os, statistics, subprocess, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hardset, recall  # noqa: E402
from recall import OUT, W, H  # noqa: E402
from run import release_syncscan  # noqa: E402

BASE = ["--symbologies", "all", "--scanning-threads", "1", "--duplicate-window", "0", "--log-level", "error"]


def reads(stdout):
    """(seq, symbology, payload) of every code line; the passes that read them, by count."""
    found, passes = set(), {}
    for line in stdout.decode().splitlines():
        c = json.loads(line)
        if c["type"] != "code":
            continue
        found.add((c["frame"]["seq"], c["symbology"], base64.b64decode(c["data_b64"]).decode("latin-1")))
        passes[c["pass"]] = passes.get(c["pass"], 0) + 1
    return found, passes


def cpu_of(cmd, feed=None):
    """Runs `cmd` (feeding `feed()` to its stdin when given); returns stdout and its CPU seconds."""
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE if feed else None, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    chunks = []
    reader = threading.Thread(target=lambda: chunks.append(p.stdout.read()))
    reader.start()
    if feed:
        feed(p.stdin)
        p.stdin.close()
    reader.join()
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{err.decode(errors='replace')}")
    return chunks[0], usage.ru_utime + usage.ru_stime


def paced(path, fps):
    """A feeder writing the Y4M file's frames to a pipe at `fps`, as a camera would deliver them."""
    def feed(pipe):
        with open(path, "rb") as f:
            header = f.readline()
            pipe.write(header.replace(b"F10:1", f"F{fps}:1".encode()))
            size = W * H + len(b"FRAME\n")
            start, n = time.monotonic(), 0
            while chunk := f.read(size):
                delay = start + n / fps - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                pipe.write(chunk)
                pipe.flush()
                n += 1
    return feed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--fps", type=int, default=10, help="frame rate of the live pipe rows")
    ap.add_argument("--set", choices=["recall", "hard"], default="recall",
                    help="the frames: bench/recall.py's (default) or bench/hardset.py's")
    args = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    if args.set == "hard":
        frames = hardset.frames_path()
        expected = hardset.make_frames(frames)
    else:
        frames = os.path.join(OUT, "recall-1280x720.y4m")
        expected = recall.make_frames(frames)
    drawn = {(seq, n, p) for seq, (n, p, *_r) in enumerate(expected)}
    syncscan = release_syncscan()
    rows = [(f"pass {p}", ["--engine", "hybrid", "--passes", p, "--effort", "max"], False)
            for p in ["zxing-fast", "zbar", "zxing-full", "zxing-histogram"]]
    rows += [(f"{e} {x} (file)", ["--engine", e, "--effort", x], False) for e in ["zxing", "hybrid"] for x in ["fast", "auto", "max"]]
    rows += [(f"{e} {x} (pipe {args.fps} fps)", ["--engine", e, "--effort", x, "--emit-frames"], True)
             for e in ["zxing", "hybrid"] for x in ["fast", "auto"]]
    print(f"effort: {len(expected)} frames 1280x720 (bench/{'hardset' if args.set == 'hard' else 'recall'}.py's), --symbologies all, 1 scanning thread, "
          f"{args.runs} runs (CPU median)")
    print(f"  {'':32s} {'read':>8s} {'CPU ms/frame':>13s} {'lateData':>9s}  codes by pass")
    union, alone, on_file = set(), {}, {}
    for name, flags, live in rows:
        cpu, found, passes, late = [], set(), {}, []
        for _ in range(args.runs):
            source = ["--source", "-"] if live else ["--source", frames]
            out, seconds = cpu_of([syncscan, "run", *source, *BASE, *flags], paced(frames, args.fps) if live else None)
            found, passes = reads(out)
            late.append(sum(1 for l in out.decode().splitlines() if '"dropped":"lateData"' in l))
            cpu.append(seconds)
        if name.startswith("pass "):
            union |= found & drawn
            alone[name[5:]] = found & drawn
        elif not live:
            on_file[name] = found & drawn
        print(f"  {name:32s} {len(found & drawn):>4d}/{len(expected):<3d} {1000 * statistics.median(cpu) / len(expected):>13.1f} "
              f"{(','.join(map(str, late)) if live else '-'):>9s}  {', '.join(f'{k}:{v}' for k, v in sorted(passes.items()))}")
    print(f"  union of the passes alone: {len(union)}/{len(expected)}")
    for engine, passes in [("zxing", ["zxing-fast", "zxing-full", "zxing-histogram"]),
                           ("hybrid", ["zxing-fast", "zbar", "zxing-full", "zxing-histogram"])]:
        theirs = set().union(*(alone[p] for p in passes))
        auto = on_file[f"{engine} auto (file)"]
        missed = sorted(theirs - auto)
        print(f"  {engine} auto (file) {len(auto)}, union of its passes alone ({'+'.join(passes)}) {len(theirs)}: "
              f"auto >= union: {'yes' if not missed else 'no'}"
              + (f" (missed {', '.join(f'{s}:{n}/{expected[s][-1]}' for s, n, _p in missed)})" if missed else ""))


if __name__ == "__main__":
    main()
