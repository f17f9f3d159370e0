"""The checks PostgreSQL's select_common_type makes on a UNION / INTERSECT / EXCEPT column.

`types.common_type` picks the type both sides go out as; before it does, PostgreSQL
refuses sides that cannot meet at all, and a query must fail the same way here rather
than later, as a cast error on some row (`SELECT 1 UNION SELECT 'a'::text` is 42804, not
22P02). A whole row is its table's row type (category C) and `ROW(1, 2)` is `record`
(a pseudo-type): `t UNION ROW(1, 2)` is 42804, `t UNION v` (two row types) is 42846, and
`t UNION NULL` stays typed `t`.

Only whole rows and records are checked here (`commontype` types the rest); an untyped
literal or NULL comes as `unknown` and takes the row type (`t UNION SELECT NULL`).

>>> names = {16385: "t", 16390: "v"}.get
>>> setop_rowtype("UNION", [(T.RECORD, 16385), (T.UNKNOWN, 0)], names)
16385
>>> setop_rowtype("UNION", [(T.RECORD, 16385), (T.RECORD, 0)], names)
Traceback (most recent call last):
...
cumulo.server.errors.DatatypeMismatch: UNION types t and record cannot be matched
>>> setop_rowtype("EXCEPT", [(T.RECORD, 16385), (T.RECORD, 16390)], names)
Traceback (most recent call last):
...
cumulo.server.errors.CannotCoerce: EXCEPT could not convert type v to t
>>> setop_rowtype("INTERSECT", [(T.INT4, 0), (T.RECORD, 0)], names)
Traceback (most recent call last):
...
cumulo.server.errors.DatatypeMismatch: INTERSECT types integer and record cannot be matched
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ...errors import CannotCoerce, DatatypeMismatch
from ...pgtypes import oids as T
from .types import category, type_name


def _category(oid: int, rowtype: int) -> str:
    if rowtype:
        return "C"
    if oid == T.RECORD:
        return "P"
    return category(oid)


def setop_rowtype(op: str, sides: Sequence[tuple[int, int]],
                  row_name: Callable[[int], str | None]) -> int:
    """The row type one output column keeps (0 when it is not a whole row), given each
    side's (type, row type); raises PostgreSQL's error when the sides cannot be matched."""
    if not any(o == T.RECORD for o, _ in sides):  # NB: t[] UNION t[] is still t[]
        return sides[0][1] if len({r for _, r in sides}) == 1 else 0
    known = [(o, r) for o, r in sides if o != T.UNKNOWN]
    if not known:
        return 0
    first, frow = known[0]
    fcat = _category(first, frow)

    def name(oid: int, rowtype: int) -> str:
        return (row_name(rowtype) or type_name(rowtype)) if rowtype else type_name(oid)

    for oid, row in known[1:]:
        if (oid, row) == (first, frow):
            continue
        cat = _category(oid, row)
        if cat != fcat:
            raise DatatypeMismatch(f"{op} types {name(first, frow)} and {name(oid, row)} "
                                   "cannot be matched")
        if cat == fcat == "C":
            raise CannotCoerce(f"{op} could not convert type {name(oid, row)} to "
                               f"{name(first, frow)}")
    return frow
