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


def check_parameters(tree: exp.Expression, declared: Sequence[int], count: int,
                     settled: Sequence[int] = ()) -> None:
    """Raises PostgreSQL's 42P18 for a parameter nothing types (`settled`: those the
    planner found no type for, `$1 IS NULL`)."""
    n = untyped_gap(tree, declared, count)
    if n is None:
        n = next((k for k in settled if k in referenced(tree)), None)
    if n is not None:
        raise SQLError(f"could not determine data type of parameter ${n}", sqlstate="42P18")
