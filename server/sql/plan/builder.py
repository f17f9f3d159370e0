"""The plan builder: a bound sqlglot query becomes a tree of `plan.nodes`.

One `Planner` serves one statement. A SELECT is built in PostgreSQL's
logical order: FROM (tables, views, subqueries, VALUES, functions, joins,
LATERAL) -> WHERE -> GROUP BY / aggregates -> HAVING -> window functions ->
select list (and set-returning functions) -> DISTINCT [ON] -> ORDER BY ->
LIMIT/OFFSET. Set operations and WITH [RECURSIVE] wrap SELECTs. Name
resolution follows PostgreSQL: pg_catalog is searched before `search_path`,
CTE names shadow tables, and a subquery sees the scopes that enclose it.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from typing import Any, cast

import sqlglot
from sqlglot import exp
from sqlglot.optimizer.normalize_identifiers import normalize_identifiers

from ...errors import (
    AmbiguousColumn,
    FeatureNotSupported,
    InvalidColumnReference,
    ObjectNotInPrerequisiteState,
    SQLError,
    SyntaxError_,
    UndefinedColumn,
    UndefinedTable,
)
from ...pgtypes import oids as T
from ..catalog.syscols import (
    ROW_KEY,
    SYSTEM_COLUMNS,
    VERSION_COLUMNS,
    heap_tid,
    row_xmin,
    version_tid,
)
from ..exec.subquery import _correlated, _exprs
from ..expr import types as ty
from ..expr.binder import Binder, Scope, find_aggregates, find_windows
from ..expr.bound import E, col
from ..expr.commontype import select_common_type
from ..expr.functions import _ensure_loaded, coerce
from ..expr.opclasses import check_equality, check_ordering
from ..expr.regcast import RegOid
from ..expr.userexprs import enum_ordered  # NB: enums sort by enumsortorder, not by label
from ..functions.registry import FUNCTIONS
from ..pgcatalog import VIRTUAL_TABLES  # NB: the package, so every virtual table is registered
from ..pgcatalog.registry import VirtualTable
from ..pgcatalog.seqrelation import sequence_relation
from . import fieldstar, joinusing, setoptyping, srflift
from . import nodes as N
from .aggregates import plan_aggregate, plan_windows
from .coldeflist import record_call, typed_columns
from .fromnames import check_unique_names
from .groupingsets import find_groupings
from .normalize import factor_or
from .nullmark import mark_join_alias, mark_null_side, whole_row_names
from .partscan import partition_scan
from .regresolver import RegResolver, check_literal, once_per_catalog
from .rowsfrom import rows_from
from .srflift import has_nested_srf
from .transition import lookup as transition_table
from .transition import rows_of
from .viewcols import own_columns

ORDINALITY = "ordinality"


def visible(cols: list[N.PCol]) -> list[int]:
    """Indexes of the columns `*` expands to."""
    return [i for i, c in enumerate(cols) if not c.hidden and not c.dropped]


class Planner:
    """Builds the plan of one statement."""

    def __init__(self, catalog: Any, params: Any, search_path: list[str]) -> None:
        self.catalog = catalog
        self.params = params
        self.search_path = search_path
        self.ctes: list[dict[str, N.CTEDef]] = []
        self.reg = RegResolver(catalog, search_path)
        self.want_key = False  # set by plan_query when the statement reads rows' keys (ROW_KEY)
        self.want_tableoid = False  # ... or tableoid
        self.want_version: frozenset[str] = frozenset()  # ... the system columns it names
        self.row_names: set[str] = set()  # names that may be whole rows (plan.nullmark)
        self.marks = itertools.count()  # numbers the null-extension markers
        self.join_hidden: set[str] = set()  # names an aliased join hides: `(t JOIN u) AS j`
        self.mentions: dict[str, int] = {}  # table and view names -> times the statement names them
        self.shared_views: dict[int, N.CTEDef] = {}  # view oid -> its plan, computed once

    def plan_query(self, q: exp.Expression) -> N.Node:
        """Plans a top-level statement."""
        q = normalize_identifiers(q, dialect="postgres")  # unquoted names fold to lower case
        names = {c.name for c in q.find_all(exp.Column)}
        self.want_key = ROW_KEY in names
        self.row_names = whole_row_names([(c.table, c.name) for c in q.find_all(exp.Column)])
        self.want_tableoid = "tableoid" in names
        self.want_version = VERSION_COLUMNS & names
        for t in q.find_all(exp.Table):
            self.mentions[t.name] = self.mentions.get(t.name, 0) + 1
        return self.build(q, None)

    # -- queries -------------------------------------------------------------------------------

    def plan_subquery(self, q: exp.Expression, outer: Scope | None) -> N.Node:
        """Plans a query nested in an expression (outer: the enclosing scope)."""
        return self.build(q, outer)

    def build(self, q: exp.Expression, outer: Scope | None) -> N.Node:
        """Plans any query expression."""
        with_ = q.args.get("with_") if isinstance(q, exp.Query) else None
        if with_ is not None:
            self.ctes.append({})
            try:
                for cte in with_.expressions:
                    self.plan_cte(cte, bool(with_.args.get("recursive")), outer)
                return self._build(q, outer)
            finally:
                self.ctes.pop()
        return self._build(q, outer)

    def _build(self, q: exp.Expression, outer: Scope | None) -> N.Node:
        if isinstance(q, exp.Select):
            return self.plan_select(q, outer)
        if isinstance(q, exp.Union | exp.Intersect | exp.Except):
            return self.plan_setop(q, outer)
        if isinstance(q, exp.Values):
            return self.order_limit(q, self.plan_values(q, outer), outer)
        if isinstance(q, exp.Subquery):
            node = self.build(q.this, outer)
            return self.order_limit(q, node, outer)
        if isinstance(q, exp.Paren):
            return self.build(q.this, outer)
        raise FeatureNotSupported(f"unsupported query: {q.sql('postgres')[:60]}")

    def plan_cte(self, cte: exp.CTE, recursive: bool, outer: Scope | None) -> None:
        name = cte.alias_or_name
        names = [c.name for c in cte.args["alias"].columns] if cte.args.get("alias") else []
        body = cte.this
        d = N.CTEDef(name)
        refs_self = recursive and any(
            t.name == name and not t.db for t in body.find_all(exp.Table)
        )
        if refs_self and isinstance(body, exp.Union):
            anchor = self.build(body.this, outer)
            anchor = _rename(anchor, names, name)
            wt: dict[str, Any] = {"rows": None}
            d.plan = N.WorkTableScan([_copy(c, name) for c in anchor.cols], worktable=wt)
            self.ctes[-1][name] = d
            rec = self.build(body.expression, outer)
            rec = self._coerce_to(rec, [c.type for c in anchor.cols])
            d.plan = N.RecursiveUnion(list(d.plan.cols), anchor=anchor, recursive=rec,
                                      all=not body.args.get("distinct", True), worktable=wt)
            d.recursive = True
        else:
            d.plan = _rename(self.build(body, outer), names, name)
            self.ctes[-1][name] = d

    def plan_values(self, v: exp.Values, outer: Scope | None) -> N.Node:
        b = Binder(self, Scope([], parent=outer))
        rows = [[b.bind(x) for x in (t.expressions if isinstance(t, exp.Tuple) else [t])]
                for t in v.expressions]
        width = len(rows[0])
        if any(len(r) != width for r in rows):
            raise SyntaxError_("VALUES lists must all be the same length")
        types = [select_common_type([r[i].type for r in rows], "VALUES") for i in range(width)]
        rows = [[coerce(e, t, params=self.params) for e, t in zip(r, types, strict=True)]
                for r in rows]
        mods = [{(e.type, e.typmod) for e in c} for c in zip(*rows, strict=True)]
        cols = [N.PCol(f"column{i + 1}", t, next(iter(m))[1] if len(m) == 1 else -1)
                for i, (t, m) in enumerate(zip(types, mods, strict=True))]
        node = N.Values(cols, rows=rows)
        alias = v.args.get("alias")
        if alias is not None:
            return _rename(node, [c.name for c in alias.columns], alias.name)
        return node

    def plan_setop(self, q: exp.Expression, outer: Scope | None) -> N.Node:
        params = [{k: n for k, n in setoptyping.parameter_columns(side).items()
                   if self.params is not None and not self.params.get(n)}
                  for side in (q.this, q.expression)]  # NB: before a leaf settles them to text
        left = self.build(q.this, outer)
        right = self.build(q.expression, outer)
        lv, rv = visible(left.cols), visible(right.cols)
        ops: dict[type, str] = {exp.Union: "union", exp.Intersect: "intersect",
                                exp.Except: "except"}
        op = ops[type(q)]
        if len(lv) != len(rv):
            raise SyntaxError_(f"each {op.upper()} query must have the same number of columns")
        pairs = [(left.cols[i], right.cols[j]) for i, j in zip(lv, rv, strict=True)]
        untyped = setoptyping.untyped_columns(q.this), setoptyping.untyped_columns(q.expression)
        for unt, ps in zip(untyped, params, strict=True):
            unt.update(ps)
        typed = setoptyping.column_types(op.upper(), pairs, untyped, self._row_type_name)
        types = [t for t, _, _ in typed]
        if any(params):  # NB: SELECT $1 UNION SELECT 1: $1 is an integer; plan that side again
            for ps in params:
                for k, n in ps.items():
                    self.params.oids[n - 1] = types[k]
            left = self.build(q.this, outer) if params[0] else left
            right = self.build(q.expression, outer) if params[1] else right
        for side, pos, unt, other in ((0, lv, untyped[0], 1), (1, rv, untyped[1], 0)):
            rows = {k: f for k in unt  # NB: t UNION SELECT '(3,4)'
                    if types[k] == T.RECORD and (f := pairs[k][other].fields)}
            if rows:
                node = setoptyping.row_input(left if side == 0 else right, pos, rows)
                left, right = (node, right) if side == 0 else (left, node)
        left = self._coerce_to(left, types)
        right = self._coerce_to(right, types)
        cols = [N.PCol(c.name, t, m) for c, (t, m, _) in zip(left.cols, typed, strict=True)]
        for c, (_, _, r) in zip(cols, typed, strict=True):  # NB: t UNION t (or NULL) is still t's row type
            c.rowtype = r
        node = N.SetOp(cols, left=left, right=right, op=op, all=not q.args.get("distinct", True))
        return self.order_limit(q, node, outer)

    def _row_type_name(self, rowtype: int) -> str | None:
        return next((t.name for t in self.catalog.tables if t.reltype == rowtype), None)

    def _row_type_rel(self, rowtype: int) -> int:
        return next((t.oid for t in self.catalog.tables if t.reltype == rowtype), 0)

    def _coerce_to(self, node: N.Node, types: list[int]) -> N.Node:
        idx = visible(node.cols)
        if len(idx) == len(node.cols) and all(node.cols[i].type == t for i, t in zip(idx, types, strict=True)):
            return node
        exprs = [coerce(col(i, node.cols[i].type), t, params=self.params) for i, t in zip(idx, types, strict=True)]
        cols = [N.PCol(node.cols[i].name, t, node.cols[i].typmod if node.cols[i].type == t else -1)
                for i, t in zip(idx, types, strict=True)]
        return N.Project(cols, child=node, exprs=exprs)

    def order_limit(self, q: exp.Expression, node: N.Node, outer: Scope | None) -> N.Node:
        """ORDER BY / LIMIT / OFFSET over a query's output columns (set operations)."""
        order = q.args.get("order")
        if order is not None:
            scope = Scope(node.cols, parent=outer)
            b = Binder(self, scope)
            keys = []
            for o in order.expressions:
                e = self._output_ref(o.this, node.cols) or b.bind(o.this)
                keys.append(N.SortKey(enum_ordered(e), bool(o.args.get("desc")), _nulls_first(o)))
            node = N.Sort(node.cols, child=node, keys=keys)
        return self.limit(q, node, outer)

    def limit(self, q: exp.Expression, node: N.Node, outer: Scope | None) -> N.Node:
        lim = q.args.get("limit")
        off = q.args.get("offset")
        if lim is None and off is None:
            return node
        b = Binder(self, Scope([], parent=outer))
        le = oe = None
        if lim is not None:
            x = lim.args.get("count") if isinstance(lim, exp.Fetch) else lim.expression
            if x is not None and not (isinstance(x, exp.Var) and x.name.upper() == "ALL"):
                le = coerce(b.bind(x), T.INT8, params=self.params)
                if le.type != T.INT8:
                    le = coerce(le, T.INT8)
        if off is not None:
            oe = coerce(b.bind(off.expression), T.INT8, params=self.params)
        ties = None
        opts = lim.args.get("limit_options") if isinstance(lim, exp.Fetch) else None
        if opts is not None and opts.args.get("with_ties"):
            if not isinstance(node, N.Sort):
                raise SyntaxError_("WITH TIES cannot be specified without ORDER BY clause")
            ties = [k.expr for k in node.keys]
        return N.Limit(node.cols, child=node, limit=le, offset=oe, ties=ties)

    @staticmethod
    def _output_ref(x: exp.Expression, cols: list[N.PCol],
                    exprs: list[E] | None = None) -> E | None:
        """An ORDER BY ordinal or output-column name, as a reference to that column; with the
        select list's `exprs`, a name shared by different expressions is 42702 (as PG)."""
        if isinstance(x, exp.Literal) and not x.is_string:
            n = int(x.this)
            vis = visible(cols)
            if not 1 <= n <= len(vis):
                raise InvalidColumnReference(f"ORDER BY position {n} is not in select list")
            i = vis[n - 1]
            return col(i, cols[i].type, cols[i].name)
        if isinstance(x, exp.Column) and not x.table:
            hits = [i for i in visible(cols) if cols[i].name == x.name]
            if exprs is not None and len({_shape(exprs[i]) for i in hits}) > 1:
                raise AmbiguousColumn(f'ORDER BY "{x.name}" is ambiguous')
            if hits:
                return col(hits[0], cols[hits[0]].type, x.name)
        return None

    # -- SELECT --------------------------------------------------------------------------------

    def plan_select(self, sel: exp.Select, outer: Scope | None) -> N.Node:
        from_ = sel.args.get("from_")
        if from_ is not None:
            check_unique_names(sel, self.relation_oid)
            node, cols = self.plan_from(from_.this, outer)
            start = 0  # NB: where the comma item the next JOIN binds to begins (a, b JOIN c)
            for j in _comma_groups(sel.args.get("joins") or []):
                if _is_comma(j):
                    start = len(node.cols)
                node = self.plan_join(node, j, outer, start)
        else:
            node = N.Values([], rows=[[]])
        scope = Scope(node.cols, parent=outer)
        where = sel.args.get("where")
        if where is not None:
            scope.aggregates_allowed = "WHERE"
            pred = factor_or(Binder(self, scope).bind_bool(where.this, "WHERE"))
            scope.aggregates_allowed = None
            node = N.Filter(node.cols, child=node, pred=pred)
        items = self.expand_stars(sel.expressions, scope)
        if sel.meta.get("freeze_stars"):  # CREATE VIEW keeps `*` as expanded now, as PG does
            given = {id(x) for x in sel.expressions}  # NB: named, so a later RENAME keeps them
            sel.set("expressions", [x if id(x) in given else exp.alias_(x, x.name, quoted=True)
                                    for x in items])
        order = sel.args.get("order")
        order_items = list(order.expressions) if order is not None else []
        having = sel.args.get("having")
        agg_asts = []
        for x in [*items, *(o.this for o in order_items), *([having.this] if having else [])]:
            for a in [*find_aggregates(x), *find_groupings(x)]:
                if a not in agg_asts:
                    agg_asts.append(a)
        group = sel.args.get("group")
        if group is not None or agg_asts:
            node, scope = plan_aggregate(self, node, scope, items, group, agg_asts)
            if having is not None:
                pred = Binder(self, scope).bind_bool(having.this, "HAVING")
                node = N.Filter(node.cols, child=node, pred=pred)
        elif having is not None:
            node, scope = plan_aggregate(self, node, scope, items, None, [])
            pred = Binder(self, scope).bind_bool(having.this, "HAVING")
            node = N.Filter(node.cols, child=node, pred=pred)
        win_asts = []
        for x in [*items, *(o.this for o in order_items)]:
            for w in find_windows(x):
                if w not in win_asts:
                    win_asts.append(w)
        if win_asts:
            node, scope = plan_windows(self, node, scope, win_asts, sel)
        return self.finish_select(sel, node, scope, items, order_items, outer)

    def finish_select(self, sel: exp.Select, node: N.Node, scope: Scope, items: list,
                      order_items: list, outer: Scope | None) -> N.Node:
        b = Binder(self, scope)
        exprs: list[E] = []
        cols: list[N.PCol] = []
        untyped: list[int] = []  # NB: SELECT $1 is text once the whole list is bound, as PG
        for it in items:
            e = b.bind(it)
            if e.type == T.UNKNOWN:
                e = coerce(e, T.TEXT, params=self.params) if e.kind != "param" else e
                if e.type == T.UNKNOWN:
                    if e.kind == "param" and self.params is not None:
                        untyped.append(e.data)
                    e.type = T.TEXT
            name = it.alias if isinstance(it, exp.Alias) else e.name
            fields = e.fields if e.fields or e.kind != "row" else tuple(  # (x).f1 of ROW(...) AS x
                (f"f{i + 1}", a.type) for i, a in enumerate(e.args))
            pc = N.PCol(name, e.type, e.typmod, fields=fields, rowtype=e.rowtype, derived=True)
            if e.kind == "col":
                src = scope.cols[e.data]
                pc.table_oid, pc.attnum = src.table_oid, src.attnum
                pc.typmod = src.typmod
            elif e.kind == "row" and e.rowtype:  # `SELECT t FROM t`: t's OID, column 0 (PG)
                pc.table_oid = self._row_type_rel(e.rowtype)
            exprs.append(e)
            cols.append(pc)
        n_out = len(exprs)
        distinct = sel.args.get("distinct")
        keys: list[N.SortKey] = []
        for o in order_items:
            ref = self._output_ref(o.this, cols, exprs)
            if ref is None:
                bound = b.bind(o.this)
                hit = next((i for i, x in enumerate(items)
                            if (x.this if isinstance(x, exp.Alias) else x) == o.this), None)
                if hit is not None:
                    ref = col(hit, cols[hit].type, cols[hit].name)
                else:
                    if distinct is not None and distinct.args.get("on") is None:
                        raise InvalidColumnReference(
                            "for SELECT DISTINCT, ORDER BY expressions must appear in select list"
                        )
                    exprs.append(bound)
                    cols.append(N.PCol("?order?", bound.type, hidden=True))
                    ref = col(len(exprs) - 1, bound.type)
            check_ordering(ref.type)  # xml, json, xid: 42883
            keys.append(N.SortKey(enum_ordered(ref), bool(o.args.get("desc")), _nulls_first(o)))
        for n in untyped:  # NB: resolveTargetListUnknowns, after ORDER BY as in PostgreSQL
            if self.params.get(n) not in (0, T.UNKNOWN, T.TEXT):
                raise SQLError(f"inconsistent types deduced for parameter ${n}", sqlstate="42P08")
            self.params.infer(n, T.TEXT)
        if has_nested_srf(exprs):  # generate_series(1, 3)::int4
            node = srflift.lift(node, cols, exprs)
        elif any(e.kind in ("srf", "srf_field") for e in exprs):
            node = N.ProjectSet(cols, child=node, exprs=exprs,
                                srf=[e.kind in ("srf", "srf_field") for e in exprs])
        else:
            node = N.Project(cols, child=node, exprs=exprs)
        if distinct is not None:
            on = distinct.args.get("on")
            if on is not None:
                on_nodes = on.expressions if isinstance(on, exp.Tuple) else [on]
                on_exprs = []
                for x in on_nodes:
                    r = self._output_ref(x, cols)
                    if r is None:
                        hit = next((i for i, it in enumerate(items)
                                    if (it.this if isinstance(it, exp.Alias) else it) == x), None)
                        if hit is None:
                            bound = Binder(self, scope).bind(x)
                            exprs.append(bound)
                            cols.append(N.PCol("?on?", bound.type, hidden=True))
                            r = col(len(exprs) - 1, bound.type)
                        else:
                            r = col(hit, cols[hit].type)
                    on_exprs.append(r)
                _check_distinct_on(keys, order_items, on_exprs, on_nodes)
                # NB: PostgreSQL's Unique reads its input sorted by the ORDER BY keys and then
                # by every DISTINCT ON expression they leave out (ascending, nulls last), so
                # the rows come out in that order even with no ORDER BY at all
                sorted_on = {k.expr.data for k in keys if k.expr.kind == "col"}
                keys += [N.SortKey(enum_ordered(e)) for e in on_exprs
                         if not (e.kind == "col" and e.data in sorted_on)]
                if keys:
                    node = N.Sort(cols, child=node, keys=keys)
                    keys = []
                node = N.Distinct(cols, child=node, on=on_exprs)
            else:
                for c in cols:
                    check_equality(c.type)  # xml, json, point: 42883
                node = N.Distinct(cols, child=node)
        if keys:
            node = N.Sort(cols, child=node, keys=keys)
        node = self.limit(sel, node, outer)
        if len(cols) > n_out:
            node = N.Project(cols[:n_out], child=node,
                             exprs=[col(i, c.type, c.name) for i, c in enumerate(cols[:n_out])])
        return node

    def expand_stars(self, items: list[exp.Expression], scope: Scope) -> list[exp.Expression]:
        """Replaces `*` and `t.*` with one column reference per visible column."""
        out: list[exp.Expression] = []
        for it in items:
            if fieldstar.is_field_star(it):  # (t).*
                out.extend(fieldstar.expand(it, Binder(self, scope).bind))
                continue
            star_q = None
            if isinstance(it, exp.Star):
                star_q = ""
            elif isinstance(it, exp.Column) and isinstance(it.this, exp.Star):
                star_q = it.table
            if star_q is None:
                out.append(it)
                continue
            hit = False
            for k, c in enumerate(scope.cols):
                if c.hidden and not (star_q and c.joined) or c.dropped or (
                        star_q and c.qualifier != star_q):
                    continue
                hit = True
                ref = exp.column(c.name, table=c.qualifier or None, quoted=True)
                if sum(1 for x in scope.cols if x.name == c.name  # NB: USING's merged
                       and (x.qualifier == c.qualifier or not c.qualifier)) > 1:  # `id` too
                    ref.meta["star_index"] = k  # see Binder.b_Column
                out.append(ref)
            if star_q and not hit:
                raise Binder(self, scope).missing_from(star_q)
        return out

    # -- FROM ------------------------------------------------------------------------------------

    def plan_from(self, item: exp.Expression, outer: Scope | None,
                  lateral_scope: Scope | None = None) -> tuple[N.Node, list[N.PCol]]:
        """Plans one FROM item (table, view, subquery, VALUES, function)."""
        alias_node = item.args.get("alias")
        alias = alias_node.name if alias_node is not None and alias_node.name else None
        col_names = [c.name for c in alias_node.columns] if alias_node is not None else []
        inner_outer = lateral_scope if lateral_scope is not None else outer
        if isinstance(item, exp.Table) and isinstance(item.this, exp.Identifier):
            try:
                node = self.relation(item.db or None, item.name, alias or item.name,
                                     bool(item.args.get("only")))
            except UndefinedTable as e:
                if e.position is None and not e.message.startswith("missing"):
                    e.position = position_of(item.this)
                raise
            return _rename(node, col_names, alias or item.name), node.cols
        if isinstance(item, exp.Table) and isinstance(item.this, exp.Func):
            node = self.function_scan(item.this, inner_outer, alias, col_names,
                                      bool(item.args.get("ordinality") or False),
                                      defs=typed_columns(alias_node))
            return node, node.cols
        if isinstance(item, exp.Unnest) and len(item.expressions) > 1 or (
                isinstance(item, exp.Table) and item.args.get("rows_from")):
            node = rows_from(self, item, inner_outer, alias, col_names)
            return node, node.cols
        if isinstance(item, exp.Unnest):
            fn = exp.Anonymous(this="unnest", expressions=list(item.expressions))
            off = item.args.get("offset")  # NB: sqlglot sets False when there is none
            node = self.function_scan(fn, inner_outer, alias, col_names,
                                      off is not None and off is not False, off)
            return node, node.cols
        if isinstance(item, exp.Subquery) and isinstance(item.this, (exp.Table, exp.Subquery)) and \
                item.this.args.get("joins"):  # FROM t LEFT JOIN (u JOIN w ON ...) [AS j]
            inner = item.this.copy()
            joins = inner.args.pop("joins")
            node, _ = self.plan_from(inner, outer, lateral_scope)
            for j in joins:
                node = self.plan_join(node, j, outer)
            if alias:  # NB: the alias hides the joined relations' names, as in PostgreSQL
                self.join_hidden.update(c.qualifier for c in node.cols if c.qualifier)
                node = mark_join_alias(_rename(node, col_names, alias), alias, self.row_names)
            return node, node.cols
        if isinstance(item, (exp.Subquery, exp.Values)) and alias is None and not (
                isinstance(item.this, exp.Expr) and item.this.args.get("joins")):  # NB: PG 16 allows it
            what = "VALUES" if isinstance(item, exp.Values) or isinstance(item.this, exp.Values) \
                else "SELECT"
            raise SyntaxError_(f"{'subquery' if what == 'SELECT' else what} in FROM must have an alias",
                               hint=f"For example, FROM ({what} ...) [AS] foo.")
        if isinstance(item, exp.Subquery):
            node = self.build(item.this, inner_outer)
            node = self.order_limit(item, node, inner_outer) if item.args.get("order") or item.args.get("limit") else node
            return _rename(node, col_names, alias), node.cols
        if isinstance(item, exp.Table) and isinstance(item.this, exp.Values):  # in (... JOIN ...)
            values = item.this.copy()
            values.set("alias", alias_node.copy() if alias_node is not None else None)
            return self.plan_from(values, outer, lateral_scope)
        if isinstance(item, exp.Values):
            node = self.plan_values(item, inner_outer)
            return node, node.cols
        if isinstance(item, exp.Lateral):
            sub = item.this.copy()
            if isinstance(sub, exp.Func) and not isinstance(sub, exp.Unnest):  # LATERAL f(...)
                sub = exp.Table(this=sub)
            if item.args.get("alias") is not None:
                sub.set("alias", item.args["alias"].copy())
            return self.plan_from(sub, outer, lateral_scope)
        raise FeatureNotSupported(f"unsupported FROM item: {item.sql('postgres')[:60]}")

    def relation(self, schema: str | None, name: str, qualifier: str,
                 only: bool = False) -> N.Node:
        """Resolves a table name: CTEs, pg_catalog, then search_path (`only`: FROM ONLY)."""
        if schema is None:
            for frame in reversed(self.ctes):
                d = frame.get(name)
                if d is not None:
                    if isinstance(d.plan, N.WorkTableScan):
                        return N.WorkTableScan([_copy(c, qualifier) for c in d.plan.cols],
                                               worktable=d.plan.worktable)
                    return N.CTEScan([_copy(c, qualifier) for c in d.plan.cols], cte=d)

            tt = transition_table(name)
            if tt is not None:  # NB: REFERENCING's names come before tables, as in PG
                rel = VirtualTable("", name, tuple((n, t) for n, t, _ in tt.columns),
                                   functools.partial(_transition_rows, name))
                return N.VirtualScan([N.PCol(n, t, m, qualifier=qualifier)
                                      for n, t, m in tt.columns], vtable=rel)

        schemas = [schema] if schema else ["pg_catalog", *self.search_path]
        for sname in schemas:
            vt = VIRTUAL_TABLES.get((sname, name))
            if vt is not None:
                cols = [N.PCol(n, t, qualifier=qualifier, table_oid=vt.oid, attnum=i + 1)
                        for i, (n, t) in enumerate(vt.columns)]
                node = self._with_version(N.VirtualScan(cols, vtable=vt), qualifier, vt.oid)
                return self._with_tableoid(node, vt.oid, qualifier)
            s = next((s for s in self.catalog.schemas if s.name == sname), None)
            if s is None:
                continue
            t = next((t for t in self.catalog.tables if t.name == name and t.schema_oid == s.oid), None)
            if t is None:
                seq = next((q for q in self.catalog.sequences
                            if q.name == name and q.schema_oid == s.oid), None)
                if seq is None:
                    continue
                vt = sequence_relation(seq)
                cols = [N.PCol(n, t, qualifier=qualifier, table_oid=seq.oid, attnum=i + 1)
                        for i, (n, t) in enumerate(vt.columns)]
                return self._with_tableoid(N.VirtualScan(cols, vtable=vt), seq.oid, qualifier)
            if t.kind == "v" and t.view_sql:
                shared = self.shared_views.get(t.oid)
                if shared is not None:
                    return N.CTEScan([_copy(c, qualifier) for c in shared.plan.cols], cte=shared)
                q = cast(exp.Expression, normalize_identifiers(
                    sqlglot.parse_one(t.view_sql, read="postgres"), dialect="postgres"))
                saved, self.ctes = self.ctes, []
                try:
                    node = self.build(q, None)
                finally:
                    self.ctes = saved
                # NB: the catalog's names, not the query's: CREATE VIEW v (a, b) renames
                names = [c.name for c in sorted(t.columns, key=lambda c: c.attnum)
                         if not c.dropped]
                if self.mentions.get(name, 0) > 1 and _shareable(node):
                    d = self.shared_views[t.oid] = N.CTEDef(name, _rename(node, names, name))
                    own_columns(node.cols, t)
                    return N.CTEScan([_copy(c, qualifier) for c in node.cols], cte=d)
                node = _rename(node, names, qualifier)
                own_columns(node.cols, t)  # NB: typed and described as the view's, as in PG
                return node
            if t.partkey:  # NB: its partitions' rows (plan.partscan)
                return partition_scan(self, t, qualifier, only)
            if not t.populated:  # NB: a materialized view made WITH NO DATA (ddl.matviews)
                raise ObjectNotInPrerequisiteState(
                    f'materialized view "{t.name}" has not been populated',
                    hint="Use the REFRESH MATERIALIZED VIEW command.")
            node = self._with_version(self.table_scan(t, qualifier), qualifier, t.oid)
            return self._with_tableoid(node, t.oid, qualifier)
        shown = f"{schema}.{name}" if schema else name
        raise UndefinedTable(f'relation "{shown}" does not exist')

    def relation_oid(self, schema: str | None, name: str) -> int | None:
        """The oid of the relation `[schema.]name` names: 0 for a CTE, None when there is none."""
        if schema is None and any(name in frame for frame in self.ctes):
            return 0
        for sname in [schema] if schema else ["pg_catalog", *self.search_path]:
            vt = VIRTUAL_TABLES.get((sname, name))
            if vt is not None:
                return vt.oid
            s = next((s for s in self.catalog.schemas if s.name == sname), None)
            t = None if s is None else next(
                (t for t in self.catalog.tables if t.name == name and t.schema_oid == s.oid), None)
            if t is not None:
                return t.oid
        return None

    def _with_tableoid(self, node: N.Node, oid: int, qualifier: str) -> N.Node:
        """Adds the hidden system column `tableoid` when the statement mentions it."""
        if not self.want_tableoid:
            return node
        exprs = [col(i, c.type, c.name) for i, c in enumerate(node.cols)]
        exprs.append(E("const", oid, [], T.OID))
        cols = [*node.cols, N.PCol("tableoid", T.OID, -1, qualifier, oid, -6, hidden=True)]
        return N.Project(cols, child=node, exprs=exprs)

    def _with_version(self, node: N.Node, qualifier: str, oid: int) -> N.Node:
        """Adds the hidden system columns xmin, xmax, cmin, cmax and ctid the statement names:
        a table's xmin from the writer of each row's version (found by its hidden ROW_KEY,
        last), its ctid from that key and the stored values, a system catalog's xmin 1
        (bootstrap), as PostgreSQL's initdb rows, and no
        ctid (catalog.syscols)."""
        if not self.want_version:
            return node
        n = len(node.cols)
        exprs = [col(i, c.type, c.name) for i, c in enumerate(node.cols)]
        cols = list(node.cols)
        scan = isinstance(node, N.Scan)
        row = [col(n - 1, T.BYTEA), *(col(i, c.type) for i, c in enumerate(node.cols[:-1]))]
        own = {c.name for c in node.cols}  # NB: pg_replication_slots has a column xmin
        for name, num, typ in SYSTEM_COLUMNS:
            if name not in self.want_version or name in own or (name == "ctid" and not scan):
                continue
            if name == "xmin" and isinstance(node, N.Scan):  # NB: its writer's (txn.xids)
                exprs.append(E("pyfunc", (name, row_xmin(node.table.space), False),
                               [E("ctxfn", None, [], T.UNKNOWN), row[0]], typ))
            elif name == "ctid" and isinstance(node, N.Scan):  # NB: row ids in insertion
                exprs.append(E("pyfunc", (name, _row_ctid, False), row, typ)  # order without a key
                             if node.table.primary_key else
                             E("pyfunc", (name, heap_tid, False), row[:1], typ))
            else:
                exprs.append(E("const", 1 if name == "xmin" else 0, [], typ))
            cols.append(N.PCol(name, typ, -1, qualifier, oid, num, hidden=True))
        return N.Project(cols, child=node, exprs=exprs)

    def table_scan(self, t: Any, qualifier: str) -> N.Scan:
        cols = [N.PCol(c.name, c.type_oid, c.typmod, qualifier, t.oid, c.attnum, dropped=c.dropped,
                       rowtype=c.domain if c.domain in T.ELEMENT_OF else 0)  # NB: d[] is d[]
                for c in sorted(t.columns, key=lambda c: c.attnum)]
        if not self.want_key and not self.want_version:
            return N.Scan(cols, table=t)
        cols.append(N.PCol(ROW_KEY, T.BYTEA, -1, qualifier, t.oid, -1, hidden=True))
        return N.Scan(cols, table=t, with_keys=True)

    def function_scan(self, fn: exp.Expr, outer: Scope | None, alias: str | None,
                      col_names: list[str], ordinality: bool, ord_name: Any = None,
                      defs: tuple[tuple[str, int], ...] | None = None) -> N.Node:
        b = Binder(self, Scope([], parent=outer))
        e = record_call(b, fn, defs, self.params, position_of(fn)) or b.bind(fn)
        if e.kind not in ("srf", "call"):
            raise FeatureNotSupported("only function calls are allowed in FROM")
        fd = e.data
        qual = alias or e.name
        if fd.out_columns:
            cols = [N.PCol(n, t, qualifier=qual, result_of=e.rowtype) for n, t in fd.out_columns]
            multi = True
        else:  # NB: a single OUT (TABLE) column keeps its name, as in PostgreSQL
            cols = [N.PCol(fd.out_column or alias or e.name, e.type, qualifier=qual, result_of=-1)]
            multi = False
        if ordinality:
            oname = ord_name.name if isinstance(ord_name, exp.Identifier) else ORDINALITY
            cols.append(N.PCol(oname, T.INT8, qualifier=qual))
        for i, n in enumerate(col_names[: len(cols)]):
            cols[i].name = n
        return N.FunctionScan(cols, call=e, ordinality=ordinality, multi=multi)

    def plan_join(self, left: N.Node, j: exp.Join, outer: Scope | None, start: int = 0) -> N.Node:
        """Joins `j` onto `left`; USING and NATURAL see only left's columns from `start` on,
        the FROM item after the last comma, as `a, b JOIN c USING (id)` is a, (b JOIN c)."""
        side = (j.args.get("side") or "").lower()
        kind = (j.args.get("kind") or "").lower()
        item = j.this
        lateral = isinstance(item, exp.Lateral) or (
            isinstance(item, exp.Subquery) and bool(item.args.get("lateral")))
        # NB: a function in FROM that reads no column (generate_series(1, 32) in pgJDBC's key
        # queries) is an ordinary relation, so the comma joins around it can still be reordered.
        fn_lateral = isinstance(item, exp.Table) and isinstance(item.this, exp.Func) and \
            item.this.find(exp.Column) is not None
        fn_lateral = fn_lateral or isinstance(item, exp.Table) and bool(
            item.args.get("rows_from")) and item.find(exp.Column) is not None  # ROWS FROM
        if lateral or fn_lateral or isinstance(item, exp.Unnest):
            lscope = Scope(left.cols, parent=outer)
            right, _ = self.plan_from(item, outer, lateral_scope=lscope)
            lateral = True  # its outer references count the left row as one scope level
        else:
            right, _ = self.plan_from(item, outer)
        jkind = side or ("cross" if kind == "cross" else "inner")
        if kind == "outer" and not side:
            jkind = "left"
        if jkind in ("right", "full"):  # NB: a padded row of NULLs is not a row of NULLs
            left = mark_null_side(left, self.row_names, self.marks)
        if jkind in ("left", "full"):
            right = mark_null_side(right, self.row_names, self.marks)
        cols = [*left.cols, *[dataclasses.replace(c) for c in right.cols]]
        nl = len(left.cols)
        for i, c in enumerate(cols):  # NB: a null-extended side's whole row is NULL
            if jkind in (("left", "full") if i >= nl else ("right", "full")):
                cols[i] = dataclasses.replace(c, nullable=True)
            elif i >= nl:
                c.nullable = right.cols[i - nl].nullable
        cond = None
        using = j.args.get("using")
        if j.args.get("method", "").upper() == "NATURAL" if j.args.get("method") else False:
            using = joinusing.natural_names(left.cols, right.cols, start)
        scope = Scope(cols, parent=outer)
        b = Binder(self, scope)
        if jkind == "" or jkind == "cross":
            jkind = "inner" if using or j.args.get("on") is not None else "cross"
        if using:
            names = [x.name if isinstance(x, exp.Expression) else str(x) for x in using]
            pairs = joinusing.using_pairs(names, left.cols, right.cols, start)
            preds = [b.compare("=", col(li, cols[li].type, cols[li].name),
                               col(nl + ri, cols[nl + ri].type, cols[nl + ri].name))
                     for li, ri in pairs]
            cond = preds[0] if len(preds) == 1 else E("and", None, preds, T.BOOL)
            alias = j.args.get("join_alias")
            out, exprs = joinusing.merged_columns(
                left.cols, cols[nl:], pairs, start, jkind,
                alias.name if alias is not None else None, self.params)
            node = N.Join(cols, left=left, right=right, kind=jkind, cond=cond, lateral=lateral)
            return N.Project(out, child=node, exprs=exprs)
        if j.args.get("on") is not None:
            if start and outer is None:  # NB: a, b JOIN c ON ...: a is out of the ON's reach
                _check_on_reach(j.args["on"], left.cols[:start], cols[start:])
            cond = b.bind_bool(j.args["on"], "JOIN/ON")
        return N.Join(cols, left=left, right=right, kind=jkind if jkind != "cross" else "inner",
                      cond=cond, lateral=lateral)

    # -- reg* casts ------------------------------------------------------------------------------

    def reg_cast(self, inner: E, target: int) -> E:
        """Builds `x::regclass` etc.: resolved by the registry's `cast:`/`format:` functions
        (or `expr.regcast` while they are missing); the value is an OID that prints as a name."""
        _ensure_loaded()
        tname = T.TYPES[target].name
        if inner.kind == "param" and inner.type == T.UNKNOWN:
            inner = coerce(inner, T.TEXT, params=self.params)
        literal = inner.kind == "const" and inner.type == T.UNKNOWN and inner.data is not None
        if inner.type == T.UNKNOWN:
            inner = coerce(inner, T.TEXT)
        from_text = ty.is_string(inner.type)
        cast_fd = FUNCTIONS.get(f"cast:{tname}")
        fmt_fd = FUNCTIONS.get(f"format:{tname}")
        ctxe = E("ctxfn", None, [], T.UNKNOWN)
        if cast_fd and fmt_fd:
            cast_fn, fmt_fn = cast_fd[0].impl, fmt_fd[0].impl
            if literal:  # NB: PostgreSQL converts a literal as it parses: 42P01 under WHERE false
                check_literal(cast_fn, self.catalog, self.search_path, str(inner.data))

            def conv(fctx: Any, v: Any) -> Any:
                oid = cast_fn(fctx, str(v)) if from_text else int(v)
                return None if oid is None else RegOid(oid, fmt_fn(fctx, oid))

            return E("pyfunc", (f"::{tname}", once_per_catalog(conv), True), [ctxe, inner],
                     target)
        fn = self.reg.converter(target, from_text)
        if inner.kind == "const":
            return E("const", None if inner.data is None else fn(inner.data), [], target)
        return E("cast", fn, [inner], target)


