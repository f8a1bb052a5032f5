#!/usr/bin/env python3
"""Every label counted once: syncscan's items (#40) on a generated conveyor and a handheld station.

Makes 15 s of 1280x720 GREY at 30 fps (bench/out/, cached): two belt lanes carrying parcels with
QR, Code 128 and DataMatrix labels (motion blur of the belt's speed over a 1/100 s exposure, sensor
noise), and above them a handheld station where cards are shown. The script knows every physical
label and presentation (the scenarios below) and checks, from syncscan's JSON lines, that each is
counted as exactly one item and that no item is extra: an item's first line is matched to the
label of its payload whose place in that frame holds the line's outline.

  run-close    three parcels in a row, the same QR, 280 px apart (in view together)
  twin         two identical DataMatrix labels side by side on one parcel
  run-far      two parcels with the same Code 128, 2.5 s apart (750 px)
  stop         a parcel with a Code 128 and a DataMatrix; its lane stops for 4 s with it in view
  return       a DataMatrix that leaves and comes back 8 s later on another parcel
  twice        a QR ticket shown 1.2 s, taken away for 0.5 s, shown again (two presentations)
  held         a Code 128 held still (hand tremor of a pixel or two) for 10 s
  waved        a QR waved (110 px sideways, 1.4 s a period, blurred along its motion) for 4 s

Runs (release build, `--symbologies qrcode,code128,datamatrix`, default effort, the default engine or --engine's):
  count, file:  --source FILE.y4m --scanning-threads 1, items (the default) against
                --duplicate-window 1 (the old default) and --duplicate-window 0: items per label,
                lines per label; the items runs are also the cost runs below.
  count, live:  --source y4m:- --scanning-threads 2, the frames written at 30 fps; lateData from
                the summary line on stderr; items and --duplicate-window 1 alternate (A B B A …).
  cost:         CPU (user + system, wait4) per frame of the file runs, items against
                --duplicate-window 1, interleaved (A B B A …), medians and their ratio.
  latency:      on the live runs, frame→line: when the feeder began writing a frame to when the
                reader got the line, for an item's first line against the window's code line.
Writes bench/results/items.json (the figures, the command, the load average at the start);
--print renders a results file as tables without running anything.
Usage: bench/conveyor.py [--runs 5] [--live-runs 3] [--engine E] [--out FILE] | bench/conveyor.py --print [FILE]
(needs: numpy, qrencode, zint, a Swift toolchain)
"""
import argparse, datetime, json, math, os, platform, re, statistics, subprocess, sys, threading, time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import release_syncscan  # noqa: E402

OUT = os.path.join(ROOT, "bench", "out")
RESULTS = os.path.join(ROOT, "bench", "results", "items.json")
W, H, FPS, SECONDS = 1280, 720, 30, 15
FRAMES = FPS * SECONDS
SCENE_VERSION = 2
EXPOSURE = 1 / 100          # seconds: motion blur = speed × exposure
NOISE = 7.0                 # sensor noise, standard deviation in grey levels
PAPER, INK = 236, 28
SYMBOLOGIES = "qrcode,code128,datamatrix"

# --- labels -------------------------------------------------------------------------------------


def qr_modules(payload):
    text = subprocess.run(["qrencode", "-t", "ASCII", "-m", "0", payload], check=True,
                          capture_output=True, text=True).stdout.splitlines()
    return np.array([[c == "#" for c in line[::2]] for line in text if line])


def zint_modules(barcode, payload, *options):
    """zint --dump: one row of hex digits per module row (4 modules a digit, padded with light)."""
    rows = subprocess.run(["zint", "-b", barcode, *options, "--dump", "-d", payload], check=True,
                          capture_output=True, text=True).stdout.split("\n")
    bits = [[b == "1" for d in row.replace(" ", "") for b in f"{int(d, 16):04b}"] for row in rows if row.strip()]
    return np.array(bits)


