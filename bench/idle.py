#!/usr/bin/env python3
"""Idle cost: presentation mode against continuous on scenes with nothing to read, and how soon a
code presented is reported in each mode.

Scenes (1280x720 at 30 fps, numpy, cached in bench/out/idle/), each randomized by its seed (--seeds
N: seeds 1..N; the wall's texture, the noise, the flicker's phase, the exposure step's time and
size, the box's height, level and time):
  box:       20 s of a textured wall (grey 45–170, so the exposure step's and the flicker's peaks
             stay below white) with sensor noise (σ 5 grey levels, new every frame), mains flicker
             (100 Hz seen at 30 fps: ±6 % brightness), an auto-exposure step (+25–35 % at 6–10 s,
             highlights clipped) and, once, a plain box riding through (1.5 s), no code ever;
  static:    10 s of the wall with its sensor noise and nothing else;
  presented: the box scene (seed 44) with a QR card presented now and then (every 3 s for 1.5 s,
             each at its own place and with its own payload).
Then, interleaved (continuous, presentation, continuous, …), --runs runs of each:

  grey:     syncscan run --source y4m:- (release build, the daemon's defaults: engine zxing,
            effort auto, QR codes, 2 scanning threads), the frames written to its stdin at 30 fps,
            trigger.mode continuous or presentation (SYNCSCAN_TRIGGER_MODE); CPU per frame while
            frames flow (user + system from wait4, less what its threads had run when the first
            frame was written, from /proc/PID/task/*/schedstat: the process's start, some 50 ms,
            is not a camera's per-frame cost; the figure with it is kept in raw) and the summary's
            counts; on the box and the static scene of every seed.
  mjpeg:    pipeline-bench run 30 20 2 [--presentation] (release build: the box scene's frames as
            TurboJPEG 4:2:2 JPEGs, quality 88, handed as a camera's MJPEG frames through the real
            CaptureSession); CPU (getrusage) per frame; every seed. These runs go beside the GREY
            runs (a thread of their own; each process's own CPU is counted), so a run takes half
            the time.
  latency:  the presented scene, through the pipe (GREY) and as MJPEG frames (pipeline-bench), in
            each mode: every presentation read (one item each), and its first line's latency (GREY:
            the line's arrival minus when the feeder began writing the frame the card first showed
            in; MJPEG: the first delivery of a frame with the code minus when that frame was due):
            median, p99, max. Run alone (no other run beside it).
  pipe (--pipe): the pipe's own cost per frame with nothing scanned (continuous, a 2 % rect of
            interest in a blank corner): the pipe as syncscan sets it (large enough for a frame)
            against the pipe put back to Linux's default 64 KiB by the feeder.
  --baseline PATH: another syncscan binary (say, main's release build) run side by side in
            presentation mode, in each run: the GREY cost and latency, for the table `before`;
            --baseline-pipeline-bench PATH likewise for MJPEG.
Ratios are presentation / continuous of the medians over the runs, per scene and seed; the table
`cost` gives each scene's worst seed. Writes bench/results/idle.json (or --out; the file's earlier
figures kept under `previous`); --print renders a results file without running anything.
Usage: bench/idle.py [--runs 5] [--seeds 3] [--baseline PATH] [--baseline-pipeline-bench PATH] [--pipe] [--out FILE]
       bench/idle.py --print [FILE]
(needs: numpy, qrencode, a Swift toolchain)
"""
import argparse, datetime, fcntl, json, os, platform, re, statistics, subprocess, sys, threading, time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import release_syncscan  # noqa: E402
from mjpeg import sh  # noqa: E402

OUT = os.path.join(ROOT, "bench", "out", "idle")
RESULTS = os.path.join(ROOT, "bench", "results", "idle.json")
W, H, FPS = 1280, 720, 30
SECONDS = {"box": 20, "static": 10, "presented": 20}
SCENE_VERSION = 3
PRESENTED_SEED = 44
SUMMARY = re.compile(r"summary: frames=(\d+) scanned=(\d+) dropped=(\d+) \(lateData=(\d+)[^)]*?(?: idle=(\d+))?\)")
SHOWS = [(3 * s + 1.0, 3 * s + 2.5) for s in range(6)]  # seconds a card is in view