def _comma_groups(joins: list[exp.Join]) -> list[exp.Join]:
    """`a, b RIGHT JOIN c ON ...` is a, (b RIGHT JOIN c ON ...): a left-deep (a, b) RIGHT JOIN c
    would pad c's lost rows with NULL for a. So a comma item whose JOINs include a RIGHT or FULL
    one becomes one parenthesized item; the others stay left-deep (same rows, and a LATERAL
    item in them still sees every item before it)."""
    segments: list[list[exp.Join]] = [[]]
    for j in joins:
        if _is_comma(j):
            segments.append([])
        segments[-1].append(j)
    out = segments[0]
    for seg in segments[1:]:
        if isinstance(seg[0].this, exp.Table | exp.Subquery) and any(
                (j.args.get("side") or "").upper() in ("RIGHT", "FULL") for j in seg[1:]):
            inner = seg[0].this.copy()
            inner.set("joins", [j.copy() for j in seg[1:]])
            seg = [exp.Join(this=exp.Subquery(this=inner))]
        out.extend(seg)
    return out


def _check_on_reach(on: exp.Expression, before: list[N.PCol], own: list[N.PCol]) -> None:
    """`a, b JOIN c ON a.id = c.id`: the ON sees b and c only, so naming a there is 42P01 (a
    column only a has, 42703), with PostgreSQL's HINT. Subqueries in the ON are not looked into."""
    for c in on.find_all(exp.Column):
        p = c.parent
        while p is not None and p is not on and not isinstance(p, exp.Select | exp.Subquery):
            p = p.parent
        if p is not None and p is not on or not isinstance(c.this, exp.Identifier):
            continue
        q, name = c.table, c.name
        if q and any(x.qualifier == q for x in before) and not any(x.qualifier == q for x in own):
            raise UndefinedTable(
                f'invalid reference to FROM-clause entry for table "{q}"',
                hint=f'There is an entry for table "{q}", but it cannot be referenced from this '
                "part of the query.")
        hit = next((x for x in before if x.name == name and not x.hidden), None)
        if not q and hit is not None and not any(x.name == name for x in own):
            raise UndefinedColumn(
                f'column "{name}" does not exist',
                hint=f'There is a column named "{name}" in table "{hit.qualifier}", but it cannot '
                "be referenced from this part of the query.")


