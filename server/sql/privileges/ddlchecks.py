"""Who may run which DDL: CREATE on the schema to create in it, ownership to alter or drop.

As PostgreSQL: creating a table, view, sequence or function needs CREATE on
its schema (`permission denied for schema s`); an index needs ownership of
its table; CREATE SCHEMA needs CREATE on the database; ALTER and DROP need
ownership of the object (`must be owner of table t`); a superuser may do
anything. Objects that do not exist are left to the statement, which reports
them as it always has.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ...errors import InsufficientPrivilege
from ..catalog.model import CatalogSnapshot, Role, Schema
from ..ddl.names import find_relation, find_sequence, ident, schema_by_name
from .check import current_role, has_privileges, must_own, object_owner, relation_noun

if TYPE_CHECKING:
    from ..session import SQLSession


def check_schema_create(cat: CatalogSnapshot, role: Role | None, sch: Schema | None) -> None:
    """42501 `permission denied for schema s` unless the role may create in `sch`."""
    if role is None or sch is None or role.superuser:
        return
    if not has_privileges(cat, role, "schema", sch, "C"):
        raise InsufficientPrivilege(f"permission denied for schema {sch.name}")


def _creation_schema(cat: CatalogSnapshot, schema: str | None, path: list[str]) -> Schema | None:
    if schema is not None:
        return schema_by_name(cat, schema)
    for name in path:
        sch = schema_by_name(cat, name)
        if sch is not None and name not in ("pg_catalog", "information_schema") \
                and not name.startswith("pg_temp_"):
            return sch
    return None


def _table_node(node: Any) -> exp.Table | None:
    while isinstance(node, exp.Schema):
        node = node.this
    return node if isinstance(node, exp.Table) else None


def check_ddl(s: SQLSession, tree: exp.Expression) -> None:
    """Raises 42501 if the current role may not run the DDL statement `tree`."""
    cat = s.catalog()
    role = current_role(s, cat)
    if role is None or role.superuser:
        return
    kind = str(tree.args.get("kind") or "").upper()
    path = s.search_path()
    if isinstance(tree, exp.Create):
        if kind == "SCHEMA":
            db = cat.database
            if not has_privileges(cat, role, "database", db, "C"):
                raise InsufficientPrivilege(f"permission denied for database {db.name}")
            return
        t = _table_node(tree.this)
        if kind == "INDEX":
            target = _table_node(tree.this.args.get("table")) if tree.this is not None else None
            if target is not None:
                rel = find_relation(cat, ident(target.args.get("db")) or None,
                                    ident(target.this), path)
                if rel is not None:
                    must_own(cat, role, rel.owner, relation_noun(rel), rel.name)
            return
        if tree.find(exp.TemporaryProperty) is not None or (
                t is not None and ident(t.args.get("db")).startswith("pg_temp")):
            db = cat.database
            if not has_privileges(cat, role, "database", db, "T"):
                raise InsufficientPrivilege(
                    f'permission denied to create temporary tables in database "{db.name}"')
            return
        if t is not None and kind in ("TABLE", "VIEW", "SEQUENCE"):
            check_schema_create(cat, role, _creation_schema(cat, ident(t.args.get("db")) or None,
                                                            path))
        return
    if isinstance(tree, exp.Drop | exp.Alter):
        nodes = list(tree.args.get("tables") or []) + [tree.this]
        if kind == "SCHEMA":
            for node in nodes:
                if node is None:
                    continue
                name = ident(node.args.get("db") or node.this) if isinstance(node, exp.Table) \
                    else ident(node)
                sch = schema_by_name(cat, name)
                if sch is not None:
                    must_own(cat, role, object_owner("schema", sch), "schema", sch.name)
            return
        for node in nodes:
            t = _table_node(node)
            if t is None:
                continue
            schema, name = ident(t.args.get("db")) or None, ident(t.this)
            if kind in ("TABLE", "VIEW"):
                rel = find_relation(cat, schema, name, path)
                if rel is not None:
                    must_own(cat, role, rel.owner, relation_noun(rel), rel.name)
            elif kind == "SEQUENCE":
                q = find_sequence(cat, schema, name, path)
                if q is not None:
                    must_own(cat, role, q.owner, "sequence", q.name)
            elif kind == "INDEX":
                ix = next((i for i in cat.indexes if i.name == name), None)
                rel = cat.table_by_oid(ix.table_oid) if ix is not None else None
                if ix is not None and rel is not None:
                    must_own(cat, role, rel.owner, "index", ix.name)
