#!/usr/bin/env bash
# Soak (by hand, not CI): a live GREY Y4M pipe at FPS (default 30) for --duration seconds (default
# 3600) with QR codes coming and going (bench/live.py's schedule), a SIGHUP every minute (the
# config file is re-read), and a stdout reader that stalls now and then. Samples RSS, open fds
# and threads of the daemon from /proc at start, middle and end; checks that every line parses
# as JSON; prints the ledger's and the exit summary's drops by reason. Exits non-zero if a line
# does not parse, the daemon fails, a sample grows past the limits below, or a drop has no reason.
# Usage: scripts/soak.sh [--duration SECONDS]
# env: FPS, SOAK_W, SOAK_H, ENGINE (default hybrid), STALL_EVERY (s, default 45), STALL_SECONDS (default 3),
#      SOAK_CONFIG (YAML lines added to the daemon's config file: mqtt.url, http.listen, …),
#      SAMPLE_AT (comma-separated seconds at which RSS, fds and threads are also sampled, e.g. 60,300)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
DURATION=3600
while [ $# -gt 0 ]; do
    case $1 in
        --duration) DURATION=$2; shift 2 ;;
        --duration=*) DURATION=${1#*=}; shift ;;
        *) echo "usage: scripts/soak.sh [--duration SECONDS]" >&2; exit 2 ;;
    esac
done
swift build -c release --product syncscan >/dev/null
DURATION=$DURATION exec python3 - <<'PY'
import json, os, re, signal, subprocess, sys, tempfile, threading, time
sys.path.insert(0, "bench")
from live import qr_rows, schedule

root = os.getcwd()
duration, fps = int(os.environ["DURATION"]), int(os.environ.get("FPS", 30))
W, H = int(os.environ.get("SOAK_W", 640)), int(os.environ.get("SOAK_H", 480))
stall_every, stall_seconds = float(os.environ.get("STALL_EVERY", 45)), float(os.environ.get("STALL_SECONDS", 3))
engine = os.environ.get("ENGINE", "hybrid")