def label(symbology, payload, module, quiet, bar_height=0, rotate=0):
    """A printed label: the code's modules at `module` px, a light margin of `quiet` modules.
    Returns (pixels, (code x, code y, code w, code h) within them)."""
    if symbology == "qrcode":
        m = qr_modules(payload)
    elif symbology == "datamatrix":
        m = zint_modules("71", payload, "--square")
    else:
        m = np.repeat(zint_modules("20", payload)[:1], bar_height, axis=0)
    code = np.where(np.kron(m, np.ones((module, module), bool)), INK, PAPER).astype(np.float32)
    q = quiet * module
    img = np.full((code.shape[0] + 2 * q, code.shape[1] + 2 * q), PAPER, np.float32)
    img[q:q + code.shape[0], q:q + code.shape[1]] = code
    rect = (q, q, code.shape[1], code.shape[0])
    for _ in range(rotate % 4):  # quarter turns counter-clockwise
        h, w = img.shape
        x, y, cw, ch = rect
        img = np.rot90(img)
        rect = (y, w - x - cw, ch, cw)
    return img, rect


# --- the scene ----------------------------------------------------------------------------------

LANE_A_Y, LANE_B_Y, LANE_H = 300, 510, 200   # belts: A left→right 300 px/s, B right→left 250 px/s
SPEED_A, SPEED_B = 300.0, 250.0
STOP_B = (4.5, 8.5)                          # lane B stands still


def travel_b(t):
    """Seconds lane B has moved by time t."""
    return t - min(max(t - STOP_B[0], 0), STOP_B[1] - STOP_B[0])


class Thing:
    """A parcel or a card: its pixels, where its top-left is at time t (None: not in view), its velocity."""

    def __init__(self, name, pixels, place, velocity):
        self.name, self.pixels, self.place, self.velocity = name, pixels, place, velocity


def parcel(width, labels, seed):
    """Cardboard (grey 150–175) with a tape stripe, a little print, and the labels at (dx, dy)."""
    rng = np.random.default_rng(seed)
    img = np.full((LANE_H - 20, width), 160 + seed % 15, np.float32)
    img[:, :2] = img[:, -2:] = img[:2, :] = img[-2:, :] = 120
    img[70:96, :] = 182
    for _ in range(3):  # print: small dark blocks
        x, y = rng.integers(8, width - 40), rng.integers(8, LANE_H - 50)
        img[y:y + rng.integers(4, 12), x:x + rng.integers(10, 36)] = 60
    rects = []
    for (pixels, (cx, cy, cw, ch)), (dx, dy) in labels:
        img[dy:dy + pixels.shape[0], dx:dx + pixels.shape[1]] = pixels
        rects.append((dx + cx, dy + cy, cw, ch))
    return img, rects


