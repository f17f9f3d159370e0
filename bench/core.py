"""What a workload is given (a `RunContext`) and what it gives back (`Figure`s).

A workload never prints results itself: it returns figures, each holding one
number per system, and `report` turns every figure of a run into one table,
one JSON file and one plot. A failure on one system (Cumulo is young and may
not support everything a workload sends) is recorded in the figure instead of
ending the run, so PostgreSQL's numbers still come out and the table says
exactly what failed where.
"""

from __future__ import annotations

import statistics
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .systems import System

T = TypeVar("T")

# Display order and labels of every system a figure may hold a value for.
LABELS = {"cumulo": "Cumulo", "postgres": "PostgreSQL", "floor": "floor"}
SUBJECT = "cumulo"


@dataclass
class Figure:
    """One measured quantity (say TPC-B tps) with a value or an error per system."""

    workload: str
    metric: str
    unit: str
    better: str  # "higher" or "lower": which way is faster
    values: dict[str, float | None] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    note: str = ""

    def ratio(self, baseline: str = "postgres", subject: str = SUBJECT) -> float | None:
        """Returns subject/baseline, or None when either value is missing or zero."""
        a, b = self.values.get(subject), self.values.get(baseline)
        if a is None or b is None or b == 0:
            return None
        return a / b

    def speed(self, baseline: str = "postgres", subject: str = SUBJECT) -> float | None:
        """Returns how many times faster the subject is (below 1: slower), whatever the unit."""
        r = self.ratio(baseline, subject)
        if r is None or r == 0:
            return None
        return r if self.better == "higher" else 1.0 / r

    def to_json(self) -> dict:
        """Returns the figure as plain JSON data, ratios included."""
        others = [s for s in self.values if s != SUBJECT]
        return {
            "workload": self.workload,
            "metric": self.metric,
            "unit": self.unit,
            "better": self.better,
            "values": self.values,
            "errors": self.errors,
            "note": self.note,
            "ratios": {f"{SUBJECT}/{o}": self.ratio(o) for o in others},
        }


@dataclass
class Options:
    """The command-line knobs a workload may read; each workload documents which."""

    scale: float | None = None
    seconds: float = 30.0
    rows: int | None = None
    clients: int = 8
    threads: int = 2
    repeat: int = 1
    transport: str = "tcp"  # pgbench: "tcp", "unix" or "both" (`System.over_unix`)


@dataclass
class RunContext:
    """The running systems, the options, and a log of every command run."""

    systems: list[System]
    options: Options
    workdir: str
    commands: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    errors: dict[tuple[str, str], str] = field(default_factory=dict)

    def attempt(self, system: System, step: str, fn: Callable[..., T], *args: Any) -> T | None:
        """Returns fn(*args) for one system's step; on failure records the error, returns None."""
        try:
            return fn(*args)
        except KeyboardInterrupt:
            raise
        except Exception as exc:  # a benchmark step failing on one system is a result too
            message = f"{type(exc).__name__}: {exc}".strip()
            first = message.splitlines()[0][:300] if message else type(exc).__name__
            self.errors[(system.name, step)] = first
            print(f"\n[bench] {system.label}: {step} failed: {first}", file=sys.stderr)
            if not isinstance(exc, BenchError):
                traceback.print_exc(limit=3, file=sys.stderr)
            if tail := system.log_tail(10).strip():
                print(f"[bench] last lines of {system.label}'s log:\n{tail}", file=sys.stderr)
            return None

    def figure(
        self,
        workload: str,
        metric: str,
        unit: str,
        better: str,
        values: dict[str, float | None],
        steps: dict[str, str] | str,
        note: str = "",
    ) -> Figure:
        """Builds a figure, attaching the recorded error of each system's step when it has no value."""
        errors = {}
        for name, value in values.items():
            step = steps if isinstance(steps, str) else steps.get(name, "")
            if value is None:
                errors[name] = self.errors.get((name, step), "not measured")
        return Figure(workload, metric, unit, better, dict(values), errors, note)


class BenchError(RuntimeError):
    """A benchmark step failed in an expected way (a tool's exit code, a wrong answer)."""


def median(values: list[float]) -> float:
    """Returns the median of a non-empty list."""
    return statistics.median(values)