def _is_comma(j: exp.Join) -> bool:
    """True for `, item` in FROM (sqlglot makes it a Join with no kind, side or condition)."""
    return not any(j.args.get(k) for k in ("kind", "side", "on", "using", "method"))


def _shape(e: E) -> Any:
    """What a bound expression computes, for telling select-list items apart."""
    data = e.data if isinstance(e.data, int | str | float | bool | type(None)) else id(e.data)
    return (e.kind, data, e.type, tuple(_shape(a) for a in e.args))


def _nulls_first(o: exp.Ordered) -> bool:
    nf = o.args.get("nulls_first")
    if nf is None:
        return bool(o.args.get("desc"))
    return bool(nf)


def _row_ctid(key: bytes, *row: Any) -> str:
    return version_tid(key, row)


def _copy(c: N.PCol, qualifier: str | None) -> N.PCol:
    return N.PCol(c.name, c.type, c.typmod, qualifier, c.table_oid, c.attnum, c.hidden, c.dropped,
                  c.fields, c.rowtype, derived=c.derived)


def _shareable(node: N.Node) -> bool:
    """True if a view named more than once in a statement may be computed once and read by
    every mention, as a materialized WITH query is (CH-benCHmark Q15 reads revenue0 in FROM
    and again in a scalar subquery: PostgreSQL computes it twice).

    Only views that aggregate (or are DISTINCT or set operations) qualify: nothing above
    such a view could have reached its scans anyway, so sharing loses no pushdown, while a
    plain filtered view keeps being inlined for its indexes. Nothing volatile may run in it
    (two mentions of `random()` must differ), and nothing may read an enclosing row."""
    if _correlated(node):
        return False
    heavy = False
    for n in N.walk(node):
        heavy = heavy or isinstance(n, N.Aggregate | N.Distinct | N.SetOp | N.Window)
        for v in vars(n).values():
            for e in _exprs(v if not isinstance(v, N.AggCall) else [v]):
                for x in e.walk():
                    if x.kind in ("call", "srf") and getattr(x.data, "volatile", False):
                        return False
    return heavy


