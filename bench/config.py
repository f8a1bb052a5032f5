#!/usr/bin/env python3
"""How long `syncscan check-config FILE` takes on configuration files far larger than any real one.

Generates (in bench/out/config/, kept between runs) YAML files and a match.list, each checked by
the release build's `syncscan check-config FILE`; every case must end as it should (its exit
status and a line of its stderr), so a figure is never that of a wrong outcome:
  keys-40k:       40,000 unknown top-level keys (k00000: 1), 400 KB: refused, each key named
  keys-400k:      400,000 keys (4-letter names), 3.2 MB, under the 4 MiB file limit but over the
                  100,000-key limit: refused with the count
  controls-10k:   10,000 device.controls entries (c00000: 1), the most a list takes: accepted
  controls-20k:   20,000 of them: refused, over the 10,000-entry limit
  match-100k:     match.list naming a file of 100,000 payloads (13-digit numbers), 1.4 MB: accepted
  match-1m+1:     a match.list file of 1,000,001 payloads, 15 MB: refused, over its 1,000,000 values
Runs are interleaved (every case, then again) after a warm-up run of each, so machine noise hits
each alike; each figure is the median wall time of --runs runs.
  --baseline PATH: another syncscan binary (main's release build) run on the same files in the same
            rounds; a case that passes --baseline-timeout (default 60 s) is stopped and shown as
            more than it, and not run again by that binary. Its outcome is shown, not checked (it may differ).
Writes bench/results/config.json (or --out); --print renders a results file without running anything.
Usage: bench/config.py [--runs 5] [--baseline PATH] [--baseline-timeout S] [--out FILE] | bench/config.py --print [FILE]
(needs: a Swift toolchain)
"""
import argparse, datetime, json, os, platform, statistics, string, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import release_syncscan, sh  # noqa: E402

OUT = os.path.join(ROOT, "bench", "out", "config")
RESULTS = os.path.join(ROOT, "bench", "results", "config.json")


def base36(n, width):
    digits = string.digits + string.ascii_lowercase
    text = ""
    for _ in range(width):
        n, d = divmod(n, 36)
        text = digits[d] + text
    return text


def write(path, lines):
    """Writes `lines` (an iterable of str) to `path` unless it is there already."""
    if not os.path.exists(path):
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            f.writelines(lines)
        os.replace(path + ".tmp", path)
    return path


def cases():
    """(name, what, file, the file whose size is shown, expected exit status, a line its stderr must contain)."""
    os.makedirs(OUT, exist_ok=True)
    list_100k = write(os.path.join(OUT, "list-100k.txt"), (f"{4006381333931 + i}\n" for i in range(100_000)))
    list_1m = write(os.path.join(OUT, "list-1000001.txt"), (f"{4006381333931 + i}\n" for i in range(1_000_001)))
    return [
        ("keys-40k", "40,000 unknown keys",
         write(os.path.join(OUT, "keys-40k.yaml"), (f"k{i:05d}: 1\n" for i in range(40_000))), None, 2, 'k39999: unknown key "k39999"'),
        ("keys-400k", "400,000 keys",
         write(os.path.join(OUT, "keys-400k.yaml"), (f"{base36(i, 4)}: 1\n" for i in range(400_000))), None, 2,
         "the file has 400000 keys, over the limit of 100000 keys"),
        ("controls-10k", "10,000 device.controls",
         write(os.path.join(OUT, "controls-10k.yaml"),
               ["source: /dev/video0\ndevice:\n  controls:\n"] + [f"    c{i:05d}: 1\n" for i in range(10_000)]), None, 0, None),
        ("controls-20k", "20,000 device.controls",
         write(os.path.join(OUT, "controls-20k.yaml"),
               ["source: /dev/video0\ndevice:\n  controls:\n"] + [f"    c{i:05d}: 1\n" for i in range(20_000)]), None, 2,
         "device.controls: 20000 entries, over the limit of 10000 entries in one list"),
        ("match-100k", "match.list of 100,000 payloads",
         write(os.path.join(OUT, "match-100k.yaml"), [f"match:\n  list: {list_100k}\n"]), list_100k, 0, None),
        ("match-1m+1", "match.list of 1,000,001 payloads",
         write(os.path.join(OUT, "match-1000001.yaml"), [f"match:\n  list: {list_1m}\n"]), list_1m, 2,
         "it has 1000001 values, over the limit of 1000000 values"),
    ]