def wall(rng):
    """The textured background: bricks of grey 45–155 with mortar, a gradient, fine texture; exposed
    so that the exposure step and the flicker's peaks stay below white, as auto-exposure keeps a scene."""
    y, x = np.mgrid[0:H, 0:W]
    bw, bh, shift = int(rng.integers(60, 100)), int(rng.integers(30, 50)), int(rng.integers(0, 60))
    bricks = 45 + (((x + shift) // bw + (y // bh) * 3) * 37 % 110)
    mortar = (((x + shift) % bw) < 3) | ((y % bh) < 3)
    base = np.where(mortar, 140, bricks).astype(np.float32) + x * 0.01
    return base + rng.normal(0, 6, (H, W)).astype(np.float32)


def qr_card(payload, scale=6):
    text = subprocess.run(["qrencode", "-t", "ASCII", "-m", "3", payload], check=True, capture_output=True, text=True).stdout
    rows = [[0 if c == "#" else 245 for c in line[::2]] for line in text.splitlines()]
    return np.kron(np.array(rows, dtype=np.float32), np.ones((scale, scale), dtype=np.float32))


class Events:
    """What happens in a box scene of one seed: the flicker's phase, the exposure step, the box."""
    def __init__(self, rng):
        self.phase = float(rng.uniform(0, 2 * np.pi))
        self.step_at, self.step = float(rng.uniform(6, 10)), float(rng.uniform(1.25, 1.35))
        self.box_at, self.box_y, self.box_level = float(rng.uniform(11, 14)), int(rng.integers(100, 420)), int(rng.integers(80, 115))

    def gain(self, t):
        flicker = 1 + 0.06 * np.sin(2 * np.pi * 100 * t + self.phase)
        return flicker * (self.step if t >= self.step_at else 1.0)


def render(n, base, rng, events, cards):
    t = n / FPS
    picture = base.copy()
    if events and events.box_at <= t < events.box_at + 1.5:  # a plain box riding through, no code
        x = int(-300 + (t - events.box_at) / 1.5 * (W + 300))
        picture[events.box_y:events.box_y + 260, max(0, x):max(0, min(W, x + 300))] = events.box_level
    for i, (start, end) in enumerate(SHOWS):
        if cards and start <= t < end:
            card = cards[i]
            ch, cw = card.shape
            x0, y0 = 150 + 170 * i, 120 + 60 * (i % 3)
            picture[y0:y0 + ch, x0:x0 + cw] = card
    if events:
        picture = picture * events.gain(t)
    picture = picture + rng.normal(0, 5, (H, W)).astype(np.float32)
    return np.clip(picture, 0, 255).astype(np.uint8).tobytes()


def scene_path(kind, seed):
    return os.path.join(OUT, f"{kind}-{seed}-v{SCENE_VERSION}.y4m")


def make_scene(kind, seed):
    """The scene's Y4M file (made once): `box`, `static` or `presented`, from `seed`."""
    path = scene_path(kind, seed)
    if os.path.exists(path):
        return path
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(seed)
    base = wall(rng)
    events = Events(rng) if kind != "static" else None
    cards = [qr_card(f"syncscan presentation {i:02d}") for i in range(len(SHOWS))] if kind == "presented" else None
    with open(path + ".tmp", "wb") as f:
        f.write(f"YUV4MPEG2 W{W} H{H} F{FPS}:1 Ip A1:1 Cmono\n".encode())
        for n in range(FPS * SECONDS[kind]):
            f.write(b"FRAME\n" + render(n, base, rng, events, cards))
    os.replace(path + ".tmp", path)
    return path


def make_jpegs(release, kind, seed):
    """The scene's frames as JPEG files (mjpeg-bench encode, quality 88), made once."""
    path = make_scene(kind, seed)
    directory = path[:-len(".y4m")] + "-jpeg"
    if not os.path.isdir(directory) or len(os.listdir(directory)) != FPS * SECONDS[kind]:
        os.makedirs(directory, exist_ok=True)
        sh(os.path.join(release, "mjpeg-bench"), "encode", path, directory, "88", stdout=subprocess.DEVNULL)
    return sorted(os.path.join(directory, f) for f in os.listdir(directory))


def load_frames(path):
    with open(path, "rb") as f:
        header = f.readline()
        data = f.read()
    step = len(b"FRAME\n") + W * H
    return header, [data[i * step:(i + 1) * step] for i in range(len(data) // step)]


def process_cpu_ns(pid):
    """CPU the process has used so far (ns): its live threads' run time (/proc/PID/task/*/schedstat);
    threads that already ended are not counted, so this never overstates it."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass
    return total


def run_pipe(syncscan, header, frames, env_extra, shrink_pipe=False):
    """Feeds the frames at FPS to syncscan's stdin; its CPU, its lines with their arrival, the summary."""
    cmd = [syncscan, "run", "--source", "y4m:-", "--scanning-threads", "2", "--log-level", "error"]
    env = dict(os.environ, **env_extra)
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    arrived, err = [], []
    def out():
        for line in p.stdout:
            arrived.append((time.monotonic(), line))
    def errs():
        err.append(p.stderr.read())
    threads = [threading.Thread(target=out), threading.Thread(target=errs)]
    for t in threads:
        t.start()
    p.stdin.write(header)
    p.stdin.flush()
    written = []
    start = time.monotonic() + 1.5  # syncscan has read the header and set its pipe by then
    for n, frame in enumerate(frames):
        delay = start + n / FPS - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        if n == 0:
            started_cpu = process_cpu_ns(p.pid)
            if shrink_pipe:
                fcntl.fcntl(p.stdin.fileno(), fcntl.F_SETPIPE_SZ, 65536)
        written.append(time.monotonic())
        p.stdin.write(frame)
        p.stdin.flush()
    p.stdin.close()
    _, status, usage = os.wait4(p.pid, 0)
    for t in threads:
        t.join()
    text = err[0].decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"syncscan failed: {' '.join(cmd)}\n{text}")
    m = SUMMARY.search(text)
    if not m:
        sys.exit(f"no summary line:\n{text}")
    frames_n, scanned, dropped, late, idle = (int(g or 0) for g in m.groups())
    lines = [(when, json.loads(line)) for when, line in arrived if line.strip()]
    total_ms = 1000 * (usage.ru_utime + usage.ru_stime)
    return {"cpu_ms": (total_ms - started_cpu / 1e6) / frames_n, "startup_cpu_ms": started_cpu / 1e6,
            "cpu_ms_with_startup": total_ms / frames_n, "frames": frames_n, "scanned": scanned,
            "idle": idle, "lateData": late, "lines": lines, "written": written}


FIRST_FRAME = {f"syncscan presentation {i:02d}": int(np.ceil(start * FPS)) for i, (start, _end) in enumerate(SHOWS)}


def latencies(run):
    """Per presentation read: its first line's latency in ms (from the write of the card's first frame)."""
    got = {}
    for when, record in run["lines"]:
        text = record.get("text")
        if record.get("type") == "code" and text in FIRST_FRAME and text not in got:
            got[text] = 1000 * (when - run["written"][FIRST_FRAME[text]])
    return got


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q / 100 * (len(values) - 1))))]