def _rename(node: N.Node, names: list[str], qualifier: str | None) -> N.Node:
    """Applies a FROM alias (and column aliases) to a node's columns."""
    vis = visible(node.cols)
    cols = [_copy(c, qualifier) for c in node.cols]
    for i, n in zip(vis, names, strict=False):
        cols[i].name = n
    node.cols = cols
    return node


def _check_distinct_on(keys: list[N.SortKey], order_items: list, on_exprs: list[E],
                       on_nodes: list) -> None:
    """PostgreSQL's rule: an ORDER BY key that is a DISTINCT ON expression may not follow one
    that is not (42P10)."""
    on_cols = {e.data for e in on_exprs if e.kind == "col"}
    skipped = False
    for k, o in zip(keys, order_items, strict=True):
        if (k.expr.kind == "col" and k.expr.data in on_cols) or o.this in on_nodes:
            if skipped:
                raise InvalidColumnReference(
                    "SELECT DISTINCT ON expressions must match initial ORDER BY expressions")
        else:
            skipped = True


def position_of(node: Any) -> int | None:
    """1-based character position of a parsed identifier in its statement (the P field)."""
    meta = getattr(node, "meta", None) or {}
    start = meta.get("start")
    return start + 1 if isinstance(start, int) else None


def _transition_rows(name: str, _ctx: Any) -> list[tuple[Any, ...]]:
    """A transition table's rows when its scan runs (`plan.transition`)."""
    return rows_of(name)