def timed(binary, path, timeout=None):
    """Wall seconds, exit status and stderr of `binary check-config path`; (None, None, "") past `timeout`."""
    start = time.monotonic()
    try:
        p = subprocess.run([binary, "check-config", path], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, None, ""
    return time.monotonic() - start, p.returncode, p.stderr.decode(errors="replace")


def checked(name, binary, path, status, line):
    seconds, got, err = timed(binary, path)
    if got != status or (line and line not in err):
        sys.exit(f"{name}: expected exit {status}" + (f" and {line!r}" if line else "") + f", got {got}:\n{err[:2000]}")
    return seconds


def measure(a):
    syncscan = release_syncscan()
    all_cases = cases()
    after = {c[0]: [] for c in all_cases}
    before = {c[0]: [] for c in all_cases}
    stopped, before_status = set(), {}
    load = os.getloadavg()[0]
    for name, _, path, _, status, line in all_cases:  # warm the page cache; check each outcome
        checked(name, syncscan, path, status, line)
    for r in range(a.runs):
        for name, _, path, _, status, line in all_cases:
            after[name].append(checked(name, syncscan, path, status, line))
            if a.baseline and name not in stopped:
                seconds, got, _ = timed(a.baseline, path, timeout=a.baseline_timeout)
                if seconds is None:
                    stopped.add(name)
                else:
                    before[name].append(seconds)
                    before_status[name] = got
        print(f"run {r + 1}: " + ", ".join(f"{n} {after[n][-1]:.3f} s" + (f" (before {before[n][-1]:.3f} s)" if before[n] and len(before[n]) == r + 1 else "")
                                         for n, *_ in all_cases), flush=True)
    rows = []
    outcome = lambda status: {0: "accepted", 2: "refused"}.get(status, f"exit {status}")
    for name, what, path, shown, status, _ in all_cases:
        row = {"case": what, "file": f"{os.path.getsize(shown or path) / 1e6:.2f} MB", "outcome": outcome(status),
               "after": round(statistics.median(after[name]), 3)}
        if a.baseline:
            if name in stopped:
                row["before"], row["outcome_before"] = f"> {a.baseline_timeout:g} s (stopped)", None
            elif before[name]:
                b = statistics.median(before[name])
                row["before"], row["outcome_before"] = round(b, 3), outcome(before_status[name])
                ratio = b / row["after"]
                row["after"] = {"value": row["after"], "note": f"{ratio:.0f}× faster" if ratio >= 1.5 else f"{1 / ratio:.2f}× before"}
        rows.append(row)
    columns = [{"key": "case", "title": "file checked"}, {"key": "file", "title": "size"}]
    if a.baseline:
        columns += [{"key": "outcome_before", "title": "outcome before"}, {"key": "before", "title": "check-config before", "decimals": 3, "unit": " s"}]
    columns += [{"key": "outcome", "title": "outcome after"}, {"key": "after", "title": "check-config after", "decimals": 3, "unit": " s"}]
    git = lambda *args: subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    return {
        "command": "bench/config.py" + (f" --runs {a.runs}" if a.runs != 5 else "")
                   + (f" --baseline {os.path.relpath(a.baseline, ROOT)}" if a.baseline else ""),
        "recorded": {"date": datetime.date.today().isoformat(), "commit": git("rev-parse", "--short", "HEAD")}
                    | ({"baseline": a.baseline_label or a.baseline} if a.baseline else {}),
        "machine": {"cpus": os.cpu_count(), "load": round(load, 2), "load_at_end": round(os.getloadavg()[0], 2), "kernel": platform.release()},
        "runs": a.runs,
        "statistic": "median wall time of the runs (one process each: start, reading, checking, the message written to a pipe)",
        "raw": {"after_s": {n: [round(x, 4) for x in v] for n, v in after.items()}}
               | ({"before_s": {n: [round(x, 4) for x in v] for n, v in before.items()},
                   "before_stopped": sorted(stopped)} if a.baseline else {}),
        "tables": [{"id": "check-config", "columns": columns, "rows": rows}],
    }


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--out", default=RESULTS)
    p.add_argument("--baseline", metavar="PATH", help="another syncscan binary run on the same files")
    p.add_argument("--baseline-label", metavar="TEXT", help="what the baseline is, for the results (default: its path)")
    p.add_argument("--baseline-timeout", type=float, default=60.0, metavar="S")
    p.add_argument("--print", nargs="?", const=RESULTS, metavar="FILE")
    a = p.parse_args()
    if a.print:
        sh(sys.executable, os.path.join(ROOT, "bench", "render.py"), a.print)
        return
    if a.runs < 3:
        sys.exit("--runs must be at least 3 (medians)")
    res = measure(a)
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(res, f, indent=1, ensure_ascii=False)
        f.write("\n")
    sh(sys.executable, os.path.join(ROOT, "bench", "render.py"), a.out)


if __name__ == "__main__":
    main()