def build_scene():
    """The things in view and the ground truth: (scenario, symbology, payload, thing, code rect in it)."""
    things, truth = [], []

    def lane_a(te, w):
        return (lambda t: (-w + SPEED_A * (t - te), LANE_A_Y + 10) if -w < -w + SPEED_A * (t - te) < W else None,
                lambda t: (SPEED_A, 0.0))

    def lane_b(te, w):
        def place(t):
            x = W - SPEED_B * (travel_b(t) - travel_b(te))
            return (x, LANE_B_Y + 10) if t >= te and -w < x < W else None
        return place, lambda t: (0.0 if STOP_B[0] <= t < STOP_B[1] else -SPEED_B, 0.0)

    def add(scenario, name, width, labels, motion, seed):
        specs = [(label(*spec), at) for spec, at in labels]
        img, rects = parcel(width, specs, seed)
        thing = Thing(name, img, *motion)
        things.append(thing)
        for ((symbology, payload, *_), _at), rect in zip(labels, rects):
            truth.append((scenario, symbology, payload, thing, rect))

    qr_close = ("qrcode", "RUN-CLOSE-QR-17", 5, 3)
    for i, te in enumerate((0.0, 0.0 + 280 / SPEED_A, 0.0 + 560 / SPEED_A)):
        add("run-close", f"close{i + 1}", 200, [(qr_close + (0, i), (30, 25))], lane_a(te, 200), 3 + i)
    dm_twin = ("datamatrix", "TWIN-DM-0815", 6, 2)
    add("twin", "twin", 420, [(dm_twin, (60, 40)), (dm_twin, (260, 40))], lane_a(3.2, 420), 7)
    c128_far = ("code128", "0031415926", 3, 10, 20)
    add("run-far", "far1", 380, [(c128_far, (20, 30))], lane_a(6.0, 380), 8)
    add("run-far", "far2", 380, [(c128_far, (24, 44))], lane_a(8.5, 380), 9)
    dm_return = ("datamatrix", "RETURN-DM-7", 6, 2)
    add("return", "return1", 240, [(dm_return, (60, 30))], lane_a(-1.2, 240), 10)
    add("stop", "stop", 520, [(("code128", "0027182818", 3, 10, 16), (20, 50)),
                              (("datamatrix", "STOP-DM-42", 6, 2), (380, 30))], lane_b(1.4, 520), 11)
    add("return", "return2", 240, [(dm_return + (0, 1), (40, 40))], lane_a(11.2, 240), 12)

    def card(scenario, name, spec, shows, motion=None):
        img, rect = label(*spec)
        img = np.pad(img, 8, constant_values=PAPER)
        rect = (rect[0] + 8, rect[1] + 8, rect[2], rect[3])
        tremor = lambda t: (1.5 * math.sin(2 * math.pi * 2.3 * t), 1.0 * math.sin(2 * math.pi * 3.1 * t + 1))
        dtremor = lambda t: (1.5 * 2 * math.pi * 2.3 * math.cos(2 * math.pi * 2.3 * t),
                             1.0 * 2 * math.pi * 3.1 * math.cos(2 * math.pi * 3.1 * t + 1))
        for k, (t0, t1, x, y) in enumerate(shows):
            if motion:
                place = lambda t, t0=t0, t1=t1: (motion[0](t)) if t0 <= t < t1 else None
                velocity = motion[1]
            else:
                place = (lambda t, t0=t0, t1=t1, x=x, y=y:
                         (x + tremor(t)[0], y + tremor(t)[1]) if t0 <= t < t1 else None)
                velocity = dtremor
            thing = Thing(f"{name}{k + 1}", img, place, velocity)
            things.append(thing)
            truth.append((scenario, spec[0], spec[1], thing, rect))

    card("twice", "ticket", ("qrcode", "TICKET 4711", 5, 3), [(0.5, 1.7, 80, 60), (2.2, 3.4, 95, 70)])
    card("held", "held", ("code128", "0016180339", 3, 10, 20), [(4.0, 14.0, 450, 100)])
    period, ax, ay, cx, cy = 1.4, 110.0, 35.0, 850.0, 70.0
    wave = (lambda t: (cx + ax * math.sin(2 * math.pi * t / period), cy + ay * math.sin(4 * math.pi * t / period)),
            lambda t: (ax * 2 * math.pi / period * math.cos(2 * math.pi * t / period),
                       ay * 4 * math.pi / period * math.cos(4 * math.pi * t / period)))
    card("waved", "wave", ("qrcode", "WAVE QR 99", 5, 3), [(10.5, 14.5, 0, 0)], wave)
    return things, truth


def background():
    """The wall above the belts (static) and a belt texture (periodic, 1600 px) moved by each lane."""
    rng = np.random.default_rng(1)
    wall = (np.linspace(70, 96, H)[:, None] + rng.normal(0, 4, (H, W))).astype(np.float32)
    belt = np.full((LANE_H, 1600), 104, np.float32) + rng.normal(0, 6, (LANE_H, 1600)).astype(np.float32)
    belt[:, ::160] = belt[:, 1::160] = belt[:, 2::160] = 82  # seams
    belt[:4, :] = belt[-4:, :] = 60                           # rails
    return wall, belt


def render(n, things, wall, belt, rng):
    t = n / FPS
    frame = wall.copy()
    cols = np.arange(W)
    frame[LANE_A_Y:LANE_A_Y + LANE_H] = belt[:, (cols - int(SPEED_A * t)) % belt.shape[1]]
    frame[LANE_B_Y:LANE_B_Y + LANE_H] = belt[:, (cols + int(SPEED_B * travel_b(t))) % belt.shape[1]]
    blurs = []
    for thing in things:
        at = thing.place(t)
        if at is None:
            continue
        x, y = int(round(at[0])), int(round(at[1]))
        h, w = thing.pixels.shape
        x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, W), min(y + h, H)
        if x0 >= x1 or y0 >= y1:
            continue
        frame[y0:y1, x0:x1] = thing.pixels[y0 - y:y1 - y, x0 - x:x1 - x]
        vx, vy = thing.velocity(t)
        blurs.append((x0, y0, x1, y1, vx * EXPOSURE, vy * EXPOSURE))
    for x0, y0, x1, y1, dx, dy in blurs:  # a box blur along the motion, over the thing and its edges
        length = max(abs(dx), abs(dy))
        if length < 1:
            continue
        steps = int(math.ceil(length)) + 1
        m = int(math.ceil(length / 2)) + 1
        x0, y0, x1, y1 = max(x0 - m, m), max(y0 - m, m), min(x1 + m, W - m), min(y1 + m, H - m)
        src = frame.copy()
        acc = np.zeros((y1 - y0, x1 - x0), np.float32)
        for k in range(steps):
            f = k / (steps - 1) - 0.5
            ox, oy = int(round(f * dx)), int(round(f * dy))
            acc += src[y0 + oy:y1 + oy, x0 + ox:x1 + ox]
        frame[y0:y1, x0:x1] = acc / steps
    frame += rng.standard_normal((H, W), dtype=np.float32) * NOISE
    return np.clip(frame, 0, 255).astype(np.uint8)


