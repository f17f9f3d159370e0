"""Simple-protocol texts that differ only in one trailing integer: normalised without a scan.

`pgbench -S -M simple` sends `SELECT abalance FROM pgbench_accounts WHERE aid = 48213;`
with a new number each time. `parse.normalize` turns it into `... aid = $1;` so
that every such text shares one plan, but it scans the whole text with its
literal regex to get there, for every statement. When the only literal of a
text is an unsigned integer at its very end (followed by nothing but spaces
and semicolons), the text before and after that integer is the statement's
shape: once `normalize` has answered for one text of a shape, every other
text of it gets the same answer by splitting off the digits.

Why it is exact: the digits are the only part that varies, and `normalize`
(its bail-outs, the IN-list check and its literal scan) treats every run of
ASCII digits in that position alike; the only value-dependent cases
(-2147483648 and integers past bigint) are left to `normalize`.

    >>> shapes = IntTailShapes()
    >>> text = "SELECT a FROM t WHERE id = 42;"
    >>> shapes.lookup(text) is None  # not learnt yet
    True
    >>> shapes.learn(text, ("SELECT a FROM t WHERE id = $1;", (42,), (23,)))
    >>> shapes.lookup("SELECT a FROM t WHERE id = 7000000000;")
    ('SELECT a FROM t WHERE id = $1;', (7000000000,), (20,))
    >>> shapes.lookup("SELECT a FROM t WHERE id = 'x';") is None
    True
"""

from __future__ import annotations

from typing import Any

_TAIL = " \t\r\n;"
_INT4_MAX = 2**31 - 1
_INT8_MAX = 2**63 - 1
_MAX_SHAPES = 256


def split_tail(text: str) -> tuple[str, int, str] | None:
    """(head, integer, tail) when `text` ends in ASCII digits followed only by spaces and `;`.

    >>> split_tail("select 1 + 22 ;")
    ('select 1 + ', 22, ' ;')
    >>> split_tail("select x") is None
    True
    """
    end = len(text.rstrip(_TAIL))
    start = end
    while start > 0 and "0" <= text[start - 1] <= "9":
        start -= 1
    if start == end:
        return None
    return text[:start], int(text[start:end]), text[end:]


class IntTailShapes:
    """One session's shapes (head, tail) whose trailing integer `normalize` made `$1`."""

    def __init__(self) -> None:
        self._known: set[tuple[str, str]] = set()

    def lookup(self, text: str) -> tuple[str, tuple[Any, ...], tuple[int, ...]] | None:
        """What `parse.normalize(text)` returns, if the text's shape is known; else None."""
        if not self._known:
            return None
        split = split_tail(text)
        if split is None:
            return None
        head, value, tail = split
        if (head, tail) not in self._known or value > _INT8_MAX or value == _INT4_MAX + 1:
            return None  # NB: -2147483648 and numerics past bigint: normalize decides
        oid = 23 if value <= _INT4_MAX else 20
        return f"{head}$1{tail}", (value,), (oid,)

    def learn(self, text: str, norm: tuple[str, tuple[Any, ...], tuple[int, ...]]) -> None:
        """Records the shape of `text` if `normalize` made its trailing integer, and only
        that, the parameter."""
        split = split_tail(text)
        if split is None:
            return
        head, value, tail = split
        if norm[1] != (value,) or type(norm[1][0]) is not int or norm[0] != f"{head}$1{tail}":
            return
        if len(self._known) >= _MAX_SHAPES:
            self._known.clear()
        self._known.add((head, tail))
