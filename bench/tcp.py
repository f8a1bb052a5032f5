#!/usr/bin/env python3
"""Trigger-to-result latency of the TCP result server: a `TRIGGER` line sent on the socket against
SIGUSR1, each until the read window's result message arrives on the same socket.

A 320x240 grey Y4M frame holding one QR code is fed through a pipe every --interval ms (a camera's
pace); `trigger.mode: triggered` with `trigger.window.codes: 1`, so a window closes at its first
code and its result is sent at once. Each trial waits a random 0-50 ms (so triggers fall anywhere
between frames), then presses by one means or the other, in turn, and times until the `good`
message is read. Several runs of the daemon, --trials trials of each means per run; prints and
writes p50 and p99 in milliseconds per run and over all runs to bench/results/tcp.json.
Usage: bench/tcp.py [--syncscan PATH] [--runs N] [--trials N] [--interval MS]
"""
import argparse, json, os, random, re, signal, socket, statistics, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import ROOT, sh, release_syncscan  # noqa: E402


def frame_bytes(directory):
    """The Y4M header and one frame with a QR code, made with qrencode and ffmpeg."""
    sh("qrencode", "-s", "4", "-m", "2", "-o", f"{directory}/qr.png", "syncscan tcp bench")
    sh("ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=white:s=320x240:r=100,format=gray",
       "-i", f"{directory}/qr.png", "-filter_complex", "[0][1]overlay=x=100:y=60,format=gray", "-frames:v", "1",
       "-f", "yuv4mpegpipe", f"{directory}/frame.y4m")
    data = open(f"{directory}/frame.y4m", "rb").read()
    header, frame = data.split(b"\n", 1)
    return header + b"\n", frame


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def one_run(syncscan, header, frame, trials, interval):
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as config:
        config.write("trigger:\n  mode: triggered\n  window:\n    codes: 1\n    duration_ms: 2000\n"
                     "tcp:\n  listen: 127.0.0.1:0\n  format: \"{result};{text}\"\n")
    err = tempfile.TemporaryFile()
    daemon = subprocess.Popen([syncscan, "run", "--source", "y4m:-", "--config", config.name], stdin=subprocess.PIPE,
                              stdout=subprocess.DEVNULL, stderr=err)
    daemon.stdin.write(header)
    stop = threading.Event()

    def feed():
        next_at = time.monotonic()
        while not stop.is_set():
            try:
                daemon.stdin.write(frame)
                daemon.stdin.flush()
            except (BrokenPipeError, ValueError):
                return
            next_at += interval / 1000
            time.sleep(max(0, next_at - time.monotonic()))

    threading.Thread(target=feed, daemon=True).start()
    port = None
    for _ in range(600):
        err.seek(0)
        found = re.search(rb"listen=127\.0\.0\.1:(\d+)", err.read())
        if found:
            port = int(found.group(1))
            break
        time.sleep(0.05)
    if port is None:
        daemon.kill()
        sys.exit("the daemon logged no TCP port")
    client = socket.create_connection(("127.0.0.1", port))
    client.settimeout(30)
    pending = b""

    def next_result():
        nonlocal pending
        while True:
            while b"\r\n" in pending:
                line, pending = pending.split(b"\r\n", 1)
                if line.startswith(b"good;"):
                    return
                if not line.startswith(b"OK"):
                    sys.exit(f"unexpected message: {line!r}")
            chunk = client.recv(4096)
            if not chunk:
                sys.exit("the daemon closed the connection")
            pending += chunk

    latencies = {"tcp": [], "sigusr1": []}
    for trial in range(2 * trials):
        means = "tcp" if trial % 2 == 0 else "sigusr1"
        time.sleep(random.uniform(0, 0.05))
        start = time.monotonic()
        if means == "tcp":
            client.sendall(b"TRIGGER\r\n")
        else:
            os.kill(daemon.pid, signal.SIGUSR1)
        next_result()
        latencies[means].append((time.monotonic() - start) * 1000)
    stop.set()
    client.close()
    daemon.stdin.close()
    if daemon.wait(timeout=60) != 0:
        err.seek(0)
        sys.exit(f"the daemon failed:\n{err.read().decode(errors='replace')}")
    os.unlink(config.name)
    return latencies


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--syncscan", help="the binary (default: a release build)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--interval", type=float, default=10, help="ms between frames")
    args = parser.parse_args()
    syncscan = args.syncscan or release_syncscan()
    with tempfile.TemporaryDirectory() as directory:
        header, frame = frame_bytes(directory)
    runs = [one_run(syncscan, header, frame, args.trials, args.interval) for _ in range(args.runs)]

    def summary(values):
        return {"p50_ms": round(statistics.median(values), 2), "p99_ms": round(percentile(values, 99), 2), "trials": len(values)}

    result = {
        "benchmark": "tcp trigger to result",
        "binary": os.path.relpath(syncscan, ROOT) if syncscan.startswith(ROOT) else syncscan,
        "frame_interval_ms": args.interval,
        "runs": [{means: summary(values) for means, values in run.items()} for run in runs],
        "all": {means: summary([v for run in runs for v in run[means]]) for means in ("tcp", "sigusr1")},
    }
    for index, run in enumerate(result["runs"]):
        print(f"run {index + 1}: " + "  ".join(f"{m} p50 {s['p50_ms']} ms p99 {s['p99_ms']} ms" for m, s in run.items()))
    print("all:   " + "  ".join(f"{m} p50 {s['p50_ms']} ms p99 {s['p99_ms']} ms" for m, s in result["all"].items()))
    path = os.path.join(ROOT, "bench", "results", "tcp.json")
    with open(path, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    print(f"wrote {os.path.relpath(path, ROOT)}")


if __name__ == "__main__":
    main()
