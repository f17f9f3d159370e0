"""A BEGIN ATOMIC body printed as `pg_get_functiondef` prints it (ruleutils' get_query_def).

PostgreSQL keeps a SQL-standard body as parsed queries and deparses them: each statement
on its own line after one space, its clauses indented under it, column references
qualified by their relation, literals typed (`'a'::text`), conditions parenthesised, an
INSERT's target columns listed, and the routine's parameters written `f.x` once the
statement reads a table (plain `x` when it reads none, `$1` when unnamed). Cumulo keeps
the statements' text; `atomic_text` rebuilds that layout for SELECTs (as views print
them, `viewtext`), INSERT ... VALUES | SELECT, UPDATE and DELETE over one table, with
RETURNING. A statement of another shape is printed as kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, cast

import sqlglot
from sqlglot import exp

from ..parse import split_statements
from .checktext import NOW_STANDIN, _Out
from .names import quote_ident
from .typetext import format_type, quote_literal
from .viewtext import Sources, _ViewDeparser, select_text

_NOW = re.compile(r"\bnow\s*\(\s*\)", re.I)  # NB: checktext prints NOW_STANDIN as now()
Params = Sequence[tuple[str, int]]  # the routine's (name or "", type) per parameter


class _BodyDeparser(_ViewDeparser):
    """Also resolves the routine's parameters (`x`, `f.x`, `$1`)."""

    def __init__(self, sources: Sources, pretty: bool, routine: str, params: Params,
                 qualify: bool = False) -> None:
        super().__init__(sources, pretty)
        self.routine = routine
        self.params = params
        self.qualify = qualify or bool(sources)  # NB: a range table anywhere in the statement

    def param_of(self, node: exp.Expression) -> tuple[int, str, int] | None:
        """(number, name, type) of the parameter `node` names, or None."""
        if isinstance(node, exp.Parameter):
            try:
                n = int(node.this.name if isinstance(node.this, exp.Expression) else node.name)
            except ValueError:
                return None
            return (n, *self.params[n - 1]) if 0 < n <= len(self.params) else None
        if not isinstance(node, exp.Column) or isinstance(node.this, exp.Star):
            return None
        qual = node.table
        if qual and qual != self.routine or (not qual and any(
                node.name in types for _, types, _ in self.sources)):
            return None
        for i, (name, t) in enumerate(self.params):
            if name and name == node.name:
                return i + 1, name, t
        return None

    def _param_out(self, p: tuple[int, str, int]) -> _Out:
        n, name, t = p
        if not name:
            return _Out(f"${n}", "atom", type=t)
        text = quote_ident(name)
        return _Out(f"{quote_ident(self.routine)}.{text}" if self.qualify else text, "atom",
                    type=t)

    def static_type(self, node: exp.Expression) -> int | None:
        p = self.param_of(node)
        return p[2] if p is not None else super().static_type(node)

    def column(self, node: exp.Column, versus_text: bool) -> _Out:
        p = self.param_of(node)
        return self._param_out(p) if p is not None else super().column(node, versus_text)

    def dep(self, node: exp.Expression) -> _Out:
        p = self.param_of(node) if isinstance(node, exp.Parameter) else None
        return self._param_out(p) if p is not None else super().dep(node)


def _target(d: Any, e: exp.Expression) -> str:
    """A target as ruleutils writes it: `AS name` unless the name is the column's own or
    the default `?column?`."""
    alias = e.alias if isinstance(e, exp.Alias) else None
    inner = e.this if isinstance(e, exp.Alias) else e
    text = d.dep(inner).text
    p = d.param_of(inner)
    if p is not None:
        name = alias or p[1] or None
        return f"{text} AS {quote_ident(name)}" if name else text
    if isinstance(inner, exp.Column):
        return text if alias in (None, inner.name) else f"{text} AS {quote_ident(alias)}"
    if alias is None and isinstance(inner, exp.Func):
        alias = text.split("(", 1)[0].lower()
    return f"{text} AS {quote_ident(alias)}" if alias else text


def _table(tables: dict[str, Any], node: exp.Expression) -> Any:
    if not isinstance(node, exp.Table) or node.alias:
        raise ValueError("not a plain table")
    t = tables.get(node.name)
    if t is None:
        raise ValueError(f"unknown table {node.name}")
    return t


def _returning(d: _BodyDeparser, node: exp.Expression) -> str:
    ret = node.args.get("returning")
    if ret is None:
        return ""
    return "\n   RETURNING " + ", ".join(_target(d, e) for e in ret.expressions)


