"""The privileges a statement needs, checked each time it runs (PostgreSQL's ExecCheckRTPerms).

Analysis records, from the parsed statement, which relations it touches and
how: SELECT for every relation read, INSERT/UPDATE/DELETE for the target (plus
SELECT when the statement reads the target's columns: a WHERE, a RETURNING,
or an expression on the right of SET), UPDATE for `SELECT ... FOR UPDATE`
and `ON CONFLICT DO UPDATE`, TRUNCATE for TRUNCATE. The check runs at every
execution, against the catalog and the role of that moment, so a cached plan
never outlives a REVOKE or a SET ROLE. It costs one dictionary look-up when
neither the catalog nor the role changed since the last run of the statement.
Views are checked as the view (their tables are read with the view owner's
rights, as in PostgreSQL, or the caller's for a `security_invoker` view).

>>> import sqlglot
>>> [(s, n, w, sorted(c)) for s, n, w, c in
...  needs(sqlglot.parse_one("update t set a = a + 1 where b = 2", read="postgres"))]
[(None, 't', 'wr', ['a', 'b'])]
>>> needs(sqlglot.parse_one("with c as (select * from s.u) select * from c", read="postgres"))
[('s', 'u', 'r', None)]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from sqlglot import exp

from ...errors import InsufficientPrivilege, SQLError
from ...pgwire.backend import Result
from ..catalog.model import Role
from ..catalog.viewoptions import is_on
from ..ddl.names import find_relation, ident
from ..parse import parse_sql
from ..pgcatalog.updatable import not_updatable, relation_of, view_query
from ..stmt import Stmt
from .check import check_table, current_role, definer, has_privileges

if TYPE_CHECKING:
    from ..session import SQLSession

Need = tuple[str | None, str, str, frozenset[str] | None]
_SKIP_SCHEMAS = ("pg_catalog", "information_schema")


def _target(node: Any) -> exp.Table | None:
    if isinstance(node, exp.Schema):
        node = node.this
    return node if isinstance(node, exp.Table) else None


def _reads_columns(*parts: Any) -> bool:
    return any(p is not None and any(True for _ in p.find_all(exp.Column)) for p in parts)


def needs(tree: exp.Expression) -> list[Need]:
    """(schema, name, privilege letters) for every relation the statement names."""
    out: dict[tuple[str | None, str], str] = {}
    ctes = {ident(a.this) for c in tree.find_all(exp.CTE) if (a := c.args.get("alias"))}
    target = None
    if isinstance(tree, exp.Insert | exp.Update | exp.Delete):
        target = _target(tree.this)
    if target is not None:
        want = {exp.Insert: "a", exp.Update: "w", exp.Delete: "d"}[type(tree)]
        if isinstance(tree, exp.Insert):
            conflict = tree.args.get("conflict")
            if conflict is not None and "UPDATE" in str(conflict.args.get("action") or "").upper():
                want += "w"
            if tree.args.get("returning") is not None:
                want += "r"
        else:
            sets = [e.expression for e in tree.expressions if isinstance(e, exp.EQ)]
            if _reads_columns(tree.args.get("where"), tree.args.get("returning"), *sets):
                want += "r"
        key = (ident(target.args.get("db")) or None, ident(target.this))
        out[key] = want
    locks = bool(tree.args.get("locks")) if isinstance(tree, exp.Select) else False
    for t in tree.find_all(exp.Table):
        if t is target or not isinstance(t.this, exp.Identifier):
            continue
        schema = ident(t.args.get("db")) or None
        name = ident(t.this)
        if schema is None and name in ctes:
            continue
        if isinstance(tree, exp.TruncateTable):
            want = "D"
        else:
            want = "rw" if locks else "r"
        key = (schema, name)
        out[key] = "".join(dict.fromkeys(out.get(key, "") + want))
    star = any(True for _ in tree.find_all(exp.Star))
    cols = None if star else frozenset(ident(c.this) for c in tree.find_all(exp.Column))
    if isinstance(tree, exp.Insert) and not isinstance(tree.this, exp.Schema):
        cols = None  # INSERT without a column list: every column
    elif isinstance(tree, exp.Insert) and cols is not None:
        cols = cols | {ident(e) for e in tree.this.expressions}
    return [(s, n, w, cols) for (s, n), w in out.items() if s not in _SKIP_SCHEMAS]


def check_needs(s: SQLSession, wanted: list[Need]) -> None:
    """42501 unless the current role may do all of `wanted` (relations not found are skipped:
    the statement reports them itself)."""
    cat = s.catalog()
    _check_as(s, cat, current_role(s, cat), wanted, s.search_path(), 0)


def _check_as(s: SQLSession, cat: Any, role: Role | None, wanted: list[Need], path: list[str],
              depth: int) -> None:
    """Checks `wanted` for `role`, and what each view named needs for the view's owner."""
    for schema, name, letters, cols in wanted:
        t = find_relation(cat, schema, name, path)
        if t is None:
            continue
        if role is not None and not role.superuser:
            sch = cat.schema_by_oid(t.schema_oid) if depth == 0 else None  # NB: a view's
            # schema lookups were checked when it was created, as in PostgreSQL
            if sch is not None and not sch.name.startswith("pg_temp") and not has_privileges(
                    cat, role, "schema", sch, "U"):
                raise InsufficientPrivilege(f"permission denied for schema {sch.name}")
            check_table(s, cat, role, t, letters, cols)
        if t.kind == "v" and t.view_sql and depth < _MAX_VIEW_DEPTH:
            # NB: a security_invoker view's relations are checked as the current user, even
            # under another view (PostgreSQL leaves their checkAsUser unset)
            owner = current_role(s, cat) if is_on(t.options, "security_invoker") else next(
                (r for r in cat.roles if r.oid == t.owner), None)
            writes = "".join(c for c in letters if c in "awd")
            if writes and any(tg.table_oid == t.oid for tg in cat.triggers):
                writes = ""  # NB: INSTEAD OF triggers write, not the view's base relation
            _check_as(s, cat, owner, _view_needs(t.view_sql, writes), path, depth + 1)


