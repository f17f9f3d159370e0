"""After a restart, the columnar copies a node had are built again in the background.

A region's copy lives in memory only, so after a restart the first columnar
query of each table built it: 11.5-15.1 s for the first TPC-H query at SF 0.1
(load 8-10), paid by whichever client came first. Instead the node remembers
which spaces had a copy, in a marker file beside its checkpoint files
(`MARKER`: one space id a line). It is written when a space first gets a copy
and rewritten at every checkpoint (the spaces with a copy then, and those still
waiting to be built), never fsynced: it is a hint, and a lost one only means
the old behaviour, a build in the first query.

At start the node reads it (`Warmup.waiting`). Once recovery is done and the
first quiet garbage-collection pass has frozen the recovered rows (the
transaction layer calls `KiviNode.warm_columnar` on a thread of its own), the
copies are built one space at a time, outside the node lock and paced as
analytic scans are. While a space waits, a query under `cumulo.columnar = auto`
reads it by the row path (`KiviNode.columnar(..., wait=False)`) instead of
waiting for the build; `on` builds or waits as before.

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> w = Warmup(d)
    >>> sorted(w.waiting), w.built(7), w.built(7), read_marker(d)
    ([], True, False, {7})
    >>> w = Warmup(d); w.waiting |= {3, 9}; w.asked(9); w.next(), w.next()
    (9, 3)
    >>> write_marker(d, [3, 9]); sorted(read_marker(d))
    [3, 9]
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from pathlib import Path

MARKER = "COLUMNAR"


def read_marker(directory: Path) -> set[int]:
    """The spaces the marker names (none when there is no marker, or it is unreadable)."""
    try:
        text = (directory / MARKER).read_text()
    except (FileNotFoundError, UnicodeDecodeError):
        return set()
    return {int(w) for w in text.split() if w.isdigit()}


def write_marker(directory: Path, spaces: Iterable[int]) -> None:
    """Replaces the marker with `spaces` (atomically, not durably: a hint)."""
    tmp = directory / (MARKER + ".new")
    tmp.write_text("".join(f"{s}\n" for s in sorted(set(spaces))))
    os.replace(tmp, directory / MARKER)


class Warmup:
    """A node's marker: the spaces to build after a restart, and those recorded as built."""

    __slots__ = ("directory", "waiting", "marked", "wanted", "_mutex")

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        self.waiting: set[int] = read_marker(directory) if directory is not None else set()
        self.marked: set[int] = set(self.waiting)  # what the file on disk names
        self._mutex = threading.Lock()  # one writer of the file at a time (never held long)
        self.wanted: dict[int, None] = {}  # spaces queries asked for while waiting, in order

    def asked(self, space: int) -> None:
        """Notes that a query read `space` by rows because its copy waits: built first."""
        if space in self.waiting:
            self.wanted.setdefault(space, None)

    def next(self) -> int | None:
        """The next space to build: the first one a query asked for, else the lowest."""
        for space in list(self.wanted):
            self.wanted.pop(space, None)
            if space in self.waiting:
                return space
        return min(self.waiting, default=None)

    def built(self, space: int) -> bool:
        """Notes that `space` has a copy; True when the marker had to be rewritten."""
        if space in self.marked or self.directory is None:
            return False
        with self._mutex:
            self.marked.add(space)
            write_marker(self.directory, self.marked)
        return True

    def checkpoint(self, with_copies: Iterable[int]) -> None:
        """Rewrites the marker at a checkpoint: the spaces with a copy now, and those still
        waiting to be built (a dropped table's space leaves it here)."""
        if self.directory is None:
            return
        spaces = set(with_copies) | self.waiting
        with self._mutex:
            if spaces != self.marked:
                self.marked = spaces
                write_marker(self.directory, spaces)


__all__ = ["MARKER", "Warmup", "read_marker", "write_marker"]
