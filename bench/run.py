#!/usr/bin/env python3
"""syncscan's throughput benchmark against the bare decoder loops (the floors), on the same frames.

Makes 1280x720 greyscale frames with moving QR codes (on flat white, or with --scene textured on a
noisy moving test pattern), then runs, interleaved (A B C … A B C …):
  zbar-floor:      bench/zbar-floor FRAMES.y4m       (C, one zbar scanner, QR only)
  zxing-floor:     bench/zxing-floor FRAMES.y4m      (C, zxing-cpp 3.1.1's ZXing_ReadBarcodes, QR only, syncscan's default options)
  syncscan-zbar:   syncscan run --engine zbar        (release build, one scanning thread, QR only)
  zxing-floor-fast: bench/zxing-floor --no-try-harder --no-try-rotate --no-try-downscale --no-try-invert FRAMES.y4m
  syncscan-zxing:  syncscan run --engine zxing --passes zxing-full  (the same, through zxing-cpp's full pass: the floor's options)
  zxing-fast:      syncscan run --engine zxing --effort fast         (zxing-cpp's fast pass alone: zxing-floor-fast's options)
  syncscan-hybrid: syncscan run --engine hybrid --passes zbar,zxing-full  (the same, through both)
  all-zbar:        syncscan run --engine zbar   --symbologies all   (every symbology zbar reads)
  all-hybrid:      syncscan run --engine hybrid --passes zbar,zxing-full --symbologies all   (zbar and zxing-cpp, each on what it reads)
and prints medians of N runs each: frames/s, the ratios the README and issues quote, and peak RSS (wait4).
Every run must read both codes in every frame each is wholly in (a floor: as many symbols at least), or it fails.
Usage: bench/run.py [--runs N] [--frames N] [--scene plain|textured] [--only NAME,NAME] [--zxing-hints-off]
(needs: gcc, libzbar-dev, zxing-cpp 3.1.1 from scripts/setup.sh, qrencode, ffmpeg, a Swift toolchain)
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench", "out")
# The two QR codes' payloads in the frames.
PAYLOADS = ("syncscan benchmark A", "https://example.org/bench?id=1234567890")


def sh(*cmd, **kw):
    subprocess.run(cmd, check=True, **kw)


def make_frames(path, count, scene):
    """1280x720 grey, QR codes drifting across the background: flat white (`plain`), or a moving
    test pattern with sensor-like noise (`textured`, closer to what a camera sees)."""
    if os.path.exists(path):
        return
    background = {"plain": "color=c=white:s=1280x720:r=10,format=gray",
                  "textured": "testsrc2=s=1280x720:r=10,format=gray,noise=alls=10:allf=t"}[scene]
    with tempfile.TemporaryDirectory() as t:
        sh("qrencode", "-s", "8", "-m", "2", "-o", f"{t}/a.png", PAYLOADS[0])
        sh("qrencode", "-s", "5", "-m", "2", "-o", f"{t}/b.png", PAYLOADS[1])
        sh("ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", background,
           "-i", f"{t}/a.png", "-i", f"{t}/b.png", "-filter_complex",
           "[0][1]overlay=x='100+t*80':y=120[v];[v][2]overlay=x='900-t*60':y=380,format=gray",
           "-frames:v", str(count), "-f", "yuv4mpegpipe", path + ".tmp")
    os.replace(path + ".tmp", path)


def release_syncscan():
    """Builds the release syncscan (swift build -c release) and returns its path."""
    sh("swift", "build", "-c", "release", "--product", "syncscan", cwd=ROOT, stdout=subprocess.DEVNULL)
    return os.path.join(ROOT, ".build", "release", "syncscan")


def in_view(count):
    """The frames (seq from 0) in which each payload's code is wholly in the picture, by
    make_frames' drift at 10 frames/s: A's modules span x+16…x+216 at x = 100 + 80 t, B's
    x+10…x+155 at x = 900 - 60 t."""
    return {PAYLOADS[0]: {i for i in range(count) if 100 + 8 * i + 216 <= 1280},
            PAYLOADS[1]: {i for i in range(count) if 900 - 6 * i + 10 >= 0}}


def misses(cmd, stdout, expected):
    """What a run failed to read of `expected` (payload → frames): syncscan's code lines (text,
    frame.seq) must hold each payload in each of its frames; a floor's `symbols=N` must count
    them all at least. Empty when everything expected was read."""
    lines = stdout.splitlines()
    if cmd[1:2] == ["run"]:
        read = {}
        for line in lines:
            code = json.loads(line)
            read.setdefault(code.get("text"), set()).add(code["frame"]["seq"])
        return [f"{text!r} not read in {len(frames - read.get(text, set()))} of the {len(frames)} frames it is wholly in"
                f" (first {sorted(frames - read.get(text, set()))[:5]})"
                for text, frames in expected.items() if frames - read.get(text, set())]
    counted = [int(line.split("symbols=")[1]) for line in lines if "symbols=" in line]
    want = sum(len(frames) for frames in expected.values())
    return [] if counted and counted[-1] >= want else [f"symbols read: {counted[-1] if counted else 'none printed'}, {want} expected"]


def timed(cmd, expected):
    """Wall seconds and peak RSS (KiB) of one run; exits when it failed or missed a code `expected`."""
    with tempfile.TemporaryFile() as out:
        start = time.monotonic()
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(p.pid, 0)
        elapsed = time.monotonic() - start
        err = p.stderr.read().decode(errors="replace")
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"benchmark command failed: {' '.join(cmd)}\n{err}")
        out.seek(0)
        missed = misses(cmd, out.read().decode(errors="replace"), expected)
    if missed:
        sys.exit(f"benchmark command did not read the codes expected: {' '.join(cmd)}\n  " + "\n  ".join(missed))
    return elapsed, usage.ru_maxrss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--frames", type=int, default=120)
    ap.add_argument("--scene", choices=["plain", "textured"], default="plain",
                    help="the frames' background: flat white (default) or a noisy moving test pattern")
    ap.add_argument("--only", default="", help="comma-separated command names to run (default: all)")
    ap.add_argument("--zxing-hints-off", action="store_true",
                    help="zxing.try-harder/try-rotate/try-downscale false for syncscan and the zxing floor alike")
    args = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    frames = os.path.join(OUT, f"bench-1280x720-{args.scene}-{args.frames}.y4m")
    make_frames(frames, args.frames, args.scene)
    zbar_floor = os.path.join(OUT, "zbar-floor")
    sh("cc", "-O2", "-o", zbar_floor, os.path.join(ROOT, "bench", "zbar-floor.c"), "-lzbar")
    zxing_floor = os.path.join(OUT, "zxing-floor")
    # Against the 3.1.1 install (its zxing.pc names the static archive), as syncscan links it.
    zxing_flags = subprocess.run(["pkg-config", "--cflags", "--libs", "zxing"], check=True, capture_output=True,
                                 text=True).stdout.split()
    sh("cc", "-O2", "-o", zxing_floor, os.path.join(ROOT, "bench", "zxing-floor.c"), *zxing_flags)
    syncscan = release_syncscan()
    run = [syncscan, "run", "--source", frames, "--scanning-threads", "1", "--duplicate-window", "0", "--log-level", "error"]
    commands = {
        "zbar-floor": [zbar_floor, frames],
        "zxing-floor": [zxing_floor] + (["--no-try-harder", "--no-try-rotate", "--no-try-downscale"]
                                        if args.zxing_hints_off else []) + [frames],
        "syncscan-zbar": run + ["--engine", "zbar", "--symbologies", "qrcode"],
        "zxing-floor-fast": [zxing_floor, "--no-try-harder", "--no-try-rotate", "--no-try-downscale", "--no-try-invert", frames],
        "syncscan-zxing": run + ["--engine", "zxing", "--passes", "zxing-full", "--symbologies", "qrcode"],
        "zxing-fast": run + ["--engine", "zxing", "--effort", "fast", "--symbologies", "qrcode"],
        "syncscan-hybrid": run + ["--engine", "hybrid", "--passes", "zbar,zxing-full", "--symbologies", "qrcode"],
        "all-zbar": run + ["--engine", "zbar", "--symbologies", "all"],
        "all-hybrid": run + ["--engine", "hybrid", "--passes", "zbar,zxing-full", "--symbologies", "all"],
    }
    if args.zxing_hints_off:
        os.environ.update(SYNCSCAN_ZXING_TRY_HARDER="false", SYNCSCAN_ZXING_TRY_ROTATE="false",
                          SYNCSCAN_ZXING_TRY_DOWNSCALE="false")
    if args.only:
        commands = {k: v for k, v in commands.items() if k in args.only.split(",")}
    times = {k: [] for k in commands}
    rss = {k: [] for k in commands}
    expected = in_view(args.frames)
    for cmd in commands.values():  # warm the page cache
        timed(cmd, expected)
    for _ in range(args.runs):  # interleaved, so machine noise hits each alike
        for name, cmd in commands.items():
            t, m = timed(cmd, expected)
            times[name].append(t); rss[name].append(m)
    fps = {k: args.frames / statistics.median(v) for k, v in times.items()}
    print(f"frames: {args.frames} x 1280x720 GREY, QR codes on a {args.scene} background, 1 scanning thread, {args.runs} runs each (median); "
          f"zxing hints {'all off' if args.zxing_hints_off else 'default (try-harder, try-rotate, try-downscale on)'}")
    for k in commands:
        print(f"  {k:15s} {fps[k]:8.2f} frames/s   wall {statistics.median(times[k]):.3f} s "
              f"(min {min(times[k]):.3f}, max {max(times[k]):.3f})   peak RSS {max(rss[k]) / 1024:.1f} MB (max)")
    for label, a, b in [("syncscan zbar engine / zbar floor", "syncscan-zbar", "zbar-floor"),
                        ("syncscan zxing engine / zxing floor", "syncscan-zxing", "zxing-floor"),
                        ("syncscan zxing --effort fast / its floor", "zxing-fast", "zxing-floor-fast"),
                        ("zxing engine / zbar engine (QR)", "syncscan-zxing", "syncscan-zbar"),
                        ("hybrid all / zbar all (frames/s)", "all-hybrid", "all-zbar")]:
        if a in fps and b in fps:
            print(f"ratio {label}: {fps[a] / fps[b]:.3f}x")


if __name__ == "__main__":
    main()
