#!/usr/bin/env python3
"""Idle cost: presentation mode (#44) against continuous on a scene with nothing to read, and the
pipe's own cost per frame.

Makes 20 s of a 1280x720 scene at 30 fps (numpy, cached in bench/out/idle/): a textured wall (grey
45–170, so the exposure step's and the flicker's peaks stay below white) with
sensor noise (σ 5 grey levels, new every frame), mains flicker (100 Hz seen at 30 fps: ±6 %
brightness), an auto-exposure step (+30 % at 8 s, highlights clipped) and, once, a plain box
riding through (12–13.5 s), no code ever; and the same scene with a QR card presented now and then
(every 3 s for 1.5 s, each at its own place and with its own payload). Then, interleaved
(continuous, presentation, continuous, …), --runs runs of each:

  grey:     syncscan run --source y4m:- (release build, the daemon's defaults: engine zxing,
            effort auto, QR codes, 2 scanning threads), the frames written to its stdin at 30 fps,
            trigger.mode continuous or presentation (SYNCSCAN_TRIGGER_MODE); CPU per frame while
            frames flow (user + system from wait4, less what its threads had run when the first
            frame was written, from /proc/PID/task/*/schedstat: the process's start, some 50 ms,
            is not a camera's per-frame cost; the figure with it is kept in raw) and the summary's counts.
  mjpeg:    pipeline-bench run 30 20 2 [--presentation] (release build: the scene's frames as
            TurboJPEG 4:2:2 JPEGs, quality 88, handed as a camera's MJPEG frames through the real
            CaptureSession); CPU (getrusage) per frame.
  pipe:     the pipe's own cost per frame with nothing scanned (continuous, a 2 % rect of
            interest in a blank corner, as the issue measured it): the pipe as syncscan sets it
            (large enough for a frame) against the pipe put back to Linux's default 64 KiB by the
            feeder (F_SETPIPE_SZ on its end once syncscan has started), what syncscan read before.
  latency:  the scene with cards presented, through the pipe in each mode: every presentation read
            (one item each), and its first line's latency (the line's arrival minus when the
            feeder began writing the frame the card first showed in): median, p99, max.
  --baseline PATH: another syncscan binary (say, main's release build) run side by side in
            presentation mode, in each run: the GREY cost and the latency, for the table `before`.
Writes bench/results/idle.json (medians of the runs, the command, the load at the start and at the
end; the file's earlier figures kept under `previous`); --print renders a results file without running anything.
Usage: bench/idle.py [--runs 5] [--baseline PATH] [--out FILE] | bench/idle.py --print [FILE]
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
W, H, FPS, SECONDS = 1280, 720, 30, 20
FRAMES = FPS * SECONDS
SCENE_VERSION = 2
SUMMARY = re.compile(r"summary: frames=(\d+) scanned=(\d+) dropped=(\d+) \(lateData=(\d+)[^)]*?(?: idle=(\d+))?\)")
SHOWS = [(3 * s + 1.0, 3 * s + 2.5) for s in range(6)]  # seconds a card is in view


def wall(rng):
    """The textured background: bricks of grey 45–155 with mortar, a gradient, fine texture; exposed
    so that the +30 % step and the flicker's peaks stay below white, as auto-exposure keeps a scene."""
    y, x = np.mgrid[0:H, 0:W]
    bricks = 45 + ((x // 80 + (y // 40) * 3) * 37 % 110)
    mortar = ((x % 80) < 3) | ((y % 40) < 3)
    base = np.where(mortar, 140, bricks).astype(np.float32) + x * 0.01
    return base + rng.normal(0, 6, (H, W)).astype(np.float32)


def qr_card(payload, scale=6):
    text = subprocess.run(["qrencode", "-t", "ASCII", "-m", "3", payload], check=True, capture_output=True, text=True).stdout
    rows = [[0 if c == "#" else 245 for c in line[::2]] for line in text.splitlines()]
    return np.kron(np.array(rows, dtype=np.float32), np.ones((scale, scale), dtype=np.float32))


def gain(t):
    flicker = 1 + 0.06 * np.sin(2 * np.pi * 100 * t)
    return flicker * (1.3 if t >= 8 else 1.0)


def render(n, base, rng, cards):
    t = n / FPS
    picture = base.copy()
    if 12 <= t < 13.5:  # a plain box riding through, no code
        x = int(-300 + (t - 12) / 1.5 * (W + 300))
        picture[300:560, max(0, x):max(0, min(W, x + 300))] = 95
    for i, (start, end) in enumerate(SHOWS):
        if cards and start <= t < end:
            card = cards[i]
            ch, cw = card.shape
            x0, y0 = 150 + 170 * i, 120 + 60 * (i % 3)
            picture[y0:y0 + ch, x0:x0 + cw] = card
    picture = picture * gain(t) + rng.normal(0, 5, (H, W)).astype(np.float32)
    return np.clip(picture, 0, 255).astype(np.uint8).tobytes()


def scene_path(name):
    return os.path.join(OUT, f"{name}-v{SCENE_VERSION}.y4m")


def make_scene(name, with_cards):
    path = scene_path(name)
    if os.path.exists(path):
        return path
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(44)
    base = wall(rng)
    cards = [qr_card(f"syncscan presentation {i:02d}") for i in range(len(SHOWS))] if with_cards else None
    with open(path + ".tmp", "wb") as f:
        f.write(f"YUV4MPEG2 W{W} H{H} F{FPS}:1 Ip A1:1 Cmono\n".encode())
        for n in range(FRAMES):
            f.write(b"FRAME\n" + render(n, base, rng, cards))
    os.replace(path + ".tmp", path)
    return path


def load_frames(path):
    with open(path, "rb") as f:
        header = f.readline()
        data = f.read()
    step = len(b"FRAME\n") + W * H
    return header, [data[i * step:(i + 1) * step] for i in range(FRAMES)]


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


def latencies(run):
    """Per presentation read: its first line's latency in ms (from the write of the card's first frame)."""
    first_frame = {f"syncscan presentation {i:02d}": int(np.ceil(start * FPS)) for i, (start, _end) in enumerate(SHOWS)}
    got = {}
    for when, record in run["lines"]:
        text = record.get("text")
        if record.get("type") == "code" and text in first_frame and text not in got:
            got[text] = 1000 * (when - run["written"][first_frame[text]])
    return got


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q / 100 * (len(values) - 1))))]


