"""Whether PostgreSQL 15 would inline a SQL function's call, which decides its error CONTEXT.

The planner replaces a call of a simple SQL function (`SELECT expression`, or a `RETURN
expression` body) by the expression itself (inline_function). An error of the inlined
expression then carries no `SQL function "f" statement 1` line: if the planner folds it
over constant arguments, the error comes while inlining (`SQL function "f" during
inlining`); if it runs with the query, no line at all. An IMMUTABLE function over
constant arguments is instead run once by the planner (evaluate_function), so its
errors name the statement as a call does. Cumulo runs every call; `call_context` tells
the runner which CONTEXT line PostgreSQL would print for this call.

>>> from ..catalog.model import Function
>>> f = Function(1, "f", 2200, (23,), ("x",), 23, "sql", "select 1/x", "v", False)
>>> inlinable(f), inlinable(Function(1, "g", 2200, (23,), ("x",), 23, "sql", "select a from t",
...                                   "v", False))
(True, False)
>>> f_strict = Function(1, "f", 2200, (23, 23), ("x", "y"), 23, "sql", "select x", "v", True)
>>> inlinable(f_strict)  # a STRICT function whose expression ignores an argument
False
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import sqlglot
from sqlglot import exp

from ...pgtypes import oids as T
from ..catalog.model import Function
from .bound import E
from .volatility import volatility

# The call's CONTEXT, as `call_context` answers it
STATEMENTS = ""  # run statement by statement: `SQL function "f" statement n`
FOLDED = "inlining"  # inlined and folded while planning: `SQL function "f" during inlining`
INLINED = "inlined"  # inlined and run with the query: no line

_VARYING = frozenset({"col", "outer", "subquery", "exists", "in_sub", "srf", "srf_field",
                      "ctxfn"})
# Nodes PostgreSQL's contain_nonstrict_functions finds (a STRICT function with one of them
# in its expression is not inlined)
_NONSTRICT = (exp.Case, exp.If, exp.Coalesce, exp.Is, exp.And, exp.Or, exp.Not, exp.Nullif,
              exp.Array, exp.Func, exp.Subquery, exp.Exists)
_CACHE: dict[tuple[int, str], tuple[bool, bool]] = {}


def _expression(fn: Function) -> exp.Expression | None:
    """The single expression of a `SELECT expression` or `RETURN expression` body."""
    body = fn.body.strip().rstrip(";").strip()
    if fn.atomic and body[:7].upper() == "RETURN ":
        body = "SELECT " + body[7:]
    if ";" in re.sub(r"'(?:[^']|'')*'", "", body):
        return None
    try:
        tree = sqlglot.parse_one(body, read="postgres")
    except sqlglot.errors.SqlglotError:
        return None
    if not isinstance(tree, exp.Select) or len(tree.expressions) != 1:
        return None
    if any(v for k, v in tree.args.items() if k != "expressions"):
        return None  # NB: FROM, WHERE, GROUP BY, ORDER BY, LIMIT, DISTINCT, WITH ...
    if any(s is not tree for s in tree.find_all(exp.Select)):
        return None  # NB: a sub-SELECT makes a SubLink PostgreSQL does not inline
    return tree.expressions[0]


def _analysed(fn: Function) -> tuple[bool, bool]:
    """(inlinable, foldable: no function PostgreSQL would not fold over constants)."""
    key = (fn.oid, fn.body)
    got = _CACHE.get(key)
    if got is not None:
        return got
    ok, foldable = False, False
    if fn.language == "sql" and fn.kind == "f" and not fn.retset and not fn.secdef \
            and not fn.config and not fn.out_types and fn.returns not in (T.RECORD, T.VOID):
        e = _expression(fn)
        if e is not None:
            ok = True
            foldable = not any(isinstance(n, exp.Func) and not isinstance(n, exp.Cast)
                               for n in e.walk())
            if fn.strict:  # NB: the expression must be strict and use every argument
                used = {f"${i + 1}" for i in range(len(fn.arg_types))}
                seen = {f"${p.name}" for p in e.find_all(exp.Parameter)}
                seen |= {f"${i + 1}" for i, n in enumerate(fn.arg_names)
                         if n and any(c.name.lower() == n for c in e.find_all(exp.Column))}
                if seen != used or any(isinstance(n, _NONSTRICT) and not isinstance(n, exp.Cast)
                                       for n in e.walk()):
                    ok = False
    if len(_CACHE) > 4096:
        _CACHE.clear()
    _CACHE[key] = (ok, foldable)
    return ok, foldable


def inlinable(fn: Function) -> bool:
    """Whether PostgreSQL's inline_function would replace a call of `fn` by its expression."""
    return _analysed(fn)[0]


def _constant(e: E) -> bool:
    """An argument the planner folds to a constant before inlining."""
    return not any(n.kind in _VARYING for n in e.walk()) and volatility(e) == "i"


def call_context(fn: Function, args: Sequence[E]) -> str:
    """Which CONTEXT line a call of `fn` with these (bound) arguments gets (see above)."""
    if fn.language != "sql":
        return STATEMENTS
    ok, foldable = _analysed(fn)
    if not ok:
        return STATEMENTS
    constant = all(_constant(a) for a in args)
    if fn.volatility == "i" and constant:
        return STATEMENTS  # NB: evaluate_function runs it before inlining is tried
    return FOLDED if constant and foldable else INLINED
