#!/usr/bin/env python3
"""Recall of each decoder engine on codes made hard on purpose, and its frames/s on those frames.

Makes 1280x720 GREY frames, one code each, every payload different: QR, Micro QR, Aztec,
DataMatrix, PDF417 (zint), EAN-13 and Code 128, each at two sizes and five conditions (clean,
blurred, rotated 17°, low contrast, noisy). Runs `syncscan run --engine E --symbologies all`
(one scanning thread, duplicate suppression off; the default effort, which on a file runs every pass
of the engine) for zbar, zxing and hybrid, and prints per engine
and symbology how many payloads it read exactly, and its frames/s (median of --runs).
With --baseline PATH the same table for that syncscan binary (say, main's release build copied
aside), run side by side, and per engine the codes one of the two reads and the other does not.
Usage: bench/recall.py [--runs 3] [--baseline PATH] [--json FILE]   (needs: zint, ffmpeg, a Swift toolchain)
"""
import argparse, base64, collections, json, os, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import release_syncscan  # noqa: E402
OUT = os.path.join(ROOT, "bench", "out")
W, H = 1280, 720
# name in syncscan, zint barcode number, payload maker
CODES = [
    ("qrcode", 58, lambda i: f"recall QR {i:03d} https://example.org/r?{i}"),
    ("microqr", 97, lambda i: f"MQR{i:03d}"),
    ("aztec", 92, lambda i: f"recall aztec {i:03d}"),
    ("datamatrix", 71, lambda i: f"recall datamatrix {i:03d}"),
    ("pdf417", 55, lambda i: f"recall pdf417 {i:03d}"),
    ("ean13", 13, lambda i: f"{400000000000 + i * 7919:012d}"),
    ("code128", 20, lambda i: f"RECALL-128-{i:03d}"),
]
SIZES = {"small": 2, "medium": 4}  # zint --scale for 2-D codes; 1-D codes get half (they are wide)
LINEAR = {"ean13", "code128"}
CONDITIONS = {
    "clean": "",
    "blur": ",gblur=sigma=1.6",
    "rotated": ",rotate=17*PI/180:c=white:ow=rotw(17*PI/180):oh=roth(17*PI/180)",
    "low-contrast": ",eq=contrast=0.25",
    "noise": ",noise=alls=40:allf=t",
}


def ean13_check(d12):
    s = sum(int(c) * (3 if i % 2 else 1) for i, c in enumerate(d12))
    return d12 + str((10 - s % 10) % 10)


def make_frames(path):
    """Writes the frames as one Y4M file; returns the expected (symbology, payload) per frame."""
    expected = []
    with tempfile.TemporaryDirectory() as t, open(path + ".tmp", "wb") as y4m:
        y4m.write(f"YUV4MPEG2 W{W} H{H} F10:1 Ip A1:1 Cmono\n".encode())
        i = 0
        for name, zint_type, payload in CODES:
            for size_name, scale in SIZES.items():
                for condition, filters in CONDITIONS.items():
                    data = payload(i)
                    png = f"{t}/{i}.png"
                    zint_scale = scale // 2 if name in LINEAR else scale
                    subprocess.run(["zint", "-b", str(zint_type), "--scale", str(zint_scale), "-o", png, "-d", data],
                                   check=True, capture_output=True)
                    # Rotation (if any) first on the code, then centred on white, then the degradation.
                    rotate = filters if condition == "rotated" else ""
                    degrade = "" if condition == "rotated" else filters
                    graph = (f"[0]format=gray{rotate},pad=max(iw\\,{W}):max(ih\\,{H}):(ow-iw)/2:(oh-ih)/2:white,"
                             f"crop={W}:{H}{degrade}")
                    raw = subprocess.run(["ffmpeg", "-loglevel", "error", "-i", png, "-filter_complex", graph,
                                          "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "-"],
                                         check=True, capture_output=True).stdout
                    if len(raw) != W * H:
                        sys.exit(f"frame {i}: ffmpeg gave {len(raw)} bytes")
                    y4m.write(b"FRAME\n" + raw)
                    full = ean13_check(data) if name == "ean13" else data
                    expected.append((name, full, size_name, condition))
                    i += 1
    os.replace(path + ".tmp", path)
    return expected


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--baseline", metavar="PATH", help="another syncscan binary run side by side")
    ap.add_argument("--json", metavar="FILE", help="write each binary's reads per engine as data")
    ap.add_argument("--no-build", action="store_true", help="use .build/release/syncscan as it is")
    args = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    frames = os.path.join(OUT, "recall-1280x720.y4m")
    expected = make_frames(frames)  # made anew each run: cheap, and never stale
    engines = ["zbar", "zxing", "hybrid"]
    binaries = ([("baseline", args.baseline)] if args.baseline else []) + [("this", os.path.join(ROOT, ".build", "release", "syncscan") if args.no_build else release_syncscan())]
    results = {name: table(binary, frames, expected, engines, args.runs) for name, binary in binaries}
    if args.baseline:
        for engine in engines:
            before, after = results["baseline"][engine], results["this"][engine]
            print(f"  {engine}: read by baseline only {sorted(before - after)}, by this only {sorted(after - before)}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"command": "bench/recall.py " + " ".join(sys.argv[1:]), "frames": len(expected), "runs": args.runs,
                       "loadavg_end": list(os.getloadavg()),
                       "read": {name: {e: len(r[e]) for e in engines} for name, r in results.items()},
                       "extra": {name: {e: r["extra"][e] for e in engines} for name, r in results.items()}}, f, indent=1)


