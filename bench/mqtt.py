#!/usr/bin/env python3
"""Scanning throughput while publishing every code to MQTT, against without, on the same frames.

The frames are run.py's (1280x720 grey, QR codes drifting across; up to 120 frames, the default,
a code is in every frame), played --repeat times in one stream (default 4: a zxing-cpp run of 120
frames lasts under a second, where connecting and the last PUBACKs at exit would weigh as much as
publishing); duplicate window 0, so every frame's code is emitted and published.
A Mosquitto broker runs on 127.0.0.1 on a free port with one QoS 1 subscriber (mosquitto_sub to
/dev/null) on this machine: a site's broker runs elsewhere, here it takes CPU from the scanner, so
the figure errs on the side of cost.
Runs, interleaved, N times each:
  ENGINE-plain: syncscan run --engine ENGINE --scanning-threads 1 --duplicate-window 0
  ENGINE-mqtt:  the same with --mqtt-url mqtt://127.0.0.1:PORT (QoS 1: each code waits for PUBACK)
and prints the median frames/s of each, their ratio, the median of each round's ratio (a round
runs the two back to back, so the machine's drift cancels; target >= 0.95) and the CPU time
ratio. Each MQTT run must report mqtt_published equal to codes_emitted and nothing dropped or
spooled, or the benchmark fails.
With --latency N it instead paces N of the frames through a pipe at 10 frames/s (engine zbar) and
prints how long each code takes from its stdout line to a QoS 1 mosquitto_sub subscriber: the
median, 90th percentile and maximum in milliseconds, each code matched by its frame and text.
Usage: bench/mqtt.py [--runs N] [--frames N] [--repeat N] [--engines zbar,zxing] [--latency N]
"""
import argparse, json, os, re, shutil, socket, statistics, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import OUT, ROOT, make_frames, sh, release_syncscan  # noqa: E402


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_broker(directory, port):
    conf = os.path.join(directory, "mosquitto.conf")
    with open(conf, "w") as f:
        f.write(f"listener {port} 127.0.0.1\nallow_anonymous true\n")
    broker = subprocess.Popen(["mosquitto", "-c", conf], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return broker
        except OSError:
            time.sleep(0.05)
    sys.exit("mosquitto did not listen within 5 s (apt: mosquitto)")


def stop(subscriber, broker, directory):
    """Ends the subscriber and the broker and removes the broker's directory."""
    for process in (subscriber, broker):
        process.terminate()
    for process in (subscriber, broker):
        process.wait()
    shutil.rmtree(directory, ignore_errors=True)


def timed(cmd, env):
    """Wall seconds, CPU seconds (user + system) and stderr of one run, stdout discarded."""
    start = time.monotonic()
    with tempfile.TemporaryFile() as err_file:
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err_file, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        elapsed = time.monotonic() - start
        err_file.seek(0)
        err = err_file.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"benchmark command failed: {' '.join(cmd)}\n{err}")
    return elapsed, usage.ru_utime + usage.ru_stime, err


def repeated(path, times):
    """The Y4M file at `path` with its frames played `times` times: one header, then the frames again."""
    if times == 1:
        return path
    out = f"{path[:-4]}-x{times}.y4m"
    if not os.path.exists(out):
        with open(path, "rb") as f:
            header, frames = f.read().split(b"\n", 1)
        with open(out + ".tmp", "wb") as f:
            f.write(header + b"\n")
            for _ in range(times):
                f.write(frames)
        os.replace(out + ".tmp", out)
    return out


