"""The column types of a UNION / INTERSECT / EXCEPT, as PostgreSQL's transformSetOperationTree.

A leaf SELECT's untyped literal (`'(3,4)'`, `NULL`) is not text to a set operation: it
stays `unknown` and takes the type the other side gives the column, so
`t UNION SELECT '(3,4)'` reads the literal as a `t` and `SELECT '1' UNION SELECT 2` is an
integer column. Only a SELECT written directly as an operand keeps its literals untyped;
a subquery in FROM, a VALUES list and a nested set operation have already made theirs
text (`SELECT 1 UNION (SELECT '2' UNION SELECT '3')` is 42804, as in PostgreSQL).

The binder folds such a literal to text before the set operation sees it; `untyped_columns`
finds them again in the syntax tree, and `row_input` reads the text as the other side's
row type when that is a table's row.

>>> import sqlglot
>>> sorted(untyped_columns(sqlglot.parse_one("SELECT 1, 'a', NULL, 'b'::text AS x")))
[1, 2]
>>> untyped_columns(sqlglot.parse_one("VALUES ('a')"))
set()
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlglot import exp

from ...pgtypes import oids as T
from ...pgtypes.records import text_decoder
from ..expr.bound import E
from ..expr.casts import cast_function
from ..expr.commontype import select_common_type
from ..expr.setoptypes import setop_rowtype
from . import nodes as N


def _select_list(q: exp.Expression) -> list[exp.Expression]:
    """The items of operand `q` when it is a SELECT written in place (no `*`), else []."""
    while isinstance(q, exp.Subquery | exp.Paren) and not q.args.get("alias"):
        q = q.this
    if not isinstance(q, exp.Select) or any(isinstance(x, exp.Star) for x in q.expressions):
        return []
    return [x.this if isinstance(x, exp.Alias) else x for x in q.expressions]


def untyped_columns(q: exp.Expression) -> set[int]:
    """Positions of the select list of operand `q` that are untyped literals or NULL."""
    out = set()
    for i, x in enumerate(_select_list(q)):
        if isinstance(x, exp.Cast) and x.to.this == exp.DataType.Type.UNKNOWN:
            x = x.this  # '1'::unknown
        if isinstance(x, exp.Null) or (isinstance(x, exp.Literal) and x.is_string):
            out.add(i)
    return out


def parameter_columns(q: exp.Expression) -> dict[int, int]:
    """Positions of the select list of operand `q` that are a bare `$n`, with their n: an
    untyped parameter there takes the column's type (`SELECT $1 UNION SELECT 1`: int4)."""
    out = {}
    for i, x in enumerate(_select_list(q)):
        if isinstance(x, exp.Parameter):
            out[i] = int(x.this.this if isinstance(x.this, exp.Expression) else x.this)
        elif isinstance(x, exp.Placeholder) and x.name.isdigit():
            out[i] = int(x.name)
    return out


def column_types(op: str, pairs: Sequence[tuple[N.PCol, N.PCol]], untyped: tuple[set[int], set[int]],
                 row_name: Callable[[int], str | None]) -> list[tuple[int, int, int]]:
    """Each output column's (type, typmod, row type); raises PostgreSQL's errors."""
    out = []
    for i, (a, b) in enumerate(pairs):
        ta = T.UNKNOWN if i in untyped[0] else a.type
        tb = T.UNKNOWN if i in untyped[1] else b.type
        rowtype = setop_rowtype(op, [(ta, a.rowtype), (tb, b.rowtype)], row_name)
        t = select_common_type([ta, tb], op)
        typmod = a.typmod if ta == tb == t and a.typmod == b.typmod else -1
        out.append((t, typmod, rowtype))
    return out


def row_input(node: N.Node, idx: list[int], fields: dict[int, tuple]) -> N.Node:
    """`node` with its untyped columns at visible positions `fields` read as records of
    those (name, type) fields (record_in of a table's row type), the rest passed through."""
    exprs: list[E] = []
    cols: list[N.PCol] = []
    for k, i in enumerate(idx):
        c = node.cols[i]
        ref = E("col", i, [], c.type, c.typmod, c.name)
        if k in fields:
            f = fields[k]
            dec = text_decoder(tuple(o for _, o in f), _field_input)
            exprs.append(E("cast", dec, [ref], T.RECORD, -1, c.name, f))
            cols.append(N.PCol(c.name, T.RECORD))
        else:
            exprs.append(ref)
            cols.append(c)
    return N.Project(cols, child=node, exprs=exprs)


def _field_input(oid: int) -> Callable[[str], Any]:
    fn = cast_function(T.TEXT, oid)
    return fn if fn is not None else str
