#!/usr/bin/env python3
"""A hard set: codes degraded harder than bench/recall.py's, the way a camera degrades them, and who reads them.

Makes 1280x720 GREY frames, one code each, every payload different: QR, Aztec, DataMatrix,
PDF417 (zint), EAN-13 and Code 128, each under every condition below:
  perspective     a strong keystone (ffmpeg `perspective`: the top edge 40 % as wide as the bottom)
  motion          horizontal motion blur (ffmpeg `convolution`, one row of equal weights): 13 px on
                  8-px modules (2-D), 9 px on 6-px modules (1-D)
  low-light       dark and low contrast (the code between 8 and 48 of 255) plus noise
  jpeg            low contrast (70..177), then MJPEG at -q:v 31 and decoded; 2-D codes with 2-px modules
  glare           a bright radial blob washing out the code's upper right part (additive, clipped)
  inverted        light code on dark (`negate`), low contrast (50..190), slightly blurred
  persp+motion    a milder keystone (top 55 %) and 9 px (2-D) or 7 px (1-D) of blur together
  dark+jpeg       a milder low light (10..60, less noise), then MJPEG at -q:v 25
and for EAN-13 and Code 128 also
  small-1d        1-pixel modules (zint --scale 0.5), low contrast (80..160), blurred (sigma 1.2)
  small-1d-noise  1-pixel modules, blurred (sigma 0.9), with noise
QR, Aztec and DataMatrix have 4-px modules, PDF417 and 1-D codes 2-px ones, unless said otherwise. Made anew on each run
(about 10 s), the same each time: every noise has a fixed seed.
Run as a script, it makes the set and prints, for each decoder pass alone (`syncscan run --engine
hybrid --passes P --effort max`, release build, one scanning thread, --symbologies all) which
frames it reads: per condition, per symbology, the union of the passes, the frames only one pass
reads, the frames none reads and the codes a pass reported that were not drawn; then the whole
engine (`--effort max`): what it reads, its CPU a frame, the frames none of the other passes alone
reads (the upscaling passes read only what the passes before them left unread, so alone they
miss the regions zxing-fast detected and could not decode). bench/effort.py --set hard and bench/live.py --frames hard use it.
Usage: bench/hardset.py [--png DIR]   (needs: zint, ffmpeg, a Swift toolchain)
"""
import argparse, os, struct, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench", "out")
W, H = 1280, 720
PASSES = ["zxing-fast", "zbar", "zxing-full", "zxing-histogram", "zxing-upscale", "zbar-upscale"]
# Passes that read only what the passes before them in the engine left unread: alone they see no undecoded code
# of zxing-fast's, so the whole engine is run too.
UPSCALING = {"zxing-upscale", "zbar-upscale"}
# name in syncscan, zint barcode number, zint --scale (a 2-D module is 2 * scale pixels), payload maker
CODES = [
    ("qrcode", 58, 2, lambda i: f"hard QR {i:03d} https://example.org/h?{i}"),
    ("aztec", 92, 2, lambda i: f"hard aztec {i:03d}"),
    ("datamatrix", 71, 2, lambda i: f"hard datamatrix {i:03d}"),
    ("pdf417", 55, 1, lambda i: f"hard pdf417 {i:03d}"),
    ("ean13", 13, 1, lambda i: f"{500000000000 + i * 7919:012d}"),
    ("code128", 20, 1, lambda i: f"HARD-128-{i:03d}"),
]
LINEAR = {"ean13", "code128"}


def motion(length):
    """Horizontal motion blur over `length` pixels: one row of equal weights."""
    return f"convolution=0m='{' '.join(['1'] * length)}':0rdiv=1/{length}:0mode=row"


def keystone(top):
    """The code tilted away: its top edge `top` times as wide as its bottom, and squashed a little."""
    side = (1 - top) / 2
    return (f"pad=iw*1.2:ih*1.2:(ow-iw)/2:(oh-ih)/2:white,"
            f"perspective=x0=W*{side:.3f}:y0=H*0.12:x1=W*{1 - side:.3f}:y1=H*0.12:x2=0:y2=H:x3=W:y3=H:sense=destination")


