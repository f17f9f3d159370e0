"""Executes held for one bulk run, and the splicing of their replies into the output.

`extended.ExtendedQuery` holds a run of Executes of one batchable statement on
the unnamed portal (see its docstring). While they are held, the messages
between them (Bind, Describe) are answered as usual, so their replies sit in
the output buffer past the point where each held Execute's own reply belongs.
A `HeldRun` remembers those points; `splice` cuts the output back to the first
one and hands back, per executed row, the replies that followed it, so the
caller writes row i's reply and then what came after it.

>>> run = HeldRun("stmt")
>>> out = bytearray(b"1")                        # BindComplete of row 0
>>> run.add(Portal("stmt", [0]), len(out)); out += b"2n"   # Execute 0; Bind+Describe 1
>>> run.add(Portal("stmt", [1]), len(out)); out += b"2n"   # Execute 1; Bind+Describe 2
>>> run.add(Portal("stmt", [2]), len(out))                 # Execute 2
>>> run.params()
[[0], [1], [2]]
>>> for portal, res, after in run.splice(out, ["ok0", "ok1", "ok2"]):
...     out += res.encode() + b";" + after
>>> bytes(out)
b'1ok0;2nok1;2nok2;'
>>> out = bytearray(b"12n2n")                    # the same run again: row 1 fails
>>> for portal, res, after in run.splice(out, ["ok0"]):
...     out += res.encode() + b";" + after
>>> bytes(out)                                   # row 1's Bind was answered, row 2's was not
b'1ok0;2n'
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

MAX_HELD = 8192  # rows per execute_many: bounds the parameters held


_INT_WIDTH = {21: 2, 23: 4, 20: 8}  # int2, int4, int8


def widest(a: Sequence[int], b: Sequence[int]) -> int:
    """Which of two parameter type lists holds the other's values when they differ only in
    integer widths: 1 (a), 2 (b) or 0 (neither, or another difference). psycopg types
    each integer by its value (int2, int4 or int8), so one executemany's rows arrive as
    several statements of the same text; run as the widest one, every row's values keep
    their meaning (see `extended._run_as` for when that holds).

    >>> widest([21, 25], [23, 25]), widest([20, 25], [23, 25]), widest([21, 21], [21, 21])
    (2, 1, 1)
    >>> widest([21, 23], [23, 21]), widest([21, 25], [23, 1043]), widest([21], [21, 21])
    (0, 0, 0)
    """
    if len(a) != len(b):
        return 0
    a_holds = b_holds = True
    for x, y in zip(a, b, strict=True):
        if x != y:
            wx, wy = _INT_WIDTH.get(x), _INT_WIDTH.get(y)
            if wx is None or wy is None:
                return 0
            if wx < wy:
                a_holds = False
            else:
                b_holds = False
    return 1 if a_holds else 2 if b_holds else 0


class Portal:
    """The part of `extended.Portal` a held run reads (for the doctest)."""

    def __init__(self, stmt: Any, params: list[Any]) -> None:
        self.stmt = stmt
        self.params = params


class HeldRun:
    """Held Executes of one statement: their portals and where their replies belong."""

    __slots__ = ("stmt", "portals", "marks")

    def __init__(self, stmt: Any) -> None:
        self.stmt = stmt
        self.portals: list[Any] = []
        self.marks: list[int] = []  # the output's length when each Execute arrived

    def takes(self, portal: Any, run_as: Any = None) -> bool:
        """Tells whether an Execute of `portal` can join the run: the same statement (or
        one the caller runs with it, `run_as`: see `widest`), a new portal (executing one
        twice must see the first's result), and room left."""
        return ((portal.stmt is self.stmt or run_as is not None) and len(self.portals) < MAX_HELD
                and (not self.portals or self.portals[-1] is not portal))

    def add(self, portal: Any, mark: int) -> None:
        self.portals.append(portal)
        self.marks.append(mark)

    def params(self) -> list[list[Any]]:
        return [p.params for p in self.portals]

    def splice(self, out: bytearray, results: list[Any]) -> Iterator[tuple[Any, Any, bytes]]:
        """Cuts `out` back to the first held Execute and yields (portal, result, the replies
        that followed its Execute) for each row that has a result; what followed the first
        row without one (a failure) is dropped."""
        base = self.marks[0]
        tail = bytes(out[base:])
        del out[base:]
        ends = self.marks[1:] + [base + len(tail)]
        for portal, res, mark, end in zip(self.portals, results, self.marks, ends, strict=False):
            yield portal, res, tail[mark - base:end - base]
