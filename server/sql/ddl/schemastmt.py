"""CREATE SCHEMA with AUTHORIZATION and schema elements (PostgreSQL 15's full form).

`CREATE SCHEMA [IF NOT EXISTS] [name] [AUTHORIZATION role] [element ...]`: the
schema belongs to `role` (and is named after it when no name is given); each
element (CREATE TABLE, VIEW, INDEX, SEQUENCE, TRIGGER, GRANT) then runs with the
new schema first on the search_path, as PostgreSQL runs them, so unqualified
names are created and found there. An element that names another schema is
PostgreSQL's 42P15. The plain `CREATE SCHEMA name` stays with `misc`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ...errors import DuplicateSchema, FeatureNotSupported, SQLError, UndefinedObject
from ...pgwire.backend import Result
from ..catalog.model import Schema
from ..parse import parse_sql
from ..plpgsql.parser import tokenize
from ..privileges.check import current_role, role_by_name
from ..stmt import Analyse, Stmt
from .names import schema_by_name

if TYPE_CHECKING:
    from ..session import SQLSession

_NAME = r'(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z_0-9$]*)'
_HEAD = re.compile(rf"CREATE\s+SCHEMA\s+(?P<ine>IF\s+NOT\s+EXISTS\s+)?"
                   rf"(?:(?!AUTHORIZATION\b)(?P<name>{_NAME})\s*)?"
                   rf"(?:AUTHORIZATION\s+(?P<role>{_NAME}))?", re.I | re.S)
_ELEMENT = re.compile(r"\s*(?:CREATE|GRANT)\b", re.I)


def _ident(text: str) -> str:
    return text[1:-1].replace('""', '"') if text.startswith('"') else text.lower()


def is_schema_with_elements(sql: str) -> bool:
    """CREATE SCHEMA with AUTHORIZATION or schema elements (what `misc` does not read)."""
    m = _HEAD.match(sql.strip())
    if m is None or (m.group("name") is None and m.group("role") is None):
        return False
    rest = sql.strip()[m.end():].strip().rstrip(";").strip()
    return m.group("role") is not None or _ELEMENT.match(rest) is not None


def elements(text: str) -> list[str]:
    """The schema elements of what follows the schema's name: each starts with CREATE or
    GRANT at the top level.

    >>> elements("create table t (a int) create view v as select 'create' from t grant select on t to r")
    ['create table t (a int)', "create view v as select 'create' from t", 'grant select on t to r']
    """
    out: list[str] = []
    depth, start = 0, None
    toks = tokenize(text)
    for t in toks:
        if t.text == "(":
            depth += 1
        elif t.text == ")":
            depth -= 1
        elif depth == 0 and t.up in ("CREATE", "GRANT"):
            if start is not None:
                out.append(text[start:t.start].strip())
            start = t.start
    if start is not None:
        out.append(text[start:].strip())
    return out


_QUALIFIED = re.compile(rf"(?:CREATE\s+(?:(?:UNIQUE|OR\s+REPLACE|TEMP|TEMPORARY|UNLOGGED)\s+)*"
                        rf"(?:TABLE|VIEW|SEQUENCE|INDEX(?:\s+\w+)?\s+ON)\s+(?:IF\s+NOT\s+EXISTS\s+)?)"
                        rf"(?P<schema>{_NAME})\s*\.", re.I)


def analyse_create_schema(session: SQLSession, sql: str, analyse: Analyse) -> Stmt:
    """CREATE SCHEMA ... AUTHORIZATION role / with schema elements (`analyse`: the router,
    for the elements)."""
    text = sql.strip().rstrip(";")
    m = _HEAD.match(text)
    assert m is not None  # NB: `is_schema_with_elements` said so
    role_name = _ident(m.group("role")) if m.group("role") else None
    who = session.user if role_name in ("current_user", "current_role", "session_user") \
        else role_name
    name = _ident(m.group("name")) if m.group("name") else who or ""
    parts = elements(text[m.end():])
    if text[m.end():].strip() and not parts:
        word = text[m.end():].split()[0]
        raise SQLError(f'syntax error at or near "{word}"', sqlstate="42601")
    if parts and m.group("ine"):
        raise FeatureNotSupported("CREATE SCHEMA IF NOT EXISTS cannot include schema elements")
    for part in parts:
        other = _QUALIFIED.match(part)
        if other is not None and _ident(other.group("schema")) != name:
            raise SQLError(f"CREATE specifies a schema ({_ident(other.group('schema'))}) "
                           f"different from the one being created ({name})", sqlstate="42P15")

    def run(s: SQLSession, p: list[Any]) -> Result:
        cat = s.catalog()
        owner = current_role(s, cat) if who is None else role_by_name(cat, who)
        if owner is None:
            raise UndefinedObject(f'role "{who}" does not exist')
        if schema_by_name(cat, name) is not None:
            if m.group("ine"):
                s.notice(f'schema "{name}" already exists, skipping', sqlstate="42P06")
                return Result("CREATE SCHEMA")
            raise DuplicateSchema(f'schema "{name}" already exists')
        s.store.put(s.ensure_txn(), s.db.oid, Schema(s.store.allocate_oid(), name, owner.oid))
        s.catalog_changed()
        values = s.settings.values
        saved = values["search_path"]
        values["search_path"] = '"' + name.replace('"', '""') + '", ' + saved
        try:
            for part in parts:
                if re.match(r"CREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMP\w*\s+)?VIEW\b", part, re.I):
                    part = qualified_view(s, part, name)
                analyse(s, part, []).run(s, [])
        finally:
            values["search_path"] = saved
        return Result("CREATE SCHEMA")

    return Stmt(sql, "ddl", run, None, [], -1, tag="CREATE SCHEMA")


def qualified_view(s: SQLSession, text: str, schema: str) -> str:
    """A view element with the relations it reads from the new schema named with it: a
    view keeps its query as text, read under the search_path of each later query, where
    PostgreSQL binds the names once, at CREATE."""
    tree = parse_sql(text)
    cat = s.catalog()
    sch = schema_by_name(cat, schema)
    here = {t.name for t in cat.tables if sch is not None and t.schema_oid == sch.oid}
    ctes = {c.alias_or_name for c in tree.find_all(exp.CTE)}
    query = tree.expression if isinstance(tree, exp.Create) else None
    if query is None:
        return text
    for table in query.find_all(exp.Table):
        if not table.args.get("db") and table.name in here and table.name not in ctes:
            table.set("db", exp.to_identifier(schema))
    return tree.sql("postgres")


__all__ = ["analyse_create_schema", "elements", "is_schema_with_elements"]
