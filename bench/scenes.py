#!/usr/bin/env python3
"""Many generated scenes: how many of the labels in front of syncscan it counts exactly once.

A generator of scenes with randomized parameters, one scene a seed (even seeds a conveyor, odd
seeds a handheld station), and a set of stills made into video, each scene rendered with numpy
into 640x480 Y4M GREY (labels from `zint --dump`), cached with its ground truth under
bench/out/scenes/ (made again when the generator's code changes). The same seed always gives the
same scene: the parameters are drawn from numpy's generator seeded with the seed alone.

conveyor (even seeds): 1-3 belt lanes, each with its own speed (0-40 px a frame, either way),
  stops (0.3-1.5 s) and reversals; parcels on them at gaps of 10-250 px carrying one label, or
  two identical labels (twins); runs of identical labels (a parcel's payload copied from the one
  before it, close or far); at most 10 labels in view at once; 10-60 fps, 2-4 s; 1.5-8 px a module
  (less where the code would not fit its parcel); labels turned by up to 5 degrees, some upside
  down or a quarter turn; motion blur of the lane's speed over the exposure (5-60 % of a frame
  interval, the blur capped at 0.6 of the seed's module or 1.5 px: a shorter shutter at speed);
  sensor noise (sd 2-12 grey levels, new every frame); lighting steps (0-3 gain changes, gain
  0.55-1.4); a hand (a dark blob, 3-12 frames) covering a label for a moment.
handheld (odd seeds): 1-4 cards with a code each (some copies of another card's code), shown
  1-3 times for 0.6-2 s each, away between showings for 0.15-0.6 s or 1.4-2 s; each showing
  held (tremor of 0.5-3 px), drifting (0.3-4 px a frame) or waved (40-150 px, 0.5-1.5 s a period,
  blurred along its motion), turned by up to 20 degrees and zooming by up to 5 %; 10-60 fps, 3-5 s,
  exposure 10-60 % of a frame interval, noise and lighting as above.
stills: 48 codes (4 of each kind) made printed-looking (1.5-5 px a module, turned up to 12 degrees
  or a keystone, Gaussian blur sigma 0.3-1.0, ink 30-110 on paper 150-240) and moved like a
  handheld camera (a drift of up to 4 px a frame, a turn of up to 0.8 degrees and a zoom of up to
  1 % a frame, new noise every frame, every third frame motion-blurred 2-6 px), 8 frames each, then
  3 empty frames; 30 fps.
Kinds of code: EAN-13 (plain, with a 2-digit and with a 5-digit add-on), EAN-8, UPC-A, UPC-E, ITF
(i25), Codabar, Code 39, QR, DataMatrix and Code 128, drawn uniformly per label.

What one label is: a physical label on a parcel (twins are two), from its first frame in view to
its last; on the handheld station a presentation of a card: its showings while it is away for
less than a second between them (the generator draws gaps of at most 0.6 s or at least 1.4 s, so
none is near the line); a card away for longer and shown again is a new label. Its ground truth:
symbology, payload, and per frame the box of its code in the frame (null when no part of it is in
the frame), and whether the code is wholly in view (inside the frame, not covered by a hand or a
later card).

Scoring, per engine, per scene, label by label (from syncscan's JSON lines):
  all readings  a file run with `--duplicate-window 0` (every reading of every frame, every pass):
                a label is readable when some reading of its payload lies at its place; a label
                no reading reaches is "never read" and left out of the shares (counted apart, as
                are labels of a symbology the engine does not read: DataMatrix with zbar). The
                readings whose payload lies at no label of that payload are wrong readings.
  items         a file run (`--source FILE.y4m --scanning-threads 1`) and a live run (`--source
                y4m:- --scanning-threads 2`, the frames written at the scene's fps), the default
                reporting (items): each item's first line is matched to the label of its payload
                whose box in that frame is nearest its outline's centre (within 0.75 of the box's
                larger side + 10 px), as bench/conveyor.py does. A readable label with one item is
                counted exactly once, with none missed, with two or more split; an item on no label
                of its payload is a wrong payload (on another label's place, or on none). An
                EAN/UPC read without its add-on matches its label (counted as "without add-on");
                UPC-A is matched in its 13-digit EAN form, Codabar without its start and stop.
  latency       of each label's first item: frames from its first frame wholly in view, and ms from
                its first readable frame (file: frame time; live: from when the feeder began
                writing that frame to when the line was read).
Share counted once = labels counted once / readable labels. Per engine and mode: min / median / max
over the seeded scenes, totals, pooled latency p50/p99, and the worst seed (the lowest share; ties:
most wrong payloads, then splits, then misses) with its problems.

File runs go --jobs at a time (at most 2 processes at once); each live run runs alone.
Writes bench/results/scenes.json (command, date, commit, machine, load, seeds, per-scene rows);
--print renders a results file as tables.
Usage: bench/scenes.py [--seeds 40] [--engines zxing,zbar,hybrid] [--modes file,live] [--jobs 2]
                       [--syncscan PATH] [--no-stills] [--out FILE] | bench/scenes.py --print [FILE]
(needs: numpy, zint, a Swift toolchain unless --syncscan)
"""
import argparse, base64, concurrent.futures, datetime, hashlib, json, math, os, platform, re, statistics, subprocess, sys, threading, time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench", "out", "scenes")
RESULTS = os.path.join(ROOT, "bench", "results", "scenes.json")
W, H = 640, 480
ENGINES = ["zxing", "zbar", "hybrid"]
ZBAR_READS = {"qrcode", "ean13", "ean8", "upca", "upce", "i25", "codabar", "code39", "code128"}

# --- generator ----------------------------------------------------------------------------------

KINDS = ["ean13", "ean13+2", "ean13+5", "ean8", "upca", "upce", "i25", "codabar", "code39", "qrcode", "datamatrix", "code128"]
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def check_digit(digits):
    s = sum(int(c) * (3 if i % 2 == 0 else 1) for i, c in enumerate(reversed(digits)))
    return str((10 - s % 10) % 10)


def digits(rng, n, first=0):
    return str(int(rng.integers(first, 10))) + "".join(str(d) for d in rng.integers(0, 10, n - 1))


def chars(rng, alphabet, n):
    return "".join(alphabet[i] for i in rng.integers(0, len(alphabet), n))


def payload(kind, rng):
    """(symbology, zint barcode number, zint options, data given to zint, the payload syncscan reports)."""
    if kind.startswith("ean13"):
        d = digits(rng, 12, first=1)  # not 0: an EAN-13 starting with 0 is reported as UPC-A
        text = d + check_digit(d)
        if "+" in kind:
            addon = digits(rng, int(kind[-1]))
            return "ean13", "13", [], d + "+" + addon, text + " " + addon
        return "ean13", "13", [], d, text
    if kind == "ean8":
        d = digits(rng, 7)
        return "ean8", "13", [], d, d + check_digit(d)
    if kind == "upca":
        d = digits(rng, 11)
        return "upca", "34", [], d, d + check_digit(d)
    if kind == "upce":
        d = digits(rng, 4, first=1) + str(int(rng.integers(1, 10))) + str(int(rng.integers(5, 10)))
        return "upce", "37", [], d, "0" + d + check_digit("0" + d[:5] + "0000" + d[5])
    if kind == "i25":
        d = digits(rng, int(rng.choice([6, 8, 10, 12, 14])), first=1)
        return "i25", "3", [], d, d
    if kind == "codabar":
        ends = "ABCD"
        d = ends[rng.integers(0, 4)] + digits(rng, int(rng.integers(6, 13))) + ends[rng.integers(0, 4)]
        return "codabar", "18", [], d, d
    if kind == "code39":
        d = chars(rng, ALNUM, int(rng.integers(4, 9))) + chars(rng, "-.", 1) + chars(rng, ALNUM, int(rng.integers(1, 3)))
        return "code39", "8", [], d, d
    if kind == "code128":
        d = chars(rng, ALNUM + "abcdefghijklmnopqrstuvwxyz-", int(rng.integers(6, 13)))
        return "code128", "20", [], d, d
    if kind == "qrcode":
        d = "PKG-" + chars(rng, ALNUM + "-:/.", int(rng.integers(6, 33)))
        return "qrcode", "58", [], d, d
    d = "DM-" + chars(rng, ALNUM + "-", int(rng.integers(5, 26)))
    return "datamatrix", "71", ["--square"], d, d


