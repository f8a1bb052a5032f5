#!/usr/bin/env python3
"""Scanning rate with a slow webhook receiver (2 s per request) against without, on the same frames.

The frames are run.py's (1280x720 grey, a QR code in every frame), played --repeat times in one
stream, duplicate window 0: every frame's codes are emitted and handed to the webhook. The receiver
is Tests/Support/Scripts/webhook-receiver.py on 127.0.0.1, answering each POST after --delay
seconds (default 2). A run's scanning time is from its start to its last stdout code line (the
webhook's drain at exit, up to 5 s, is the handler's, not scanning's). Runs, interleaved, N times:
  ENGINE-plain:   syncscan run --engine ENGINE --scanning-threads 1 --duplicate-window 0
  ENGINE-webhook: the same with --webhook-url http://127.0.0.1:PORT/hook
and prints the median frames/s of each, their ratio and the median of each round's ratio (target
>= 0.95: a slow receiver never slows scanning). Each webhook run's codes must each be delivered or
counted as dropped (without a spool, what the receiver has not taken 5 s after the end is dropped).
Usage: bench/webhook.py [--runs N] [--frames N] [--repeat N] [--engines zbar,zxing] [--delay SECONDS]
"""
import argparse, os, re, shutil, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import OUT, ROOT, make_frames, release_syncscan  # noqa: E402
from mqtt import free_port, repeated  # noqa: E402

RECEIVER = os.path.join(ROOT, "Tests", "Support", "Scripts", "webhook-receiver.py")


def scan_time(cmd, env):
    """Seconds from the start to the last stdout code line, and stderr, of one run."""
    with tempfile.TemporaryFile() as err_file:
        start = time.monotonic()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err_file, env=env)
        last = start
        for line in p.stdout:
            if line.startswith(b'{"type":"code"'):
                last = time.monotonic()
        if p.wait() != 0:
            err_file.seek(0)
            sys.exit(f"benchmark command failed: {' '.join(cmd)}\n{err_file.read().decode(errors='replace')}")
        err_file.seek(0)
        return last - start, err_file.read().decode(errors="replace")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--frames", type=int, default=120)
    ap.add_argument("--repeat", type=int, default=4)
    ap.add_argument("--engines", default="zbar,zxing")
    ap.add_argument("--delay", type=float, default=2.0)
    args = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    clip = os.path.join(OUT, f"bench-1280x720-plain-{args.frames}.y4m")
    make_frames(clip, args.frames, "plain")
    frames = repeated(clip, args.repeat)
    total = args.frames * args.repeat
    syncscan = release_syncscan()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SYNCSCAN_") and k != "STATE_DIRECTORY"}
    directory = tempfile.mkdtemp(prefix="syncscan-bench-webhook-")
    port = free_port()
    receiver = subprocess.Popen([sys.executable, RECEIVER, str(port), directory, "--delay", str(args.delay)])
    for _ in range(100):
        if os.path.exists(os.path.join(directory, "listening")):
            break
        time.sleep(0.05)
    base = [syncscan, "run", "--source", frames, "--scanning-threads", "1", "--duplicate-window", "0",
            "--log-level", "error", "--symbologies", "qrcode"]
    commands = {}
    for engine in args.engines.split(","):
        commands[f"{engine}-plain"] = base + ["--engine", engine]
        commands[f"{engine}-webhook"] = base + ["--engine", engine, "--webhook-url", f"http://127.0.0.1:{port}/hook"]
    times = {k: [] for k in commands}
    try:
        for rnd in range(args.runs + 1):  # the first round warms the page cache and is not counted
            for name, cmd in commands.items():
                t, err = scan_time(cmd, env)
                if name.endswith("-webhook"):
                    m = re.search(r"codes_emitted=(\d+) .*webhook_delivered=(\d+) webhook_retried=(\d+) webhook_queued=(\d+) "
                                  r"webhook_spooled=(\d+) webhook_dropped=(\d+)", err)
                    emitted, delivered, dropped = (int(m.group(1)), int(m.group(2)), int(m.group(6))) if m else (0, 0, 0)
                    if not m or emitted < total or delivered + dropped != emitted:
                        sys.exit(f"a code emitted was neither delivered nor counted as dropped: {err}")
                if rnd > 0:
                    times[name].append(t)
    finally:
        receiver.terminate()
        receiver.wait()
        shutil.rmtree(directory, ignore_errors=True)
    fps = {k: total / statistics.median(v) for k, v in times.items()}
    print(f"frames: {args.frames} x 1280x720 GREY played {args.repeat} times ({total}), QR codes in every frame, duplicate window 0, "
          f"1 scanning thread, {args.runs} runs each (median); the receiver answers each request after {args.delay} s "
          f"(the last webhook run: {emitted} codes, {delivered} delivered, {dropped} dropped at exit without a spool)")
    for k in commands:
        print(f"  {k:14s} {fps[k]:8.2f} frames/s   scanning {statistics.median(times[k]):.3f} s "
              f"(min {min(times[k]):.3f}, max {max(times[k]):.3f})")
    for engine in args.engines.split(","):
        plain, hook = times[f"{engine}-plain"], times[f"{engine}-webhook"]
        paired = statistics.median(p / h for p, h in zip(plain, hook))
        print(f"ratio {engine}: slow webhook / none = {fps[f'{engine}-webhook'] / fps[f'{engine}-plain']:.3f}x of medians, "
              f"{paired:.3f}x median of paired rounds (target >= 0.95)")


if __name__ == "__main__":
    main()
