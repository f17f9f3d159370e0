"""View definitions printed the way `pg_get_viewdef(view [, pretty])` prints them.

PostgreSQL deparses a view's stored query: one output column per line, every
column reference qualified by its relation (a PostgreSQL 15 view's range table
also holds OLD and NEW, so names are always prefixed), `*` expanded,
expressions typed and parenthesised as in CHECK constraints (see checktext),
and the clauses indented under SELECT:

     SELECT vb.id,
        vb.g AS grp
       FROM vb
         JOIN vc c ON c.vid = vb.id
      WHERE vb.x > 0::numeric
      ORDER BY vb.id;

psql's `\\d+ view` and `\\sv`, and SQLAlchemy's view reflection show this.
Cumulo keeps the view's SQL text; this module rebuilds PostgreSQL's layout for
single SELECTs over tables (joins, WHERE, GROUP BY, HAVING, ORDER BY, LIMIT).
Anything else (set operations, CTEs, subqueries in FROM) returns None and the
caller shows the stored text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot import exp

from ..expr.commontype import select_common_type
from .checktext import _Deparser, _Out
from .names import quote_ident


class _ViewDeparser(_Deparser):
    """Resolves column references against the view's FROM items."""

    def __init__(self, sources: list[tuple[str, dict[str, int], list[str]]],
                 pretty: bool) -> None:
        super().__init__({}, pretty)
        self.sources = sources  # (qualifier, column types, column order)
        self.using: list[_Using | None] = [None] * len(sources)  # per FROM item: its USING

    def find(self, node: exp.Column) -> tuple[str, int | None]:
        qual = node.table
        joined = self._merged(node.name, qual)
        if joined is not None:
            return joined
        for q, types, _ in self.sources:
            if (qual and q == qual) or (not qual and node.name in types):
                return q, types.get(node.name)
        raise ValueError(f"column {node.name} not found")

    def _merged(self, name: str, qual: str) -> tuple[str, int | None] | None:
        """A USING join's merged column (`id`, or `j.id` through `USING (id) AS j`) as
        ruleutils prints it: the left input's column for an INNER or LEFT join, the right
        table's for a RIGHT one (an INNER join takes the side needing no conversion),
        itself unqualified ("" here) for a FULL one."""
        for k in range(len(self.sources) - 1, 0, -1):
            u = self.using[k]
            if u is not None and name in u.names and (not qual or qual == u.alias):
                return self._side(name, k)
        return None

    def _side(self, name: str, k: int) -> tuple[str, int | None]:
        u = self.using[k]
        assert u is not None
        rq, rtypes, _ = self.sources[k]
        right = (rq, rtypes.get(name))
        left = self._left(name, k)
        common = select_common_type([left[1] or 0, right[1] or 0], "JOIN/USING")
        if u.kind == "FULL":
            return "", common
        if u.kind == "RIGHT" or u.kind == "" and not (left[0] and left[1] == common) and \
                right[1] == common:  # NB: buildMergedJoinVar
            return right
        return left

    def _left(self, name: str, k: int) -> tuple[str, int | None]:
        """Column `name` of the join of FROM items 0 .. k-1."""
        for i in range(k - 1, 0, -1):
            u = self.using[i]
            if u is not None and name in u.names:
                return self._side(name, i)
        for q, types, _ in self.sources[:k]:
            if name in types:
                return q, types[name]
        raise ValueError(f"column {name} not found")

    def static_type(self, node: exp.Expression) -> int | None:
        if isinstance(node, exp.Column):
            return self.find(node)[1]
        return super().static_type(node)

    def column(self, node: exp.Column, versus_text: bool) -> _Out:
        q, t = self.find(node)
        name = f"{quote_ident(q)}.{quote_ident(node.name)}" if q else quote_ident(node.name)
        if versus_text and t in (1043, 19):
            return _Out(f"{name}::text" if self.pretty else f"({name})::text", "atom", type=25)
        return _Out(name, "atom", type=t)

    def dep(self, node: exp.Expression) -> _Out:
        if isinstance(node, exp.Star):
            return _Out("*", "atom")
        return super().dep(node)


@dataclass
class _Using:
    """A FROM item's `JOIN ... USING (names) [AS alias]` (NATURAL: its common names)."""

    kind: str  # "", LEFT, RIGHT, FULL
    names: list[str]
    alias: str | None


def _using(srcs: list[tuple[str, Any, exp.Join | None]]) -> list[_Using | None]:
    out: list[_Using | None] = []
    shown: list[str] = []  # NB: the names the join so far shows (NATURAL's left side)
    for _, t, join in srcs:
        cols = [c.name for c in t.columns if not c.dropped]
        u = None
        if join is not None and (join.args.get("using") or join.method.upper() == "NATURAL"):
            names = [x.name for x in join.args["using"]] if join.args.get("using") else [
                n for n in shown if n in cols]
            alias = join.args.get("join_alias")
            u = _Using((join.side or "").upper(), names, alias.name if alias else None)
        out.append(u)
        shown += [n for n in cols if n not in shown]
    return out


def _sources(select: exp.Select, tables: dict[str, Any]) -> list[tuple[str, Any, exp.Join | None]]:
    items: list[tuple[exp.Expression, exp.Join | None]] = []
    from_ = select.args.get("from") or select.args.get("from_")
    if from_ is None:
        raise ValueError("no FROM")
    items.append((from_.this, None))
    items += [(j.this, j) for j in select.args.get("joins") or []]
    out = []
    for node, join in items:
        if not isinstance(node, exp.Table):
            raise ValueError("not a table")
        t = tables.get(node.name)
        if t is None:
            raise ValueError(f"unknown table {node.name}")
        out.append((node.alias or node.name, t, join))
    return out


