"""A progress bar on stderr, so a load of millions of rows does not look like a hang.

Deliberately tiny (no tqdm dependency). On a terminal it redraws one line with
`\\r` at most ten times a second; into a file or pipe (CI logs) it writes a
plain line every 10 %, so logs stay short.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


def _human(n: float) -> str:
    """Returns n with a k/M suffix: 1234567 -> '1.23M'."""
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(n) >= limit:
            return f"{n / limit:.3g}{suffix}"
    return f"{n:.3g}" if isinstance(n, float) and n != int(n) else f"{int(n)}"


class Progress:
    """A bar for `total` units of work, labelled; use as a context manager."""

    WIDTH = 30

    def __init__(self, label: str, total: float, unit: str = "rows", stream: TextIO | None = None):
        self.label, self.total, self.unit = label, max(total, 1e-9), unit
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.done = 0.0
        self.extra = ""
        self.start = time.monotonic()
        self._last_draw = 0.0
        self._last_decile = -1

    def __enter__(self) -> Progress:
        self._draw(force=True)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def advance(self, n: float, extra: str | None = None) -> None:
        """Adds n units of finished work."""
        self.update(self.done + n, extra)

    def update(self, done: float, extra: str | None = None) -> None:
        """Sets the finished work to `done` units (and an optional trailing note)."""
        self.done = min(done, self.total)
        if extra is not None:
            self.extra = extra
        self._draw()

    def line(self) -> str:
        """Returns the bar's current text."""
        frac = self.done / self.total
        filled = int(frac * self.WIDTH)
        elapsed = time.monotonic() - self.start
        rate = (
            f" {_human(self.done / elapsed)} {self.unit}/s"
            if elapsed > 0 and self.unit != "s"
            else ""
        )
        bar = "#" * filled + "." * (self.WIDTH - filled)
        text = (
            f"{self.label} [{bar}] {frac:4.0%} {_human(self.done)}/{_human(self.total)} {self.unit}"
        )
        return text + rate + (f"  {self.extra}" if self.extra else "")

    def _draw(self, force: bool = False) -> None:
        now = time.monotonic()
        if self.tty:
            if force or now - self._last_draw >= 0.1:
                self.stream.write("\r\x1b[K" + self.line())
                self.stream.flush()
                self._last_draw = now
            return
        decile = int(10 * self.done / self.total)
        if force or decile > self._last_decile:
            self._last_decile = decile
            self.stream.write(self.line() + "\n")
            self.stream.flush()

    def close(self) -> None:
        """Draws the final state and ends the line."""
        if self.tty:
            self.stream.write("\r\x1b[K" + self.line() + "\n")
            self.stream.flush()
        elif self._last_decile < 10:
            self._last_decile = 10
            self.stream.write(self.line() + "\n")
            self.stream.flush()
