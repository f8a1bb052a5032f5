#!/usr/bin/env python3
"""render.py - the Markdown tables of the benchmark results in bench/results/*.json.

    bench/render.py FILE.json [TABLE]   print the file's tables (or one) as Markdown
    bench/render.py --write             re-render every marked table in README.md and docs/ from its data
    bench/render.py --check             exit 1 naming each marked table that differs from its data

A results file is a JSON object with the measurement's context (`command`, `recorded`: the date and
commit the figures were first written down, `machine`: cores and load, `runs`, `statistic`, ...) and
`tables`, each {"id", "columns", "rows"}. A column is {"key", "title"} and, for numbers,
`decimals` (digits after the point), `unit` (text after the number, " ms" or "×") and `thousands`
(1,514); a row maps column keys to a number, a number with a note ({"value": 67.2, "note": "1.10×
its floor"}, shown in parentheses after it), a string (Markdown, as shown), or null (an empty
cell). A table's place in a document is marked:

    <!-- bench/results/FILE.json TABLE -->
    | ... the rendered table ... |
    <!-- end -->
"""
import glob
import json
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
MARKED = re.compile(r"^<!-- (bench/results/[\w.\-]+\.json) ([\w\-]+) -->\n(.*?)^<!-- end -->$", re.M | re.S)


def cell(value, column):
    if value is None:
        return ""
    if isinstance(value, dict):  # {"value": 67.2, "note": "1.10× its floor"}
        return cell(value["value"], column) + (f" ({value['note']})" if "note" in value else "")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    decimals = column.get("decimals", 0)
    text = f"{value:,.{decimals}f}" if column.get("thousands") else f"{value:.{decimals}f}"
    return text + column.get("unit", "")


def row_line(cells):
    return "|" + "|".join(f" {c} " if c else " " for c in cells) + "|"


def table_markdown(table):
    columns = table["columns"]
    unknown = {k for row in table["rows"] for k in row} - {c["key"] for c in columns}
    if unknown:
        raise ValueError(f"table {table['id']}: rows have keys no column names: {sorted(unknown)}")
    lines = [row_line([c["title"] for c in columns]), "|" + "---|" * len(columns)]
    lines += [row_line([cell(row.get(c["key"]), c) for c in columns]) for row in table["rows"]]
    return "\n".join(lines) + "\n"


def load(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return json.load(f)


def find_table(path, table_id):
    for table in load(path)["tables"]:
        if table["id"] == table_id:
            return table
    raise KeyError(f"{path} has no table {table_id!r}")


def documents():
    return [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))


def rerender(text):
    """The text with every marked table rendered from its data, and the (path, table) pairs that changed."""
    changed = []

    def replace(match):
        path, table_id, old = match.groups()
        new = table_markdown(find_table(path, table_id))
        if new != old:
            changed.append((path, table_id))
        return f"<!-- {path} {table_id} -->\n{new}<!-- end -->"

    return MARKED.sub(replace, text), changed


def main(argv):
    if argv and argv[0] in ("--write", "--check"):
        problems, marked = 0, 0
        for document in documents():
            with open(document, encoding="utf-8") as f:
                text = f.read()
            marked += len(MARKED.findall(text))
            try:
                new, changed = rerender(text)
            except (KeyError, ValueError, OSError) as error:
                print(f"{os.path.relpath(document, ROOT)}: {error}")
                problems += 1
                continue
            for path, table_id in changed:
                verb = "re-rendered" if argv[0] == "--write" else "differs from its data; run bench/render.py --write"
                print(f"{os.path.relpath(document, ROOT)}: table {table_id} of {path} {verb}")
            if argv[0] == "--write" and changed:
                with open(document, "w", encoding="utf-8") as f:
                    f.write(new)
            elif changed:
                problems += len(changed)
        print(f"render: {marked} marked tables, {problems} problems", file=sys.stderr)
        return 1 if problems else 0
    if not argv or argv[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    path = os.path.relpath(os.path.abspath(argv[0]), ROOT)
    tables = [find_table(path, argv[1])] if len(argv) > 1 else load(path)["tables"]
    print("\n".join(f"<!-- {path} {t['id']} -->\n{table_markdown(t)}<!-- end -->" for t in tables))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
