"""`python -m bench.summary RESULT.json...`: one Markdown table from several runs' JSON files.

A full run is often several invocations (a workload at a time, so one that
fails or runs long does not cost the others). The README's "Latest results"
table is made from their JSON files with this, rather than retyped by hand:
one row per figure in file order, PostgreSQL, floor and Cumulo columns, the
Cumulo/PostgreSQL ratio, and errors and notes as numbered footnotes, so a
missing figure is never an empty cell.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .report import fmt

COLUMNS = [("postgres", "PostgreSQL 15"), ("floor", "floor"), ("cumulo", "Cumulo")]
ARROW = {"higher": "higher is better", "lower": "lower is better"}


def markdown(runs: list[dict]) -> str:
    """Returns the Markdown table (and footnotes) for the figures of several runs."""
    figures = [f for run in runs for f in run["figures"]]
    shown = [(k, label) for k, label in COLUMNS if any(k in f["values"] for f in figures)]
    head = ["workload", "figure", *(label for _, label in shown), "Cumulo/PostgreSQL"]
    lines = ["| " + " | ".join(head) + " |", "|---|---|" + "---:|" * (len(shown) + 1)]
    notes: dict[str, int] = {}

    def footnote(text: str) -> str:
        return f"[{notes.setdefault(text, len(notes) + 1)}]"

    for f in figures:
        cells = [f["workload"], f"{f['metric']} ({f['unit']}, {ARROW.get(f['better'], '')})"]
        for key, label in shown:
            if key in f["errors"]:
                cells.append("error " + footnote(f"{label}: {f['errors'][key]}"))
            else:
                cells.append(fmt(f["values"].get(key)) if key in f["values"] else "")
        ratio = f.get("ratios", {}).get("cumulo/postgres")
        cells.append("" if ratio is None else f"{ratio:.3g}x")
        if f.get("note"):
            cells[1] += " " + footnote(f"{f['workload']}: {f['note']}")  # one number per note text
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines += [f"{n}. {text}" for text, n in notes.items()]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """Prints the table for the JSON files named in argv."""
    if not argv:
        print("usage: python -m bench.summary RESULT.json...", file=sys.stderr)
        return 2
    runs = [json.loads(Path(p).read_text()) for p in argv]
    print(markdown(runs))
    for p, run in zip(argv, runs, strict=True):
        load = " ".join(f"{x:.1f}" for x in run.get("machine", {}).get("loadavg_at_start") or [])
        after = "; ".join(f"{name} {' '.join(f'{x:.1f}' for x in avg)}"
                          for name, avg in (run.get("loadavg_after") or {}).items())
        print(f"\n{Path(p).name}: {' '.join(run['argv'])}; {run['started']} - {run.get('finished')}"
              f"; load average at start {load}" + (f"; after each workload: {after}" if after else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