def _one_table(t: Any, name: str) -> Sources:
    cols = [c for c in t.columns if not c.dropped]
    return [(name, {c.name: c.type_oid for c in cols}, [c.name for c in cols])]


def _value(d: _BodyDeparser, node: exp.Expression, want: int) -> str:
    """A value stored into a column of type `want`: a quoted literal typed as the column
    (`'q'::character varying`); the assignment cast of anything else is implicit, unshown."""
    if isinstance(node, exp.Literal) and node.is_string:
        return f"{quote_literal(node.this)}::{format_type(want, -1)}"
    return d.dep(node).text


def _statement(tree: exp.Expression, tables: dict[str, Any], shown: Callable[[Any], str],
               routine: str, params: Params) -> str:
    def make(sources: Sources, pretty: bool) -> _BodyDeparser:
        return _BodyDeparser(sources, pretty, routine, params)

    if isinstance(tree, exp.Select) and not tree.args.get("with_"):
        return " " + select_text(tree, tables, False, shown, make, _target, indent=" ",
                                 need_from=False)[1:-1]
    if isinstance(tree, exp.Insert) and not tree.args.get("conflict"):
        target = tree.this
        table_node = target.this if isinstance(target, exp.Schema) else target
        t = _table(tables, table_node)
        cols = [c for c in t.columns if not c.dropped]
        named = [i.name for i in target.expressions] if isinstance(target, exp.Schema) else []
        d = make(_one_table(t, t.name), False)
        source = tree.expression
        if isinstance(source, exp.Values):
            rows = [list(r.expressions) for r in source.expressions]
            chosen = [next(c for c in cols if c.name == n) for n in named] if named \
                else cols[:len(rows[0])]
            shown_rows = [[_value(d, v, c.type_oid) for v, c in zip(r, chosen, strict=True)]
                          for r in rows]
            body = f"\n   VALUES ({', '.join(shown_rows[0])})" if len(rows) == 1 else \
                " VALUES " + ", ".join(f"({','.join(r)})" for r in shown_rows)  # NB: a VALUES list
        elif isinstance(source, exp.Select) and not source.args.get("from_"):
            chosen = [next(c for c in cols if c.name == n) for n in named] if named \
                else cols[:len(source.expressions)]

            def inner(sources: Sources, pretty: bool) -> _BodyDeparser:
                return _BodyDeparser(sources, pretty, routine, params, qualify=True)

            body = "  " + select_text(source, tables, False, shown, inner, _target,
                                      indent=" " * 9, need_from=False)[1:-1]
        else:
            raise ValueError("another INSERT source")
        names = ", ".join(quote_ident(c.name) for c in chosen)
        return f" INSERT INTO {shown(t)} ({names}){body}{_returning(d, tree)}"
    if isinstance(tree, exp.Update) and not tree.args.get("from_"):
        t = _table(tables, tree.this)
        d = make(_one_table(t, t.name), False)
        types = {c.name: c.type_oid for c in t.columns if not c.dropped}
        sets = []
        for e in tree.expressions:
            if not isinstance(e, exp.EQ) or not isinstance(e.this, exp.Column):
                raise ValueError("another SET")
            sets.append(f"{quote_ident(e.this.name)} = "
                        f"{_value(d, e.expression, types[e.this.name])}")
        where = tree.args.get("where")
        cond = f"\n   WHERE {d.dep(where.this).text}" if where is not None else ""
        return f" UPDATE {shown(t)} SET {', '.join(sets)}{cond}{_returning(d, tree)}"
    if isinstance(tree, exp.Delete) and not tree.args.get("using"):
        t = _table(tables, tree.this)
        d = make(_one_table(t, t.name), False)
        where = tree.args.get("where")
        cond = f"\n   WHERE {d.dep(where.this).text}" if where is not None else ""
        return f" DELETE FROM {shown(t)}{cond}{_returning(d, tree)}"
    raise ValueError("another statement")


def atomic_text(body: str, tables: dict[str, Any], shown: Callable[[Any], str],
                routine: str, params: Params) -> str:
    """A BEGIN ATOMIC body's statements as pg_get_functiondef prints them (between
    `BEGIN ATOMIC` and `END`), each ended by `;` and a newline."""
    out = []
    for text in split_statements(body):
        try:
            tree = cast(exp.Expression, sqlglot.parse_one(_NOW.sub(NOW_STANDIN + "()", text),
                                                          read="postgres"))
            out.append(_statement(tree, tables, shown, routine, params))
        except Exception:  # noqa: BLE001 - another shape: as kept
            out.append(" " + text.strip())
    return "".join(f"{s};\n" for s in out)


__all__ = ["atomic_text"]