def latency(syncscan, clip, count, env):
    """Milliseconds from each code's stdout line to its arrival at a subscriber, frames paced at 10/s."""
    directory = tempfile.mkdtemp(prefix="syncscan-bench-mqtt-")
    port = free_port()
    broker = start_broker(directory, port)
    arrived = {"stdout": {}, "mqtt": {}}

    def collect(stream, into):
        for line in stream:
            record = json.loads(line)
            if record.get("type") == "code":
                into[(record["frame"]["seq"], record["text"])] = time.monotonic()

    subscriber = subprocess.Popen(["stdbuf", "-oL", "mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-q", "1",
                                   "-t", "syncscan/bench/codes"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    fifo = os.path.join(directory, "frames.y4m")
    os.mkfifo(fifo)
    try:
        time.sleep(0.5)  # the subscriber's SUBSCRIBE reaches the broker first
        run = subprocess.Popen([syncscan, "run", "--source", fifo, "--duplicate-window", "0", "--log-level", "error",
                                "--symbologies", "qrcode", "--mqtt-url", f"mqtt://127.0.0.1:{port}",
                                "--mqtt-topic-prefix", "syncscan/bench"], stdout=subprocess.PIPE, env=env)
        readers = [threading.Thread(target=collect, args=(run.stdout, arrived["stdout"])),
                   threading.Thread(target=collect, args=(subscriber.stdout, arrived["mqtt"]), daemon=True)]
        for reader in readers:
            reader.start()
        with open(clip, "rb") as f:
            header, frames = f.read().split(b"\n", 1)
        frames = [b"FRAME\n" + frame for frame in frames.split(b"FRAME\n")[1:]]
        with open(fifo, "wb") as f:
            f.write(header + b"\n")
            for i in range(count):
                f.write(frames[i % len(frames)])
                f.flush()
                time.sleep(0.1)
        if run.wait() != 0:
            sys.exit("syncscan failed in the latency run")
        readers[0].join()
        deadline = time.monotonic() + 5
        while len(arrived["mqtt"]) < len(arrived["stdout"]) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        stop(subscriber, broker, directory)
    codes = arrived["stdout"]
    missing = [k for k in codes if k not in arrived["mqtt"]]
    if not codes or missing:
        sys.exit(f"{len(missing)} of {len(codes)} codes did not reach the subscriber")
    delays = sorted(1000 * (arrived["mqtt"][k] - t) for k, t in codes.items())
    print(f"latency, {count} frames at 10 frames/s, {len(delays)} codes, stdout line -> QoS 1 subscriber: "
          f"median {statistics.median(delays):.1f} ms, p90 {delays[int(0.9 * (len(delays) - 1))]:.1f} ms, "
          f"max {delays[-1]:.1f} ms")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--frames", type=int, default=120)
    ap.add_argument("--repeat", type=int, default=4)
    ap.add_argument("--engines", default="zbar,zxing")
    ap.add_argument("--latency", type=int, metavar="N", help="measure publishing latency on N paced frames instead")
    args = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    clip = os.path.join(OUT, f"bench-1280x720-plain-{args.frames}.y4m")
    make_frames(clip, args.frames, "plain")
    frames = repeated(clip, args.repeat)
    total = args.frames * args.repeat
    syncscan = release_syncscan()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SYNCSCAN_") and k != "STATE_DIRECTORY"}
    if args.latency:
        return latency(syncscan, clip, args.latency, env)
    directory = tempfile.mkdtemp(prefix="syncscan-bench-mqtt-")
    port = free_port()
    broker = start_broker(directory, port)
    subscriber = subprocess.Popen(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-q", "1", "-t", "syncscan/#"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = [syncscan, "run", "--source", frames, "--scanning-threads", "1", "--duplicate-window", "0",
            "--log-level", "error", "--symbologies", "qrcode"]
    commands = {}
    for engine in args.engines.split(","):
        commands[f"{engine}-plain"] = base + ["--engine", engine]
        commands[f"{engine}-mqtt"] = base + ["--engine", engine, "--mqtt-url", f"mqtt://127.0.0.1:{port}",
                                             "--mqtt-topic-prefix", "syncscan/bench"]
    times = {k: [] for k in commands}
    cpu = {k: [] for k in commands}
    published = {k: [] for k in commands}
    try:
        for rnd in range(args.runs + 1):  # the first round warms the page cache and is not counted
            for name, cmd in commands.items():
                t, c, err = timed(cmd, env)
                if name.endswith("-mqtt"):
                    m = re.search(r"codes_emitted=(\d+) .*mqtt_published=(\d+) mqtt_queued=(\d+) mqtt_spooled=(\d+) mqtt_dropped=(\d+)", err)
                    if not m or m.group(1) != m.group(2) or m.group(5) != "0" or m.group(4) != "0":
                        sys.exit(f"not every code was published: {err}")
                    published[name].append(int(m.group(2)))
                if rnd > 0:
                    times[name].append(t)
                    cpu[name].append(c)
    finally:
        stop(subscriber, broker, directory)
    fps = {k: total / statistics.median(v) for k, v in times.items()}
    print(f"frames: {args.frames} x 1280x720 GREY played {args.repeat} times ({total}), a QR code in every frame up to 120 frames, "
          f"duplicate window 0, 1 scanning thread, "
          f"{args.runs} runs each (median); broker and one QoS 1 subscriber on this machine")
    for k in commands:
        extra = f"   codes published {min(published[k])}-{max(published[k])} (all emitted)" if published[k] else ""
        print(f"  {k:12s} {fps[k]:8.2f} frames/s   wall {statistics.median(times[k]):.3f} s "
              f"(min {min(times[k]):.3f}, max {max(times[k]):.3f}){extra}")
    for engine in args.engines.split(","):
        plain, mqtt = times[f"{engine}-plain"], times[f"{engine}-mqtt"]
        # Each round runs plain then mqtt back to back: the ratio within a round cancels the machine's drift.
        paired = statistics.median(p / m for p, m in zip(plain, mqtt))
        cpu_ratio = statistics.median(cpu[f"{engine}-mqtt"]) / statistics.median(cpu[f"{engine}-plain"])
        print(f"ratio {engine}: publishing every code / not = {fps[f'{engine}-mqtt'] / fps[f'{engine}-plain']:.3f}x of medians, "
              f"{paired:.3f}x median of paired rounds (target >= 0.95); CPU time {cpu_ratio:.3f}x "
              f"({statistics.median(cpu[f'{engine}-plain']):.2f} s vs {statistics.median(cpu[f'{engine}-mqtt']):.2f} s)")

if __name__ == "__main__":
    main()
