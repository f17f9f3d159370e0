"""Name resolution for statements: schemas, tables, sequences and column types.

Unqualified names resolve through the session's search_path, as in
PostgreSQL; the messages are PostgreSQL's (`relation "x" does not exist`,
`schema "x" does not exist`). New objects go into the first schema of the
search_path that exists.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ...errors import InvalidSchemaName, SQLError, UndefinedTable
from ..catalog.model import CatalogSnapshot, Index, Schema, Sequence, Table
from ..parse import fold_ident

if TYPE_CHECKING:
    from ..session import SQLSession


def ident(node: Any) -> str:
    """Returns an identifier's name, folded as PostgreSQL folds it."""
    if node is None:
        return ""
    if isinstance(node, exp.Identifier):
        return node.name if node.quoted else fold_ident(node.name)
    if isinstance(node, exp.Expression):
        inner = node.this if isinstance(node.this, exp.Expression) else None
        if isinstance(inner, exp.Identifier):
            return ident(inner)
        return fold_ident(node.name)
    return fold_ident(str(node))


def skip_or_raise(s: SQLSession, what: str, if_exists: bool, error: type[SQLError]) -> None:
    """PostgreSQL's answer to DROP or ALTER of a missing object `what` (`table "t"`):
    under IF EXISTS a NOTICE `... does not exist, skipping` and the statement goes on
    (the caller skips that name); without it, `error`.

    >>> skip_or_raise(None, 'table "t"', False, UndefinedTable)
    Traceback (most recent call last):
    ...
    cumulo.server.errors.UndefinedTable: table "t" does not exist
    """
    if not if_exists:
        raise error(f"{what} does not exist")
    s.notice(f"{what} does not exist, skipping")


def missing_schema(s: SQLSession, schema: str | None, if_exists: bool) -> bool:
    """True when a DROP's qualified name has no such schema: PostgreSQL then reports the
    schema (3F000, or under IF EXISTS a `schema "x" does not exist, skipping` NOTICE)
    rather than the object."""
    if schema is None or schema_by_name(s.catalog(), schema) is not None:
        return False
    skip_or_raise(s, f'schema "{schema}"', if_exists, InvalidSchemaName)
    return True


def table_name(t: exp.Expression) -> tuple[str | None, str]:
    """Returns (schema or None, name) of a sqlglot Table node."""
    if isinstance(t, exp.Schema):
        t = t.this
    schema = ident(t.args.get("db")) or None
    return schema, ident(t.this)


def schema_by_name(cat: CatalogSnapshot, name: str) -> Schema | None:
    """Returns a schema by name."""
    return next((s for s in cat.schemas if s.name == name), None)


def creation_schema(cat: CatalogSnapshot, schema: str | None, search_path: list[str]) -> Schema:
    """Returns the schema a new object goes into."""
    if schema is not None:
        s = schema_by_name(cat, schema)
        if s is None:
            raise InvalidSchemaName(f'schema "{schema}" does not exist')
        return s
    for name in search_path:
        s = schema_by_name(cat, name)
        if s is not None and name not in ("pg_catalog", "information_schema") and not \
                name.startswith("pg_temp_"):
            return s
    raise InvalidSchemaName("no schema has been selected to create in")


def find_relation(cat: CatalogSnapshot, schema: str | None, name: str,
                  search_path: list[str]) -> Table | None:
    """Finds a table or view by (optional schema, name) through the search_path."""
    if schema is not None:
        s = schema_by_name(cat, schema)
        if s is None:
            raise InvalidSchemaName(f'schema "{schema}" does not exist')
        return next((t for t in cat.tables if t.schema_oid == s.oid and t.name == name), None)
    for sname in search_path:
        s = schema_by_name(cat, sname)
        if s is None:
            continue
        t = next((t for t in cat.tables if t.schema_oid == s.oid and t.name == name), None)
        if t is not None:
            return t
    return None


def get_relation(cat: CatalogSnapshot, schema: str | None, name: str,
                 search_path: list[str]) -> Table:
    """Like find_relation, but raises 42P01 when there is none."""
    t = find_relation(cat, schema, name, search_path)
    if t is None:
        full = f"{schema}.{name}" if schema else name
        raise UndefinedTable(f'relation "{full}" does not exist')
    return t


def find_sequence(cat: CatalogSnapshot, schema: str | None, name: str,
                  search_path: list[str]) -> Sequence | None:
    """Finds a sequence by (optional schema, name) through the search_path."""
    paths = [schema] if schema is not None else search_path
    for sname in paths:
        s = schema_by_name(cat, sname)
        if s is None:
            continue
        seq = next((q for q in cat.sequences if q.schema_oid == s.oid and q.name == name), None)
        if seq is not None:
            return seq
    return None


def find_index(cat: CatalogSnapshot, schema: str | None, name: str,
               search_path: list[str]) -> Index | None:
    """Finds an index by (optional schema, name) through the search_path."""
    for sname in [schema] if schema is not None else search_path:
        s = schema_by_name(cat, sname)
        if s is None:
            continue
        idx = next((i for i in cat.indexes if i.name == name and (
            tb := cat.table_by_oid(i.table_oid)) is not None and tb.schema_oid == s.oid), None)
        if idx is not None:
            return idx
    return None


def relation_name_taken(cat: CatalogSnapshot, schema_oid: int, name: str) -> bool:
    """True if a table, view, index or sequence of that name exists in the schema."""
    if any(t.schema_oid == schema_oid and t.name == name for t in cat.tables):
        return True
    if any(q.schema_oid == schema_oid and q.name == name for q in cat.sequences):
        return True
    tables = {t.oid: t for t in cat.tables}
    return any(i.name == name and tables.get(i.table_oid) is not None
               and tables[i.table_oid].schema_oid == schema_oid for i in cat.indexes)


def unique_name(cat: Any, schema_oid: int, base: str, taken: set[str] | None = None) -> str:
    """Returns `base`, or `base1`, `base2` ... if the name is taken (PostgreSQL's choice)."""
    taken = taken or set()
    in_schema = {t.oid for t in cat.tables if t.schema_oid == schema_oid}
    name, n = base[:63], 0
    while name in taken or relation_name_taken(cat, schema_oid, name) or any(
        c.name == name and c.table_oid in in_schema for c in cat.constraints
    ):
        n += 1
        name = f"{base[:63 - len(str(n))]}{n}"
    return name


def parse_qualified(text: str) -> tuple[str | None, str]:
    """Splits 'schema.name' (either part possibly quoted) into (schema or None, name)."""
    parts: list[str] = []
    cur, quoted, i = "", False, 0
    while i < len(text):
        ch = text[i]
        if ch == '"':
            if quoted and i + 1 < len(text) and text[i + 1] == '"':
                cur += '"'
                i += 2
                continue
            quoted = not quoted
        elif ch == "." and not quoted:
            parts.append(cur)
            cur = ""
        else:
            cur += ch if quoted else fold_ident(ch)
        i += 1
    parts.append(cur)
    parts = [p.strip() for p in parts]
    return (parts[-2] if len(parts) > 1 else None), parts[-1]

