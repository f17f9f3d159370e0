"""42P18 for a parameter nothing types: PostgreSQL's check_variable_parameters.

A statement prepared with `$2` but no `$1` (`SELECT $2::int`), whose Parse left $1's type
unspecified, has a parameter PostgreSQL cannot type: Parse fails with 42P18
`could not determine data type of parameter $1`, where a server that settled it to text
would hand the client a parameter it never uses. Parameters the statement mentions are
typed by inference (or settled to text where PostgreSQL's unknown-literal rules would).

>>> import sqlglot
>>> sorted(referenced(sqlglot.parse_one("SELECT $2::int, (SELECT $4)", read="postgres")))
[2, 4]
>>> untyped_gap(sqlglot.parse_one("SELECT $2::int", read="postgres"), [], 2)
1
>>> untyped_gap(sqlglot.parse_one("SELECT $2::int", read="postgres"), [23, 23], 2) is None
True
>>> only_untyped_uses(sqlglot.parse_one("SELECT $1 IS NULL", read="postgres"), 1)
True
>>> only_untyped_uses(sqlglot.parse_one("SELECT $1 IS NULL OR a = $1", read="postgres"), 1)
False
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp

from ...errors import SQLError


def referenced(tree: exp.Expression) -> set[int]:
    """The parameter numbers a statement's syntax tree mentions."""
    out = set()
    for p in tree.find_all(exp.Parameter, exp.Placeholder):
        text = p.this.this if isinstance(p.this, exp.Expression) else p.this
        if str(text).isdigit():
            out.add(int(str(text)))
    return out


def untyped_gap(tree: exp.Expression, declared: Sequence[int], count: int) -> int | None:
    """The first of $1..$count that is neither declared nor mentioned, else None."""
    used = referenced(tree)
    for n in range(1, count + 1):
        if n not in used and (n > len(declared) or not declared[n - 1]):
            return n
    return None


_ANY_ARGS = frozenset({"jsonb_build_object", "json_build_object", "pg_typeof", "concat"})


def _untyping(p: exp.Expression) -> bool:
    """True where PostgreSQL gives a parameter no type: `$1 IS [NOT] NULL`, an argument of
    type "any" (concat, format's values, json[b]_build_object, pg_typeof, count)."""
    parent = p.parent
    if isinstance(parent, exp.Is) and p.arg_key == "this" and isinstance(parent.expression, exp.Null):
        return True
    if isinstance(parent, exp.Concat | exp.Count):
        return True
    if isinstance(parent, exp.Format):
        return p.arg_key == "expressions"
    return isinstance(parent, exp.Anonymous) and str(parent.this).lower() in _ANY_ARGS


def only_untyped_uses(tree: exp.Expression, n: int) -> bool:
    """True when every mention of $n is in a place that gives it no type."""
    uses = [p for p in tree.find_all(exp.Parameter)
            if str(p.this.this if isinstance(p.this, exp.Expression) else p.this) == str(n)]
    return bool(uses) and all(_untyping(p) for p in uses)


def check_parameters(tree: exp.Expression, declared: Sequence[int], count: int,
                     settled: Sequence[int] = ()) -> None:
    """Raises PostgreSQL's 42P18 for a parameter nothing types (`settled`: those the
    planner found no type for; only those whose every use gives none, `$1 IS NULL`, fail:
    where the planner infers less than PostgreSQL, text stays the answer)."""
    n = untyped_gap(tree, declared, count)
    if n is None:
        n = next((k for k in settled if only_untyped_uses(tree, k)), None)
    if n is not None:
        raise SQLError(f"could not determine data type of parameter ${n}", sqlstate="42P18")
