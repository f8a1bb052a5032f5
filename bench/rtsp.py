#!/usr/bin/env python3
"""An RTSP camera read natively against through ffmpeg's pipe: the CPU of every process involved.

Makes 30 frames of 1280x720 grey with two QR codes drifting across them (bench/out/rtsp-1280x720/),
served looped at 30 fps as H.264 over RTSP by GStreamer's own RTSP server
(scripts/rtsp-test-server.py: openh264enc, a key frame each second) on a free loopback port, a
fresh server for each run. Runs, alternating (A B A B …), each for the same number of frames:
  native: syncscan run --source rtsp://127.0.0.1:PORT/test --max-frames N
          (release build; rtspsrc over TCP → decodebin → the Y plane, no copy)
  pipe:   ffmpeg -rtsp_transport tcp -i rtsp://127.0.0.1:PORT/test -frames:v N -fps_mode passthrough
              -f yuv4mpegpipe -pix_fmt gray - | syncscan run --source y4m:-
          (the README's recipe, over TCP as the native input, each frame passed once)
both with --scanning-threads THREADS, --duplicate-window 0, --emit-frames (the late frames' sequence
numbers) and the default engine and effort.
The CPU of a run is user + system time (os.wait4) of each of its processes: syncscan, and for the
pipe ffmpeg too; the server's is printed beside it, not counted. Prints each run (CPU of each
process, frames, lateData, codes read, the server's CPU, the load average at its start) and the
medians of the runs: CPU per run and per frame, the ratio native / pipe, lateData.
Usage: nice -n 15 bench/rtsp.py [--runs 5] [--seconds 20] [--fps 30] [--threads 2]
(needs: python3-gi, gir1.2-gst-rtsp-server-1.0, gstreamer1.0-plugins-bad (openh264enc), qrencode,
ffmpeg, a Swift toolchain)
"""
import argparse, json, os, re, signal, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import OUT, ROOT, release_syncscan, sh  # noqa: E402
from mqtt import free_port  # noqa: E402

SERVER = os.path.join(ROOT, "scripts", "rtsp-test-server.py")
FRAMES = 30
CODES = {"syncscan benchmark A", "https://example.org/bench?id=1234567890"}


def make_frames(directory):
    """FRAMES 1280x720 PGM files, frame-0.pgm …: bench/run.py's plain scene (two QR codes drifting over white)."""
    if os.path.exists(os.path.join(directory, f"frame-{FRAMES - 1}.pgm")):
        return
    os.makedirs(directory, exist_ok=True)
    with tempfile.TemporaryDirectory() as t:
        sh("qrencode", "-s", "8", "-m", "2", "-o", f"{t}/a.png", "syncscan benchmark A")
        sh("qrencode", "-s", "5", "-m", "2", "-o", f"{t}/b.png", "https://example.org/bench?id=1234567890")
        sh("ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=white:s=1280x720:r=30,format=gray",
           "-i", f"{t}/a.png", "-i", f"{t}/b.png", "-filter_complex",
           "[0][1]overlay=x='100+t*240':y=120[v];[v][2]overlay=x='900-t*180':y=380,format=gray",
           "-frames:v", str(FRAMES), "-start_number", "0", "-f", "image2", os.path.join(directory, "frame-%d.pgm"))


class Server:
    """scripts/rtsp-test-server.py on a free loopback port, serving the frames looped at `fps`."""

    def __init__(self, directory, fps):
        self.port = free_port()
        self.out = tempfile.TemporaryFile()
        self.process = subprocess.Popen(["/usr/bin/python3", SERVER, str(self.port), os.path.join(directory, "frame-%d.pgm"),
                                         str(FRAMES), str(fps)], stdout=self.out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while f"listening {self.port}" not in self.text():
            if self.process.poll() is not None or time.monotonic() > deadline:
                sys.exit(f"rtsp-test-server.py does not listen: {self.text()}")
            time.sleep(0.05)
        self.url = f"rtsp://127.0.0.1:{self.port}/test"

    def text(self):
        self.out.seek(0)
        return self.out.read().decode(errors="replace")

    def stop(self):
        """Ends the server; its CPU seconds (user + system)."""
        self.process.send_signal(signal.SIGTERM)
        _, _, usage = os.wait4(self.process.pid, 0)
        return usage.ru_utime + usage.ru_stime


def cpu_and_status(process):
    _, status, usage = os.wait4(process.pid, 0)
    return usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)


def summary(err):
    """The numeric fields of syncscan's `summary:` line (stderr)."""
    line = next((l for l in err.splitlines() if "summary:" in l), "")
    return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", line)}


def run_native(syncscan, url, frames, threads):
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen([syncscan, "run", "--source", url, "--max-frames", str(frames), "--scanning-threads", str(threads),
                              "--duplicate-window", "0", "--emit-frames"], stdout=out, stderr=err)
        cpu, status = cpu_and_status(p)
        return finish({"syncscan": cpu}, status, out, err)


