"""pg_cast: PostgreSQL 15's rows for the casts Cumulo performs.

The rows come from `expr.pgcasts.PG_CASTS`, the table the binder's implicit and
assignment rules are derived from, kept where both types exist here (pg_type lists
them) and `cast_function` converts between them (or, for the geometric types, the
binder calls the target type's function); casts Cumulo refuses are left out rather than
promised. OIDs, functions,
contexts and methods are PostgreSQL's, so psql's `\\dC` prints what it prints there,
and the cast functions it names are in pg_proc (`cast_procs`), even where Cumulo
calls its own converter rather than a function of that name.

>>> rows = {r[1:3]: r for r in pg_cast(None)}
>>> rows[(20, 23)], rows[(23, 20)][4], rows[(25, 1043)][5]
((10001, 20, 23, 480, 'a', 'f'), 'i', 'b')
>>> (790, 1700) in rows, (790, 701) in rows  # money -> numeric, not -> float8
(True, False)
"""

from __future__ import annotations

from functools import cache
from typing import Any

from ...pgtypes import geometry
from ..expr.casts import cast_function
from ..expr.pgcasts import CAST_FUNCTIONS, PG_CASTS
from .registry import pg_relation
from .systypes import builtin_type_row


def _performed(src: int, dst: int) -> bool:
    if (src, dst) in geometry.CASTS:  # NB: the binder calls the target's function
        return True
    try:
        cast_function(src, dst)
    except Exception:  # NB: CannotCoerce, or a converter that cannot be built for this pair
        return False
    return True


@cache
def cast_rows() -> tuple[tuple[int, int, int, int, str, str], ...]:
    return tuple(r for r in PG_CASTS if builtin_type_row(r[1]) is not None
                 and builtin_type_row(r[2]) is not None and _performed(r[1], r[2]))


@pg_relation("pg_catalog", "pg_cast")
def pg_cast(ctx: Any) -> tuple[tuple[int, int, int, int, str, str], ...]:
    """The built-in casts Cumulo performs, with PostgreSQL 15's OIDs."""
    return cast_rows()


def cast_procs() -> list[tuple[int, str, tuple[int, ...], int, str, str]]:
    """The functions pg_cast's rows name: (oid, name, argument types, result, provolatile,
    prosrc)."""
    named = {r[3] for r in cast_rows()}
    return [f for f in CAST_FUNCTIONS if f[0] in named]
