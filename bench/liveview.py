#!/usr/bin/env python3
"""What the live view costs the scanner: throughput with viewers connected against without.

Throughput (default): run.py's 1280x720 grey frames (a QR code in every one, 240 by default)
read from the file by `syncscan run --scanning-threads 1 --duplicate-window 0`, so every frame
is scanned. Interleaved, N times each:
  plain:   no --http
  viewers: --http 127.0.0.1:PORT, two viewers reading /stream.mjpeg and /events, connected as
           soon as the port answers (a picture is copied and encoded up to http.preview_fps a
           second, 640 wide)
Frames/s is frames / (start -> exit) for both, CPU per frame syncscan's user + system time
(wait4) / frames; it prints the medians, the ratios (the target is >= 0.95 for frames/s) and what
the viewers received.

--status-load S: a live pipe paced at 10 frames/s for S seconds while a client asks /status
200 times a second; every fed frame must reach stdout as code lines or be counted as dropped
late in the summary, and the /status answers and their latency are counted.
Usage: bench/liveview.py [--runs N] [--frames N] [--status-load SECONDS]
"""
import argparse, json, os, re, socket, statistics, subprocess, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import OUT, make_frames, release_syncscan  # noqa: E402


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port, proc, seconds=20):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if proc.poll() is not None:
            sys.exit(f"syncscan exited early: {proc.stderr.read().decode(errors='replace')}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.02)
    sys.exit(f"nothing listens on port {port} after {seconds} s")


class Viewer(threading.Thread):
    """Reads one endpoint to its end, counting bytes and (for the stream) JPEG parts."""

    def __init__(self, port, path):
        super().__init__(daemon=True)
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        self.bytes = 0
        self.jpegs = 0
        self.events = 0
        self.sightings = 0

    def run(self):
        try:
            while chunk := self.sock.recv(65536):
                self.bytes += len(chunk)
                self.jpegs += chunk.count(b"\xff\xd8\xff")
                self.events += chunk.count(b"data: {\"type\":\"code\"")
                self.sightings += chunk.count(b"event: sightings")
        except OSError:
            pass


def syncscan_command(binary, http_port, source="y4m:-"):
    cmd = [binary, "run", "--source", source, "--scanning-threads", "1", "--duplicate-window", "0", "--log-level", "error"]
    return cmd + (["--http", f"127.0.0.1:{http_port}"] if http_port else [])


def throughput_run(binary, frames_path, frame_count, viewers):
    port = free_port() if viewers else None
    start = time.monotonic()
    proc = subprocess.Popen(syncscan_command(binary, port, source=frames_path), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    watching = []
    if viewers:
        wait_listening(port, proc)
        watching = [Viewer(port, "/stream.mjpeg"), Viewer(port, "/events")]
        for v in watching:
            v.start()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.monotonic() - start
    err = proc.stderr.read().decode(errors="replace")
    if proc.returncode != 0:
        sys.exit(f"syncscan failed ({proc.returncode}): {err}")
    for v in watching:
        v.join(timeout=10)
    cpu_ms = (usage.ru_utime + usage.ru_stime) * 1000 / frame_count
    return frame_count / elapsed, cpu_ms, [(v.jpegs, v.events, v.sightings) for v in watching]


def status_load(binary, frames_path, seconds):
    port = free_port()
    out_path = os.path.join(OUT, "liveview-status-load.jsonl")
    with open(out_path, "wb") as out:
        proc = subprocess.Popen(syncscan_command(binary, port), stdin=subprocess.PIPE, stdout=out, stderr=subprocess.PIPE)
        wait_listening(port, proc)
        with open(frames_path, "rb") as f:
            data = f.read()
        header_end = data.index(b"\n") + 1
        frame_size = (len(data) - header_end) // 120
        frames = [data[header_end + i * frame_size:header_end + (i + 1) * frame_size] for i in range(120)]
        answers, latencies, failures, stop = [0], [], [0], threading.Event()

        def ask():
            interval = 1 / 200
            next_at = time.monotonic()
            while not stop.is_set():
                t = time.monotonic()
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                        s.sendall(b"GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                        reply = b""
                        while chunk := s.recv(65536):
                            reply += chunk
                    if reply.startswith(b"HTTP/1.1 200"):
                        answers[0] += 1
                        latencies.append(time.monotonic() - t)
                    else:
                        failures[0] += 1
                except OSError:
                    failures[0] += 1
                next_at += interval
                time.sleep(max(0, next_at - time.monotonic()))

        client = threading.Thread(target=ask, daemon=True)
        client.start()
        proc.stdin.write(data[:header_end])
        fed = 0
        start = time.monotonic()
        while time.monotonic() - start < seconds:
            proc.stdin.write(frames[fed % 120])
            proc.stdin.flush()
            fed += 1
            time.sleep(max(0, start + fed / 10 - time.monotonic()))
        stop.set()
        client.join()
        proc.stdin.close()
        proc.wait()
    summary = proc.stderr.read().decode(errors="replace")
    dropped = int(re.search(r"summary: .*? dropped=(\d+)", summary).group(1)) if "summary: " in summary else -1
    lines = [json.loads(line) for line in open(out_path, "rb")]
    frames_with_codes = len({line["frame"]["seq"] for line in lines if line.get("type") == "code"})
    latencies.sort()
    p = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000 if latencies else float("nan")
    print(f"status load: {seconds} s at 10 frames/s with /status asked 200 times a second")
    print(f"  frames fed {fed}: {frames_with_codes} with code lines on stdout (every fed frame holds a code), "
          f"{dropped} dropped late (the summary's count), exit {proc.returncode}")
    print(f"  /status: {answers[0]} answered 200 ({answers[0] / seconds:.0f}/s), {failures[0]} failed; "
          f"latency p50 {p(0.5):.1f} ms, p99 {p(0.99):.1f} ms")
    return 0 if frames_with_codes + dropped == fed and proc.returncode == 0 and failures[0] == 0 else 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--frames", type=int, default=240)
    ap.add_argument("--status-load", type=int, default=0, metavar="SECONDS")
    args = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    frames = os.path.join(OUT, f"bench-1280x720-plain-{args.frames}.y4m")
    make_frames(frames, args.frames, "plain")
    binary = release_syncscan()
    if args.status_load:
        clip = os.path.join(OUT, "bench-1280x720-plain-120.y4m")
        make_frames(clip, 120, "plain")
        sys.exit(status_load(binary, clip, args.status_load))
    rates = {"plain": [], "viewers": []}
    cpu = {"plain": [], "viewers": []}
    received = []
    throughput_run(binary, frames, args.frames, viewers=False)  # warm the page cache
    for _ in range(args.runs):  # interleaved, so machine noise hits both alike
        for name in rates:
            rate, cpu_ms, got = throughput_run(binary, frames, args.frames, viewers=name == "viewers")
            rates[name].append(rate)
            cpu[name].append(cpu_ms)
            if got:
                received.append(got)
    medians = {k: statistics.median(v) for k, v in rates.items()}
    cpu_medians = {k: statistics.median(v) for k, v in cpu.items()}
    print(f"frames: {args.frames} x 1280x720 GREY from a file, a QR code in every frame, 1 scanning thread, every frame scanned, "
          f"{args.runs} runs each (median)")
    for k, v in rates.items():
        print(f"  {k:8s} {medians[k]:8.2f} frames/s   (min {min(v):.2f}, max {max(v):.2f})   "
              f"CPU {cpu_medians[k]:.2f} ms/frame (min {min(cpu[k]):.2f}, max {max(cpu[k]):.2f})")
    print(f"ratio viewers / plain: {medians['viewers'] / medians['plain']:.3f}x frames/s, "
          f"{cpu_medians['viewers'] / cpu_medians['plain']:.3f}x CPU per frame")
    print("viewers received (JPEG parts on /stream.mjpeg; code events and outline updates on /events) per run: "
          + ", ".join(f"{a[0]}/{b[1]}/{b[2]}" for a, b in received))


if __name__ == "__main__":
    main()