def modules(barcode, options, data):
    """zint --dump: one row of hex digits per module row (4 modules a digit, padded with light)."""
    rows = subprocess.run(["zint", "-b", barcode, *options, "--dump", "-d", data], check=True,
                          capture_output=True, text=True).stdout.split("\n")
    return np.array([[b == "1" for d in row.replace(" ", "") for b in f"{int(d, 16):04b}"] for row in rows if row.strip()])


def overlap(pixels, count, module, phase):
    """pixels x count: how much of pixel p (width 1) module j covers, modules `module` px from `phase`."""
    p = np.arange(pixels)[:, None].astype(np.float64)
    j = np.arange(count)[None, :] * module + phase
    return np.clip(np.minimum(p + 1, j + module) - np.maximum(p, j), 0, None)


def code_image(m, module, bar_height, ink, paper, rng):
    """The code's modules drawn at `module` px (any fraction: each pixel the area of ink it covers);
    1-D codes (one row) `bar_height` px tall."""
    ax = overlap(int(math.ceil(m.shape[1] * module)), m.shape[1], module, 0.0)
    if m.shape[0] == 1:
        dark = np.repeat((ax @ m[0].astype(np.float64))[None, :], int(bar_height), axis=0)
    else:
        ay = overlap(int(math.ceil(m.shape[0] * module)), m.shape[0], module, 0.0)
        dark = ay @ m.astype(np.float64) @ ax.T
    return (paper - (paper - ink) * np.clip(dark, 0, 1)).astype(np.float32)


def make_label(kind, module, rng, max_w, max_h, ink=28.0, paper=236.0, margin=None):
    """A printed label: (pixels, code rect (x, y, w, h) in them, symbology, payload, module drawn).
    The module is lowered where the code with its quiet zone would not fit max_w x max_h."""
    symbology, barcode, options, data, text = payload(kind, rng)
    m = modules(barcode, options, data)
    one_d = symbology not in ("qrcode", "datamatrix")
    quiet = 11 if one_d else 3
    if margin is None:
        margin = int(rng.integers(4, 14))
    fit = min((max_w - 2 * margin) / (m.shape[1] + 2 * quiet),
              (max_h - 2 * margin) / (m.shape[0] + 2 * quiet) if not one_d else math.inf)
    module = float(max(1.5, min(module, fit)))
    bar = 0.0
    if one_d:
        bar = float(np.clip(rng.uniform(0.15, 0.5) * m.shape[1] * module, 24, max(24, max_h - 2 * margin - 8)))
    code = code_image(m, module, bar, ink, paper, rng)
    q = int(round(quiet * module)) + margin
    qy = margin + 4 if one_d else q
    img = np.full((code.shape[0] + 2 * qy, code.shape[1] + 2 * q), paper, np.float32)
    img[qy:qy + code.shape[0], q:q + code.shape[1]] = code
    return img, (q, qy, code.shape[1], code.shape[0]), symbology, text, module


def rot(deg):
    a = math.radians(deg)
    return np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])


def shift(x, y):
    return np.array([[1, 0, x], [0, 1, y], [0, 0, 1]], float)


def scale(s):
    return np.array([[s, 0, 0], [0, s, 0], [0, 0, 1]], float)


def homography(src, dst):
    """The 3x3 homography taking four points src to dst."""
    a, b = [], []
    for (x, y), (u, v) in zip(src, dst):
        a.append([x, y, 1, 0, 0, 0, -u * x, -u * y]); b.append(u)
        a.append([0, 0, 0, x, y, 1, -v * x, -v * y]); b.append(v)
    h = np.linalg.solve(np.array(a, float), np.array(b, float))
    return np.append(h, 1).reshape(3, 3)


def apply(hm, points):
    p = hm @ np.vstack([np.asarray(points, float).T, np.ones(len(points))])
    return (p[:2] / p[2]).T


def rect_corners(r):
    x, y, w, h = r
    return [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]


def warp(dst, src, hm):
    """Composites src into dst through hm (src pixel coordinates to dst's), bilinear; returns the
    box (x0, y0, x1, y1) it touched or None."""
    sh, sw = src.shape
    c = apply(hm, [(0, 0), (sw, 0), (sw, sh), (0, sh)])
    dh, dw = dst.shape
    x0, y0 = max(int(math.floor(c[:, 0].min())), 0), max(int(math.floor(c[:, 1].min())), 0)
    x1, y1 = min(int(math.ceil(c[:, 0].max())) + 1, dw), min(int(math.ceil(c[:, 1].max())) + 1, dh)
    if x0 >= x1 or y0 >= y1:
        return None
    inv = np.linalg.inv(hm)
    ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float64) + 0.5
    z = inv[2, 0] * xs + inv[2, 1] * ys + inv[2, 2]
    u = (inv[0, 0] * xs + inv[0, 1] * ys + inv[0, 2]) / z - 0.5
    v = (inv[1, 0] * xs + inv[1, 1] * ys + inv[1, 2]) / z - 0.5
    inside = (u >= -0.5) & (u <= sw - 0.5) & (v >= -0.5) & (v <= sh - 0.5)
    u0 = np.clip(np.floor(u).astype(np.int64), 0, sw - 1)
    v0 = np.clip(np.floor(v).astype(np.int64), 0, sh - 1)
    u1, v1 = np.minimum(u0 + 1, sw - 1), np.minimum(v0 + 1, sh - 1)
    fu, fv = np.clip(u - u0, 0, 1), np.clip(v - v0, 0, 1)
    val = ((src[v0, u0] * (1 - fu) + src[v0, u1] * fu) * (1 - fv) + (src[v1, u0] * (1 - fu) + src[v1, u1] * fu) * fv)
    region = dst[y0:y1, x0:x1]
    region[inside] = val[inside]
    return (x0, y0, x1, y1)


def motion_blur(frame, box, dx, dy):
    """A box blur along (dx, dy) px over box and its edges (the exposure's motion)."""
    length = max(abs(dx), abs(dy))
    if length < 1:
        return
    steps = int(math.ceil(length)) + 1
    m = int(math.ceil(length / 2)) + 1
    x0, y0, x1, y1 = box
    x0, y0, x1, y1 = max(x0 - m, m), max(y0 - m, m), min(x1 + m, W - m), min(y1 + m, H - m)
    if x0 >= x1 or y0 >= y1:
        return
    src = frame.copy()
    acc = np.zeros((y1 - y0, x1 - x0), np.float32)
    for k in range(steps):
        f = k / (steps - 1) - 0.5
        ox, oy = int(round(f * dx)), int(round(f * dy))
        acc += src[y0 + oy:y1 + oy, x0 + ox:x1 + ox]
    frame[y0:y1, x0:x1] = acc / steps


def gaussian(img, sigma):
    if sigma <= 0.05:
        return img
    r = int(math.ceil(3 * sigma))
    k = np.exp(-0.5 * (np.arange(-r, r + 1) / sigma) ** 2)
    k = (k / k.sum()).astype(np.float32)
    p = np.pad(img, r, mode="edge")
    tmp = sum(k[i] * p[:, i:i + img.shape[1]] for i in range(2 * r + 1))
    return sum(k[i] * tmp[i:i + img.shape[0], :] for i in range(2 * r + 1)).astype(np.float32)


