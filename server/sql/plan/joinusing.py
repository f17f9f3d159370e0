"""`JOIN ... USING (...)` and `NATURAL JOIN`: the merged columns, as PostgreSQL builds them.

A USING join outputs each USING column once, first, in USING order (NATURAL: the common
names in the left input's order), then the left input's other columns, then the right's.
The merged column is the left input's value for an INNER or LEFT join, the right's for a
RIGHT join and `COALESCE(left, right)` for a FULL join, converted to the two columns'
common type (PostgreSQL's buildMergedJoinVar). Both input columns stay reachable by their
qualified names (`a.id`, `b.id`) and in `a.*` / `b.*`, but not in `*` or as a bare `id`
(they are `hidden` and `joined`). `USING (id) AS j` names the merged columns `j.id`.

So the join gets a Project on top: `[left's columns before the comma item it joins,
merged columns, the rest of left, right]`. Its merged expressions of an INNER, LEFT or
RIGHT join are plain column references, which the optimizer's filter rules see through.

>>> from ...pgtypes import oids as T
>>> left = [N.PCol("x", T.INT4, qualifier="a"), N.PCol("id", T.INT4, qualifier="a")]
>>> right = [N.PCol("id", T.INT8, qualifier="b"), N.PCol("y", T.INT4, qualifier="b")]
>>> natural_names(left, right, 0)
['id']
>>> cols, exprs = merged_columns(left, right, [(1, 0)], 0, "full", None)
>>> [(c.name, c.qualifier, c.type) for c in cols]
[('id', None, 20), ('x', 'a', 23), ('id', 'a', 23), ('id', 'b', 20), ('y', 'b', 23)]
>>> [i for i, c in enumerate(cols) if c.hidden and c.joined]
[2, 3]
>>> exprs[0].kind, [a.type for a in exprs[0].args]
('coalesce', [20, 20])
"""

from __future__ import annotations

import dataclasses

from ...errors import AmbiguousColumn, DuplicateColumn, UndefinedColumn
from ..expr.bound import E, col
from ..expr.commontype import select_common_type
from ..expr.functions import coerce
from . import nodes as N

__all__ = ["merged_columns", "natural_names", "using_pairs"]


def _names(cols: list[N.PCol], start: int = 0) -> list[tuple[int, str]]:
    """(index, name) of the columns `*` shows, from `start` on: a USING join sees those."""
    return [(i, c.name) for i, c in enumerate(cols)
            if i >= start and not c.hidden and not c.dropped]


def natural_names(left: list[N.PCol], right: list[N.PCol], start: int) -> list[str]:
    """NATURAL's USING list: the names both sides show, in the left side's order."""
    rnames = {n for _, n in _names(right)}
    out: list[str] = []
    for _, n in _names(left, start):
        if n in rnames and n not in out:
            out.append(n)
    return out


def using_pairs(names: list[str], left: list[N.PCol], right: list[N.PCol],
                start: int) -> list[tuple[int, int]]:
    """(left index, right index) per USING name, with PostgreSQL's checks and errors (the
    types' common type before the `=` operator: `int = text` is 42804, not 42883)."""
    seen: set[str] = set()
    for n in names:
        if n in seen:
            raise DuplicateColumn(f'column name "{n}" appears more than once in USING clause')
        seen.add(n)
    pairs = []
    for n in names:
        sides = []
        for what, cols, first in (("left", left, start), ("right", right, 0)):
            hits = [i for i, x in _names(cols, first) if x == n]
            if not hits:
                raise UndefinedColumn(
                    f'column "{n}" specified in USING clause does not exist in {what} table')
            if len(hits) > 1:
                raise AmbiguousColumn(
                    f'common column name "{n}" appears more than once in {what} table')
            sides.append(hits[0])
        select_common_type([left[sides[0]].type, right[sides[1]].type], "JOIN/USING")  # 42804
        pairs.append((sides[0], sides[1]))
    return pairs


def merged_columns(left: list[N.PCol], right: list[N.PCol], pairs: list[tuple[int, int]],
                   start: int, kind: str, alias: str | None,
                   params: object = None) -> tuple[list[N.PCol], list[E]]:
    """The columns of the Project over a USING join of `left` and `right` (the Join's own
    columns are `left + right`) and the expressions computing them from the Join's row."""
    nl = len(left)
    merged: list[N.PCol] = []
    mexprs: list[E] = []
    for li, ri in pairs:
        lc, rc = left[li], right[ri]
        t = select_common_type([lc.type, rc.type], "JOIN/USING")
        lv = coerce(col(li, lc.type, lc.name, lc.typmod), t, params=params)
        rv = coerce(col(nl + ri, rc.type, rc.name, rc.typmod), t, params=params)
        if kind == "full":
            e = E("coalesce", None, [lv, rv], t, -1, lc.name)
            src = None
        else:  # NB: an INNER join takes a side needing no conversion, as PostgreSQL
            right_side = kind == "right" or kind == "inner" and lc.type != t and rc.type == t
            e = rv if right_side else lv
            src = rc if right_side else lc
        typmod = src.typmod if src is not None and src.type == t else (
            lc.typmod if lc.typmod == rc.typmod and lc.type == rc.type == t else -1)
        mc = N.PCol(lc.name, t, typmod, alias, fields=lc.fields, rowtype=lc.rowtype,
                    merged=True)
        if src is not None and src.type == t:  # NB: a plain column: its origin, as PG sends
            mc.table_oid, mc.attnum, mc.derived = src.table_oid, src.attnum, src.derived
        merged.append(mc)
        mexprs.append(e)
    inputs = [*left, *right]
    used = {li for li, _ in pairs} | {nl + ri for _, ri in pairs}
    cols = [dataclasses.replace(c, hidden=True, joined=True) if i in used else c
            for i, c in enumerate(inputs)]
    refs = [col(i, c.type, c.name, c.typmod) for i, c in enumerate(inputs)]
    return ([*cols[:start], *merged, *cols[start:]], [*refs[:start], *mexprs, *refs[start:]])
