#!/usr/bin/env python3
"""A misread set: 1-D codes degraded the way photographs degrade them, and who reads them wrong.

Makes 640x480 GREY frames, one 1-D code each, every payload different, cycling through EAN-13,
UPC-A, UPC-E, Code 39 (half of them Full ASCII, lower case: zint's Extended Code 39), Code 128 and
ITF (zint). Each code is degraded with parameters drawn from a seeded generator, so the set is the
same on every run (made in bench/out, never committed; made again when this script changes):
  downscaling     the code (zint's 2-px modules) scaled to 0.7-2.0 px per module (area filter)
  perspective     a keystone, the top edge 70-100 % as wide as the bottom, on two frames of three
  blur            Gaussian, sigma 0.3-1.1
  noise           sensor-like, strength 4-20
  JPEG            MJPEG at -q:v 6-24 and decoded, on two frames of three
Runs `syncscan run --source FILE.y4m --engine E --symbologies all --duplicate-window 0` (release
build, one scanning thread, the default effort, which on a file runs every pass) for zbar, zxing and
hybrid, --runs times each, interleaved, and prints per engine: the code lines whose payload is not
the frame's code (wrong payloads, then each of them), the frames whose code was read right, and CPU
per frame (user + system, median of the runs). A UPC-A read as EAN-13 with its leading 0 counts as
right (the same code). With --baseline BINARY the same rows for that syncscan binary (say, main's
release build copied aside), run side by side, and each engine's CPU ratio against it.

With --items, each engine is also run with items (the default reporting) on two presentations of the
set: the stills as they are (each code one frame: nothing but its own frame can confirm a zbar
reading) and each still held for --hold frames (10 fps, the still with fresh sensor noise in each
frame: a phone video of a code held up; the next code then takes its place), the held presentation
also with `--duplicate-window 1` (the reading check without items: a file drops what its frame
cannot confirm). Per presentation and reporting: the code lines whose payload is not the code
shown, and the codes with a right line. --json FILE writes every row as data.
Usage: bench/misread.py [--runs 3] [--baseline PATH] [--frames 240] [--items [--hold 4]] [--json FILE]
(needs: zint, ffmpeg, numpy for --items, a Swift toolchain)
"""
import argparse, base64, collections, datetime, hashlib, inspect, json, os, random, statistics, struct, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from effort import cpu_of  # noqa: E402
from run import release_syncscan  # noqa: E402
OUT = os.path.join(ROOT, "bench", "out")
W, H = 640, 480
ENGINES = ["zbar", "zxing", "hybrid"]


def check_digit(digits):
    """The EAN/UPC check digit of `digits` (weights 3 and 1 from the right)."""
    s = sum(int(c) * (3 if i % 2 == 0 else 1) for i, c in enumerate(reversed(digits)))
    return str((10 - s % 10) % 10)


def code(symbology, i, rng):
    """(zint barcode number, data given to zint, expected payload) for the i-th code."""
    if symbology == "ean13":
        d = f"{rng.randrange(10**11, 10**12):012d}"
        return 13, d, d + check_digit(d)
    if symbology == "upca":
        d = f"{rng.randrange(10**10, 10**11):011d}"
        return 34, d, d + check_digit(d)
    if symbology == "upce":
        # Number system 0, last digit 5-9: UPC-A 0 X1..X5 0000 X6.
        d = f"{rng.randrange(10**3, 10**4):04d}{rng.randrange(1, 10)}{rng.randrange(5, 10)}"  # X5 not 0 (rule 4's form)
        return 37, d, "0" + d + check_digit("0" + d[:5] + "0000" + d[5])
    if symbology == "code39":
        if i % 2:
            text = f"c39x{rng.randrange(1000):03d}ab"  # Full ASCII: lower case
            return 9, text, text
        text = f"C39-{rng.randrange(10**5):05d}"
        return 8, text, text
    if symbology == "code128":
        text = f"M128-{rng.randrange(10**6):06d}"
        return 20, text, text
    d = f"{rng.randrange(10**9, 10**10):010d}"
    return 3, d, d  # ITF, 10 digits, no check digit


