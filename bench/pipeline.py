#!/usr/bin/env python3
"""The whole pipeline on camera MJPEG frames at a camera's pace, against the bare library loop on the same frames.

Makes bench/mjpeg.py's camera-like JPEGs (4:2:2, quality 88, two moving QR codes each, half on flat
white, half on a noisy moving test pattern) at --size (default 1920x1080), then runs, interleaved
(A B A B …), on the same files:
  pipeline: pipeline-bench run FPS SECONDS THREADS   (release build: a live source handing the JPEGs
            as MJPG frames at FPS, carrying JPEGLumaDecoder as the V4L2 source's MJPEG frames do,
            through the real CaptureSession, MetadataOutput — the daemon's defaults, engine zxing,
            effort auto, QR codes, THREADS scanning threads — and DataOutputSynchronizer)
  bare:     mjpeg-zxing-floor FRAMES                 (C, one thread, unpaced: tjDecompress2 to grey +
            ZXing_ReadBarcodes with the zxing-fast pass's options, the pass auto runs on every frame)
Each prints CPU per frame (getrusage user + system over its run / frames). Prints each pipeline run
(frames, scanned, lateData, undecodable, codes by pass, harder passes cut; and, to tell a pipeline
too slow from a machine too busy, the involuntary context switches, scans longer than a frame
interval, the late frames and the load average) and the medians of N runs: lateData, CPU per frame
of both, ratio pipeline / bare, and the cores the pipeline needs at FPS.
Usage: bench/pipeline.py [--runs 5] [--seconds 20] [--fps 30] [--threads 2] [--size 1920x1080] [--frames 10]
(needs: gcc, libturbojpeg0-dev, zxing-cpp 3.1.1 from scripts/setup.sh, qrencode, ffmpeg, a Swift toolchain)
"""
import argparse, os, statistics, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mjpeg import make_jpegs, sh  # noqa: E402


def fields(cmd):
    out = sh(*cmd, stdout=subprocess.PIPE).stdout.decode()
    return dict(f.split("=", 1) for f in out.split())


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--seconds", type=int, default=20, help="seconds of frames per pipeline run")
    p.add_argument("--fps", type=int, default=30)
    p.add_argument("--threads", type=int, default=2, help="scanning threads")
    p.add_argument("--size", default="1920x1080")
    p.add_argument("--frames", type=int, default=10, help="JPEG files per scene (flat and textured each), cycled")
    a = p.parse_args()
    if a.runs < 5:
        sys.exit("--runs must be at least 5 (medians of 5 runs or more)")
    width, height = (int(v) for v in a.size.split("x"))
    for product in ("mjpeg-bench", "pipeline-bench"):
        sh("swift", "build", "-c", "release", "--product", product, cwd=ROOT, stdout=subprocess.DEVNULL)
    release = os.path.join(ROOT, ".build", "release")
    floor = os.path.join(ROOT, "bench", "out", "mjpeg-zxing-floor")
    os.makedirs(os.path.dirname(floor), exist_ok=True)
    libs = sh("pkg-config", "--cflags", "--libs", "zxing", "libturbojpeg", stdout=subprocess.PIPE).stdout.decode().split()
    sh("cc", "-O2", "-o", floor, os.path.join(ROOT, "bench", "mjpeg-zxing-floor.c"), *libs)
    files = make_jpegs(os.path.join(release, "mjpeg-bench"), width, height, a.frames)
    frames = a.fps * a.seconds
    print(f"pipeline: {width}x{height} MJPEG ({len(files)} camera-like JPEGs cycled) at {a.fps} fps for {a.seconds} s, "
          f"{a.threads} scanning threads, engine zxing, effort auto; bare: the same {frames} frames, one thread, unpaced; "
          f"{a.runs} runs each, interleaved", flush=True)
    runs, bare = [], []
    for i in range(a.runs):
        r = fields([os.path.join(release, "pipeline-bench"), "run", str(a.fps), str(a.seconds), str(a.threads)] + files)
        b = fields([floor, str(frames)] + files)
        runs.append(r)
        bare.append(b)
        print(f"  run {i + 1}: frames {r['frames']}, scanned {r['scanned']}, lateData {r['lateData']}, undecodable {r['undecodable']}, "
              f"codes {r['codes']} (by pass {r['by_pass']}; harder passes cut {r['cut']}), CPU {float(r['cpu_ms_per_frame']):.2f} ms/frame; "
              f"bare: symbols {b['symbols']}, CPU {float(b['cpu_ms_per_frame']):.2f} ms/frame", flush=True)
        print(f"         why late: threads preempted {r['preempted']} times, scans longer than a frame interval {r['slow_scans']} "
              f"(longest {r['longest_scan_ms']} ms), late frames {r['late_seqs']}, load average before,after {r['load']}", flush=True)
    m = lambda rs, k: statistics.median(float(r[k]) for r in rs)
    pipeline_ms, bare_ms = m(runs, "cpu_ms_per_frame"), m(bare, "cpu_ms_per_frame")
    print(f"  medians of {a.runs} runs: frames {m(runs, 'frames'):g}, scanned {m(runs, 'scanned'):g}, lateData {m(runs, 'lateData'):g}, "
          f"undecodable {m(runs, 'undecodable'):g}; CPU per frame: pipeline {pipeline_ms:.2f} ms, bare {bare_ms:.2f} ms, "
          f"ratio pipeline / bare {pipeline_ms / bare_ms:.2f}x; pipeline CPU x {a.fps} fps = {pipeline_ms * a.fps / 1000:.2f} cores "
          f"of {os.cpu_count()}")


if __name__ == "__main__":
    main()
