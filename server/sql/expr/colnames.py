"""How strongly an expression names its result column: PostgreSQL's FigureColnameInternal.

PostgreSQL names an unaliased select item by walking its syntax: a column reference or a
function call names it firmly (strength 2: `a::text` is `a`, `pg_typeof(x)::text` is
`pg_typeof`, `now()::date` is `now`), a cast of anything weaker names it after the type
(strength 1: `'1'::int` is `int4`, `(a + 1)::text` is `text`), and an operator or a
constant not at all (0: `?column?`). The binder keeps the names; this says, for a cast,
whether its operand's name wins over the type's.

>>> import sqlglot
>>> [strength(sqlglot.parse_one(f"SELECT {x}", read="postgres").expressions[0])
...  for x in ("a", "f(a)", "a + 1", "'x'", "true", "'1'::int", "(a::text)::int", "CASE WHEN true THEN 1 END")]
[2, 2, 0, 0, 0, 1, 2, 1]
"""

from __future__ import annotations

from sqlglot import exp

# sqlglot parses these PostgreSQL operators as function nodes; PostgreSQL names them nothing.
_OPERATOR_FUNCS = (exp.RegexpLike, exp.RegexpILike, exp.JSONExtract, exp.JSONExtractScalar,
                   exp.JSONBExtract, exp.JSONBExtractScalar, exp.JSONBContains, exp.ArrayContains,
                   exp.ArrayContainsAll, exp.ArrayOverlaps)


def strength(node: exp.Expression) -> int:
    """2: names the column firmly; 1: a cast's type name; 0: no name (`?column?`)."""
    while isinstance(node, exp.Paren | exp.Collate):
        node = node.this
    if isinstance(node, exp.Cast):
        if isinstance(node.this, exp.IntDiv):  # sqlglot's div(a, b): a call, not a cast
            return 2
        inner = strength(node.this)
        return inner if inner > 1 else 1
    if isinstance(node, exp.Column):
        return 0 if isinstance(node.this, exp.Star) else 2
    if isinstance(node, exp.Dot):
        return 2
    if isinstance(node, exp.Bracket):  # a subscript: its array's name
        return strength(node.this)
    if isinstance(node, exp.Case):  # its ELSE's name if that is firm, else `case` (1)
        default = node.args.get("default")
        return max(1, strength(default)) if default is not None else 1
    if isinstance(node, exp.Array | exp.Exists | exp.Subquery | exp.Tuple):  # (1, 'a') is `row`
        return 2
    if isinstance(node, exp.WithinGroup):  # percentile_cont(0.5) WITHIN GROUP (...): its call's
        node = node.this
    if isinstance(node, exp.Corr):  # NB: sqlglot's Corr is a Binary; corr(y, x) is a call
        return 2
    if isinstance(node, exp.Binary | exp.Unary | exp.Predicate | exp.Literal | exp.Boolean
                  | exp.Null | exp.Placeholder | exp.Parameter) or isinstance(node, _OPERATOR_FUNCS):
        return 0
    return 2 if isinstance(node, exp.Func) else 0


def trim_name(node: exp.Trim) -> str:
    """PostgreSQL names `trim(...)` after the function it becomes: btrim, ltrim or rtrim."""
    pos = str(node.args.get("position") or "").upper()
    return {"LEADING": "ltrim", "TRAILING": "rtrim"}.get(pos, "btrim")