def frames_path():
    return os.path.join(OUT, f"conveyor-v{SCENE_VERSION}-{W}x{H}-{FRAMES}.y4m")


def make_frames(path, things):
    if os.path.exists(path):
        return
    os.makedirs(OUT, exist_ok=True)
    wall, belt = background()
    rng = np.random.default_rng(2)
    with open(path + ".tmp", "wb") as f:
        f.write(f"YUV4MPEG2 W{W} H{H} F{FPS}:1 Ip A1:1 Cmono\n".encode())
        for n in range(FRAMES):
            f.write(b"FRAME\n" + render(n, things, wall, belt, rng).tobytes())
    os.replace(path + ".tmp", path)


def code_rect(truth_entry, n):
    """The code's rectangle (x0, y0, x1, y1) in frame n, or None when its thing is not in view."""
    _s, _sym, _p, thing, (cx, cy, cw, ch) = truth_entry
    at = thing.place(n / FPS)
    if at is None:
        return None
    x, y = at[0] + cx, at[1] + cy
    return (x, y, x + cw, y + ch)


# --- running syncscan ---------------------------------------------------------------------------

SUMMARY = re.compile(r"summary: frames=(\d+) scanned=(\d+) dropped=(\d+) \(lateData=(\d+)")


ENGINE = []  # --engine E when asked (default: the daemon's)


def mode_flags(mode):
    return ENGINE + ([] if mode == "items" else ["--duplicate-window", mode.split("=")[1]])


def summary(err):
    m = SUMMARY.search(err)
    if not m:
        sys.exit(f"no summary line on stderr:\n{err}")
    frames, scanned, dropped, late = map(int, m.groups())
    line = err[err.rfind("\n", 0, m.start()) + 1:].split("\n", 1)[0]
    return {"frames": frames, "scanned": scanned, "dropped": dropped, "lateData": late, "line": line}


def collect(p):
    """Reads the child's stdout (each line with when it arrived) and stderr on threads."""
    got = {"out": [], "err": b""}
    def out():
        for line in p.stdout:
            got["out"].append((time.monotonic(), line))
    def err():
        got["err"] = p.stderr.read()
    threads = [threading.Thread(target=out), threading.Thread(target=err)]
    for t in threads:
        t.start()
    return got, threads


def reap(cmd, p, got, threads):
    """Waits for the child with wait4 (its user + system time), then parses what it wrote."""
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    for t in threads:
        t.join()
    err = got["err"].decode(errors="replace")
    if p.returncode != 0:
        sys.exit(f"syncscan failed ({p.returncode}): {' '.join(cmd)}\n{err}")
    arrived = [(when, json.loads(line)) for when, line in got["out"] if line.strip()]
    return {"arrived": arrived, "records": [r for _w, r in arrived], "summary": summary(err),
            "cpu": usage.ru_utime + usage.ru_stime}


def run_file_timed(syncscan, path, mode):
    cmd = [syncscan, "run", "--source", path, "--scanning-threads", "1", "--symbologies", SYMBOLOGIES,
           "--log-level", "error"] + mode_flags(mode)
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    got, threads = collect(p)
    return reap(cmd, p, got, threads)


