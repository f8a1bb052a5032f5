#!/usr/bin/env python3
"""check-links.py - fail on a broken relative link or anchor between README.md and docs/.

    scripts/check-links.py [FILE.md ...]    (default: README.md, docs/**/*.md)

Every Markdown link `[text](target)` outside code (fenced blocks and `inline code`) whose target is
not a URL (http:, https:, mailto:) must name a file that exists, relative to the linking file;
a `#anchor` (alone: the same file) must be a heading of that Markdown file, as GitHub makes
anchors from headings (lower case, punctuation but `-` and `_` dropped, spaces as `-`, a repeated
one suffixed `-1`, `-2`, ...). Prints each broken link as FILE:LINE: target: why, and exits 1 if any.
"""
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
LINK = re.compile(r"(?<!!)\[(?:[^\]\\]|\\.)*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
INLINE_CODE = re.compile(r"(`+).*?\1")


def prose_lines(path):
    """(line number, text) of the lines outside fenced code, inline code blanked."""
    fence = None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            stripped = line.lstrip()
            marker = re.match(r"(```+|~~~+)", stripped)
            if marker:
                if fence is None:
                    fence = marker.group(1)[0] * len(marker.group(1))
                elif stripped.startswith(fence):
                    fence = None
                continue
            if fence is None:
                yield number, INLINE_CODE.sub("", line.rstrip("\n"))


def slug(heading):
    text = re.sub(r"`", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


_anchors = {}


def anchors(path):
    if path not in _anchors:
        seen, found = {}, set()
        for _, line in prose_lines(path):
            heading = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
            if not heading:
                continue
            base = slug(heading.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
        _anchors[path] = found
    return _anchors[path]


def check(path):
    problems = []
    for number, line in prose_lines(path):
        for match in LINK.finditer(line):
            target = match.group(1)
            if re.match(r"[a-z][a-z0-9+.-]*:", target):
                continue
            file_part, _, anchor = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            where = f"{os.path.relpath(path, ROOT)}:{number}: {target}"
            if not os.path.exists(resolved):
                problems.append(f"{where}: no file {os.path.relpath(resolved, ROOT)}")
            elif anchor:
                if not resolved.endswith(".md"):
                    problems.append(f"{where}: an anchor into a file that is not Markdown")
                elif anchor not in anchors(resolved):
                    problems.append(f"{where}: no heading with anchor #{anchor} in {os.path.relpath(resolved, ROOT)}")
    return problems


def main(argv):
    files = [os.path.abspath(a) for a in argv] or [os.path.join(ROOT, "README.md")] + sorted(
        os.path.join(d, f) for d, _, fs in os.walk(os.path.join(ROOT, "docs")) for f in fs if f.endswith(".md"))
    problems = [p for f in files for p in check(f)]
    for p in problems:
        print(p)
    print(f"check-links: {len(files)} files, {len(problems)} broken links", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