def _target(d: _ViewDeparser, e: exp.Expression) -> str:
    alias = e.alias if isinstance(e, exp.Alias) else None
    inner = e.this if isinstance(e, exp.Alias) else e
    text = d.dep(inner).text
    if isinstance(inner, exp.Column):
        return text if alias in (None, inner.name) else f"{text} AS {alias}"
    if alias is None:
        if isinstance(inner, exp.Func):
            alias = text.split("(", 1)[0].lower()
        else:
            alias = '"?column?"'
    return f"{text} AS {alias}"


def relation_shown(ctx: Any) -> Callable[[Any], str]:
    """How a query's FROM names a relation: schema-qualified off the search_path (pg_dump's
    search_path is '': it sees `public.t`)."""
    path = {"pg_catalog", *ctx.search_path()}

    def shown(x: Any) -> str:
        s = ctx.catalog.schema_by_oid(x.schema_oid)
        name = quote_ident(x.name)
        return name if s is None or s.name in path else f"{quote_ident(s.name)}.{name}"

    return shown


def view_text(sql: str, tables: dict[str, Any], pretty: bool,
              shown: Callable[[Any], str] | None = None) -> str | None:
    """Returns pg_get_viewdef's text for a view's SQL, None for shapes it does not handle.

    `tables` maps relation names to catalog tables (with `.columns`); `shown` prints a
    table's name as FROM shows it (schema-qualified outside the search_path).
    """
    try:
        select = sqlglot.parse_one(sql, read="postgres")
        if not isinstance(select, exp.Select) or select.args.get("with_"):  # NB: a CTE: as written
            return None
        return select_text(select, tables, pretty, shown, _ViewDeparser, _target)
    except Exception:  # noqa: BLE001 - unknown shapes fall back to the stored text
        return None


Sources = list[tuple[str, dict[str, int], list[str]]]  # (qualifier, column types, order)


def select_text(select: exp.Select, tables: dict[str, Any], pretty: bool,
                shown: Callable[[Any], str] | None,
                deparser: Callable[[Sources, bool], _ViewDeparser],
                target: Callable[[Any, exp.Expression], str], indent: str = "",
                need_from: bool = True) -> str:
    """A SELECT laid out as ruleutils prints it (raises ValueError for shapes it does not
    know): the view's (`view_text`), or a statement of a BEGIN ATOMIC body, whose
    `deparser` also knows the routine's parameters (a SELECT without FROM is then fine)."""
    from_ = select.args.get("from") or select.args.get("from_")
    srcs = _sources(select, tables) if from_ is not None or need_from else []
    sources = [(q, {c.name: c.type_oid for c in t.columns if not c.dropped},
                [c.name for c in t.columns if not c.dropped]) for q, t, _ in srcs]
    d = deparser(sources, pretty)
    d.using = _using(srcs)
    targets = []
    for e in select.expressions:
        if isinstance(e, exp.Star) or isinstance(e, exp.Column) and isinstance(e.this,
                                                                              exp.Star):
            qual = e.table if isinstance(e, exp.Column) else ""
            targets += [f"{q}.{c}" for q, _, cols in sources if not qual or q == qual
                        for c in cols]
        else:
            targets.append(target(d, e))
    head = " SELECT DISTINCT " if select.args.get("distinct") else " SELECT "
    lines = [head + f",\n    {indent}".join(targets)]
    opens = "" if pretty else "(" * (len(srcs) - 1)  # NB: plain mode brackets each join
    for k, (q, t, join) in enumerate(srcs):
        name = shown(t) if shown is not None else t.name
        ref = name if q == t.name else f"{name} {q}"
        if join is None:
            lines.append(f"   FROM {opens}{ref}")
            continue
        side = (join.side or "").upper()
        kind = f"{side} JOIN" if side else "JOIN"
        on = join.args.get("on")
        cond = ""
        if on is not None:
            text = d.dep(on).text
            cond = f" ON {text}" if pretty else f" ON ({text})"
        using = d.using[k]
        if using is not None:  # NB: NATURAL too: ruleutils prints its names
            names = ", ".join(quote_ident(n) for n in using.names)
            cond = f" USING ({names})" + (f" AS {quote_ident(using.alias)}" if using.alias
                                          else "")
        lines.append(f"     {kind} {ref}{cond}" + ("" if pretty else ")"))
    where = select.args.get("where")
    if where is not None:
        lines.append(f"  WHERE {d.dep(where.this).text}")
    group = select.args.get("group")
    if group is not None:
        lines.append("  GROUP BY " + ", ".join(d.dep(g).text for g in group.expressions))
    having = select.args.get("having")
    if having is not None:
        lines.append(f" HAVING {d.dep(having.this).text}")
    order = select.args.get("order")
    if order is not None:
        keys = []
        for o in order.expressions:
            text = d.dep(o.this).text
            desc = bool(o.args.get("desc"))
            nulls_first = o.args.get("nulls_first")
            text += " DESC" if desc else ""
            if nulls_first is not None and bool(nulls_first) != desc:
                text += " NULLS FIRST" if nulls_first else " NULLS LAST"
            keys.append(text)
        lines.append("  ORDER BY " + ", ".join(keys))
    limit = select.args.get("limit")
    offset = select.args.get("offset")
    if offset is not None:
        lines.append(f" OFFSET {d.dep(offset.expression).text}")
    if limit is not None:
        lines.append(f" LIMIT {d.dep(limit.expression).text}")
    return f"\n{indent}".join(lines) + ";"
