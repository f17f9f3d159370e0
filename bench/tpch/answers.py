"""Checks a query's rows against TPC-H's reference answer (strings from DuckDB's extension).

The reference prints numbers as DuckDB does (decimals with their scale, averages
as doubles with 15-17 digits), dates as ISO text and strings unpadded. A value
from a PostgreSQL client is compared by kind: numbers within a relative 1e-9
(an average over decimals is exact in PostgreSQL and a double in DuckDB) or
0.005 absolute (money rounded to cents), dates and strings as text. Row order
must match where the query orders its rows; the reference keeps ties in an
order of its own, so a multiset match is accepted as well.

Example:
    >>> from decimal import Decimal
    >>> mismatch([(Decimal("1.50"), "x")], [("1.5", "x")]) is None
    True
    >>> mismatch([(2, "x")], [("1", "x")])
    'row 1 column 1: got 2, want 1'
"""

from __future__ import annotations

import datetime
import math
from decimal import Decimal, InvalidOperation

REL = 1e-9
ABS = 0.005


def _same(got: object, want: str) -> bool:
    if got is None:
        return want in ("NULL", "")
    if isinstance(got, bool):
        return str(got).lower() == want.lower()
    if isinstance(got, int | float | Decimal):
        try:
            w = float(Decimal(want))
        except InvalidOperation:
            return False
        g = float(got)
        return math.isclose(g, w, rel_tol=REL, abs_tol=ABS)
    if isinstance(got, datetime.date):
        return got.isoformat() == want
    return str(got).rstrip() == want.rstrip()


def _row_mismatch(i: int, got: tuple, want: tuple[str, ...]) -> str | None:
    if len(got) != len(want):
        return f"row {i + 1}: {len(got)} columns, want {len(want)}"
    for j, (g, w) in enumerate(zip(got, want, strict=True)):
        if not _same(g, w):
            return f"row {i + 1} column {j + 1}: got {g}, want {w}"
    return None


def _key(row: tuple) -> tuple[str, ...]:
    out = []
    for v in row:
        if isinstance(v, int | float | Decimal) and not isinstance(v, bool):
            out.append(f"{float(v):.6g}")
        elif isinstance(v, datetime.date):
            out.append(v.isoformat())
        else:
            out.append(str(v).rstrip())
    return tuple(out)


def mismatch(got: list[tuple], want: list[tuple[str, ...]]) -> str | None:
    """Returns None when `got` is the reference answer `want`, else what differs first."""
    if len(got) != len(want):
        return f"{len(got)} rows, want {len(want)}"
    first = None
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        first = _row_mismatch(i, g, w)
        if first:
            break
    if first is None:
        return None
    # ties in ORDER BY may come in another order: accept the same rows as a multiset
    wanted = sorted(zip((_key(tuple(_parse(v) for v in w)) for w in want), want, strict=True))
    gotten = sorted(zip((_key(g) for g in got), got, strict=True), key=lambda p: p[0])
    for i, ((_, g), (_, w)) in enumerate(zip(gotten, wanted, strict=True)):
        if _row_mismatch(i, g, w):
            return first
    return None


def _parse(text: str) -> object:
    """Reads a reference value back into a number or a date where it is one (for sorting)."""
    try:
        return Decimal(text)
    except InvalidOperation:
        pass
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        return text