def run_live(syncscan, path, mode):
    """Writes the file's frames to syncscan's stdin at FPS; when each frame began to be written and
    when each line arrived, on one monotonic clock."""
    cmd = [syncscan, "run", "--source", "y4m:-", "--scanning-threads", "2", "--symbologies", SYMBOLOGIES,
           "--log-level", "error"] + mode_flags(mode)
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    got, threads = collect(p)
    size = W * H
    written = {}
    with open(path, "rb") as f:
        header = f.readline()
        p.stdin.write(header)
        start = time.monotonic()
        for n in range(FRAMES):
            f.read(len(b"FRAME\n"))
            frame = f.read(size)
            delay = start + n / FPS - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            written[n] = time.monotonic()
            p.stdin.write(b"FRAME\n" + frame)
            p.stdin.flush()
    p.stdin.close()
    r = reap(cmd, p, got, threads)
    latencies, first = [], {}
    for when, record in r["arrived"]:
        if record.get("type") == "code":
            ms = 1000 * (when - written[record["frame"]["seq"]])
            latencies.append(ms)
            first.setdefault((record["symbology"], record.get("text")), ms)
    r["latencies"], r["first_of_payload"] = latencies, list(first.values())
    return r


# --- checking -----------------------------------------------------------------------------------


def count(records, truth, scenarios):
    """Per scenario: labels, code lines, and for items which label each item's first line lies on.
    Returns (table, problems) where problems name each label not counted once and each extra item."""
    codes = [r for r in records if r.get("type") == "code"]
    removed = {r["item"]: r for r in records if r.get("type") == "item_removed"}
    by_payload = {}
    for i, (scenario, symbology, payload, *_r) in enumerate(truth):
        by_payload.setdefault((symbology, payload), []).append(i)
    table = {s: {"labels": 0, "lines": 0, "items": 0, "matched": 0, "read_rates": []} for s in scenarios}
    for scenario, *_r in truth:
        table[scenario]["labels"] += 1
    per_label = {i: [] for i in range(len(truth))}
    extra = []
    for c in codes:
        key = (c["symbology"], c.get("text"))
        candidates = by_payload.get(key, [])
        if not candidates:
            extra.append(("unknown payload", c))
            continue
        scenario = truth[candidates[0]][0]
        table[scenario]["lines"] += 1
        if "item" not in c:
            continue
        table[scenario]["items"] += 1
        b = c["bounds"]
        center = (b["x"] + b["width"] / 2, b["y"] + b["height"] / 2)
        best = None
        for i in candidates:
            rect = code_rect(truth[i], c["frame"]["seq"])
            if rect is None:
                continue
            d = math.hypot(center[0] - (rect[0] + rect[2]) / 2, center[1] - (rect[1] + rect[3]) / 2)
            if d <= 0.75 * max(rect[2] - rect[0], rect[3] - rect[1]) + 10 and (best is None or d < best[0]):
                best = (d, i)
        if best is None:
            extra.append((scenario, c))
        else:
            per_label[best[1]].append(c)
            table[scenario]["matched"] += 1
    problems = []
    items_mode = any("item" in c for c in codes)
    if items_mode:
        for i, cs in per_label.items():
            scenario, symbology, payload, thing, rect = truth[i]
            on_thing = [j for j, t in enumerate(truth) if t[3] is thing]
            which = f" label {on_thing.index(i) + 1} of {len(on_thing)} (at x+{rect[0]})" if len(on_thing) > 1 else ""
            if cs:
                rm = removed.get(cs[0]["item"])
                if rm:
                    table[scenario]["read_rates"].append(rm["read_rate"])
            if len(cs) != 1:
                problems.append({"scenario": scenario, "label": f"{thing.name}{which} {symbology} {payload!r}",
                                 "items": len(cs), "lines": [line_summary(c, removed) for c in cs]})
        for scenario, c in extra:
            problems.append({"scenario": scenario, "label": "extra item (on no label of its payload)",
                             "items": 1, "lines": [line_summary(c, removed)]})
    for row in table.values():
        row["read_rate_median"] = round(statistics.median(row["read_rates"]), 3) if row["read_rates"] else None
        del row["read_rates"]
    return table, problems