def dark(low, high, noise, seed):
    """Low light: the code's range squeezed to low..high of 255, then sensor-like noise."""
    return f"lutyuv=y={low}+val*{(high - low) / 255:.4f},noise=alls={noise}:all_seed={seed}"


def glare(w, h):
    """A bright blob centred on the code's upper right third, washing it out (additive, clipped)."""
    cx, cy, r = W // 2 + w // 5, H // 2 - h // 6, max(w, h) * 0.28
    return f"geq=lum='min(255\\,p(X\\,Y)+250*exp(-(pow(X-{cx}\\,2)+pow(Y-{cy}\\,2))/{2 * r * r:.0f}))'"


def conditions(name, w, h, seed):
    """Per condition: (zint scale override or None, filters on the code before it is centred,
    filters on the whole frame, MJPEG -q:v or None)."""
    lin = name in LINEAR
    c = {
        "perspective": (None, keystone(0.4), "", None),
        "motion": (3 if lin else 4, "", motion(9 if lin else 13), None),
        "low-light": (None, "", dark(8, 48, 8, seed), None),
        "jpeg": (None if lin else 1, "", "lutyuv=y=70+val*0.42", 31),
        "glare": (None, "", glare(w, h), None),
        "inverted": (None, "", "negate,lutyuv=y=50+val*0.55,gblur=sigma=0.7", None),
        "persp+motion": (3 if lin else 4, keystone(0.55), motion(7 if lin else 9), None),
        "dark+jpeg": (None, "", dark(10, 60, 6, seed), 25),
    }
    if lin:
        c["small-1d"] = (0.5, "", "lutyuv=y=80+val*0.32,gblur=sigma=1.2", None)
        c["small-1d-noise"] = (0.5, "", f"gblur=sigma=0.9,noise=alls=30:all_seed={seed}", None)
    return c


def ean13_check(d12):
    s = sum(int(c) * (3 if i % 2 else 1) for i, c in enumerate(d12))
    return d12 + str((10 - s % 10) % 10)


def png_size(path):
    with open(path, "rb") as f:
        return struct.unpack(">II", f.read(24)[16:24])


def ffmpeg_gray(args, stdin=None):
    return subprocess.run(["ffmpeg", "-loglevel", "error", *args], input=stdin, check=True, capture_output=True).stdout


def make_frames(path):
    """Writes the frames as one Y4M file; returns the expected (symbology, payload, condition) per frame."""
    expected = []
    with tempfile.TemporaryDirectory() as t, open(path + ".tmp", "wb") as y4m:
        y4m.write(f"YUV4MPEG2 W{W} H{H} F10:1 Ip A1:1 Cmono\n".encode())
        i = 0
        for name, zint_type, scale, payload in CODES:
            for condition in conditions(name, 0, 0, 0):
                data = payload(i)
                png = f"{t}/{i}.png"
                override = conditions(name, 0, 0, 0)[condition][0]
                subprocess.run(["zint", "-b", str(zint_type), "--scale", str(override or scale), "-o", png, "-d", data],
                               check=True, capture_output=True)
                w, h = png_size(png)
                _, on_code, on_frame, jpeg = conditions(name, w, h, 1000 + i)[condition]
                graph = (f"[0]format=gray{',' + on_code if on_code else ''},"
                         f"pad=max(iw\\,{W}):max(ih\\,{H}):(ow-iw)/2:(oh-ih)/2:white,crop={W}:{H}"
                         f"{',' + on_frame if on_frame else ''},format=gray")
                raw = ffmpeg_gray(["-i", png, "-filter_complex", graph, "-frames:v", "1",
                                   "-f", "rawvideo", "-pix_fmt", "gray", "-"])
                if jpeg:
                    raw_args = ["-f", "rawvideo", "-pix_fmt", "gray", "-s", f"{W}x{H}", "-i", "-"]
                    encoded = ffmpeg_gray([*raw_args, "-c:v", "mjpeg", "-q:v", str(jpeg), "-pix_fmt", "yuvj420p",
                                           "-frames:v", "1", "-f", "mjpeg", "-"], raw)
                    raw = ffmpeg_gray(["-f", "mjpeg", "-i", "-", "-frames:v", "1", "-f", "rawvideo",
                                       "-pix_fmt", "gray", "-"], encoded)
                if len(raw) != W * H:
                    sys.exit(f"frame {i}: ffmpeg gave {len(raw)} bytes")
                y4m.write(b"FRAME\n" + raw)
                expected.append((name, ean13_check(data) if name == "ean13" else data, condition))
                i += 1
    os.replace(path + ".tmp", path)
    return expected


