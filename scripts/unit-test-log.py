#!/usr/bin/env python3
"""unit-test-log.py - reads a `swift test` log (Swift Testing's lines) for scripts/unit-tests.sh.

  unit-test-log.py unfinished LOG   the tests that started and did not finish
  unit-test-log.py failures LOG     each failed test with its issues, sanitizer reports, fatal
                                    errors, then the tests that started and never finished
  unit-test-log.py closes LOG       scripts/close-watch.c's reports, their stacks symbolized
"""
import re, subprocess, sys


def unfinished(lines):
    """The tests that started and did not finish, in the order they started."""
    started, finished = [], set()
    for line in lines:
        m = re.search(r"◇ Test (.+?) started\.", line)
        if m and not m.group(1).startswith("case ") and m.group(1) != "run":
            started.append(m.group(1))
        m = re.search(r"[✔✘] Test (.+?) (?:with \d+ test cases? )?(?:passed|failed)", line)
        if m:
            finished.add(m.group(1))
    return [name for name in started if name not in finished]


def failures(lines):
    said = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if "✘" in line:
            said.append(line)
            # An issue's details follow on indented lines.
            j = i + 1
            while j < len(lines) and j < i + 12 and lines[j].startswith((" ", "\t")) and "◇" not in lines[j] and "✔" not in lines[j]:
                said.append(lines[j]); j += 1
        elif re.search(r"(WARNING|ERROR): (ThreadSanitizer|AddressSanitizer|LeakSanitizer)|runtime error:", line):
            said.append(line)
            j = i + 1
            while j < len(lines) and j < i + 40 and not lines[j].startswith("SUMMARY:"):
                said.append(lines[j]); j += 1
            if j < len(lines) and lines[j].startswith("SUMMARY:"):
                said.append(lines[j])
            i = j
        elif "◇" not in line and "✔" not in line and re.search(r"Fatal error|fatal error:|error: Exited with|Segmentation fault|signal code|Illegal instruction", line):
            said.append(line)
        i += 1
    print("\n".join("  " + line for line in said[:400]) or "  (no failed test or report by name)")
    names = unfinished(lines)
    if names:
        print("unit-tests: started and never finished (a crash ends the process mid-test):")
        print("\n".join("  " + name for name in names))


def closes(lines):
    # Frames as backtrace_symbols_fd prints them: BINARY(SYMBOL+0xOFFSET)[ADDRESS]; an offset from
    # the binary's start (no symbol) is resolved with addr2line, names demangled by swift demangle.
    for line in lines:
        m = re.match(r"(\S+)\((\S*?)\+(0x[0-9a-f]+)\)\[", line)
        if not m:
            print("  " + line); continue
        binary, symbol, offset = m.groups()
        where = symbol
        if not symbol and "close-watch" not in binary:
            try:
                out = subprocess.run(["addr2line", "-f", "-e", binary, offset], capture_output=True, text=True, timeout=30).stdout.split("\n")
                where = out[0] + " " + (out[1] if len(out) > 1 else "")
            except Exception:
                pass
        if where:
            try:
                where = subprocess.run(["swift", "demangle", "--simplified", "--compact"], input=where, capture_output=True, text=True, timeout=30).stdout.strip() or where
            except Exception:
                pass
        print("    " + (where or line) + "  (" + binary.rsplit("/", 1)[-1] + ")")


if __name__ == "__main__":
    mode, path = sys.argv[1], sys.argv[2]
    lines = open(path, errors="replace").read().splitlines()
    if mode == "unfinished":
        print("\n".join("  " + name for name in unfinished(lines)) or "  (none by name: the hang is outside a test)")
    elif mode == "failures":
        failures(lines)
    elif mode == "closes":
        closes(lines)
    else:
        sys.exit(f"unit-test-log.py: unknown mode {mode}")