def same_payload(records, truth):
    """For each payload on several labels: the most of its labels wholly in one frame (the truth)
    and the most readings of it syncscan reported from one frame (a --duplicate-window 0 run)."""
    keys = {}
    for i, (_s, symbology, payload, *_r) in enumerate(truth):
        keys.setdefault((symbology, payload), []).append(i)
    per_frame = {}
    for r in records:
        if r.get("type") == "code":
            k = (r["symbology"], r.get("text"), r["frame"]["seq"])
            per_frame[k] = per_frame.get(k, 0) + 1
    out = {}
    for (symbology, payload), labels in keys.items():
        if len(labels) < 2:
            continue
        inside = lambda rect: rect and rect[0] >= 0 and rect[1] >= 0 and rect[2] <= W and rect[3] <= H
        together = [sum(1 for i in labels if inside(code_rect(truth[i], n))) for n in range(FRAMES)]
        out[f"{symbology} {payload}"] = {
            "labels_in_one_frame_max": max(together),
            "frames_with_several_in_view": sum(1 for x in together if x > 1),
            "readings_in_one_frame_max": max((v for (sy, p, _n), v in per_frame.items() if (sy, p) == (symbology, payload)), default=0)}
    return out


def line_summary(c, removed):
    rm = removed.get(c.get("item"), {})
    return {"item": c.get("item"), "symbology": c["symbology"], "text": c.get("text"), "seq": c["frame"]["seq"],
            "bounds": c["bounds"], "removed": {k: rm.get(k) for k in ("first", "last", "frames_present", "frames_read", "read_rate")} if rm else None}


def pct(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, round((len(v) - 1) * q))] if v else None


# --- main ---------------------------------------------------------------------------------------


