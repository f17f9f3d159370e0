"""Access privilege inquiry functions: has_table_privilege and its family, pg_has_role.

Each takes an optional role (name or OID; the current role when absent), the
object (name or OID) and a privilege list such as `'SELECT, INSERT'` (true if
any is held; `WITH GRANT OPTION` asks for the grant option), answering from
the same ACLs and rules the executor's checks use (`privileges.check`).
"""

from __future__ import annotations

from typing import Any

from ...errors import InvalidParameterValue, UndefinedColumn, UndefinedObject, UndefinedTable
from ...pgtypes import oids as T
from ..catalog.model import CatalogSnapshot, Role, Sequence, Table
from ..ddl.names import find_relation, find_sequence, parse_qualified, schema_by_name
from ..privileges.acl import PRIV_LETTERS, parse_item
from ..privileges.check import (
    column_privileges,
    current_role,
    member_roles,
    object_acl,
    privilege_roles,
    role_by_name,
)
from .registry import register

_VALID = {"table": "SELECT INSERT UPDATE DELETE TRUNCATE REFERENCES TRIGGER",
          "column": "SELECT INSERT UPDATE REFERENCES",
          "sequence": "USAGE SELECT UPDATE", "schema": "USAGE CREATE",
          "function": "EXECUTE", "database": "CREATE CONNECT TEMPORARY TEMP"}


def _split(args: tuple[Any, ...], n: int) -> tuple[Any, tuple[Any, ...]]:
    """(role or None, the other args) from the overloads with and without a role."""
    return (args[0], args[1:]) if len(args) == n + 1 else (None, args)


def _role(ctx: Any, cat: CatalogSnapshot, who: Any) -> Role:
    if who is None:
        r = current_role(ctx, cat)
    elif isinstance(who, int):
        r = next((x for x in cat.roles if x.oid == who), None)
    else:
        r = role_by_name(cat, str(who)) if str(who).lower() != "public" else \
            Role(0, "public", login=False)
    if r is None:
        raise UndefinedObject(f'role "{who}" does not exist')
    return r


def _wanted(text: str, kind: str) -> list[tuple[str, bool]]:
    out = []
    for part in str(text).split(","):
        words = " ".join(part.upper().split())
        grant = words.endswith(" WITH GRANT OPTION")
        name = words.removesuffix(" WITH GRANT OPTION")
        if name not in _VALID[kind].split():
            raise InvalidParameterValue(f'unrecognized privilege type: "{part.strip()}"')
        out.append((PRIV_LETTERS[name], grant))
    return out


def _holds(cat: CatalogSnapshot, role: Role, acl: tuple[str, ...], wanted: list[tuple[str, bool]]
           ) -> bool:
    if role.superuser:
        return True
    roles = privilege_roles(cat, role) if role.oid else {0}
    for letter, grant in wanted:
        for item in acl:
            g, p, _ = parse_item(item)
            if g in roles and letter in p and (not grant or letter + "*" in p):
                return True
    return False


def _relation(ctx: Any, cat: CatalogSnapshot, rel: Any) -> Any:
    if isinstance(rel, int):
        t = cat.table_by_oid(rel) or next((q for q in cat.sequences if q.oid == rel), None)
        if t is None:
            raise UndefinedTable(f"relation with OID {rel} does not exist")
        return t
    schema, name = parse_qualified(str(rel))
    path = ctx.search_path()
    t = find_relation(cat, schema, name, path) or find_sequence(cat, schema, name, path)
    if t is None:
        raise UndefinedTable(f'relation "{rel}" does not exist')
    return t


def _table_kind(t: Table | Sequence) -> str:
    return "sequence" if isinstance(t, Sequence) else ("view" if t.kind == "v" else "table")


@register("has_table_privilege", args=None, returns=T.BOOL, needs_context=True)
def has_table_privilege(ctx: Any, *args: Any) -> bool:
    """Does the role hold any of the privileges on the table (table-level grants only)?"""
    cat = ctx.catalog
    who, (rel, privs) = _split(args, 2)
    role, t = _role(ctx, cat, who), _relation(ctx, cat, rel)
    kind = _table_kind(t)
    return _holds(cat, role, object_acl(kind, t),
                  _wanted(privs, "table" if kind != "sequence" else "table"))


@register("has_sequence_privilege", args=None, returns=T.BOOL, needs_context=True)
def has_sequence_privilege(ctx: Any, *args: Any) -> bool:
    """Does the role hold any of USAGE, SELECT, UPDATE on the sequence?"""
    cat = ctx.catalog
    who, (rel, privs) = _split(args, 2)
    role, q = _role(ctx, cat, who), _relation(ctx, cat, rel)
    if _table_kind(q) != "sequence":
        raise InvalidParameterValue(f'"{q.name}" is not a sequence', sqlstate="42809")
    return _holds(cat, role, object_acl("sequence", q), _wanted(privs, "sequence"))


