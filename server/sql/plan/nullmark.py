"""Null-extension markers: telling a row an outer join padded from a real row of NULLs.

PostgreSQL evaluates a whole-row reference (`SELECT u FROM t LEFT JOIN u ON ...`) below
the join, so a padded `u` is NULL while a matched `u` whose fields are all NULL is `(,)`.
Here the whole row is built above the join from `u`'s columns, which are NULL in both
cases. So when a statement names a relation of an outer join's null side bare (a possible
whole-row reference), that side gets a hidden constant TRUE column per such relation: the
join pads it with NULL like every other column of the side, and the binder's whole row of
the relation is NULL exactly when one of its markers is (`records.MARKED`).

Only statements that mention such a name pay for the extra projection.

>>> from ...pgtypes import oids as T
>>> side = N.Values([N.PCol("a", T.INT4, qualifier="u")], rows=[[1]])
>>> marked = mark_null_side(side, {"u"}, itertools.count())
>>> [(c.name, c.qualifier, c.hidden) for c in marked.cols]
[('a', 'u', False), ('?nullext0', 'u', True)]
>>> markers(marked.cols, "u"), markers(marked.cols, "t")
([1], [])
>>> mark_null_side(side, {"t"}, itertools.count()) is side
True
"""

from __future__ import annotations

import itertools
from collections.abc import Collection

from ...pgtypes import oids as T
from ..expr.bound import E, const
from ..expr.wholerow import JOIN_ROW, MARK, MARK_ATTNUM, join_alias_row, markers
from . import nodes as N

__all__ = ["mark_join_alias", "mark_null_side", "markers", "whole_row_names"]


def whole_row_names(names: Collection[tuple[str, str]]) -> set[str]:
    """The relation names a statement may use as whole rows: bare column names (`u`) and
    the qualifiers of stars inside expressions (`row_to_json(u.*)`), from (table, name)
    pairs of its column references.

    >>> sorted(whole_row_names([("", "u"), ("t", "*"), ("t", "a")]))
    ['t', 'u']
    """
    return {name if not table else table for table, name in names if not table or name == "*"}


def _with_hidden(node: N.Node, extra: list[N.PCol]) -> N.Project:
    exprs = [E("col", i, [], c.type, c.typmod, c.name, c.fields) for i, c in enumerate(node.cols)]
    return N.Project([*node.cols, *extra], child=node,
                     exprs=[*exprs, *(const(True, T.BOOL) for _ in extra)])


def mark_join_alias(node: N.Node, alias: str, wanted: set[str]) -> N.Node:
    """A parenthesised join's output named `alias` (`(u JOIN w ON ...) AS j`): PostgreSQL
    builds `j`'s whole row from the join's columns wherever it is used, so a padded `j` is
    `(,,)`, not NULL. A hidden column tells the binder so (`wholerow.JOIN_ROW`)."""
    if alias not in wanted:
        return node
    return _with_hidden(node, [N.PCol(JOIN_ROW, T.BOOL, -1, alias, 0, MARK_ATTNUM, hidden=True)])


def mark_null_side(node: N.Node, wanted: set[str], serial: itertools.count) -> N.Node:
    """`node` (an outer join's null side) with a marker column per relation in it that
    `wanted` names, or `node` itself when it holds none."""
    quals: list[str] = []
    for c in node.cols:
        if c.qualifier in wanted and not c.hidden and c.qualifier not in quals:
            quals.append(c.qualifier)
    quals = [q for q in quals if not join_alias_row(node.cols, q)]  # never NULL as a whole
    if not quals:
        return node
    return _with_hidden(node, [N.PCol(f"{MARK}{next(serial)}", T.BOOL, -1, q, 0, MARK_ATTNUM,
                                      hidden=True) for q in quals])