def table(syncscan, frames, expected, engines, runs):
    """Runs each engine `runs` times on the frames, prints the table; the right (seq, symbology, payload)
    per engine, and under "extra" the count of codes reported that were not drawn."""
    print(f"== {syncscan}")
    found, times = {}, collections.defaultdict(list)
    for _ in range(runs):
        for engine in engines:
            cmd = [syncscan, "run", "--source", frames, "--engine", engine, "--symbologies", "all",
                   "--scanning-threads", "1", "--duplicate-window", "0", "--log-level", "error"]
            start = time.monotonic()
            p = subprocess.run(cmd, capture_output=True)
            times[engine].append(time.monotonic() - start)
            if p.returncode != 0:
                sys.exit(f"{' '.join(cmd)} failed:\n{p.stderr.decode(errors='replace')}")
            lines = [json.loads(l) for l in p.stdout.decode().splitlines()]
            found[engine] = {(c["frame"]["seq"], c["symbology"], base64.b64decode(c["data_b64"]).decode("latin-1"))
                             for c in lines if c["type"] == "code"}
    args_runs = runs
    print(f"recall: {len(expected)} frames 1280x720, one code each "
          f"({len(SIZES)} sizes x {len(CONDITIONS)} conditions per symbology), --symbologies all, 1 scanning thread")
    header = f"  {'symbology':11s}" + "".join(f"{e:>9s}" for e in engines)
    print(header)
    totals = collections.Counter()
    for name, *_ in CODES:
        row = f"  {name:11s}"
        for engine in engines:
            hits = sum(1 for seq, (n, payload, *_rest) in enumerate(expected)
                       if n == name and (seq, n, payload) in found[engine])
            total = sum(1 for e in expected if e[0] == name)
            totals[engine] += hits
            row += f"{hits:>5d}/{total:<3d}"
        print(row)
    print(f"  {'all':11s}" + "".join(f"{totals[e]:>5d}/{len(expected):<3d}" for e in engines))
    for condition in CONDITIONS:
        row = f"  {condition:11s}"
        for engine in engines:
            hits = sum(1 for seq, (n, payload, _s, c) in enumerate(expected)
                       if c == condition and (seq, n, payload) in found[engine])
            row += f"{hits:>5d}/{sum(1 for e in expected if e[3] == condition):<3d}"
        print(row)
    union = found["zbar"] | found["zxing"]
    expected_set = {(seq, n, p) for seq, (n, p, *_r) in enumerate(expected)}
    print(f"  zbar ∪ zxing: {len(union & expected_set)}/{len(expected)}; hybrid: {len(found['hybrid'] & expected_set)}")
    extra = {e: len(found[e] - expected_set) for e in engines}
    print(f"  codes reported that were not drawn: {extra}")
    for engine in engines:
        print(f"  {engine:7s} {len(expected) / statistics.median(times[engine]):7.1f} frames/s (median of {args_runs})")
    result = {e: found[e] & expected_set for e in engines}
    result["extra"] = extra
    return result


if __name__ == "__main__":
    main()
