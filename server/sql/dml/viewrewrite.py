"""Automatically updatable views: INSERT, UPDATE and DELETE on a simple view, rewritten onto its table.

PostgreSQL turns a write on a view that selects from one table (or one
updatable view) without DISTINCT, GROUP BY, HAVING, set operations, WITH,
LIMIT, aggregates, window or set-returning functions into the same write on
that relation (rewriteTargetView): the view's columns become the columns
they select, its WHERE is added to the statement's, and RETURNING gives the
view's columns. ORMs map models to such views and write through them. A view
column that is an expression may be read, not written (0A000). A view that
is not updatable refuses with 55000 and PostgreSQL's DETAIL and HINT. The
rewritten statement is an ordinary one on the base relation, so its triggers,
defaults and constraints apply (and a view over a view is rewritten again).

What makes a view updatable, column by column, is `pgcatalog.updatable`'s.
"""

from __future__ import annotations

from sqlglot import exp

from ...errors import FeatureNotSupported, SQLError
from ..catalog.model import Table
from ..ddl.names import ident
from ..pgcatalog.updatable import (
    base_alias,
    check_option,
    column_map,
    not_updatable,
    selected,
    view_default,
    view_query,
)

_VERB = {"INSERT": ("insert into", "inserting into"), "UPDATE": ("update", "updating"),
         "DELETE": ("delete from", "deleting from")}
_COLUMN_DETAIL = "View columns that are not columns of their base relation are not updatable."


def refuse(view: Table, op: str, detail: str) -> SQLError:
    """55000: the view is not automatically updatable (PostgreSQL's words, DETAIL and HINT)."""
    verb, doing = _VERB[op]
    return SQLError(f'cannot {verb} view "{view.name}"', sqlstate="55000", detail=detail,
                    hint=f"To enable {doing} the view, provide an INSTEAD OF {op} trigger or an "
                         f"unconditional ON {op} DO INSTEAD rule.")


def _substitute(node: exp.Expression, exprs: dict[str, exp.Expression],
                names: set[str]) -> exp.Expression:
    """Replaces references to the view's columns (unqualified or qualified by one of `names`)
    by what the view selects for them."""
    def swap(n: exp.Expression) -> exp.Expression:
        if isinstance(n, exp.Column) and not isinstance(n.this, exp.Star):
            q = ident(n.args.get("table")) if n.table else ""
            name = ident(n.this)
            if (not q or q in names) and name in exprs:
                return exprs[name].copy()
        return n
    return node.transform(swap)


def _renamed(n: exp.Expression, cols: dict[str, exp.Column | None]) -> exp.Expression:
    """ON CONFLICT's columns: the base's names, qualifiers (`excluded.`) kept."""
    if isinstance(n, exp.Column) and not isinstance(n.this, exp.Star):
        got = cols.get(ident(n.this))
        if got is not None:
            return exp.column(got.name, n.table or None)
    return n


def _named(e: exp.Expression, name: str) -> exp.Expression:
    return exp.Alias(this=e, alias=exp.to_identifier(name, quoted=True))


def _returning(tree: exp.Expression, exprs: dict[str, exp.Expression], names: set[str],
               order: list[str]) -> None:
    """RETURNING over the view's columns: `*` is the view's, each expression rewritten."""
    ret = tree.args.get("returning")
    if ret is None:
        return
    out: list[exp.Expression] = []
    for e in ret.expressions:
        inner = e.this if isinstance(e, exp.Alias) else e
        star = isinstance(inner, exp.Star) or (
            isinstance(inner, exp.Column) and isinstance(inner.this, exp.Star))
        if star and isinstance(inner, exp.Column) and ident(inner.args.get("table")) \
                not in names:
            out.append(e)  # NB: u.* of UPDATE ... FROM u
            continue
        if star:
            out.extend(_named(exprs[n].copy(), n) for n in order)
            if isinstance(inner, exp.Star):  # NB: and the FROM / USING relations' columns
                out.extend(exp.Column(this=exp.Star(), table=exp.to_identifier(r))
                           for r in _others(tree))
            continue
        name = e.alias_or_name if isinstance(e, exp.Alias | exp.Column) else None
        new = _substitute(e, exprs, names)
        if name and not isinstance(new, exp.Alias) and not (
                isinstance(new, exp.Column) and ident(new.this) == name):
            new = _named(new, name)  # NB: the view's name for the column
        out.append(new)
    ret.set("expressions", out)