class Label:
    """A label's ground truth: symbology, payload, per frame its code's box (or None) and whether wholly in view."""

    def __init__(self, name, kind, symbology, text, module, frames):
        self.name, self.kind, self.symbology, self.text, self.module = name, kind, symbology, text, module
        self.boxes = [None] * frames
        self.whole = [False] * frames

    def see(self, n, corners, covered=False):
        c = np.asarray(corners)
        box = [round(float(c[:, 0].min()), 1), round(float(c[:, 1].min()), 1),
               round(float(c[:, 0].max()), 1), round(float(c[:, 1].max()), 1)]
        if box[2] <= 0 or box[3] <= 0 or box[0] >= W or box[1] >= H:
            return
        self.boxes[n] = box
        self.whole[n] = (not covered and box[0] >= 0 and box[1] >= 0 and box[2] <= W and box[3] <= H)

    def truth(self):
        return {"name": self.name, "kind": self.kind, "symbology": self.symbology, "text": self.text,
                "module": round(self.module, 2), "boxes": self.boxes, "whole": self.whole}


def finish(frame, gain, noise, rng):
    frame *= gain
    frame += rng.standard_normal(frame.shape, dtype=np.float32) * noise
    return np.clip(frame, 0, 255).astype(np.uint8)


def lighting(rng, frames):
    gains = np.ones(frames)
    for at in sorted(rng.integers(1, frames, int(rng.integers(0, 4)))):
        gains[at:] = rng.uniform(0.55, 1.4)
    return gains