def pipeline_bench(binary, jpegs, presentation):
    """One pipeline-bench run over `jpegs` at FPS: its CPU per frame, counts, and the first delivery of each text."""
    out = sh(binary, "run", str(FPS), str(len(jpegs) // FPS), "2", *(["--presentation"] if presentation else []), *jpegs,
             stdout=subprocess.PIPE).stdout.decode().splitlines()
    fields = dict(f.split("=", 1) for f in out[0].split())
    first = next((json.loads(line[len("first_lines "):]) for line in out[1:] if line.startswith("first_lines ")), {})
    latency = {text: ms - FIRST_FRAME[text] * 1000 / FPS for text, ms in first.items() if text in FIRST_FRAME}
    return {"cpu_ms": float(fields["cpu_ms_per_frame"]), "scanned": int(fields["scanned"]), "idle": int(fields["idle"]),
            "lateData": int(fields["lateData"]), "latency": latency}


def measure(a):
    syncscan = release_syncscan()
    sh("swift", "build", "-c", "release", "--product", "mjpeg-bench", cwd=ROOT, stdout=subprocess.DEVNULL)
    sh("swift", "build", "-c", "release", "--product", "pipeline-bench", cwd=ROOT, stdout=subprocess.DEVNULL)
    release = os.path.join(ROOT, ".build", "release")
    bench = os.path.join(release, "pipeline-bench")
    seeds = list(range(1, a.seeds + 1))
    scenes = {(kind, seed): load_frames(make_scene(kind, seed)) for kind in ("box", "static") for seed in seeds}
    jpegs = {seed: make_jpegs(release, "box", seed) for seed in seeds}
    header, shown_frames = load_frames(make_scene("presented", PRESENTED_SEED))
    shown_jpegs = make_jpegs(release, "presented", PRESENTED_SEED)
    load = os.getloadavg()[0]
    presentation = {"SYNCSCAN_TRIGGER_MODE": "presentation"}
    # Who runs what: (name, GREY binary, pipeline-bench binary, trigger mode environment).
    grey_runners = [("continuous", syncscan, {}), ("presentation", syncscan, presentation)]
    mjpeg_runners = [("continuous", bench, False), ("presentation", bench, True)]
    if a.baseline:
        grey_runners.append(("baseline", a.baseline, presentation))
    if a.baseline_pipeline_bench:
        mjpeg_runners.append(("baseline", a.baseline_pipeline_bench, True))
    cost = {}  # (source, scene, seed, runner) -> [run results]
    latency = {}  # (source, runner) -> [ms], read counts
    read = {}
    corner = {"SYNCSCAN_RECT_OF_INTEREST_X": "0.98", "SYNCSCAN_RECT_OF_INTEREST_Y": "0.0",
              "SYNCSCAN_RECT_OF_INTEREST_WIDTH": "0.02", "SYNCSCAN_RECT_OF_INTEREST_HEIGHT": "0.02"}
    pipe = {"default 64 KiB": [], "a frame": []}
    for r in range(a.runs):
        def mjpeg_costs():
            for seed in seeds:
                for name, binary, pres in mjpeg_runners:
                    m = pipeline_bench(binary, jpegs[seed], pres)
                    cost.setdefault(("mjpeg", "box", seed, name), []).append(m)
                    print(f"run {r + 1} mjpeg box seed {seed} {name:>12}: {m['cpu_ms']:.3f} ms/frame (scanned {m['scanned']}, "
                          f"idle {m['idle']}, lateData {m['lateData']})", flush=True)
        beside = threading.Thread(target=mjpeg_costs)
        beside.start()
        for seed in seeds:
            for kind in ("box", "static"):
                head, frames = scenes[(kind, seed)]
                for name, binary, env in grey_runners:
                    g = run_pipe(binary, head, frames, env)
                    cost.setdefault(("grey", kind, seed, name), []).append(g)
                    print(f"run {r + 1} grey {kind} seed {seed} {name:>12}: {g['cpu_ms']:.3f} ms/frame (scanned {g['scanned']}, "
                          f"idle {g['idle']}, lateData {g['lateData']})", flush=True)
        beside.join()
        for name, binary, env in grey_runners:
            got = latencies(run_pipe(binary, header, shown_frames, env))
            latency.setdefault(("grey", name), []).extend(got.values())
            read.setdefault(("grey", name), []).append(len(got))
            print(f"run {r + 1} grey latency {name:>12}: read {len(got)}/{len(SHOWS)}, first lines {sorted(round(v) for v in got.values())} ms", flush=True)
        for name, binary, pres in mjpeg_runners:
            got = pipeline_bench(binary, shown_jpegs, pres)["latency"]
            latency.setdefault(("mjpeg", name), []).extend(got.values())
            read.setdefault(("mjpeg", name), []).append(len(got))
            print(f"run {r + 1} mjpeg latency {name:>12}: read {len(got)}/{len(SHOWS)}, first lines {sorted(round(v) for v in got.values())} ms", flush=True)
        if a.pipe:
            head, frames = scenes[("box", seeds[0])]
            for name, shrink in (("default 64 KiB", True), ("a frame", False)):
                p = run_pipe(syncscan, head, frames, corner, shrink_pipe=shrink)
                pipe[name].append(p["cpu_ms"])
                print(f"run {r + 1} pipe {name:>14}: {p['cpu_ms']:.3f} ms/frame (scanned {p['scanned']})", flush=True)

    med = statistics.median
    label = {"grey": "1280x720 GREY pipe (y4m:-)", "mjpeg": "1280x720 MJPEG, 4:2:2 q88"}
    per_seed = []
    for (source, kind, seed, name), runs in sorted(cost.items()):
        if name != "continuous":
            c = med([x["cpu_ms"] for x in cost[(source, kind, seed, "continuous")]])
            p = med([x["cpu_ms"] for x in runs])
            per_seed.append({"source": label[source], "scene": kind, "seed": seed, "build": "before" if name == "baseline" else "after",
                             "continuous": round(c, 3), "presentation": round(p, 3), "ratio": round(p / c, 3),
                             "scanned": med([x["scanned"] for x in runs]), "idle": med([x["idle"] for x in runs])})
    worst = []
    for build in ("after", "before"):
        for source in ("grey", "mjpeg"):
            for kind in ("box", "static"):
                rows = [x for x in per_seed if x["build"] == build and x["source"] == label[source] and x["scene"] == kind]
                if rows:
                    w = max(rows, key=lambda x: x["ratio"])
                    worst.append(dict(w, seed=f"{w['seed']} (worst of {len(rows)})"))
    lat = []
    for (source, name), v in sorted(latency.items()):
        lat.append({"source": label[source], "mode": "presentation (before)" if name == "baseline" else name,
                    "read": f"{sum(read[(source, name)])}/{len(SHOWS) * a.runs}",
                    "p50": round(med(v), 1) if v else None, "p99": round(pct(v, 99), 1) if v else None,
                    "max": round(max(v), 1) if v else None})
    cost_columns = [
        {"key": "source", "title": "source"}, {"key": "scene", "title": "scene"}, {"key": "seed", "title": "seed"},
        {"key": "build", "title": "build"},
        {"key": "continuous", "title": "continuous", "decimals": 3, "unit": " ms"},
        {"key": "presentation", "title": "presentation", "decimals": 3, "unit": " ms"},
        {"key": "ratio", "title": "presentation / continuous", "decimals": 3},
        {"key": "scanned", "title": "frames scanned (presentation)"}, {"key": "idle", "title": "idle"}]
    tables = [
        {"id": "cost", "columns": cost_columns, "rows": worst},
        {"id": "cost-by-seed", "columns": cost_columns, "rows": per_seed},
        {"id": "latency", "columns": [
            {"key": "source", "title": "source"}, {"key": "mode", "title": "mode"}, {"key": "read", "title": "presentations read"},
            {"key": "p50", "title": "first line p50", "decimals": 1, "unit": " ms"},
            {"key": "p99", "title": "p99", "decimals": 1, "unit": " ms"},
            {"key": "max", "title": "max", "decimals": 1, "unit": " ms"}], "rows": lat},
    ]
    if a.pipe:
        tables.append({"id": "pipe", "columns": [
            {"key": "pipe", "title": "pipe holds"},
            {"key": "cpu", "title": "CPU per frame, nothing scanned", "decimals": 3, "unit": " ms"}],
            "rows": [{"pipe": name, "cpu": round(med(v), 3)} for name, v in pipe.items()]})
    return {
        "command": "bench/idle.py" + (f" --runs {a.runs}" if a.runs != 5 else "") + (f" --seeds {a.seeds}" if a.seeds != 3 else "")
                   + (f" --baseline {a.baseline}" if a.baseline else "")
                   + (f" --baseline-pipeline-bench {a.baseline_pipeline_bench}" if a.baseline_pipeline_bench else "")
                   + (" --pipe" if a.pipe else "") + (f" --out {os.path.relpath(a.out, ROOT)}" if a.out != RESULTS else ""),
        "recorded": {"date": datetime.date.today().isoformat(),
                     "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()},
        "machine": {"cpus": os.cpu_count(), "load": round(load, 2), "load_at_end": round(os.getloadavg()[0], 2),
                    "kernel": platform.release()},
        "runs": a.runs,
        "seeds": seeds,
        "statistic": "median CPU per frame of the runs, per scene and seed (GREY: while frames flow, the process's start left out); "
                     "the table cost: each scene's worst seed; latency over every presentation of every run",
        "settings": f"{W}x{H} at {FPS} fps; box: {SECONDS['box']} s, noise σ 5, flicker ±6 %, a +25–35 % exposure step at 6–10 s, "
                    f"a plain box for 1.5 s at 11–14.5 s; static: {SECONDS['static']} s of the wall and its noise; presented: the box "
                    f"scene of seed {PRESENTED_SEED} with 6 QR cards for 1.5 s each; the daemon's defaults (engine zxing, effort auto, "
                    "QR codes, 2 scanning threads); the MJPEG cost runs beside the GREY ones, the latency runs alone",
        "binaries": {"after": os.path.relpath(syncscan, ROOT), "before": a.baseline, "before_pipeline_bench": a.baseline_pipeline_bench},
        "raw": {f"{source} {kind} seed {seed} {name}": [round(x["cpu_ms"], 4) for x in runs]
                for (source, kind, seed, name), runs in sorted(cost.items())}
               | {f"latency {source} {name}": [round(x, 1) for x in v] for (source, name), v in sorted(latency.items())}
               | ({"pipe_cpu_ms": pipe} if a.pipe else {}),
        "tables": tables,
    }


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--out", default=RESULTS)
    p.add_argument("--seeds", type=int, default=3, help="scene seeds 1..N")
    p.add_argument("--baseline", metavar="PATH", help="another syncscan binary run side by side in presentation mode")
    p.add_argument("--baseline-pipeline-bench", metavar="PATH", help="another pipeline-bench binary run side by side in presentation mode")
    p.add_argument("--pipe", action="store_true", help="also the pipe's own cost, at a frame's capacity and at 64 KiB")
    p.add_argument("--print", nargs="?", const=RESULTS, metavar="FILE")
    a = p.parse_args()
    if a.print:
        sh(sys.executable, os.path.join(ROOT, "bench", "render.py"), a.print)
        return
    if a.runs < 5:
        sys.exit("--runs must be at least 5 (medians of 5 runs or more)")
    if a.seeds < 1:
        sys.exit("--seeds must be at least 1")
    res = measure(a)
    if os.path.exists(a.out):  # the figures this run replaces, kept as they were recorded
        with open(a.out, encoding="utf-8") as f:
            old = json.load(f)
        res["previous"] = {k: old[k] for k in ("command", "recorded", "machine", "runs", "tables") if k in old}
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(res, f, indent=1, ensure_ascii=False)
        f.write("\n")
    sh(sys.executable, os.path.join(ROOT, "bench", "render.py"), a.out)


if __name__ == "__main__":
    main()
