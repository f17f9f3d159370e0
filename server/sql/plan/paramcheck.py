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
from ...pgtypes import oids as T


def referenced(tree: exp.Expression) -> set[int]:
    """The parameter numbers a statement's syntax tree mentions (with those of a long IN
    list cut to its first, `sql.paramlists`)."""
    out = set()
    for p in tree.find_all(exp.Parameter, exp.Placeholder, exp.In):
        if isinstance(p, exp.In):
            out.update(p.meta.get("params", ()))
            continue
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


def _number(p: exp.Expression) -> int | None:
    text = str(p.this.this if isinstance(p.this, exp.Expression) else p.this)
    return int(text) if text.isdigit() else None


def _bare_item(p: exp.Expression) -> bool:
    """`SELECT $1` (or `$1 AS x`): an item PostgreSQL types as text after the whole query."""
    node = p.parent if isinstance(p.parent, exp.Alias) else p
    return isinstance(node.parent, exp.Select) and node.arg_key == "expressions"


def _untyping_use(p: exp.Expression) -> bool:
    parent = p.parent
    return _untyping(p) or (isinstance(parent, exp.Anonymous)
                            and str(parent.this).lower() == "row")


def _in_from(p: exp.Expression) -> bool:
    node: exp.Expr | None = p
    while node is not None and not isinstance(node, exp.Select):
        if isinstance(node, exp.From | exp.Join):
            return True
        node = node.parent
    return False


def uses_in_parse_order(tree: exp.Expression) -> dict[int, list[exp.Expression]]:
    """Each parameter's mentions in the order PostgreSQL's parse analysis meets them: FROM
    (and JOIN ... ON) first, then the select list, WHERE, GROUP BY, HAVING, ORDER BY.

    >>> import sqlglot
    >>> t = sqlglot.parse_one("SELECT $1 FROM t JOIN u ON $1 = 2 WHERE $1 = 1", read="postgres")
    >>> [p.parent.key for p in uses_in_parse_order(t)[1]]
    ['eq', 'select', 'eq']
    """
    found = [(0 if _in_from(p) else 1, i, p) for i, p in enumerate(tree.walk(bfs=False))
             if isinstance(p, exp.Parameter) and _number(p) is not None]
    out: dict[int, list[exp.Expression]] = {}
    for _, _, p in sorted(found, key=lambda x: (x[0], x[1])):
        out.setdefault(_number(p) or 0, []).append(p)
    return out


def check_deduced(tree: exp.Expression, declared: Sequence[int], final: Sequence[int],
                  settled: Sequence[int] = ()) -> None:
    """PostgreSQL's 42P08 where a parameter's first mention left it untyped and a later one
    typed it: `$1 IS NULL, $1::int` and `ROW($1, $1::int)` ("could not determine data type":
    the first mention keeps the unknown type), `SELECT $1 ... WHERE $1 = 1` ("inconsistent
    types deduced": the select list makes $1 text once the whole query is analysed, which
    is after WHERE made it integer). Cumulo binds WHERE before the select list, so this
    checks the statement's text in PostgreSQL's order once the plan has typed every $n."""
    for n, uses in uses_in_parse_order(tree).items():
        if n <= len(declared) and declared[n - 1] or n in settled or n > len(final):
            continue
        first, later = uses[0], uses[1:]
        typed_later = any(not _untyping_use(p) and not _bare_item(p) for p in later)
        if not typed_later:
            continue
        if _untyping_use(first):
            raise SQLError(f"could not determine data type of parameter ${n}", sqlstate="42P08")
        if _bare_item(first) and final[n - 1] not in (0, T.TEXT, T.UNKNOWN):
            raise SQLError(f"inconsistent types deduced for parameter ${n}", sqlstate="42P08")


def check_parameters(tree: exp.Expression, declared: Sequence[int], count: int,
                     settled: Sequence[int] = (), final: Sequence[int] = ()) -> None:
    """Raises PostgreSQL's 42P18 for a parameter nothing types (`settled`: those the
    planner found no type for; only those whose every use gives none, `$1 IS NULL`, fail:
    where the planner infers less than PostgreSQL, text stays the answer); with the
    planned types (`final`), its 42P08s of `check_deduced`."""
    n = untyped_gap(tree, declared, count)
    if n is None:
        n = next((k for k in settled if only_untyped_uses(tree, k)), None)
    if n is not None:
        raise SQLError(f"could not determine data type of parameter ${n}", sqlstate="42P18")
    if final:
        check_deduced(tree, declared, final, settled)