def run_pipe(syncscan, url, frames, threads):
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as ffmpeg_err:
        ffmpeg = subprocess.Popen(["ffmpeg", "-nostdin", "-loglevel", "error", "-rtsp_transport", "tcp", "-i", url,
                                   "-frames:v", str(frames), "-fps_mode", "passthrough", "-f", "yuv4mpegpipe", "-pix_fmt", "gray", "-"],
                                  stdout=subprocess.PIPE, stderr=ffmpeg_err)
        p = subprocess.Popen([syncscan, "run", "--source", "y4m:-", "--scanning-threads", str(threads), "--duplicate-window", "0",
                              "--emit-frames"], stdin=ffmpeg.stdout, stdout=out, stderr=err)
        ffmpeg.stdout.close()
        ffmpeg_cpu, ffmpeg_status = cpu_and_status(ffmpeg)
        cpu, status = cpu_and_status(p)
        if ffmpeg_status != 0:
            ffmpeg_err.seek(0)
            sys.exit(f"ffmpeg failed: {ffmpeg_err.read().decode(errors='replace')}")
        return finish({"ffmpeg": ffmpeg_cpu, "syncscan": cpu}, status, out, err)


def finish(cpu, status, out, err):
    err.seek(0)
    text = err.read().decode(errors="replace")
    if status != 0:
        sys.exit(f"syncscan failed ({status}):\n{text}")
    out.seek(0)
    records = [json.loads(line) for line in out.read().splitlines()]
    codes = [r.get("text") for r in records if r["type"] == "code"]
    late = [r["seq"] for r in records if r["type"] == "frame" and r.get("dropped") == "lateData"]
    fields = summary(text)
    return {"cpu": cpu, "total": sum(cpu.values()), "frames": fields.get("frames", 0), "scanned": fields.get("scanned", 0),
            "late": fields.get("lateData", 0), "late_seqs": late, "sightings": len(codes), "read": len(set(codes) & CODES)}


def late_seqs(seqs):
    """The late frames' sequence numbers, the first 8 of them."""
    return ",".join(map(str, seqs[:8])) + (f",… ({len(seqs)})" if len(seqs) > 8 else "") if seqs else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seconds", type=int, default=20, help="seconds of the stream per run")
    ap.add_argument("--fps", type=int, default=30)
    ap.add_argument("--threads", type=int, default=2, help="scanning threads")
    a = ap.parse_args()
    if a.runs < 5:
        sys.exit("--runs must be at least 5 (medians of 5 runs or more)")
    directory = os.path.join(OUT, "rtsp-1280x720")
    make_frames(directory)
    syncscan = release_syncscan()
    frames = a.fps * a.seconds
    print(f"RTSP H.264 1280x720 at {a.fps} fps ({FRAMES} frames with two QR codes, looped), {frames} frames a run, "
          f"{a.threads} scanning threads; native against ffmpeg | y4m:-, {a.runs} runs each, alternating; "
          f"{os.cpu_count()} cores", flush=True)
    results = {"native": [], "pipe": []}
    for i in range(a.runs):
        for name, run in (("native", run_native), ("pipe", run_pipe)):
            load = os.getloadavg()
            server = Server(directory, a.fps)
            r = run(syncscan, server.url, frames, a.threads)
            r["server"] = server.stop()
            r["load"] = load
            results[name].append(r)
            processes = ", ".join(f"{k} {v:.2f} s" for k, v in r["cpu"].items())
            print(f"  run {i + 1} {name:6s}: CPU {r['total']:.2f} s ({processes}), {1000 * r['total'] / max(r['frames'], 1):.2f} ms/frame; "
                  f"frames {r['frames']}, scanned {r['scanned']}, lateData {r['late']} (seq {late_seqs(r['late_seqs'])}), code lines {r['sightings']}, "
                  f"codes read {r['read']}/{len(CODES)}; server CPU {r['server']:.2f} s (not counted); "
                  f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}", flush=True)
    med = {k: statistics.median(r["total"] for r in v) for k, v in results.items()}
    per_frame = {k: statistics.median(1000 * r["total"] / max(r["frames"], 1) for r in v) for k, v in results.items()}
    paired = statistics.median(n["total"] / p["total"] for n, p in zip(results["native"], results["pipe"]))
    for k, v in results.items():
        parts = {p: statistics.median(r["cpu"][p] for r in v) for p in v[0]["cpu"]}
        print(f"  median {k:6s}: CPU {med[k]:.2f} s a run ({', '.join(f'{p} {s:.2f} s' for p, s in parts.items())}), "
              f"{per_frame[k]:.2f} ms/frame; lateData {statistics.median(r['late'] for r in v):g} "
              f"(runs: {', '.join(str(r['late']) for r in v)}); server CPU {statistics.median(r['server'] for r in v):.2f} s")
    print(f"ratio native / pipe (CPU of every process but the server): {med['native'] / med['pipe']:.3f}x of medians, "
          f"{paired:.3f}x median of paired runs; per frame {per_frame['native'] / per_frame['pipe']:.3f}x")


if __name__ == "__main__":
    main()