def conveyor(seed):
    """A conveyor scene: (params, frame iterator factory, labels)."""
    rng = np.random.default_rng([seed, 1])
    fps = int(rng.integers(10, 61))
    frames = int(round(fps * rng.uniform(2, 4)))
    noise = float(rng.uniform(2, 12))
    module_base = float(rng.uniform(1.5, 8))
    exposure = float(rng.uniform(0.05, 0.6))  # fraction of a frame interval
    lanes = int(rng.integers(1, 4))
    top = 30
    lane_h = (H - top) // lanes
    gains = lighting(rng, frames)
    params = {"family": "conveyor", "fps": fps, "frames": frames, "noise_sd": round(noise, 2), "module_px": round(module_base, 2),
              "exposure": round(exposure, 3), "lanes": [], "gain_steps": [round(float(g), 2) for g in sorted(set(gains.tolist()))]}
    wall = (np.linspace(60, 95, H)[:, None] + rng.normal(0, 4, (H, W))).astype(np.float32)
    labels, parcels, hands, lane_list = [], [], [], []
    for li in range(lanes):
        y = top + li * lane_h
        direction = 1 if rng.random() < 0.7 else -1
        v0 = float(rng.uniform(0, 40))
        v = np.full(frames, v0 * direction)
        events = []
        if rng.random() < 0.35:
            a, k = int(rng.integers(0, frames)), int(rng.integers(max(1, int(0.3 * fps)), int(1.5 * fps) + 1))
            v[a:a + k] = 0
            events.append(f"stop {a}+{k}")
        if rng.random() < 0.25:
            a, k = int(rng.integers(0, frames)), int(rng.integers(max(1, int(0.2 * fps)), int(1.0 * fps) + 1))
            v[a:a + k] = -v0 * direction * rng.uniform(0.3, 1.0)
            events.append(f"reverse {a}+{k}")
        travel = np.concatenate([[0.0], np.cumsum(v)])[:frames]  # belt displacement at frame n
        # Blur capped at 0.6 of the seed's module (at least 1.5 px): a shorter shutter at speed.
        blur_per_px = min(exposure, max(1.5, 0.6 * module_base) / max(v0, 1e-6))
        belt = np.full((lane_h - 4, 1600), 100, np.float32) + rng.normal(0, 6, (lane_h - 4, 1600)).astype(np.float32)
        belt[:, ::160] = belt[:, 1::160] = 80
        belt[:3], belt[-3:] = 58, 58
        lane = {"y": y, "h": lane_h, "speed_px_frame": round(v0 * direction, 2), "events": events,
                "blur_px_at_speed": round(v0 * blur_per_px, 2), "belt": belt, "travel": travel, "v": v, "blur": blur_per_px}
        # Parcels along the belt: the part of the belt that passes through the frame in the scene.
        lo, hi = -float(travel.max()) - 40, W - float(travel.min()) + 40
        x = lo + float(rng.uniform(0, 150))
        ph = lane_h - 14
        previous = None
        while x < hi:
            twins = rng.random() < 0.15
            run = previous is not None and rng.random() < 0.3
            kind = previous[0] if run else KINDS[int(rng.integers(0, len(KINDS)))]
            module = module_base * float(rng.uniform(0.8, 1.25))
            box_w = int(W * (0.42 if twins else 0.75))
            state = previous[1] if run else int(rng.integers(0, 2**31))
            turns = int(rng.choice([0, 0, 0, 2, 1, 3]))
            # Label rng seeded by a state kept for runs: a run's copy draws the same payload and size.
            lrng = np.random.default_rng(state)
            max_w, max_h = (box_w, ph - 8) if turns % 2 == 0 else (ph - 8, box_w)
            img, rect, symbology, text, mod = make_label(kind, module, lrng, max_w, max_h)
            if turns % 2 and (img.shape[1] > ph - 8 or mod < min(module, 2.0)):  # a quarter turn that does not fit: upright
                turns = 0
                img, rect, symbology, text, mod = make_label(kind, module, np.random.default_rng(state), box_w, ph - 8)
            tilt = float(rng.uniform(-5, 5))
            count = 2 if twins else 1
            lw, lh = (img.shape[1], img.shape[0]) if turns % 2 == 0 else (img.shape[0], img.shape[1])
            gap_in = int(rng.integers(8, 40))
            pw = count * lw + (count + 1) * gap_in + 12
            parcel_h = int(min(ph, max(lh + 16, rng.uniform(0.7, 1.0) * ph)))
            if lh + 8 > parcel_h:
                parcel_h = min(ph, lh + 8)
            shade = float(rng.uniform(140, 180))
            sprite = np.full((parcel_h, pw), shade, np.float32) + rng.normal(0, 3, (parcel_h, pw)).astype(np.float32)
            sprite[:, :2] = sprite[:, -2:] = sprite[:2, :] = sprite[-2:, :] = shade - 40
            tape = int(rng.integers(0, max(1, parcel_h - 20)))
            sprite[tape:tape + 18, :] = shade + 20
            codes = []
            for c in range(count):
                cx = gap_in + 6 + c * (lw + gap_in) + lw / 2
                cy = float(rng.uniform(lh / 2 + 4, parcel_h - lh / 2 - 4)) if parcel_h - lh > 8 else parcel_h / 2
                hm = shift(cx, cy) @ rot(tilt + 90 * turns) @ shift(-img.shape[1] / 2, -img.shape[0] / 2)
                warp(sprite, img, hm)
                lab = Label(f"lane{li + 1}-parcel{len(parcels) + 1}" + (f"-twin{c + 1}" if twins else ""), kind, symbology,
                            text, mod, frames)
                labels.append(lab)
                codes.append((lab, apply(hm, rect_corners(rect))))
            py = y + 2 + int(rng.integers(0, max(1, lane_h - 4 - parcel_h)))
            parcels.append({"lane": lane, "x": x, "y": py, "sprite": sprite, "codes": codes, "run": run, "twins": twins})
            previous = (kind, state)
            gap = float(rng.uniform(10, 250)) if not (run and rng.random() < 0.5) else float(rng.uniform(10, 60))
            x += pw + gap
        lane_list.append(lane)
        params["lanes"].append({k: lane[k] for k in ("y", "h", "speed_px_frame", "events", "blur_px_at_speed")})
    # At most 10 labels in view at once: drop parcels (last drawn first) until it holds.
    def in_view(n, ps):
        total = 0
        for p in ps:
            px = p["x"] + p["lane"]["travel"][n]
            if px < W and px + p["sprite"].shape[1] > 0:
                total += len(p["codes"])
        return total
    while parcels and max(in_view(n, parcels) for n in range(0, frames, max(1, frames // 60))) > 10:
        dropped = parcels.pop(int(rng.integers(0, len(parcels))))
        for lab, _c in dropped["codes"]:
            labels.remove(lab)
    # Hands: a dark blob over a label for 3-12 frames, moving with its parcel.
    for _ in range(int(rng.integers(0, 3))):
        if not parcels:
            break
        p = parcels[int(rng.integers(0, len(parcels)))]
        lab, corners = p["codes"][int(rng.integers(0, len(p["codes"])))]
        shown = [n for n in range(frames) if -50 < p["x"] + p["lane"]["travel"][n] < W - p["sprite"].shape[1] + 50]
        if len(shown) < 6:
            continue
        k = int(rng.integers(3, 13))
        a = shown[int(rng.integers(0, max(1, len(shown) - k)))]
        hands.append({"parcel": p, "label": lab, "corners": corners, "from": a, "to": a + k, "grey": float(rng.uniform(45, 90))})
    params["labels"] = len(labels)
    params["hands"] = [{"label": h["label"].name, "frames": [h["from"], h["to"]]} for h in hands]
    params["runs"] = sum(1 for p in parcels if p["run"])
    params["twins"] = sum(1 for p in parcels if p["twins"])

    # Ground truth.
    for n in range(frames):
        for p in parcels:
            px, py = p["x"] + p["lane"]["travel"][n], p["y"]
            for lab, corners in p["codes"]:
                covered = any(h["label"] is lab and h["from"] <= n < h["to"] for h in hands)
                lab.see(n, corners + np.array([round(px), py]), covered)

    def render():
        nrng = np.random.default_rng([seed, 2])
        cols = np.arange(W)
        yy, xx = np.mgrid[0:H, 0:W]
        for n in range(frames):
            frame = wall.copy()
            for lane in lane_list:
                band = lane["belt"][:, (cols - int(lane["travel"][n])) % 1600]
                frame[lane["y"] + 2:lane["y"] + 2 + band.shape[0]] = band
            for p in parcels:
                x, y = int(round(p["x"] + p["lane"]["travel"][n])), p["y"]
                h, w = p["sprite"].shape
                x0, x1 = max(x, 0), min(x + w, W)
                if x0 < x1:
                    frame[y:y + h, x0:x1] = p["sprite"][:, x0 - x:x1 - x]
            for hd in hands:
                if hd["from"] <= n < hd["to"]:
                    p = hd["parcel"]
                    c = hd["corners"] + np.array([round(p["x"] + p["lane"]["travel"][n]), p["y"]])
                    cx, cy = c[:, 0].mean(), c[:, 1].mean()
                    rx, ry = 0.8 * (c[:, 0].max() - c[:, 0].min()) + 6, 0.8 * (c[:, 1].max() - c[:, 1].min()) + 6
                    frame[((xx - cx) / rx) ** 2 + ((yy - cy) / ry) ** 2 <= 1] = hd["grey"]
            for lane in lane_list:
                motion_blur(frame, (0, lane["y"], W, lane["y"] + lane["h"]), lane["v"][n] * lane["blur"], 0)
            yield finish(frame, gains[n], noise, nrng)

    return params, render, labels


def handheld(seed):
    rng = np.random.default_rng([seed, 1])
    fps = int(rng.integers(10, 61))
    frames = int(round(fps * rng.uniform(3, 5)))
    noise = float(rng.uniform(2, 12))
    module_base = float(rng.uniform(1.5, 8))
    exposure = float(rng.uniform(0.1, 0.6))
    gains = lighting(rng, frames)
    wall = (np.linspace(90, 130, W)[None, :] + np.linspace(-15, 15, H)[:, None] + rng.normal(0, 5, (H, W))).astype(np.float32)
    for _ in range(6):  # furniture: soft blocks
        x, y = int(rng.integers(0, W - 60)), int(rng.integers(0, H - 60))
        wall[y:y + int(rng.integers(30, 160)), x:x + int(rng.integers(30, 200))] += float(rng.uniform(-40, 40))
    wall = gaussian(wall, 1.5)
    params = {"family": "handheld", "fps": fps, "frames": frames, "noise_sd": round(noise, 2), "module_px": round(module_base, 2),
              "exposure": round(exposure, 3), "gain_steps": [round(float(g), 2) for g in sorted(set(gains.tolist()))], "cards": []}
    cards, labels = [], []
    for ci in range(int(rng.integers(1, 5))):
        copy = bool(cards) and rng.random() < 0.2
        kind, state = (cards[int(rng.integers(0, len(cards)))]["kind_state"] if copy
                       else (KINDS[int(rng.integers(0, len(KINDS)))], int(rng.integers(0, 2**31))))
        img, rect, symbology, text, mod = make_label(kind, module_base * float(rng.uniform(0.8, 1.25)),
                                                     np.random.default_rng(state), int(0.6 * W), int(0.55 * H),
                                                     paper=float(rng.uniform(215, 245)), margin=int(rng.integers(8, 24)))
        showings, t = [], float(rng.uniform(0, 1.0))
        for _ in range(int(rng.integers(1, 4))):
            d = float(rng.uniform(0.6, 2.0))
            if t >= frames / fps - 0.3:
                break
            mode = ["held", "drift", "waved"][int(rng.integers(0, 3))]
            hw, hh = img.shape[1] / 2, img.shape[0] / 2
            cx, cy = float(rng.uniform(hw * 0.8, W - hw * 0.8)), float(rng.uniform(hh * 0.8, H - hh * 0.8))
            s = {"from": int(t * fps), "to": min(frames, int((t + d) * fps)), "mode": mode, "x": cx, "y": cy,
                 "angle": float(rng.uniform(-20, 20)), "tremor": float(rng.uniform(0.5, 3)), "tremor_hz": float(rng.uniform(2, 6)),
                 "phase": float(rng.uniform(0, 2 * math.pi)), "zoom": float(rng.uniform(0, 0.05)),
                 "drift": (float(rng.uniform(-4, 4)), float(rng.uniform(-4, 4))) if mode == "drift" else (0.0, 0.0),
                 "wave": (float(rng.uniform(40, 150)), float(rng.uniform(0.5, 1.5)), float(rng.uniform(0, math.pi))) if mode == "waved" else None}
            showings.append(s)
            gap = float(rng.uniform(0.15, 0.6)) if rng.random() < 0.5 else float(rng.uniform(1.4, 2.0))
            t += d + gap
        if not showings:
            continue
        card = {"img": img, "rect": rect, "showings": showings, "kind_state": (kind, state), "labels": []}
        # Presentations: showings away from each other by less than a second are one label.
        for s in showings:
            if card["labels"] and (s["from"] - card["labels"][-1][1]) / fps < 1.0:
                card["labels"][-1][1] = s["to"]
            else:
                lab = Label(f"card{ci + 1}-presentation{len(card['labels']) + 1}", kind, symbology, text, mod, frames)
                labels.append(lab)
                card["labels"].append([lab, s["to"]])
            s["label"] = card["labels"][-1][0]
        cards.append(card)
        params["cards"].append({"kind": kind, "copy": bool(copy), "module": round(mod, 2),
                                "showings": [{k: (round(v, 2) if isinstance(v, float) else v) for k, v in s.items()
                                              if k in ("from", "to", "mode", "angle")} for s in showings],
                                "presentations": len(card["labels"])})
    params["labels"] = len(labels)

    def pose(card, s, n):
        """The card's homography at frame n of showing s, and its centre."""
        t = n / fps
        x, y = s["x"] + s["drift"][0] * (n - s["from"]), s["y"] + s["drift"][1] * (n - s["from"])
        x = float(np.clip(x, 40, W - 40)); y = float(np.clip(y, 40, H - 40))
        if s["wave"]:
            a, period, direction = s["wave"]
            k = a * math.sin(2 * math.pi * (t - s["from"] / fps) / period)
            x, y = x + k * math.cos(direction), y + k * math.sin(direction) * 0.5
        x += s["tremor"] * math.sin(2 * math.pi * s["tremor_hz"] * t + s["phase"])
        y += s["tremor"] * 0.7 * math.sin(2 * math.pi * s["tremor_hz"] * 1.3 * t + 2 * s["phase"])
        zoom = 1 + s["zoom"] * math.sin(2 * math.pi * 0.4 * t + s["phase"])
        angle = s["angle"] + 2 * math.sin(2 * math.pi * 0.3 * t + s["phase"])
        img = card["img"]
        return shift(x, y) @ rot(angle) @ scale(zoom) @ shift(-img.shape[1] / 2, -img.shape[0] / 2)

    def showing_at(card, n):
        for s in card["showings"]:
            if s["from"] <= n < s["to"]:
                return s
        return None

    # Ground truth, with later cards covering earlier ones.
    for n in range(frames):
        drawn = []
        for card in cards:
            s = showing_at(card, n)
            if s is None:
                continue
            hm = pose(card, s, n)
            drawn.append((card, s["label"], apply(hm, rect_corners(card["rect"])),
                          apply(hm, rect_corners((0, 0, card["img"].shape[1], card["img"].shape[0])))))
        for i, (card, lab, code, _outline) in enumerate(drawn):
            covered = False
            for _c, _l, _code, outline in drawn[i + 1:]:
                if not (code[:, 0].max() < outline[:, 0].min() or code[:, 0].min() > outline[:, 0].max()
                        or code[:, 1].max() < outline[:, 1].min() or code[:, 1].min() > outline[:, 1].max()):
                    covered = True
            lab.see(n, code, covered)

    def render():
        nrng = np.random.default_rng([seed, 2])
        for n in range(frames):
            frame = wall.copy()
            for card in cards:
                s = showing_at(card, n)
                if s is None:
                    continue
                hm = pose(card, s, n)
                box = warp(frame, card["img"], hm)
                if box:
                    c0 = apply(hm, [(card["img"].shape[1] / 2, card["img"].shape[0] / 2)])[0]
                    c1 = apply(pose(card, s, n + 1), [(card["img"].shape[1] / 2, card["img"].shape[0] / 2)])[0]
                    motion_blur(frame, box, (c1[0] - c0[0]) * exposure, (c1[1] - c0[1]) * exposure)
            yield finish(frame, gains[n], noise, nrng)

    return params, render, labels


def stills(seed=7000, per_kind=4):
    """The stills-to-video set: codes made printed-looking, then moved like a handheld camera."""
    rng = np.random.default_rng([seed, 1])
    fps, hold, gap = 30, 8, 3
    specs = [KINDS[i % len(KINDS)] for i in range(per_kind * len(KINDS))]
    frames = len(specs) * (hold + gap)
    desk = gaussian((np.linspace(100, 140, W)[None, :] + rng.normal(0, 8, (H, W))).astype(np.float32), 1.0)
    shots, labels = [], []
    for i, kind in enumerate(specs):
        ink, paper = float(rng.uniform(30, 110)), float(rng.uniform(150, 240))
        if paper - ink < 60:
            paper = ink + 60
        img, rect, symbology, text, mod = make_label(kind, float(rng.uniform(1.5, 5)), rng, int(0.8 * W), int(0.75 * H),
                                                     ink=ink, paper=paper, margin=int(rng.integers(10, 30)))
        img = gaussian(img, float(rng.uniform(0.3, 1.0)))
        hw, hh = img.shape[1] / 2, img.shape[0] / 2
        base = shift(W / 2 + float(rng.uniform(-0.15, 0.15)) * W, H / 2 + float(rng.uniform(-0.15, 0.15)) * H)
        keystone = np.eye(3)
        if rng.random() < 0.5:
            base = base @ rot(float(rng.uniform(-12, 12)))
        else:  # a keystone: the top edge 75-100 % as wide as the bottom
            side = (1 - float(rng.uniform(0.75, 1.0))) / 2 * img.shape[1]
            w, h = img.shape[1], img.shape[0]
            keystone = homography([(0, 0), (w, 0), (w, h), (0, h)], [(side, 0), (w - side, 0), (w, h), (0, h)])
        shot = {"img": img, "rect": rect, "base": base, "from": i * (hold + gap), "drift": (float(rng.uniform(-4, 4)), float(rng.uniform(-4, 4))),
                "turn": float(rng.uniform(-0.8, 0.8)), "zoom": float(rng.uniform(-0.01, 0.01)), "blur_dir": float(rng.uniform(0, math.pi)),
                "blur": [float(rng.uniform(2, 6)) for _ in range(hold)], "center": (hw, hh), "keystone": keystone}
        lab = Label(f"still{i + 1}", kind, symbology, text, mod, frames)
        shots.append(shot)
        labels.append(lab)
    params = {"family": "stills", "fps": fps, "frames": frames, "codes": len(specs), "hold": hold, "gap": gap, "labels": len(labels)}

    def pose(shot, k):
        hw, hh = shot["center"]
        return (shift(shot["drift"][0] * k, shot["drift"][1] * k) @ shot["base"] @ rot(shot["turn"] * k)
                @ scale(1 + shot["zoom"] * k) @ shift(-hw, -hh) @ shot["keystone"])

    for shot, lab in zip(shots, labels):
        for k in range(hold):
            lab.see(shot["from"] + k, apply(pose(shot, k), rect_corners(shot["rect"])))

    def render():
        nrng = np.random.default_rng([seed, 2])
        for n in range(frames):
            frame = desk.copy()
            i, k = divmod(n, hold + gap)
            noise = 3 + 7 * ((i * 7919) % 100) / 100
            if k < hold:
                shot = shots[i]
                box = warp(frame, shot["img"], pose(shot, k))
                if box and n % 3 == 2:  # every third frame blurred
                    d = shot["blur"][k]
                    motion_blur(frame, box, d * math.cos(shot["blur_dir"]), d * math.sin(shot["blur_dir"]))
            yield finish(frame, 1.0, noise, nrng)

    return params, render, labels


def generator_hash():
    with open(os.path.abspath(__file__), encoding="utf-8") as f:
        text = f.read()
    part = text[text.index("# --- generator"):text.index("# --- running")]
    return hashlib.sha256(part.encode()).hexdigest()[:10]


def scene_name(seed):
    return "stills" if seed == "stills" else f"seed{seed:03d}"


def make_scene(seed):
    """Makes (or finds) the scene of a seed ("stills": the stills set): (y4m path, truth)."""
    d = os.path.join(OUT, generator_hash())
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, scene_name(seed) + ".y4m")
    truth_path = path[:-4] + ".json"
    if os.path.exists(path) and os.path.exists(truth_path):
        with open(truth_path) as f:
            return path, json.load(f)
    if seed == "stills":
        params, render, labels = stills()
    else:
        params, render, labels = (conveyor if seed % 2 == 0 else handheld)(seed)
    with open(path + ".tmp", "wb") as f:
        f.write(f"YUV4MPEG2 W{W} H{H} F{params['fps']}:1 Ip A1:1 Cmono\n".encode())
        for frame in render():
            f.write(b"FRAME\n" + frame.tobytes())
    truth = {"seed": seed, "size": f"{W}x{H}", "params": params, "labels": [lab.truth() for lab in labels]}
    with open(truth_path + ".tmp", "w") as f:
        json.dump(truth, f)
    os.replace(truth_path + ".tmp", truth_path)
    os.replace(path + ".tmp", path)
    return path, truth


# --- running syncscan ---------------------------------------------------------------------------

SUMMARY = re.compile(r"summary: frames=(\d+) scanned=(\d+) dropped=(\d+) \(lateData=(\d+)")


def scene_symbologies(truth, engine):
    """The --symbologies of a scene for an engine: its labels' symbologies that the engine reads."""
    wanted = sorted({lab["symbology"] for lab in truth["labels"]})
    return [s for s in wanted if engine != "zbar" or s in ZBAR_READS]


def command(syncscan, source, engine, symbologies, threads, extra=()):
    return [syncscan, "run", "--source", source, "--engine", engine, "--symbologies", ",".join(symbologies),
            "--scanning-threads", str(threads), "--log-level", "error", *extra]


def parse_run(cmd, returncode, out_lines, err):
    if returncode != 0:
        raise RuntimeError(f"syncscan failed ({returncode}): {' '.join(cmd)}\n{err[-2000:]}")
    m = SUMMARY.search(err)
    s = dict(zip(("frames", "scanned", "dropped", "lateData"), map(int, m.groups()))) if m else None
    return s, [(when, json.loads(line)) for when, line in out_lines if line.strip()]


def run_file(cmd):
    p = subprocess.run(cmd, capture_output=True)
    lines = [(None, line) for line in p.stdout.decode(errors="replace").splitlines()]
    return parse_run(cmd, p.returncode, lines, p.stderr.decode(errors="replace"))


def run_live(cmd, path, fps):
    """Writes the file's frames to syncscan's stdin at fps; returns the summary, the lines with when
    each arrived, and when each frame began to be written (one monotonic clock)."""
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    got = {"out": [], "err": b""}

    def out():
        for line in p.stdout:
            got["out"].append((time.monotonic(), line.decode(errors="replace")))

    def err():
        got["err"] = p.stderr.read()
    threads = [threading.Thread(target=out), threading.Thread(target=err)]
    for t in threads:
        t.start()
    written = []
    size = W * H
    with open(path, "rb") as f:
        p.stdin.write(f.readline())
        start = time.monotonic()
        n = 0
        while f.read(6):
            frame = f.read(size)
            delay = start + n / fps - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            written.append(time.monotonic())
            p.stdin.write(b"FRAME\n" + frame)
            p.stdin.flush()
            n += 1
    p.stdin.close()
    p.wait()
    for t in threads:
        t.join()
    s, lines = parse_run(cmd, p.returncode, got["out"], got["err"].decode(errors="replace"))
    return s, lines, written


# --- scoring ------------------------------------------------------------------------------------


def key_of(symbology, text):
    """(family, main payload, add-on or None): UPC-A in its EAN-13 form, Codabar without start/stop."""
    text = text or ""
    main, _, addon = text.partition(" ")
    if symbology == "upca":
        symbology, main = "ean13", "0" + main
    if symbology == "codabar":
        main = main.strip("ABCDabcdTNEtne*")
    return symbology, main, addon or None


def place_of(record):
    b = record["bounds"]
    return b["x"] + b["width"] / 2, b["y"] + b["height"] / 2


def near(center, box):
    if box is None:
        return None
    d = math.hypot(center[0] - (box[0] + box[2]) / 2, center[1] - (box[1] + box[3]) / 2)
    return d if d <= 0.75 * max(box[2] - box[0], box[3] - box[1]) + 10 else None


def match(record, labels, keys):
    """The label a code line lies on, of its payload: (index, without add-on) or (None, the label
    whose place it lies on, if any: a misread of that label)."""
    k = key_of(record["symbology"], record.get("text"))
    seq = record["frame"]["seq"]
    center = place_of(record)
    best = None
    for i, lk in enumerate(keys):
        if lk[:2] != k[:2] or (k[2] is not None and k[2] != lk[2]):
            continue
        if seq >= len(labels[i]["boxes"]):
            continue
        d = near(center, labels[i]["boxes"][seq])
        if d is not None and (best is None or d < best[0]):
            best = (d, i, lk[2] is not None and k[2] is None)
    if best:
        return best[1], best[2]
    under = None
    for i, lab in enumerate(labels):
        if seq < len(lab["boxes"]):
            d = near(center, lab["boxes"][seq])
            if d is not None and (under is None or d < under[0]):
                under = (d, i)
    return None, (under[1] if under else None)


def readings(truth, lines):
    """From an all-readings run: per label the frames that read it; and the wrong readings."""
    labels = truth["labels"]
    keys = [key_of(lab["symbology"], lab["text"]) for lab in labels]
    read = {i: [] for i in range(len(labels))}
    passes = {i: set() for i in range(len(labels))}
    wrong = []
    for _w, r in lines:
        if r.get("type") != "code":
            continue
        i, other = match(r, labels, keys)
        if i is None:
            wrong.append({"seq": r["frame"]["seq"], "symbology": r["symbology"], "text": r.get("text"), "pass": r.get("pass"),
                          "engine": r.get("engine"),
                          "on": labels[other]["name"] + " " + labels[other]["symbology"] + " " + repr(labels[other]["text"]) if other is not None else None})
        else:
            read[i].append(r["frame"]["seq"])
            passes[i].add(r.get("pass"))
    return read, passes, wrong


def split_cause(lab, cs, removed, fps):
    """Why a label has several items: per pair of consecutive items, the frames between the first's
    last sighting and the next's first line, and what the label did then."""
    causes = []
    for a, b in zip(cs, cs[1:]):
        last = (removed.get(a["item"], {}).get("last") or {}).get("seq")
        start = b["frame"]["seq"]
        if last is None or start <= last:
            causes.append({"cause": "overlap (a second item begun while the first was in view)", "gap_frames": None})
            continue
        between = range(last + 1, start)
        if any(lab["boxes"][n] is None for n in between):
            what = "away (out of view, shown again within a second)"
        elif any(not lab["whole"][n] for n in between):
            what = "covered or partly out of view"
        else:
            what = "read gap in view"
        causes.append({"cause": what, "gap_frames": start - last, "gap_s": round((start - last) / fps, 2)})
    return causes


def merged_into(lab, i, read, items_by_payload, key):
    """For a missed label: the item of its payload, begun on another label, alive across its readings."""
    for item, first, last in items_by_payload.get(key, []):
        if first is not None and last is not None and first <= min(read[i]) and last >= min(read[i]):
            return item
    return None


def score(truth, engine, mode, lines, read, written=None, summary=None, passes=None):
    """One run's row: each label counted once, missed or split; the wrong payloads; latencies."""
    labels, fps = truth["labels"], truth["params"]["fps"]
    keys = [key_of(lab["symbology"], lab["text"]) for lab in labels]
    items = {i: [] for i in range(len(labels))}
    arrived = {}
    wrong, without_addon = [], 0
    for when, r in lines:
        if r.get("type") != "code" or "item" not in r:
            continue
        arrived[r["item"]] = when
        i, flag = match(r, labels, keys)
        if i is None:
            wrong.append({"item": r["item"], "seq": r["frame"]["seq"], "symbology": r["symbology"], "text": r.get("text"),
                          "pass": r.get("pass"), "engine": r.get("engine"),
                          "on": (labels[flag]["name"] + " " + labels[flag]["symbology"] + " " + repr(labels[flag]["text"])) if flag is not None else None})
        else:
            items[i].append(r)
            without_addon += flag
    removed = {r["item"]: r for _w, r in lines if r.get("type") == "item_removed"}
    items_by_payload = {}
    for rm in removed.values():
        items_by_payload.setdefault(key_of(rm["symbology"], rm.get("text"))[:2], []).append(
            (rm["item"], (rm.get("first") or {}).get("seq"), (rm.get("last") or {}).get("seq")))
    row = {"engine": engine, "mode": mode, "labels": len(labels), "in_view": 0, "readable": 0, "never_read": 0,
           "not_read_by_engine": 0, "once": 0, "missed": 0, "split": 0, "wrong_payloads": len(wrong),
           "unreadable_counted": 0, "without_addon": without_addon, "latency_frames": [], "latency_ms": [], "problems": []}
    if summary:
        row["summary"] = summary
    for i, lab in enumerate(labels):
        whole = [n for n, x in enumerate(lab["whole"]) if x]
        cs = items[i]
        if not whole:
            if cs:
                row["unreadable_counted"] += 1
            continue
        row["in_view"] += 1
        if engine == "zbar" and lab["symbology"] not in ZBAR_READS:
            row["not_read_by_engine"] += 1
            continue
        if not read[i]:
            row["never_read"] += 1
            if cs:
                row["unreadable_counted"] += 1
            continue
        row["readable"] += 1
        status = "once" if len(cs) == 1 else "missed" if not cs else "split"
        row[status] += 1
        first_readable = min(read[i])
        if cs:
            seq = cs[0]["frame"]["seq"]
            row["latency_frames"].append(seq - whole[0])
            if written is not None:
                row["latency_ms"].append(round(1000 * (arrived[cs[0]["item"]] - written[min(first_readable, seq)]), 1))
            else:
                row["latency_ms"].append(round(1000 * max(0, seq - first_readable) / fps, 1))
        if status != "once":
            row["problems"].append({
                "label": lab["name"], "symbology": lab["symbology"], "text": lab["text"], "module": lab["module"],
                "status": status, "items": len(cs), "frames_whole": [whole[0], whole[-1]], "frames_read_all": len(read[i]),
                "read_all_first_last": [first_readable, max(read[i])],
                "passes_all": sorted(p for p in (passes or {}).get(i, ()) if p),
                "lines": [{"item": c["item"], "seq": c["frame"]["seq"], "pass": c.get("pass"),
                           "removed": {k: removed.get(c["item"], {}).get(k) for k in ("first", "last", "frames_read", "read_rate")}}
                          for c in cs]})
            if status == "split":
                row["problems"][-1]["causes"] = split_cause(lab, cs, removed, fps)
            else:
                into = merged_into(lab, i, read, items_by_payload, keys[i][:2])
                row["problems"][-1]["cause"] = (f"merged: item {into} of an identical label was in view across its readings"
                                                if into is not None else "no item")
    for w in wrong:
        row["problems"].append(dict(status="wrong payload", **w))
    row["share_once"] = round(row["once"] / row["readable"], 4) if row["readable"] else None
    return row


def pct(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, round((len(v) - 1) * q))] if v else None


def summarize(rows):
    """The distribution over scenes of one engine and mode's rows."""
    shares = [r["share_once"] for r in rows if r["share_once"] is not None]
    total = {k: sum(r[k] for r in rows) for k in ("labels", "in_view", "readable", "never_read", "not_read_by_engine", "once",
                                                  "missed", "split", "wrong_payloads", "unreadable_counted", "without_addon")}
    ms = [x for r in rows for x in r["latency_ms"]]
    frames = [x for r in rows for x in r["latency_frames"]]
    ranked = sorted((r for r in rows if r["share_once"] is not None),
                    key=lambda r: (r["share_once"], -r["wrong_payloads"], -r["split"], -r["missed"]))
    worst = ranked[0] if ranked else None
    causes = {}
    for r in rows:
        for p in r["problems"]:
            if p["status"] == "split":
                names = [c["cause"].split(" (")[0] for c in p.get("causes", [])]
            elif p["status"] == "missed":
                names = [p.get("cause", "no item").split(":")[0]]
            else:
                names = ["on another label" if p.get("on") else "on no label"]
            for n in names:
                causes.setdefault(p["status"], {}).setdefault(n, 0)
                causes[p["status"]][n] += 1
    out = {"scenes": len(rows), "share_once": {"min": min(shares, default=None), "median": round(statistics.median(shares), 4) if shares else None,
                                                "max": max(shares, default=None)},
           "share_once_pooled": round(total["once"] / total["readable"], 4) if total["readable"] else None, **total,
           "scenes_all_once_no_wrong": sum(1 for r in rows if r["readable"] and r["once"] == r["readable"] and not r["wrong_payloads"]),
           "latency_ms": {"n": len(ms), "p50": pct(ms, 0.5), "p99": pct(ms, 0.99)},
           "latency_frames_from_in_view": {"p50": pct(frames, 0.5), "p99": pct(frames, 0.99)}, "causes": causes}
    if any("summary" in r for r in rows):
        out["lateData"] = sum(r.get("summary", {}).get("lateData", 0) for r in rows)
        out["frames"] = sum(r.get("summary", {}).get("frames", 0) for r in rows)
    if worst:
        out["worst"] = {"scene": worst["scene"], "family": worst["family"],
                        **{k: worst[k] for k in ("share_once", "readable", "once", "missed", "split", "wrong_payloads")}}
    return out


def measure(args):
    started, load = time.monotonic(), os.getloadavg()
    if args.syncscan:
        syncscan = os.path.abspath(args.syncscan)
    else:
        from run import release_syncscan
        syncscan = release_syncscan()
    engines, modes = args.engines.split(","), args.modes.split(",")
    seeds = list(range(args.seed_from, args.seed_from + args.seeds))
    names = seeds + ([] if args.no_stills else ["stills"])
    jobs = max(1, min(2, args.jobs))
    with concurrent.futures.ProcessPoolExecutor(jobs) as ex:
        made = dict(zip(names, ex.map(make_scene, names)))
    made_at = time.monotonic()
    print(f"scenes: {len(names)} made or found under {os.path.relpath(os.path.join(OUT, generator_hash()), ROOT)} "
          f"in {made_at - started:.0f} s; load average {load[0]:.2f}", flush=True)

    def file_task(name, engine, kind):
        path, truth = made[name]
        extra = ["--duplicate-window", "0"] if kind == "all" else []
        return (name, engine, kind), run_file(command(syncscan, path, engine, scene_symbologies(truth, engine), 1, extra))
    tasks = [(n, e, k) for n in names for e in engines for k in (["all"] + (["file"] if "file" in modes else []))]
    done = {}
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        for (key, result) in ex.map(lambda t: file_task(*t), tasks):
            done[key] = result
            if len(done) % 20 == 0:
                print(f"  file runs: {len(done)}/{len(tasks)} ({time.monotonic() - made_at:.0f} s)", flush=True)
    files_at = time.monotonic()
    if "live" in modes:
        for i, (n, e) in enumerate((n, e) for n in names for e in engines):
            path, truth = made[n]
            s, lines, written = run_live(command(syncscan, "y4m:-", e, scene_symbologies(truth, e), 2), path, truth["params"]["fps"])
            done[(n, e, "live")] = (s, lines, written)
            if (i + 1) % 20 == 0:
                print(f"  live runs: {i + 1}/{len(names) * len(engines)} ({time.monotonic() - files_at:.0f} s)", flush=True)
    ended = time.monotonic()

    scenes_out, rows = [], []
    for n in names:
        path, truth = made[n]
        p = truth["params"]
        entry = {"scene": scene_name(n), "seed": n, "family": p["family"], "fps": p["fps"], "frames": p["frames"],
                 "labels": len(truth["labels"]), "kinds": sorted({lab["kind"] for lab in truth["labels"]}), "params": p, "engines": {}}
        for e in engines:
            _s, all_lines = done[(n, e, "all")]
            read, passes, wrong_readings = readings(truth, all_lines)
            entry["engines"][e] = {"symbologies": ",".join(scene_symbologies(truth, e)),
                                   "readings": sum(len(v) for v in read.values()), "wrong_readings": len(wrong_readings),
                                   "wrong_readings_list": wrong_readings[:20]}
            for m in modes:
                if m == "file":
                    s, lines = done[(n, e, "file")]
                    row = score(truth, e, m, lines, read, summary=s, passes=passes)
                else:
                    s, lines, written = done[(n, e, "live")]
                    row = score(truth, e, m, lines, read, written=written, summary=s, passes=passes)
                row.update(scene=scene_name(n), seed=n, family=p["family"])
                rows.append(row)
        scenes_out.append(entry)

    summary = {}
    for e in engines:
        for m in modes:
            sel = [r for r in rows if r["engine"] == e and r["mode"] == m]
            seeded = [r for r in sel if r["family"] != "stills"]
            summary.setdefault(e, {})[m] = {
                "seeds": summarize(seeded),
                "by_family": {f: summarize([r for r in seeded if r["family"] == f]) for f in ("conveyor", "handheld")},
                "stills": summarize([r for r in sel if r["family"] == "stills"]) if not args.no_stills else None}
            summary[e][m]["seeds"]["wrong_readings_all"] = sum(s["engines"][e]["wrong_readings"] for s in scenes_out if s["family"] != "stills")
    res = {"command": " ".join(["bench/scenes.py"] + sys.argv[1:]),
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "commit": subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip(),
           "syncscan": os.path.relpath(syncscan, ROOT) if syncscan.startswith(ROOT) else syncscan,
           "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "loadavg_start": [round(x, 2) for x in load],
                       "loadavg_end": [round(x, 2) for x in os.getloadavg()]},
           "generator": {"hash": generator_hash(), "size": f"{W}x{H}", "format": "GREY"},
           "seeds": seeds, "engines": engines, "modes": modes, "jobs": jobs,
           "run_time_s": {"scenes": round(made_at - started), "file_runs": round(files_at - made_at),
                          "live_runs": round(ended - files_at), "total": round(ended - started)},
           "summary": summary, "scenes": scenes_out, "rows": rows}
    res["tables"] = tables(res)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out + ".tmp", "w") as f:
        json.dump(res, f, indent=1)
        f.write("\n")
    os.replace(args.out + ".tmp", args.out)
    print(f"wrote {os.path.relpath(os.path.abspath(args.out), ROOT)} ({res['run_time_s']['total']} s)\n")
    render_results(res)