# A one-minute cycle of codes, repeated: renders once, then the feeder only writes.
cycle = 60
spots = [(20, 20), (W - 200, 40), (60, H - 200), (W - 220, H - 220), (W // 2 - 90, H // 2 - 90)]
shows = [(p, a, b, spots[i % len(spots)]) for i, (p, a, b, *_xy) in enumerate(schedule(cycle, fps))]
images = {p: qr_rows(p, 3) for p, *_ in shows}
blank = bytes([255]) * (W * H)
def render(n):
    f = bytearray(blank)
    for p, a, b, (x, y) in shows:
        if a <= n <= b:
            for r, row in enumerate(images[p]):
                if y + r < H:
                    s = (y + r) * W + x
                    f[s:s + min(len(row), W - x)] = row[:W - x]
    return bytes(f)
# Frames with the same codes showing are the same bytes: one copy each.
by_codes = {}
def frame_at(n):
    key = tuple(i for i, (p, a, b, xy) in enumerate(shows) if a <= n <= b)
    if key not in by_codes:
        by_codes[key] = render(n)
    return by_codes[key]
print(f"soak: {W}x{H} GREY at {fps} fps for {duration} s, engine {engine}, SIGHUP every 60 s, "
      f"reader stalls {stall_seconds} s every {stall_every} s", flush=True)
frames_cycle = [frame_at(n) for n in range(cycle * fps)]

config = tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False)
config.write(f"source: \"-\"\nengine: {engine}\n" + os.environ.get("SOAK_CONFIG", "").replace("\\n", "\n") + "\n")
config.close()
proc = subprocess.Popen([os.path.join(root, ".build/release/syncscan"), "run", "--config", config.name,
                         "--emit-frames", "--log-level", "warning"],
                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

def sample(label):
    pid = proc.pid
    status = open(f"/proc/{pid}/status").read()
    rss = int(re.search(r"VmRSS:\s+(\d+)", status).group(1))
    threads = int(re.search(r"Threads:\s+(\d+)", status).group(1))
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    print(f"  {label:>6} t={time.monotonic() - start:7.1f} s: RSS {rss} kB, fds {fds}, threads {threads}", flush=True)
    return rss, fds, threads

counts = {"lines": 0, "code": 0, "frame": 0, "bad": 0, "stalls": 0}
dropped = {}
def read():
    last_stall = time.monotonic()
    for raw in proc.stdout:
        counts["lines"] += 1
        try:
            rec = json.loads(raw)
            counts[rec["type"]] = counts.get(rec["type"], 0) + 1
            if rec["type"] == "frame" and rec["dropped"] is not None:
                dropped[rec["dropped"]] = dropped.get(rec["dropped"], 0) + 1
        except Exception as e:
            counts["bad"] += 1
            if counts["bad"] <= 5:
                print(f"  bad line: {raw[:200]!r}: {e}", flush=True)
        if time.monotonic() - last_stall > stall_every:
            counts["stalls"] += 1
            time.sleep(stall_seconds)
            last_stall = time.monotonic()
errors = []
stderr_lines = []
reader = threading.Thread(target=read); reader.start()
err_reader = threading.Thread(target=lambda: stderr_lines.extend(proc.stderr.read().decode(errors="replace").splitlines()))
err_reader.start()

proc.stdin.write(f"YUV4MPEG2 W{W} H{H} F{fps}:1 Ip A1:1 Cmono\n".encode())
start = time.monotonic()
time.sleep(0.2)
samples = [sample("start")]
extra_at = sorted(float(t) for t in os.environ.get("SAMPLE_AT", "").split(",") if t.strip())
total, hups, middle_done, next_hup = duration * fps, 0, False, start + 60
late_writes = 0
for n in range(total):
    due = start + n / fps
    now = time.monotonic()
    if due > now:
        time.sleep(due - now)
    elif now - due > 1:
        late_writes += 1
    proc.stdin.write(b"FRAME\n" + frames_cycle[n % len(frames_cycle)])
    if time.monotonic() >= next_hup:
        proc.send_signal(signal.SIGHUP); hups += 1; next_hup += 60
    if not middle_done and n >= total // 2:
        samples.append(sample("middle")); middle_done = True
    while extra_at and time.monotonic() - start >= extra_at[0]:
        sample(f"{extra_at.pop(0):.0f}s")
samples.append(sample("end"))
proc.stdin.close()
reader.join(); err_reader.join()
rc = proc.wait()
summary = [l for l in stderr_lines if "summary:" in l]
print(f"frames written {total}, SIGHUPs {hups}, reader stalls {counts['stalls']}, "
      f"lines {counts['lines']} (code {counts['code']}, item_removed {counts.get('item_removed', 0)}, frame {counts['frame']}, "
      f"unparsable {counts['bad']}), "
      f"exit {rc}")
print(f"ledger drops by reason: {dropped or 'none'}")
print(summary[-1] if summary else "no summary line on stderr")
warn = [l for l in stderr_lines if "summary:" not in l and "reload" not in l.lower()]
if warn:
    print(f"{len(warn)} other stderr lines, the first: {warn[:5]}")
fail = []
if rc != 0: fail.append(f"exit {rc}")
if counts["bad"]: fail.append(f"{counts['bad']} unparsable lines")
if not summary: fail.append("no summary")
else:
    m = re.search(r"dropped=(\d+) \(([^)]*)\).*output_lines_dropped=(\d+)", summary[-1])
    if m:
        missing = total - counts["frame"]
        if missing > int(m.group(3)):
            fail.append(f"{missing} frame records missing but only {m.group(3)} output lines dropped")
        reasons = sum(int(v) for v in re.findall(r"=(\d+)", m.group(2)))
        if reasons != int(m.group(1)): fail.append(f"dropped={m.group(1)} but reasons add to {reasons}")
    else: fail.append("summary not understood")
# Flat: start is before warm-up (buffer pools, scanner threads), so growth is judged middle → end.
(_, fds0, _), (rss1, fds1, thr1), (rss2, fds2, thr2) = samples
if rss2 > rss1 * 1.10 + 4096: fail.append(f"RSS grew {rss1} → {rss2} kB from middle to end")
if max(fds1, fds2) > fds0 + 2: fail.append(f"open fds grew {fds0} → {fds1} → {fds2}")
if thr2 > thr1 + 2: fail.append(f"threads grew {thr1} → {thr2} from middle to end")
os.unlink(config.name)
if fail:
    sys.exit("soak FAILED: " + "; ".join(fail))
print("soak passed (compare the RSS/fd/thread samples above: flat is the goal)")
PY