def _others(tree: exp.Expression) -> list[str]:
    """The names of UPDATE ... FROM's and DELETE ... USING's relations, in order."""
    out = []
    for key in ("from_", "using"):
        got = tree.args.get(key)
        if not got:
            continue
        items = got if isinstance(got, list) else [got.this, *(got.expressions or [])] \
            if isinstance(got, exp.From) else [got]
        for t in items:
            if isinstance(t, exp.Table | exp.Subquery):
                out.append(t.alias_or_name)
    for j in tree.args.get("joins") or ():
        out.append(j.this.alias_or_name)
    return out


def rewrite(tree: exp.Insert | exp.Update | exp.Delete, view: Table, op: str,
            base_cols: list[str]) -> exp.Expression:
    """The statement on the view's base relation (55000 when the view is not updatable)."""
    q = view_query(view.view_sql or "")
    why = not_updatable(q)
    if why is not None:
        raise refuse(view, op, why)
    assert isinstance(q, exp.Select)
    order = [c.name for c in view.live_columns]
    cols = column_map(q, order, base_cols)
    if op != "DELETE" and all(v is None for v in cols.values()):
        raise refuse(view, op, "Views that have no updatable columns are not automatically "
                               "updatable.")
    # an expression column is still readable: RETURNING and WHERE may use it
    alias = base_alias(q)
    readable = {n: e for n, (e, _) in zip(order, selected(q, base_cols), strict=False)}
    src = q.args["from_"].this.copy()
    out = tree.copy()
    target = out.this.this if isinstance(out.this, exp.Schema) else out.this
    user_alias = ident(target.args["alias"].this) if target.args.get("alias") else None
    names = {user_alias} if user_alias else {view.name}
    new_target = exp.Table(this=src.this, db=src.args.get("db"))
    if src.args.get("alias") is not None or user_alias is not None:
        new_target.set("alias", exp.TableAlias(this=exp.to_identifier(alias)))
    where = q.args.get("where")
    if op == "INSERT":
        listed = [ident(e) for e in out.this.expressions] if isinstance(out.this, exp.Schema) \
            else order[:_width(out)]
        base_names = []
        for n in listed:
            if n not in cols:
                raise SQLError(f'column "{n}" of relation "{view.name}" does not exist',
                               sqlstate="42703")
            if cols[n] is None:
                raise FeatureNotSupported(f'cannot insert into column "{n}" of view '
                                          f'"{view.name}"', detail=_COLUMN_DETAIL)
            base_names.append(exp.to_identifier(cols[n].name))  # type: ignore[union-attr]
        extra = _view_defaults(out, view, listed, cols)
        base_names += [exp.to_identifier(cols[n].name) for n in extra]  # type: ignore[union-attr]
        out.set("this", exp.Schema(this=new_target, expressions=base_names))
        conflict = out.args.get("conflict")
        if conflict is not None:
            for key in conflict.args.get("conflict_keys") or ():
                for c in key.find_all(exp.Column):
                    if ident(c.this) not in cols:  # NB: the view's names, not the table's
                        raise SQLError(f'column "{ident(c.this)}" does not exist',
                                       sqlstate="42703")
            out.set("conflict", conflict.transform(lambda n: _renamed(n, cols)))
    else:
        out.set("this", new_target)
        if op == "UPDATE":
            for item in out.expressions:
                left = item.this
                n = ident(left.this if isinstance(left, exp.Column) else left)
                if n not in cols:  # NB: a table column the view leaves out is not there
                    raise SQLError(f'column "{n}" of relation "{view.name}" does not exist',
                                   sqlstate="42703")
                if cols[n] is None:
                    raise FeatureNotSupported(f'cannot update column "{n}" of view '
                                              f'"{view.name}"', detail=_COLUMN_DETAIL)
                item.set("this", exp.column(cols[n].name))  # type: ignore[union-attr]
                item.set("expression", _substitute(item.expression, readable, names))
        cond = out.args.get("where")
        mine = _substitute(cond.this, readable, names) if cond is not None else None
        for key in ("from_", "using"):
            if out.args.get(key):  # NB: sqlglot leaves `using` False when absent
                got = out.args[key]
                out.set(key, [_substitute(g, readable, names) for g in got]
                        if isinstance(got, list) else _substitute(got, readable, names))
        both = [x for x in (mine, where.this.copy() if where is not None else None) if x]
        if both:
            out.set("where", exp.Where(this=exp.and_(*(exp.Paren(this=b) for b in both))))
    _returning(out, readable, names, order)
    # WITH CHECK OPTION: the conditions of the views above (over this view's columns) and
    # this view's own, each over this view's base relation, for the table at the bottom
    checks = [(v, _substitute(c, readable, names)) for v, c in tree.meta.get("view_checks", ())]
    option = check_option(view)
    cascade = bool(tree.meta.get("view_cascade"))
    if (option or cascade) and where is not None and op != "DELETE":
        checks.append((view.name, where.this.copy()))
    out.meta["view_checks"] = checks
    out.meta["view_cascade"] = cascade or option == "cascaded"
    return out