def _column_check(ctx: Any, args: tuple[Any, ...], any_column: bool) -> bool:
    cat = ctx.catalog
    who, rest = _split(args, 2 if any_column else 3)
    role = _role(ctx, cat, who)
    t = _relation(ctx, cat, rest[0])
    wanted = _wanted(rest[-1], "column")
    if _holds(cat, role, object_acl(_table_kind(t), t), wanted):
        return True
    if any_column:
        cols = [c.attnum for c in t.live_columns]
    else:
        col = rest[1]
        match = [c.attnum for c in t.live_columns if c.name == col or c.attnum == col]
        if not match:
            raise UndefinedColumn(f'column "{col}" of relation "{t.name}" does not exist')
        cols = match
    return any(letter in column_privileges(cat, role, t, a) for a in cols
               for letter, _ in wanted)


@register("has_column_privilege", args=None, returns=T.BOOL, needs_context=True)
def has_column_privilege(ctx: Any, *args: Any) -> bool:
    """Does the role hold the privilege on the column (by table or column grant)?"""
    return _column_check(ctx, args, False)


@register("has_any_column_privilege", args=None, returns=T.BOOL, needs_context=True)
def has_any_column_privilege(ctx: Any, *args: Any) -> bool:
    """Does the role hold the privilege on the table or on any of its columns?"""
    return _column_check(ctx, args, True)


@register("has_schema_privilege", args=None, returns=T.BOOL, needs_context=True)
def has_schema_privilege(ctx: Any, *args: Any) -> bool:
    """Does the role hold USAGE or CREATE on the schema?"""
    cat = ctx.catalog
    who, (sch_ref, privs) = _split(args, 2)
    role = _role(ctx, cat, who)
    sch = cat.schema_by_oid(sch_ref) if isinstance(sch_ref, int) else \
        schema_by_name(cat, str(sch_ref))
    if sch is None:
        raise InvalidParameterValue(f'schema "{sch_ref}" does not exist', sqlstate="3F000")
    return _holds(cat, role, object_acl("schema", sch), _wanted(privs, "schema"))


@register("has_database_privilege", args=None, returns=T.BOOL, needs_context=True)
def has_database_privilege(ctx: Any, *args: Any) -> bool:
    """Does the role hold CREATE, CONNECT or TEMPORARY on the database?"""
    cat = ctx.catalog
    who, (db_ref, privs) = _split(args, 2)
    role = _role(ctx, cat, who)
    db = next((d for d in cat.databases if d.oid == db_ref or d.name == db_ref), None)
    if db is None:
        raise InvalidParameterValue(f'database "{db_ref}" does not exist', sqlstate="3D000")
    return _holds(cat, role, object_acl("database", db),
                  _wanted(privs, "database"))


@register("has_function_privilege", args=None, returns=T.BOOL, needs_context=True)
def has_function_privilege(ctx: Any, *args: Any) -> bool:
    """Does the role hold EXECUTE on the function (built-in functions: everyone does)?"""
    cat = ctx.catalog
    who, (fn_ref, privs) = _split(args, 2)
    role = _role(ctx, cat, who)
    wanted = _wanted(privs, "function")
    if isinstance(fn_ref, int):
        fn = next((f for f in cat.functions if f.oid == fn_ref), None)
    else:
        name = parse_qualified(str(fn_ref).split("(", 1)[0].strip())[1]
        fn = next((f for f in cat.functions if f.name == name), None)
    if fn is None:
        return True
    return _holds(cat, role, object_acl("function", fn), wanted)


@register("pg_has_role", args=None, returns=T.BOOL, needs_context=True)
def pg_has_role(ctx: Any, *args: Any) -> bool:
    """MEMBER or USAGE (privileges usable: through INHERIT) of a role."""
    cat = ctx.catalog
    who, (target, mode) = _split(args, 2)
    role, want = _role(ctx, cat, who), _role(ctx, cat, target)
    m = " ".join(str(mode).upper().split()).removesuffix(" WITH ADMIN OPTION") \
        .removesuffix(" WITH GRANT OPTION")
    if m not in ("MEMBER", "USAGE"):
        raise InvalidParameterValue(f'unrecognized privilege type: "{mode}"')
    if role.superuser:
        return True
    roles = member_roles(cat, role) if m == "MEMBER" else privilege_roles(cat, role)
    return want.oid in roles