SYMBOLOGIES = ["ean13", "upca", "upce", "code39", "code128", "i25"]


def png_size(path):
    with open(path, "rb") as f:
        return struct.unpack(">II", f.read(24)[16:24])


def ffmpeg(args, stdin=None):
    return subprocess.run(["ffmpeg", "-loglevel", "error", *args], input=stdin, check=True, capture_output=True).stdout


def make_frames(path, count):
    """Writes the frames as one Y4M file (kept when one made by this generator with `count` frames
    is there, with its list of codes); returns per frame (symbology, payload, degradation)."""
    listing = path + ".json"
    # The frames are made again when the code that makes them changes (not the rest of this script).
    generator = hashlib.sha256("".join(inspect.getsource(f) for f in (check_digit, code, make_frames)).encode()
                               + repr(SYMBOLOGIES).encode()).hexdigest()
    if os.path.exists(path) and os.path.exists(listing):
        with open(listing) as f:
            made = json.load(f)
        if made["generator"] == generator and made["count"] == count:
            return [tuple(e) for e in made["expected"]]
    expected = []
    with tempfile.TemporaryDirectory() as t, open(path + ".tmp", "wb") as y4m:
        y4m.write(f"YUV4MPEG2 W{W} H{H} F10:1 Ip A1:1 Cmono\n".encode())
        for i in range(count):
            rng = random.Random(31000 + i)
            symbology = SYMBOLOGIES[i % len(SYMBOLOGIES)]
            zint_type, data, payload = code(symbology, i // len(SYMBOLOGIES), rng)
            png = f"{t}/{i}.png"
            subprocess.run(["zint", "-b", str(zint_type), "--scale", "1", "--notext", "-o", png, "-d", data],
                           check=True, capture_output=True)
            module = rng.uniform(0.7, 2.0)  # pixels per module after scaling (zint's are 2 px)
            top = rng.uniform(0.7, 1.0) if i % 3 else 1.0
            sigma, noise = rng.uniform(0.3, 1.1), rng.randrange(4, 21)
            quality = rng.randrange(6, 25) if i % 3 != 1 else None
            side = (1 - top) / 2
            keystone = (f",pad=iw*1.1:ih*1.3:(ow-iw)/2:(oh-ih)/2:white,perspective=x0=W*{side:.3f}:y0=0:x1=W*{1 - side:.3f}:y1=0:"
                        f"x2=0:y2=H:x3=W:y3=H:sense=destination" if top < 1 else "")
            graph = (f"[0]format=gray,scale=trunc(iw*{module / 2:.4f}/2)*2:trunc(ih*{max(module / 2, 0.6):.4f}/2)*2:flags=area{keystone},"
                     f"pad=max(iw\\,{W}):max(ih\\,{H}):(ow-iw)/2:(oh-ih)/2:white,crop={W}:{H},"
                     f"gblur=sigma={sigma:.2f},noise=alls={noise}:all_seed={i},format=gray")
            w, h = png_size(png)
            if quality:
                jpeg = ffmpeg(["-i", png, "-filter_complex", graph + ",format=yuvj420p", "-frames:v", "1", "-c:v", "mjpeg",
                               "-q:v", str(quality), "-f", "mjpeg", "-"])
                raw = ffmpeg(["-f", "mjpeg", "-i", "-", "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "-"], jpeg)
            else:
                raw = ffmpeg(["-i", png, "-filter_complex", graph, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "-"])
            if len(raw) != W * H:
                sys.exit(f"frame {i}: ffmpeg gave {len(raw)} bytes")
            y4m.write(b"FRAME\n" + raw)
            label = f"{module:.2f}px/module top={top:.2f} sigma={sigma:.2f} noise={noise} q={quality or '-'} ({w}x{h} drawn)"
            expected.append((symbology, payload, label))
    os.replace(path + ".tmp", path)
    with open(listing, "w") as f:
        json.dump({"generator": generator, "count": count, "expected": expected}, f)
    return expected


def is_right(expected, symbology, payload):
    """Whether a code line reads the frame's code: its payload, or a UPC-A as EAN-13 with a leading 0."""
    want_symbology, want = expected[0], expected[1]
    return payload == want or (want_symbology == "upca" and symbology == "ean13" and payload == "0" + want)


def lines_of(stdout):
    """(seq, symbology, payload, pass) of every code line."""
    out = []
    for line in stdout.decode().splitlines():
        c = json.loads(line)
        if c["type"] == "code":
            out.append((c["frame"]["seq"], c["symbology"], base64.b64decode(c["data_b64"]).decode("latin-1"), c["pass"]))
    return out


def held_frames(path, stills, expected, hold):
    """Writes `path`: each frame of the set `hold` times, each copy with fresh Gaussian noise (sd 3,
    seeded); returns the expected code of each frame written."""
    import numpy as np
    rng = np.random.default_rng(4000)
    out_expected = []
    with open(path + ".tmp", "wb") as out, open(stills, "rb") as src:
        out.write(src.readline())
        for e in expected:
            assert src.readline() == b"FRAME\n"
            frame = np.frombuffer(src.read(W * H), dtype=np.uint8).astype(np.int16)
            for _ in range(hold):
                noisy = np.clip(frame + rng.normal(0, 3, frame.shape).round().astype(np.int16), 0, 255).astype(np.uint8)
                out.write(b"FRAME\n" + noisy.tobytes())
                out_expected.append(e)
    os.replace(path + ".tmp", path)
    return out_expected


def item_rows(binaries, frames, expected, hold, runs):
    """Rows (engine, presentation, reporting, wrong payloads, codes read right, CPU ms/frame) of each
    engine with items on the stills and on each still held `hold` frames, and of hybrid with the
    duplicate window on the held."""
    held_path = frames.replace(".y4m", f"-held{hold}.y4m")
    held_expected = held_frames(held_path, frames, expected, hold)
    rows = []
    for presentation, path, exp, group in [("stills", frames, expected, 1), (f"held {hold} frames", held_path, held_expected, hold)]:
        for engine, reporting, flags in [(e, "items", []) for e in ENGINES] + [("hybrid", "window 1 s", ["--duplicate-window", "1"])]:
          for name, syncscan in binaries:
            if presentation == "stills" and reporting != "items":
                continue
            cpu = []
            for _ in range(runs):
                out, seconds = cpu_of([syncscan, "run", "--source", path, "--engine", engine, "--symbologies", "all",
                                       "--scanning-threads", "1", "--log-level", "error", *flags])
                cpu.append(seconds)
            found = lines_of(out)
            wrong = [l for l in found if not is_right(exp[l[0]], l[1], l[2])]
            right = {l[0] // group for l in found if is_right(exp[l[0]], l[1], l[2])}
            rows.append({"binary": name, "engine": engine, "presentation": presentation, "reporting": reporting,
                         "wrong_payloads": len(wrong), "codes_read_right": len(right), "codes": len(expected),
                         "cpu_ms_per_frame": round(1000 * statistics.median(cpu) / len(exp), 2),
                         "wrong": [f"frame {seq} {sym} {payload!r} by {pass_}; shown {exp[seq][1]!r}" for seq, sym, payload, pass_ in wrong]})
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--frames", type=int, default=240)
    ap.add_argument("--baseline", metavar="PATH", help="another syncscan binary (e.g. main's release build) run side by side")
    ap.add_argument("--no-build", action="store_true", help="use .build/release/syncscan as it is")
    ap.add_argument("--items", action="store_true", help="also each engine with items on the stills and on held stills")
    ap.add_argument("--hold", type=int, default=4, help="frames each still is held for with --items")
    ap.add_argument("--json", metavar="FILE", help="write the rows as data")
    args = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    frames = os.path.join(OUT, "misread-640x480.y4m" if args.frames == 240 else f"misread-{args.frames}-640x480.y4m")
    expected = make_frames(frames, args.frames)
    syncscan = os.path.join(ROOT, ".build", "release", "syncscan") if args.no_build else release_syncscan()
    binaries = [("baseline", args.baseline)] if args.baseline else []
    binaries.append(("this", syncscan))
    cpu, lines = collections.defaultdict(list), {}
    for _ in range(args.runs):
        for name, binary in binaries:
            for engine in ENGINES:
                out, seconds = cpu_of([binary, "run", "--source", frames, "--engine", engine, "--symbologies", "all",
                                       "--scanning-threads", "1", "--duplicate-window", "0", "--log-level", "error"])
                lines[(name, engine)] = lines_of(out)
                cpu[(name, engine)].append(seconds)
    print(f"misread set: {len(expected)} frames {W}x{H}, one 1-D code each ({', '.join(SYMBOLOGIES)}), --symbologies all, "
          f"1 scanning thread, default effort; CPU median of {args.runs} runs, interleaved; load {os.getloadavg()[0]:.1f}")
    print(f"  {'binary':9s} {'engine':7s} {'wrong payloads':>15s} {'codes read right':>17s} {'CPU ms/frame':>13s}")
    for name, _binary in binaries:
        for engine in ENGINES:
            found = lines[(name, engine)]
            wrong = [l for l in found if not is_right(expected[l[0]], l[1], l[2])]
            right = {l[0] for l in found if is_right(expected[l[0]], l[1], l[2])}
            ms = 1000 * statistics.median(cpu[(name, engine)]) / len(expected)
            ratio = ""
            if args.baseline and name == "this":
                ratio = f"  ({ms / (1000 * statistics.median(cpu[('baseline', engine)]) / len(expected)):.2f}x baseline)"
            print(f"  {name:9s} {engine:7s} {len(wrong):>15d} {len(right):>11d}/{len(expected):<5d} {ms:>13.1f}{ratio}")
    by_symbology = collections.Counter(e[0] for e in expected)
    for name, _binary in binaries:
        print(f"  {name}: codes read right per symbology: " + "; ".join(
            f"{engine} " + ",".join(f"{s}:{sum(1 for seq in {l[0] for l in lines[(name, engine)] if is_right(expected[l[0]], l[1], l[2])} if expected[seq][0] == s)}/{by_symbology[s]}"
                                   for s in SYMBOLOGIES) for engine in ENGINES))
        for engine in ENGINES:
            for seq, symbology, payload, pass_ in lines[(name, engine)]:
                if not is_right(expected[seq], symbology, payload):
                    print(f"  {name} {engine} wrong: frame {seq} {symbology} {payload!r} by {pass_}; drawn {expected[seq][0]} "
                          f"{expected[seq][1]!r}, {expected[seq][2]}")
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True).stdout.strip()
    data = {"command": "bench/misread.py " + " ".join(sys.argv[1:]), "recorded": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "commit": commit, "baseline": args.baseline, "frames": len(expected), "size": f"{W}x{H}", "runs": args.runs,
            "loadavg_end": list(os.getloadavg()), "engines": []}
    for name, _binary in binaries:
        for engine in ENGINES:
            found = lines[(name, engine)]
            data["engines"].append({"binary": name, "engine": engine, "reporting": "every reading",
                                    "wrong_payloads": sum(1 for l in found if not is_right(expected[l[0]], l[1], l[2])),
                                    "codes_read_right": len({l[0] for l in found if is_right(expected[l[0]], l[1], l[2])}),
                                    "cpu_ms_per_frame": round(1000 * statistics.median(cpu[(name, engine)]) / len(expected), 2)})
    if args.items:
        rows = item_rows(binaries, frames, expected, args.hold, args.runs)
        data["items"] = rows
        print(f"  with items ({args.runs} runs):")
        print(f"  {'binary':9s} {'engine':7s} {'presentation':18s} {'reporting':11s} {'wrong payloads':>15s} {'codes read right':>17s} {'CPU ms/frame':>13s}")
        for r in rows:
            print(f"  {r['binary']:9s} {r['engine']:7s} {r['presentation']:18s} {r['reporting']:11s} {r['wrong_payloads']:>15d} "
                  f"{r['codes_read_right']:>11d}/{r['codes']:<5d} {r['cpu_ms_per_frame']:>13.1f}")
            for w in r["wrong"]:
                print(f"    wrong: {w}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(data, f, indent=1)


if __name__ == "__main__":
    main()