def frames_path():
    return os.path.join(OUT, "hardset-1280x720.y4m")


def main():
    import effort  # noqa: E402  (effort imports this module)
    from run import release_syncscan  # noqa: E402
    ap = argparse.ArgumentParser()
    ap.add_argument("--png", metavar="DIR", help="also write every frame as DIR/NNN-condition.png, to look at")
    args = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    frames = frames_path()
    expected = make_frames(frames)
    if args.png:
        os.makedirs(args.png, exist_ok=True)
        for n, (name, _p, condition) in enumerate(expected):
            subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-i", frames, "-vf", f"select=eq(n\\,{n})",
                            "-frames:v", "1", os.path.join(args.png, f"{n:03d}-{name}-{condition}.png")], check=True)
    syncscan = release_syncscan()
    drawn = {(seq, n, p) for seq, (n, p, _c) in enumerate(expected)}
    read, extra = {}, {}
    for p in PASSES:
        out, _cpu = effort.cpu_of([syncscan, "run", "--source", frames, *effort.BASE,
                                   "--engine", "hybrid", "--passes", p, "--effort", "max"])
        found = effort.reads(out)[0]
        read[p] = {seq for seq, *_ in found & drawn}
        extra[p] = sorted(found - drawn)
    conds = list(dict.fromkeys(c for *_x, c in expected))
    names = [c[0] for c in CODES]
    print(f"hard set: {len(expected)} frames 1280x720, one code each, --symbologies all, 1 scanning thread; "
          f"reads of each pass alone (--engine hybrid --passes P --effort max)")
    print(f"  {'':15s}" + "".join(f"{p:>16s}" for p in PASSES) + f"{'union':>8s}")
    for label, keys in [(c, [s for s, e in enumerate(expected) if e[2] == c]) for c in conds] + \
                       [(n, [s for s, e in enumerate(expected) if e[0] == n]) for n in names] + \
                       [("all", list(range(len(expected))))]:
        union = set().union(*(read[p] for p in PASSES))
        print(f"  {label:15s}" + "".join(f"{len(read[p] & set(keys)):>12d}/{len(keys):<3d}" for p in PASSES)
              + f"{len(union & set(keys)):>5d}/{len(keys):<3d}")
    for p in PASSES:
        only = sorted(s for s in read[p] if not any(s in read[q] for q in PASSES if q != p))
        print(f"  read by {p} alone: {len(only)} " + " ".join(f"{s}:{expected[s][0]}/{expected[s][2]}" for s in only))
    none = [s for s in range(len(expected)) if not any(s in read[p] for p in PASSES)]
    print(f"  read by no pass: {len(none)} " + " ".join(f"{s}:{expected[s][0]}/{expected[s][2]}" for s in none))
    out, cpu = effort.cpu_of([syncscan, "run", "--source", frames, *effort.BASE, "--engine", "hybrid", "--effort", "max"])
    found, by_pass = effort.reads(out)
    engine = {seq for seq, *_ in found & drawn}
    plain = set().union(*(read[p] for p in PASSES if p not in UPSCALING))
    print(f"  --engine hybrid --effort max (every pass, in order): {len(engine)}/{len(expected)}, {cpu / len(expected) * 1000:.1f} ms CPU "
          f"a frame; codes by pass: " + ", ".join(f"{p} {n}" for p, n in sorted(by_pass.items())))
    new = sorted(engine - plain)
    print(f"  read by the engine and by none of the other passes alone: {len(new)} " + " ".join(f"{s}:{expected[s][0]}/{expected[s][2]}" for s in new))
    print(f"  reported by the engine but not drawn: " + (", ".join(f"frame {s}: {n} {d!r}" for s, n, d in sorted(found - drawn)) or "none"))
    for p in PASSES:
        print(f"  reported by {p} but not drawn: " + (", ".join(
            f"frame {s} ({expected[s][0]}/{expected[s][2]}): {n} {d!r}" for s, n, d in extra[p]) or "none"))


if __name__ == "__main__":
    main()