def measure(a):
    syncscan = release_syncscan()
    sh("swift", "build", "-c", "release", "--product", "mjpeg-bench", cwd=ROOT, stdout=subprocess.DEVNULL)
    sh("swift", "build", "-c", "release", "--product", "pipeline-bench", cwd=ROOT, stdout=subprocess.DEVNULL)
    release = os.path.join(ROOT, ".build", "release")
    idle_path, shown_path = make_scene("idle", False), make_scene("presented", True)
    jpeg_dir = os.path.join(OUT, f"idle-jpeg-v{SCENE_VERSION}")
    if not os.path.isdir(jpeg_dir) or len(os.listdir(jpeg_dir)) != FRAMES:
        os.makedirs(jpeg_dir, exist_ok=True)
        sh(os.path.join(release, "mjpeg-bench"), "encode", idle_path, jpeg_dir, "88", stdout=subprocess.DEVNULL)
    jpegs = sorted(os.path.join(jpeg_dir, f) for f in os.listdir(jpeg_dir))
    load = os.getloadavg()[0]
    header, idle_frames = load_frames(idle_path)
    _, shown_frames = load_frames(shown_path)
    modes = {"continuous": {}, "presentation": {"SYNCSCAN_TRIGGER_MODE": "presentation"}}
    corner = {"SYNCSCAN_RECT_OF_INTEREST_X": "0.98", "SYNCSCAN_RECT_OF_INTEREST_Y": "0.0",
              "SYNCSCAN_RECT_OF_INTEREST_WIDTH": "0.02", "SYNCSCAN_RECT_OF_INTEREST_HEIGHT": "0.02"}
    res = {m: {"grey": [], "mjpeg": [], "latency": [], "read": [], "shown": []} for m in [*modes, "baseline"]}
    pipe = {"default 64 KiB": [], "a frame": []}
    for r in range(a.runs):
        if a.baseline:
            g = run_pipe(a.baseline, header, idle_frames, modes["presentation"])
            res["baseline"]["grey"].append(g)
            got = latencies(run_pipe(a.baseline, header, shown_frames, modes["presentation"]))
            res["baseline"]["latency"] += list(got.values())
            res["baseline"]["read"].append(len(got))
            res["baseline"]["shown"].append(len(SHOWS))
            print(f"run {r + 1} baseline presentation: grey {g['cpu_ms']:.3f} ms/frame (scanned {g['scanned']}, idle {g['idle']}, "
                  f"lateData {g['lateData']}); presentations read {len(got)}/{len(SHOWS)}, "
                  f"first lines {sorted(round(v) for v in got.values())} ms", flush=True)
        for mode, env in modes.items():
            g = run_pipe(syncscan, header, idle_frames, env)
            res[mode]["grey"].append(g)
            out = sh(os.path.join(release, "pipeline-bench"), "run", str(FPS), str(SECONDS), "2",
                     *(["--presentation"] if mode == "presentation" else []), *jpegs, stdout=subprocess.PIPE).stdout.decode()
            fields = dict(f.split("=", 1) for f in out.split())
            res[mode]["mjpeg"].append({"cpu_ms": float(fields["cpu_ms_per_frame"]), "scanned": int(fields["scanned"]),
                                       "idle": int(fields["idle"]), "lateData": int(fields["lateData"])})
            s = run_pipe(syncscan, header, shown_frames, env)
            got = latencies(s)
            res[mode]["latency"] += list(got.values())
            res[mode]["read"].append(len(got))
            res[mode]["shown"].append(len(SHOWS))
            print(f"run {r + 1} {mode:>12}: grey {g['cpu_ms']:.3f} ms/frame (scanned {g['scanned']}, idle {g['idle']}, "
                  f"lateData {g['lateData']}); mjpeg {res[mode]['mjpeg'][-1]['cpu_ms']:.3f} ms/frame "
                  f"(scanned {fields['scanned']}, idle {fields['idle']}); presentations read {len(got)}/{len(SHOWS)}, "
                  f"first lines {sorted(round(v) for v in got.values())} ms", flush=True)
        for name, shrink in (("default 64 KiB", True), ("a frame", False)):
            p = run_pipe(syncscan, header, idle_frames, corner, shrink_pipe=shrink)
            pipe[name].append(p["cpu_ms"])
            print(f"run {r + 1} pipe {name:>14}: {p['cpu_ms']:.3f} ms/frame (scanned {p['scanned']})", flush=True)

    med = lambda xs: statistics.median(xs)
    rows = []
    for source in ("grey", "mjpeg"):
        c, p = med([x["cpu_ms"] for x in res["continuous"][source]]), med([x["cpu_ms"] for x in res["presentation"][source]])
        rows.append({"source": "1280x720 GREY pipe (y4m:-)" if source == "grey" else "1280x720 MJPEG, 4:2:2 q88",
                     "continuous": round(c, 3), "presentation": round(p, 3), "ratio": round(p / c, 3),
                     "scanned": med([x["scanned"] for x in res["presentation"][source]]),
                     "idle": med([x["idle"] for x in res["presentation"][source]])})
    lat = []
    for mode in modes:
        v = res[mode]["latency"]
        lat.append({"mode": mode, "read": f"{sum(res[mode]['read'])}/{sum(res[mode]['shown'])}",
                    "p50": round(med(v), 1) if v else None, "p99": round(pct(v, 99), 1) if v else None,
                    "max": round(max(v), 1) if v else None})
    pipe_rows = [{"pipe": name, "cpu": round(med(v), 3)} for name, v in pipe.items()]
    tables_before = []
    if a.baseline:
        b, p = res["baseline"], res["presentation"]
        lb, lp = b["latency"], p["latency"]
        cb, cp = med([x["cpu_ms"] for x in b["grey"]]), med([x["cpu_ms"] for x in p["grey"]])
        tables_before = [{"id": "before", "columns": [
            {"key": "what", "title": "presentation mode, side by side"},
            {"key": "before", "title": "before"}, {"key": "after", "title": "after"},
            {"key": "ratio", "title": "after / before"}], "rows": [
            {"what": "GREY pipe: CPU per frame", "before": f"{cb:.3f} ms", "after": f"{cp:.3f} ms", "ratio": f"{cp / cb:.2f}"},
            {"what": "first line p50", "before": f"{med(lb):.1f} ms", "after": f"{med(lp):.1f} ms", "ratio": None},
            {"what": "first line p99", "before": f"{pct(lb, 99):.1f} ms", "after": f"{pct(lp, 99):.1f} ms", "ratio": None}]}]
    return {
        "command": "bench/idle.py" + (f" --runs {a.runs}" if a.runs != 5 else ""),
        "recorded": {"date": datetime.date.today().isoformat(),
                     "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()},
        "machine": {"cpus": os.cpu_count(), "load": round(load, 2), "load_at_end": round(os.getloadavg()[0], 2),
                    "kernel": platform.release()},
        "runs": a.runs,
        "statistic": "median CPU per frame of the runs (the pipe's runs: while frames flow, the process's start left out); "
                     "latency over every presentation of every run",
        "settings": f"{W}x{H} at {FPS} fps for {SECONDS} s: noise σ 5, flicker ±6 %, +30 % exposure step at 8 s, a plain box at 12–13.5 s; "
                    "the daemon's defaults (engine zxing, effort auto, QR codes, 2 scanning threads)",
        "raw": {m: {"grey_cpu_ms": [round(x["cpu_ms"], 4) for x in res[m]["grey"]],
                    "grey_cpu_ms_with_startup": [round(x["cpu_ms_with_startup"], 4) for x in res[m]["grey"]],
                    "grey_startup_cpu_ms": [round(x["startup_cpu_ms"], 1) for x in res[m]["grey"]],
                    "mjpeg_cpu_ms": [round(x["cpu_ms"], 4) for x in res[m]["mjpeg"]],
                    "latency_ms": [round(x, 1) for x in res[m]["latency"]]} for m in modes} | {"pipe_cpu_ms": pipe}
               | ({"baseline": {"binary": a.baseline, "grey_cpu_ms": [round(x["cpu_ms"], 4) for x in res["baseline"]["grey"]],
                                "latency_ms": [round(x, 1) for x in res["baseline"]["latency"]]}} if a.baseline else {}),
        "tables": [
            {"id": "cost", "columns": [
                {"key": "source", "title": "source"},
                {"key": "continuous", "title": "continuous", "decimals": 3, "unit": " ms"},
                {"key": "presentation", "title": "presentation", "decimals": 3, "unit": " ms"},
                {"key": "ratio", "title": "presentation / continuous", "decimals": 3},
                {"key": "scanned", "title": "frames scanned (presentation)"},
                {"key": "idle", "title": "idle"}], "rows": rows},
            {"id": "pipe", "columns": [
                {"key": "pipe", "title": "pipe holds"},
                {"key": "cpu", "title": "CPU per frame, nothing scanned", "decimals": 3, "unit": " ms"}], "rows": pipe_rows},
            {"id": "latency", "columns": [
                {"key": "mode", "title": "mode"}, {"key": "read", "title": "presentations read"},
                {"key": "p50", "title": "first line p50", "decimals": 1, "unit": " ms"},
                {"key": "p99", "title": "p99", "decimals": 1, "unit": " ms"},
                {"key": "max", "title": "max", "decimals": 1, "unit": " ms"}], "rows": lat},
        ] + tables_before,
    }


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--out", default=RESULTS)
    p.add_argument("--baseline", metavar="PATH", help="another syncscan binary run side by side in presentation mode")
    p.add_argument("--print", nargs="?", const=RESULTS, metavar="FILE")
    a = p.parse_args()
    if a.print:
        sh(sys.executable, os.path.join(ROOT, "bench", "render.py"), a.print)
        return
    if a.runs < 5:
        sys.exit("--runs must be at least 5 (medians of 5 runs or more)")
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