def _view_defaults(out: exp.Expression, view: Table, listed: list[str],
                   cols: dict[str, exp.Column | None]) -> list[str]:
    """Puts the view's own column defaults into the INSERT (they come before the table's):
    for DEFAULT in VALUES, and for the writable columns the statement leaves out, whose
    names it returns (their values are added to each row)."""
    own = {c.name: d for c in view.live_columns if (d := view_default(c)) is not None}
    if not own:
        return []
    extra = [n for n in own if n not in listed and cols.get(n) is not None]
    src = out.args.get("expression")
    if src is None and out.args.get("default"):  # DEFAULT VALUES
        if extra:
            out.set("default", None)
            out.set("expression", exp.Values(expressions=[exp.Tuple(
                expressions=[own[n].copy() for n in extra])]))
        return extra
    if isinstance(src, exp.Values):
        for tup in src.expressions:
            vals = list(tup.expressions)
            for i, e in enumerate(vals[:len(listed)]):
                if isinstance(e, exp.Var) and e.name.upper() == "DEFAULT" and listed[i] in own:
                    vals[i] = own[listed[i]].copy()
            tup.set("expressions", vals + [own[n].copy() for n in extra])
    elif src is not None and extra:
        sub = exp.Subquery(this=src, alias=exp.TableAlias(this=exp.to_identifier("_s")))
        out.set("expression", exp.select(exp.Column(this=exp.Star(), table=exp.to_identifier(
            "_s")), *[own[n].copy() for n in extra]).from_(sub))
    return extra


def _width(tree: exp.Expression) -> int:
    """How many leading view columns an INSERT without a column list writes."""
    src = tree.args.get("expression")
    if isinstance(src, exp.Values) and src.expressions:
        first = src.expressions[0]
        return len(first.expressions) if isinstance(first, exp.Tuple) else 1
    if src is None:  # DEFAULT VALUES
        return 0
    if isinstance(src, exp.Select):
        return len(src.expressions) if not any(
            isinstance(e, exp.Star) or (isinstance(e, exp.Column) and isinstance(e.this, exp.Star))
            for e in src.expressions) else 10 ** 6
    return 10 ** 6