def measure(args):
    load = os.getloadavg()
    things, truth = build_scene()
    scenarios = list(dict.fromkeys(s for s, *_r in truth))
    path = frames_path()
    t0 = time.monotonic()
    make_frames(path, things)
    print(f"frames: {path} ({time.monotonic() - t0:.1f} s to make or find); load average at start {load[0]:.2f}",
          flush=True)
    syncscan = os.path.join(ROOT, ".build", "release", "syncscan") if args.no_build else release_syncscan()
    res = {"command": " ".join(["bench/conveyor.py"] + sys.argv[1:]),
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           # The commit the binary was built from (with --no-build the tree may have moved on since: say it).
           "git": args.built_from or subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                                                    text=True).stdout.strip(),
           "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "loadavg_start": [round(x, 2) for x in load]},
           "scene": {"frames": FRAMES, "size": f"{W}x{H}", "fps": FPS, "format": "GREY", "labels": len(truth),
                     "symbologies": SYMBOLOGIES, "motion_blur_exposure_s": EXPOSURE, "noise_sd": NOISE,
                     "scenarios": {s: sum(1 for t in truth if t[0] == s) for s in scenarios}}}

    # File runs: items and window 1 interleaved (counts and CPU), window 0 once (lines).
    cpu = {"items": [], "window=1": []}
    file_counts = {}
    for i in range(args.runs):
        for mode in ("items", "window=1")[::1 if i % 2 == 0 else -1]:  # A B B A …: a trend in load hits each alike
            r = run_file_timed(syncscan, path, mode)
            ms = 1000 * r["cpu"] / max(1, r["summary"]["frames"])
            cpu[mode].append(ms)
            table, problems = count(r["records"], truth, scenarios)
            file_counts.setdefault(mode, []).append((table, problems))
            print(f"  file run {i + 1} {mode:9s}: CPU {ms:.2f} ms/frame, "
                  + (f"items {sum(t['items'] for t in table.values())}/{len(truth)} labels, problems {len(problems)}"
                     if mode == "items" else f"lines {sum(t['lines'] for t in table.values())}"), flush=True)
    r0 = run_file_timed(syncscan, path, "window=0")
    table0, _ = count(r0["records"], truth, scenarios)
    together = same_payload(r0["records"], truth)
    res["file"] = {"items": {"table": file_counts["items"][0][0], "problems": file_counts["items"][0][1],
                             "runs_with_problems": sum(1 for _t, p in file_counts["items"] if p),
                             "items_per_run": [sum(t["items"] for t in tb.values()) for tb, _p in file_counts["items"]]},
                   "window=1": {"table": file_counts["window=1"][0][0],
                                "lines_per_run": [sum(t["lines"] for t in tb.values()) for tb, _p in file_counts["window=1"]]},
                   "window=0": {"table": table0, "same_payload": together}}
    m_items, m_window = statistics.median(cpu["items"]), statistics.median(cpu["window=1"])
    res["cost"] = {"source": "file, --scanning-threads 1", "runs": args.runs,
                   "cpu_ms_per_frame": {"items": [round(x, 3) for x in cpu["items"]],
                                        "window=1": [round(x, 3) for x in cpu["window=1"]]},
                   "median_ms": {"items": round(m_items, 3), "window=1": round(m_window, 3)},
                   "ratio_items_over_window": round(m_items / m_window, 4)}

    # Live runs: items and window 1 alternating.
    live = {"items": [], "window=1": []}
    for i in range(args.live_runs):
        for mode in ("items", "window=1")[::1 if i % 2 == 0 else -1]:
            r = run_live(syncscan, path, mode)
            table, problems = count(r["records"], truth, scenarios)
            lat = r["latencies"]
            entry = {"summary": r["summary"], "cpu_ms_per_frame": round(1000 * r["cpu"] / max(1, r["summary"]["frames"]), 3),
                     "table": table, "problems": problems, "latencies_ms": [round(x, 2) for x in lat],
                     "first_of_payload_ms": [round(x, 2) for x in r["first_of_payload"]]}
            live[mode].append(entry)
            s = r["summary"]
            print(f"  live run {i + 1} {mode:9s}: lateData {s['lateData']}/{s['frames']}, "
                  + (f"items {sum(t['items'] for t in table.values())}/{len(truth)} labels, problems {len(problems)}, "
                     if mode == "items" else f"lines {sum(t['lines'] for t in table.values())}, ")
                  + f"first-line latency p50 {pct(lat, 0.5):.1f} p99 {pct(lat, 0.99):.1f} ms (n={len(lat)})", flush=True)
    res["live"] = {"source": "y4m:- written at 30 fps, --scanning-threads 2", "runs": live}
    res["latency"] = {}
    for mode, runs in live.items():
        pooled = [x for e in runs for x in e["latencies_ms"]]
        res["latency"][mode] = {"n": len(pooled), "p50_ms": round(pct(pooled, 0.5), 2) if pooled else None,
                                "p99_ms": round(pct(pooled, 0.99), 2) if pooled else None,
                                "max_ms": round(max(pooled), 2) if pooled else None,
                                "per_run_p50_ms": [round(pct(e["latencies_ms"], 0.5), 2) for e in runs if e["latencies_ms"]],
                                "per_run_p99_ms": [round(pct(e["latencies_ms"], 0.99), 2) for e in runs if e["latencies_ms"]]}
        same = [x for e in runs for x in e["first_of_payload_ms"]]
        res["latency"][mode]["first_of_payload"] = {"n": len(same), "p50_ms": round(pct(same, 0.5), 2) if same else None,
                                                    "p99_ms": round(pct(same, 0.99), 2) if same else None}
    res["machine"]["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out + ".tmp", "w") as f:
        json.dump(res, f, indent=1)
        f.write("\n")
    os.replace(args.out + ".tmp", args.out)
    print(f"wrote {os.path.relpath(args.out, ROOT)}\n")
    render_results(res)


def render_results(res):
    sc = res["scene"]
    m = res["machine"]
    print(f"{res['command']}  ({res['date']}, {res['git']}, {m['cpus']} CPUs, load average at start "
          f"{' '.join(map(str, m['loadavg_start']))}, at end {' '.join(map(str, m.get('loadavg_end', [])))})")
    print(f"scene: {sc['frames']} frames {sc['size']} {sc['format']} at {sc['fps']} fps, {sc['labels']} labels, "
          f"--symbologies {sc['symbologies']}")
    f, live = res["file"], res["live"]["runs"]
    print("\ncount per scenario (file: first run; live: each run, items/labels):")
    print(f"  {'scenario':10s} {'labels':>6s} {'items file':>10s} {'items live':>12s} {'read rate':>9s} "
          f"{'lines w=1':>9s} {'lines w=0':>9s}")
    total = {"labels": 0, "items": 0, "w1": 0, "w0": 0}
    for s, row in f["items"]["table"].items():
        lv = ",".join(str(e["table"][s]["matched"]) for e in live["items"])
        w1, w0 = f["window=1"]["table"][s]["lines"], f["window=0"]["table"][s]["lines"]
        rr = row["read_rate_median"]
        print(f"  {s:10s} {row['labels']:>6d} {row['matched']:>10d} {lv:>12s} {rr if rr is not None else '-':>9} {w1:>9d} {w0:>9d}")
        total["labels"] += row["labels"]; total["items"] += row["items"]; total["w1"] += w1; total["w0"] += w0
    print(f"  {'all':10s} {total['labels']:>6d} {total['items']:>10d} "
          f"{','.join(str(sum(t['items'] for t in e['table'].values())) for e in live['items']):>12s} {'':>9s} "
          f"{total['w1']:>9d} {total['w0']:>9d}")
    print(f"  items per label: {total['items'] / total['labels']:.2f}; lines per label with --duplicate-window 1 "
          f"{total['w1'] / total['labels']:.2f}, with 0 {total['w0'] / total['labels']:.1f}")
    print(f"  file runs with a miscount: {f['items']['runs_with_problems']} of {len(f['items']['items_per_run'])}; "
          f"live runs with one: {sum(1 for e in live['items'] if e['problems'])} of {len(live['items'])}")
    for where, problems in [("file", f["items"]["problems"])] + [(f"live run {i + 1}", e["problems"])
                                                                 for i, e in enumerate(live["items"])]:
        for p in problems:
            print(f"  miscount ({where}) {p['scenario']}: {p['label']}: {p['items']} items")
            for line in p["lines"]:
                print(f"      {json.dumps(line)}")
    print("  identical labels in view together (truth) against readings of that payload from one frame (--duplicate-window 0):")
    for k, v in f["window=0"].get("same_payload", {}).items():
        print(f"    {k}: up to {v['labels_in_one_frame_max']} labels wholly in one frame ({v['frames_with_several_in_view']} frames "
              f"with more than one), at most {v['readings_in_one_frame_max']} reading(s) of it from one frame")
    c = res["cost"]
    print(f"\ncost ({c['source']}, {c['runs']} runs each, interleaved): CPU per frame, median "
          f"items {c['median_ms']['items']:.2f} ms, --duplicate-window 1 {c['median_ms']['window=1']:.2f} ms, "
          f"ratio {c['ratio_items_over_window']:.3f}")
    print(f"  runs: items {c['cpu_ms_per_frame']['items']}  window {c['cpu_ms_per_frame']['window=1']}")
    print(f"\nlive ({res['live']['source']}):")
    print(f"  {'mode':9s} {'lateData per run':>18s} {'CPU ms/frame':>13s} {'n':>4s} {'p50 ms':>7s} {'p99 ms':>7s} {'max ms':>7s}")
    for mode, runs in live.items():
        lt = res["latency"][mode]
        late = ",".join(str(e["summary"]["lateData"]) for e in runs)
        cpu = statistics.median(e["cpu_ms_per_frame"] for e in runs)
        fp = lt.get("first_of_payload")
        print(f"  {mode:9s} {late:>18s} {cpu:>13.2f} {lt['n']:>4d} {lt['p50_ms']:>7.1f} {lt['p99_ms']:>7.1f} {lt['max_ms']:>7.1f}"
              + (f"   first line of each payload: n {fp['n']}, p50 {fp['p50_ms']:.1f}, p99 {fp['p99_ms']:.1f} ms" if fp else ""))
    print("  (latency: frame written → the line read, of each item's first line and of each window code line, pooled over the runs;\n"
          "   the first line of each payload is the same event in both modes)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="file runs of each mode (CPU medians)")
    ap.add_argument("--live-runs", type=int, default=5, help="live runs of each mode")
    ap.add_argument("--out", default=RESULTS, help="results file (default bench/results/items.json)")
    ap.add_argument("--engine", help="the decoder engine (default: the daemon's); hybrid exercises the items' confirmation of zbar's readings")
    ap.add_argument("--no-build", action="store_true", help="use .build/release/syncscan as it is")
    ap.add_argument("--built-from", metavar="REV", help="with --no-build: the commit the binary was built from (recorded)")
    ap.add_argument("--print", nargs="?", const=RESULTS, metavar="FILE", dest="print_file",
                    help="print a results file's tables and exit")
    args = ap.parse_args()
    if args.engine:
        ENGINE.extend(["--engine", args.engine])
    if args.print_file:
        with open(args.print_file) as f:
            render_results(json.load(f))
        return
    measure(args)


if __name__ == "__main__":
    main()