_MAX_VIEW_DEPTH = 32


def _view_needs(view_sql: str, writes: str = "") -> list[Need]:
    """What a view's query reads, checked with its owner's rights, whoever reads the view;
    `writes` (a, w, d) a write through an automatically updatable view needs on its base
    relation as well."""
    try:
        out = needs(parse_sql(view_sql))
    except SQLError:  # NB: the view's own expansion reports a broken view
        return []
    if writes and not_updatable(q := view_query(view_sql)) is None:
        base = relation_of(cast(exp.Select, q))
        out = [(sc, n, w + writes, None) if (sc, n) == base else (sc, n, w, c)
               for sc, n, w, c in out]
    return out


def checker(tree: exp.Expression) -> Callable[[SQLSession], None] | None:
    """The privilege check of a statement `tree` (None when it names no relation), run once
    per catalog version and current user (a PL/pgSQL body's queries run it per execution)."""
    wanted = needs(tree)
    if not wanted:
        return None
    # the (catalog version, role, session user, definer) the last check passed for: a GRANT or
    # REVOKE commits a new catalog version, so the next run checks again; never one of
    # version -1 (uncommitted DDL, no version to trust: each run checks)
    passed: tuple[int, str | None, str | None, str | None] | None = None

    def check(s: SQLSession) -> None:
        nonlocal passed
        values = s.settings.values
        key = (s.catalog_version(), values.get("role"), values.get("session_authorization"),
               definer())
        if key != passed:
            check_needs(s, wanted)
            if key[0] >= 0:
                passed = key

    return check


def guard(stmt: Stmt, tree: exp.Expression) -> Stmt:
    """Makes `stmt` check its privileges before each run (a no-op for statements naming none)."""
    check = checker(tree)
    if check is None:
        return stmt
    stmt.check = check
    inner: Callable[[SQLSession, list[Any]], Result] = stmt.run

    def run(s: SQLSession, params: list[Any]) -> Result:
        check(s)
        return inner(s, params)

    stmt.run = run
    return stmt