def fmt(x, d=2):
    return "-" if x is None else f"{x:.{d}f}"


def tables(res):
    """The results as render.py tables: the seeded scenes, and the stills set."""
    cols = [{"key": "engine", "title": "engine"}, {"key": "mode", "title": "mode"},
            {"key": "readable", "title": "readable labels (in view)"},
            {"key": "share", "title": "counted once: min / median / max over seeds"},
            {"key": "pooled", "title": "all labels", "decimals": 3},
            {"key": "missed", "title": "missed"}, {"key": "split", "title": "split"},
            {"key": "wrong", "title": "wrong payloads"},
            {"key": "p50", "title": "first line p50", "decimals": 0, "unit": " ms"},
            {"key": "p99", "title": "p99", "decimals": 0, "unit": " ms"},
            {"key": "frames", "title": "frames from in view p50 / p99"},
            {"key": "worst", "title": "worst seed"}]
    out = []
    for which, title in (("seeds", "scenes"), ("stills", "stills")):
        trows = []
        for e, per in res["summary"].items():
            for m, s in per.items():
                s = s.get(which)
                if not s:
                    continue
                sh = s["share_once"]
                row = {"engine": f"`{e}`", "mode": m, "readable": f"{s['readable']} ({s['in_view']})",
                       "share": f"{fmt(sh['min'])} / {fmt(sh['median'])} / {fmt(sh['max'])}" if which == "seeds" else fmt(sh["median"], 3),
                       "pooled": s["share_once_pooled"], "missed": s["missed"], "split": s["split"], "wrong": s["wrong_payloads"],
                       "p50": s["latency_ms"]["p50"], "p99": s["latency_ms"]["p99"],
                       "frames": f"{s['latency_frames_from_in_view']['p50']} / {s['latency_frames_from_in_view']['p99']}"}
                if which == "seeds" and s.get("worst"):
                    w = s["worst"]
                    row["worst"] = f"{w['scene']} ({w['family']}): {w['once']}/{w['readable']}, {w['split']} split, {w['missed']} missed, {w['wrong_payloads']} wrong"
                trows.append(row)
        c = cols if which == "seeds" else [x for x in cols if x["key"] != "worst"]
        if which == "stills":
            c = [dict(x, title="counted once") if x["key"] == "share" else x for x in c if x["key"] != "pooled"]
            for r in trows:
                r.pop("pooled", None)
        out.append({"id": title, "columns": c, "rows": trows})
    return out


