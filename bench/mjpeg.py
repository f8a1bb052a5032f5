#!/usr/bin/env python3
"""syncscan's MJPEG→grey stage against libv4l2's MJPEG conversion, on the same camera-like JPEGs.

Makes grey frames with QR codes (ffmpeg + qrencode: half on flat white, half on a noisy moving test
pattern) at 1280x720 and 1920x1080, encodes them as 4:2:2 JPEGs (luma 2x1, quality 88, as UVC
cameras send; TurboJPEG through syncscan's JPEGEncoder: libv4lconvert refuses ffmpeg's 2x2 luma
sampling), then runs, interleaved (A B A B …), on the same files:
  syncscan:   mjpeg-bench decode   (release build: JPEGLumaDecoder, the decoder the V4L2 source hands
              the scanning threads: tjDecompress2 to TJPF_GRAY, the size and warnings checked)
  libv4l2:    v4lconvert-mjpeg     (C: v4lconvert_convert MJPEG → YU12, what syncscan does without a
              decoder, with LIBV4LCONTROL_CONTROLS=0 so no device is needed)
Each run times the CPU of REPEAT passes over the files (CLOCK_PROCESS_CPUTIME_ID); prints the median
CPU per frame of N runs each and the ratio libv4l2 / syncscan.
Usage: bench/mjpeg.py [--runs N] [--frames N] [--repeat N]
(needs: gcc, libv4l-dev, libturbojpeg0-dev, qrencode, ffmpeg, a Swift toolchain)
"""
import argparse, glob, os, statistics, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench", "out", "mjpeg")


def sh(*cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def make_jpegs(bench, width, height, count):
    """OUT/WxH/*.jpg: `count` flat and `count` textured frames with two QR codes each."""
    directory = os.path.join(OUT, f"{width}x{height}")
    if len(glob.glob(directory + "/*.jpg")) == 2 * count:
        return sorted(glob.glob(directory + "/*.jpg"))
    os.makedirs(directory, exist_ok=True)
    with tempfile.TemporaryDirectory() as t:
        sh("qrencode", "-s", "8", "-m", "2", "-o", f"{t}/a.png", "syncscan MJPEG benchmark A")
        sh("qrencode", "-s", "5", "-m", "2", "-o", f"{t}/b.png", "https://example.org/bench?id=1234567890")
        for scene, background in (("flat", f"color=c=white:s={width}x{height}:r=10,format=gray"),
                                  ("textured", f"testsrc2=s={width}x{height}:r=10,format=gray,noise=alls=10:allf=t")):
            y4m = f"{t}/{scene}.y4m"
            sh("ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", background, "-i", f"{t}/a.png", "-i", f"{t}/b.png",
               "-filter_complex", "[0][1]overlay=x='100+t*80':y=120[v];[v][2]overlay=x='W/2-t*60':y=H/2,format=gray",
               "-frames:v", str(count), "-pix_fmt", "gray", "-f", "yuv4mpegpipe", "-strict", "-1", y4m)
            os.makedirs(f"{t}/{scene}", exist_ok=True)
            sh(bench, "encode", y4m, f"{t}/{scene}", "88", stdout=subprocess.DEVNULL)
            for name in os.listdir(f"{t}/{scene}"):
                os.replace(f"{t}/{scene}/{name}", f"{directory}/{scene}-{name}")
    return sorted(glob.glob(directory + "/*.jpg"))


def cpu_ms(cmd, env=None):
    out = sh(*cmd, stdout=subprocess.PIPE, env=env).stdout.decode()
    fields = dict(f.split("=") for f in out.split())
    return float(fields["cpu_ms_per_frame"])


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--frames", type=int, default=10, help="frames per scene and size (flat and textured each)")
    p.add_argument("--repeat", type=int, default=5, help="passes over the files per run")
    a = p.parse_args()
    if a.runs < 5:
        sys.exit("--runs must be at least 5 (medians of 5 runs or more)")
    sh("swift", "build", "-c", "release", "--product", "mjpeg-bench", cwd=ROOT, stdout=subprocess.DEVNULL)
    bench = os.path.join(ROOT, ".build", "release", "mjpeg-bench")
    floor = os.path.join(ROOT, "bench", "out", "v4lconvert-mjpeg")
    os.makedirs(os.path.dirname(floor), exist_ok=True)
    libs = sh("pkg-config", "--cflags", "--libs", "libv4lconvert", stdout=subprocess.PIPE).stdout.decode().split()
    sh("gcc", "-O2", "-o", floor, os.path.join(ROOT, "bench", "v4lconvert-mjpeg.c"), *libs)
    env = dict(os.environ, LIBV4LCONTROL_CONTROLS="0")
    print(f"{'size':>10} {'syncscan ms':>12} {'libv4l2 ms':>11} {'ratio':>6}   (CPU per frame, median of {a.runs} runs, "
          f"{2 * a.frames} frames x {a.repeat} passes each)")
    for width, height in ((1280, 720), (1920, 1080)):
        files = make_jpegs(bench, width, height, a.frames)
        ours, theirs = [], []
        for _ in range(a.runs):
            ours.append(cpu_ms([bench, "decode", str(width), str(height), str(a.repeat)] + files))
            theirs.append(cpu_ms([floor, str(width), str(height), str(a.repeat)] + files, env=env))
        o, t = statistics.median(ours), statistics.median(theirs)
        print(f"{width}x{height:<5} {o:>12.2f} {t:>11.2f} {t / o:>5.2f}x")


if __name__ == "__main__":
    main()
