"""Typing a hypothetical-set aggregate call (`rank(3) WITHIN GROUP (ORDER BY x)`), as
PostgreSQL's parse_agg.c does: one direct argument per ORDER BY key, each pair resolved to a
common type (42804 `WITHIN GROUP types text and integer cannot be matched`), both sides
coerced to it; a count mismatch is 42883 naming the call's argument types, with PostgreSQL's
hint. The aggregate itself is `functions.hypsetaggs`.
"""

from __future__ import annotations

from typing import Any

from ...errors import GroupingError, UndefinedFunction
from ...pgtypes import oids as T
from ..expr import types as ty
from ..expr.bound import E
from ..expr.commontype import select_common_type
from ..expr.functions import coerce
from . import nodes as N


def typed_hypothetical(name: str, direct: list[E], keys: list[N.SortKey],
                       params: Any) -> tuple[list[E], list[N.SortKey], int]:
    """(direct args, sort keys, result type) of a hypothetical-set aggregate call."""
    if len(direct) != len(keys):
        shown = ", ".join(ty.type_name(e.type) for e in [*direct, *(k.expr for k in keys)])
        raise UndefinedFunction(
            f"function {name}({shown}) does not exist",
            hint=f"To use the hypothetical-set aggregate {name}, the number of hypothetical "
                 f"direct arguments (here {len(direct)}) must match the number of ordering "
                 f"columns (here {len(keys)}).")
    args, out = [], []
    for d, k in zip(direct, keys, strict=True):
        common = select_common_type([k.expr.type, d.type], "WITHIN GROUP")
        args.append(coerce(d, common, params=params))
        out.append(N.SortKey(coerce(k.expr, common, params=params), k.desc, k.nulls_first))
    return args, out, T.INT8 if name in ("rank", "dense_rank") else T.FLOAT8


def check_grouped(direct: list[E], groups: list[E], cols: list[N.PCol]) -> None:
    """42803 when a direct argument of an ordered-set or hypothetical-set aggregate reads a
    column the GROUP BY does not (it is evaluated once per group, as PostgreSQL's)."""
    grouped = {g.data for g in groups if g.kind == "col"}
    for d in direct:
        for x in d.walk():
            if x.kind == "col" and x.data not in grouped and x.data < len(cols):
                c = cols[x.data]
                shown = f"{c.qualifier}.{c.name}" if c.qualifier else c.name
                raise GroupingError(
                    f'column "{shown}" must appear in the GROUP BY clause or be used in an '
                    "aggregate function",
                    detail="Direct arguments of an ordered-set aggregate must use only "
                           "grouped columns.")
