#!/usr/bin/env python3
"""Trigger-to-result latency of the Modbus TCP server: coil 0 written to 1 (function 5) against
SIGUSR1, each until the read window's result shows in the input registers (register 1, the
result number, one more).

A 320x240 grey Y4M frame holding one QR code is fed through a pipe every --interval ms (a camera's
pace); `trigger.mode: triggered` with `trigger.window.codes: 1`, so a window closes at its first
code and its result is recorded at once. A pymodbus client, as a PLC does, polls input registers
0-9 every --poll ms (function 4) for both means, so both pay the same polling. Each trial waits a
random 0-50 ms (so triggers fall anywhere between frames), then presses by one means or the
other, in turn, and times until the result number grows; after a coil trial the coil is written
back to 0 (a release, ignored without `until_release`). Several runs of the daemon, --trials
trials of each means per run; prints and writes p50 and p99 in milliseconds per run and over all
runs to bench/results/modbus.json.
Usage: bench/modbus.py [--syncscan PATH] [--runs N] [--trials N] [--interval MS] [--poll MS]
"""
import argparse, json, os, random, re, signal, statistics, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import ROOT, release_syncscan  # noqa: E402
from tcp import frame_bytes, percentile  # noqa: E402

try:
    from pymodbus.client import ModbusTcpClient
except ImportError:
    sys.exit("bench/modbus.py needs pymodbus: scripts/setup.sh --tests (python3 -m pip install pymodbus==3.6.9)")


def one_run(syncscan, header, frame, trials, interval, poll):
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as config:
        config.write("trigger:\n  mode: triggered\n  window:\n    codes: 1\n    duration_ms: 2000\n"
                     "modbus:\n  listen: 127.0.0.1:0\n")
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
        found = re.search(rb"listen=127\.0\.0\.1:(\d+).*Modbus TCP server listening", err.read())
        if found:
            port = int(found.group(1))
            break
        time.sleep(0.05)
    if port is None:
        daemon.kill()
        sys.exit("the daemon logged no Modbus port")
    client = ModbusTcpClient("127.0.0.1", port=port, timeout=5, retries=0)
    if not client.connect():
        sys.exit(f"cannot connect to 127.0.0.1:{port}")

    def result_number():
        response = client.read_input_registers(0, 10, slave=1)
        if response.isError():
            sys.exit(f"reading input registers failed: {response}")
        return response.registers[1]

    def wait_past(number):
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            registers = result_number()
            if registers != number:
                return
            time.sleep(poll / 1000)
        sys.exit("no result within 30 s")

    latencies = {"modbus": [], "sigusr1": []}
    for trial in range(2 * trials):
        means = "modbus" if trial % 2 == 0 else "sigusr1"
        before = result_number()
        time.sleep(random.uniform(0, 0.05))
        start = time.monotonic()
        if means == "modbus":
            if client.write_coil(0, True, slave=1).isError():
                sys.exit("writing coil 0 failed")
        else:
            os.kill(daemon.pid, signal.SIGUSR1)
        wait_past(before)
        latencies[means].append((time.monotonic() - start) * 1000)
        if means == "modbus" and client.write_coil(0, False, slave=1).isError():
            sys.exit("writing coil 0 back to 0 failed")
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
    parser.add_argument("--poll", type=float, default=1, help="ms between the client's reads of the result registers")
    args = parser.parse_args()
    syncscan = args.syncscan or release_syncscan()
    with tempfile.TemporaryDirectory() as directory:
        header, frame = frame_bytes(directory)
    runs = [one_run(syncscan, header, frame, args.trials, args.interval, args.poll) for _ in range(args.runs)]

    def summary(values):
        return {"p50_ms": round(statistics.median(values), 2), "p99_ms": round(percentile(values, 99), 2), "trials": len(values)}

    result = {
        "benchmark": "modbus trigger to result",
        "binary": os.path.relpath(syncscan, ROOT) if syncscan.startswith(ROOT) else syncscan,
        "frame_interval_ms": args.interval,
        "poll_ms": args.poll,
        "runs": [{means: summary(values) for means, values in run.items()} for run in runs],
        "all": {means: summary([v for run in runs for v in run[means]]) for means in ("modbus", "sigusr1")},
    }
    for index, run in enumerate(result["runs"]):
        print(f"run {index + 1}: " + "  ".join(f"{m} p50 {s['p50_ms']} ms p99 {s['p99_ms']} ms" for m, s in run.items()))
    print("all:   " + "  ".join(f"{m} p50 {s['p50_ms']} ms p99 {s['p99_ms']} ms" for m, s in result["all"].items()))
    path = os.path.join(ROOT, "bench", "results", "modbus.json")
    with open(path, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    print(f"wrote {os.path.relpath(path, ROOT)}")


if __name__ == "__main__":
    main()