def render_results(res):
    m = res["machine"]
    print(f"{res['command']}  ({res['date']}, {res['commit'][:12]}, {m['cpus']} CPUs, load average at start "
          f"{' '.join(map(str, m['loadavg_start']))}, at end {' '.join(map(str, m['loadavg_end']))}; run time {res['run_time_s']})")
    print(f"seeds {res['seeds'][0]}-{res['seeds'][-1]} ({len(res['seeds'])}: conveyor on even, handheld on odd), "
          f"{res['generator']['size']} {res['generator']['format']}, generator {res['generator']['hash']}")
    for t in res["tables"]:
        print(f"\n{t['id']}:")
        print("  " + " | ".join(c["title"] for c in t["columns"]))
        for r in t["rows"]:
            print("  " + " | ".join(("-" if r.get(c["key"]) is None else
                                     (f"{r[c['key']]:.{c.get('decimals', 0)}f}{c.get('unit', '')}" if isinstance(r[c["key"]], float)
                                      else str(r[c["key"]]))) for c in t["columns"]))
    print("\nby family (median share counted once; totals once/readable, missed, split, wrong payloads; lateData/frames live):")
    for e, per in res["summary"].items():
        for mo, s in per.items():
            parts = []
            for f, fs in s["by_family"].items():
                parts.append(f"{f} {fmt(fs['share_once']['median'])} ({fs['once']}/{fs['readable']}, {fs['missed']} missed, "
                             f"{fs['split']} split, {fs['wrong_payloads']} wrong)")
            sd = s["seeds"]
            late = f"; lateData {sd['lateData']}/{sd['frames']}" if mo == "live" else ""
            print(f"  {e:6s} {mo:4s}: " + "; ".join(parts) + f"; never read {sd['never_read']}, not read by the engine "
                  f"{sd['not_read_by_engine']}, wrong readings (every reading, file) {sd['wrong_readings_all']}{late}")
            print(f"               causes: {json.dumps(sd.get('causes', {}))}")
    print("\nworst seeds:")
    rows = {(r["scene"], r["engine"], r["mode"]): r for r in res["rows"]}
    for e, per in res["summary"].items():
        for mo, s in per.items():
            w = s["seeds"].get("worst")
            if not w:
                continue
            r = rows[(w["scene"], e, mo)]
            print(f"  {e} {mo}: {w['scene']} ({w['family']}) {w['once']}/{w['readable']} once, {w['missed']} missed, {w['split']} split, "
                  f"{w['wrong_payloads']} wrong payloads" + (f", lateData {r['summary']['lateData']}/{r['summary']['frames']}" if r.get("summary") else ""))
            for p in r["problems"][:6]:
                print("      " + json.dumps(p)[:300])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=40, help="seeded scenes (default 40)")
    ap.add_argument("--seed-from", type=int, default=0, help="the first seed (default 0)")
    ap.add_argument("--engines", default=",".join(ENGINES))
    ap.add_argument("--modes", default="file,live")
    ap.add_argument("--syncscan", metavar="PATH", help="the binary to run (default: the release build of this tree, built)")
    ap.add_argument("--jobs", type=int, default=2, help="file runs at once (at most 2); live runs run alone")
    ap.add_argument("--no-stills", action="store_true", help="leave out the stills-to-video set")
    ap.add_argument("--out", default=RESULTS)
    ap.add_argument("--make", action="store_true", help="only make the scenes (cached) and exit")
    ap.add_argument("--print", nargs="?", const=RESULTS, metavar="FILE", dest="print_file", help="print a results file as tables")
    args = ap.parse_args()
    if args.print_file:
        with open(args.print_file) as f:
            render_results(json.load(f))
        return
    if args.make:
        names = list(range(args.seed_from, args.seed_from + args.seeds)) + ([] if args.no_stills else ["stills"])
        with concurrent.futures.ProcessPoolExecutor(max(1, min(2, args.jobs))) as ex:
            for n, (path, truth) in zip(names, ex.map(make_scene, names)):
                print(f"{scene_name(n)}: {truth['params']['family']}, {truth['params']['frames']} frames at {truth['params']['fps']} fps, "
                      f"{len(truth['labels'])} labels", flush=True)
        return
    measure(args)


if __name__ == "__main__":
    main()
