"""Turns a run's figures into the one table, a JSON file and a PNG plot.

The table is what people read and paste: one row per figure, a column per
system, and the Cumulo/PostgreSQL ratio (and Cumulo/floor when the floor ran).
A ratio is the raw quotient of the two figures; the arrow on the unit says
which way is better, so a latency ratio of 0.5 and a tps ratio of 2 both mean
"twice as fast". Errors are footnotes, never silently empty cells.

The JSON carries everything needed to trust or redo a number: the machine,
versions, options and every command run. The PNG has one small bar chart per
figure, so a missing Cumulo figure still leaves PostgreSQL's visible.
"""

from __future__ import annotations

import json
import math
import os
import platform
import subprocess
import sys
from collections.abc import Iterable

from .core import LABELS, SUBJECT, Figure
from .systems import pg_bin

ARROWS = {"higher": "↑", "lower": "↓"}


def fmt(value: float | None) -> str:
    """Formats a figure with sensible precision: 72454.8 -> '72,455', 0.1234 -> '0.123'."""
    if value is None or math.isnan(value):
        return "-"
    a = abs(value)
    if a >= 1000:
        return f"{value:,.0f}"
    if a >= 10:
        return f"{value:.1f}"
    if a >= 1:
        return f"{value:.2f}"
    return f"{value:.3g}"


def systems_in(figures: Iterable[Figure]) -> list[str]:
    """Returns every system that has a value or an error in some figure, in display order."""
    seen = {name for f in figures for name in (*f.values, *f.errors)}
    return [s for s in LABELS if s in seen] + sorted(seen - set(LABELS))


def table(figures: list[Figure]) -> str:
    """Returns the results table (with error footnotes) as text."""
    systems = systems_in(figures)
    baselines = [s for s in systems if s != SUBJECT]
    header = ["workload", "metric", "unit"] + [LABELS.get(s, s) for s in systems]
    if SUBJECT in systems:
        header += [f"{LABELS[SUBJECT]}/{LABELS.get(b, b)}" for b in baselines]
    rows: list[list[str]] = []
    footnotes: dict[tuple[str, str], int] = {}  # the same error on many figures: one footnote
    for f in figures:
        row = [f.workload, f.metric, f"{f.unit} {ARROWS.get(f.better, '')}".strip()]
        for s in systems:
            if s in f.errors:
                number = footnotes.setdefault((s, f.errors[s]), len(footnotes) + 1)
                row.append(f"error [{number}]")
            else:
                row.append(fmt(f.values.get(s)))
        if SUBJECT in systems:
            for b in baselines:
                r = f.ratio(b)
                row.append("-" if r is None else f"{r:.3g}x")
        rows.append(row)
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    numeric = set(range(3, len(header)))

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.rjust(w) if i in numeric else c.ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    out = [line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)]
    notes = [f"[{n}] {LABELS.get(s, s)}: {error}" for (s, error), n in footnotes.items()]
    notes += sorted({f"note: {f.metric}: {f.note}" for f in figures if f.note})
    return "\n".join(out + [""] + notes if notes else out)


def machine() -> dict:
    """Returns what the figures depend on: CPUs, memory, OS, Python, PostgreSQL, Cumulo rev."""
    info: dict = {
        "nproc": os.cpu_count(),
        "platform": platform.platform(),
        "python": sys.version.split()[0],
    }
    try:
        with open("/proc/meminfo") as f:
            kib = int(f.readline().split()[1])
        info["memory_gib"] = round(kib / 1024 / 1024, 1)
        info["loadavg_at_start"] = os.getloadavg()
    except (OSError, ValueError, IndexError):
        pass
    for key, cmd in (
        ("postgres", [pg_bin("postgres"), "--version"]),
        ("cumulo_git", ["git", "-C", os.path.dirname(__file__), "rev-parse", "--short", "HEAD"]),
    ):
        try:
            info[key] = subprocess.run(
                cmd, capture_output=True, text=True, timeout=10
            ).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            info[key] = None
    return info


def write_json(path: str, meta: dict, figures: list[Figure]) -> str:
    """Writes the run's metadata and figures as JSON; returns the path."""
    with open(path, "w") as f:
        json.dump({**meta, "figures": [fig.to_json() for fig in figures]}, f, indent=2)
        f.write("\n")
    return path


def write_png(path: str, title: str, figures: list[Figure]) -> str | None:
    """Draws one bar chart per figure into a PNG; returns the path, or None without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(
            "[bench] matplotlib is not installed (pip install matplotlib): no PNG", file=sys.stderr
        )
        return None
    shown = [f for f in figures if f.values or f.errors]
    if not shown:
        return None
    systems = systems_in(shown)
    colors = {"cumulo": "#1f77b4", "postgres": "#7f7f7f", "floor": "#2ca02c"}
    cols = min(3, len(shown))
    rows = math.ceil(len(shown) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.2 * rows), squeeze=False)
    for ax in axes.flat[len(shown) :]:
        ax.axis("off")
    for ax, f in zip(axes.flat, shown, strict=False):
        present = [s for s in systems if s in f.values or s in f.errors]
        labels = [LABELS.get(s, s) for s in present]
        heights = [f.values.get(s) or 0.0 for s in present]
        bars = ax.bar(labels, heights, color=[colors.get(s, "#9467bd") for s in present])
        for bar, s in zip(bars, present, strict=True):
            text = "error" if s in f.errors else fmt(f.values.get(s))
            ax.annotate(
                text,
                (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                ha="center",
                va="bottom",
                fontsize=8,
            )
        ratio = f.ratio()
        sub = f"{LABELS[SUBJECT]}/PostgreSQL = {ratio:.3g}x" if ratio is not None else ""
        ax.set_title(f"{f.workload}: {f.metric}\n{sub}", fontsize=9)
        ax.set_ylabel(f"{f.unit} ({f.better} is better)", fontsize=8)
        ax.tick_params(labelsize=8)
        ax.margins(y=0.15)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
