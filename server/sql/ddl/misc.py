"""Schemas, views and COMMENT ON.

A view is a catalog row of kind "v" holding its defining query's SQL text;
the query compiler expands it when a query names it. CREATE VIEW plans the
query once to validate it and to learn its column names and types.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ...errors import (
    DependentObjectsStillExist,
    DuplicateSchema,
    DuplicateTable,
    FeatureNotSupported,
    InvalidSchemaName,
    InvalidTableDefinition,
    SyntaxError_,
    UndefinedColumn,
    UndefinedObject,
)
from ...pgwire.backend import Result
from ..catalog.model import Column, Schema, Sequence, Table
from ..catalog.viewoptions import option_value, parse_options, view_options
from ..context import ParamTypes
from ..dml.ctedml import refuse_in
from ..pgcatalog.collations import collation_oid
from ..pgcatalog.collations import unknown as unknown_collation
from ..pgcatalog.updatable import not_updatable, view_query
from ..plan.compiler import COMPILER
from ..privileges.check import current_role_oid
from ..privileges.defaults import table_acl
from ..stmt import Stmt
from . import schemadrop
from .coldefs import quote_ident
from .depends import refuse_dependents, relation_description, report_cascade, views_depending
from .names import (
    creation_schema,
    find_relation,
    get_relation,
    ident,
    parse_qualified,
    relation_name_taken,
    schema_by_name,
    skip_or_raise,
    table_name,
)
from .routines import find_routine
from .tables import drop_table_objects, temp_schema
from .tempview import reads_temp_relation
from .viewcols import check_view_columns

if TYPE_CHECKING:
    from ..session import SQLSession


def create_schema(s: SQLSession, tree: exp.Create) -> str:
    """CREATE SCHEMA [IF NOT EXISTS] name."""
    name = ident(tree.this.args.get("db") or tree.this.this)
    if schema_by_name(s.catalog(), name) is not None:
        if tree.args.get("exists"):
            s.notice(f'schema "{name}" already exists, skipping', sqlstate="42P06")
            return "CREATE SCHEMA"
        raise DuplicateSchema(f'schema "{name}" already exists')
    s.store.put(s.ensure_txn(), s.db.oid, Schema(s.store.allocate_oid(), name,
                                                        current_role_oid(s)))
    s.catalog_changed()
    return "CREATE SCHEMA"


def drop_schema(s: SQLSession, tree: exp.Drop) -> str:
    """DROP SCHEMA [IF EXISTS] name [, ...] [CASCADE]: its tables, views, sequences, types,
    domains, functions and collations (in creation order, as PostgreSQL lists them, each
    with what elsewhere uses it) are refused with 2BP01 or go with it. Several schemas
    are one deletion, as PostgreSQL's performMultipleDeletions: the missing ones are
    reported first, then one 2BP01 or one cascade NOTICE lists the last named schema's
    objects first."""
    cat = s.catalog()
    found: list[Schema] = []
    for t in tree.args.get("tables") or [tree.this]:
        name = ident(t.args.get("db") or t.this) if isinstance(t, exp.Table) else ident(t)
        sch = schema_by_name(cat, name)
        if sch is None:
            skip_or_raise(s, f'schema "{name}"', bool(tree.args.get("exists")),
                          InvalidSchemaName)
        elif all(x.oid != sch.oid for x in found):
            found.append(sch)
    visible = s.search_path()
    seen: set[str] = set()
    blocks: list[tuple[list[str], list[str]]] = []  # per schema: (objects, DETAIL lines)
    plans: list[tuple[Schema, list[Table | Sequence | schemadrop.Member]]] = []
    for sch in found:  # NB: an object two schemas reach goes with the first named
        members: list[Table | Sequence | schemadrop.Member] = [
            *(x for x in cat.tables if x.schema_oid == sch.oid),
            *(q for q in cat.sequences if q.schema_oid == sch.oid and not q.owned_by),
            *schemadrop.members(cat, sch)]
        members.sort(key=lambda x: x.oid)
        plans.append((sch, members))
        blocks.append(_schema_dependents(s, sch, members, visible, seen))
    # PostgreSQL lists the last named schema's objects first (reportDependentObjects)
    gone = [o for objs, _ in reversed(blocks) for o in objs]
    lines = [ln for _, ls in reversed(blocks) for ln in ls]
    if gone and not tree.args.get("cascade"):
        if len(found) > 1:
            raise DependentObjectsStillExist(
                "cannot drop desired object(s) because other objects depend on them",
                detail="\n".join(lines),
                hint="Use DROP ... CASCADE to drop the dependent objects too.")
        refuse_dependents(f"schema {quote_ident(found[0].name)}", lines)
    for sch, members in reversed(plans):
        for x in reversed(members):  # NB: readers first, so a view or foreign key that
            # goes with its own table is not reported again as a cascade of what it reads
            if isinstance(x, Table) and s.catalog().table_by_oid(x.oid) is not None:
                gone += [d for d in drop_table_objects(s, s.catalog().existing_table(x.oid), True)
                         if d not in gone]  # views elsewhere that read this schema's tables
                s.catalog_changed()
        schemadrop.drop_members(s, sch)
        for q in s.catalog().sequences:
            if q.schema_oid == sch.oid:
                s.store.delete(s.ensure_txn(), s.db.oid, q)
        s.store.delete(s.ensure_txn(), s.db.oid, sch)
        s.catalog_changed()
    report_cascade(s, gone)
    return "DROP SCHEMA"


def _schema_dependents(s: SQLSession, sch: Schema,
                       members: list[Table | Sequence | schemadrop.Member], visible: list[str],
                       seen: set[str]) -> tuple[list[str], list[str]]:
    """What dropping `sch` takes (each member, then what elsewhere uses it) and the 2BP01
    DETAIL line of each; an object in `seen` (another named schema took it) is skipped."""
    cat = s.catalog()
    this = f"schema {quote_ident(sch.name)}"
    objs: list[str] = []
    lines: list[str] = []

    def add(obj: str, line: str) -> None:
        if obj not in seen:
            seen.add(obj)
            objs.append(obj)
            lines.append(line)

    for x in members:
        if not isinstance(x, (Table, Sequence)):
            desc = schemadrop.describe(cat, x, visible)
            add(desc, f"{desc} depends on {this}")
            for obj, line in schemadrop.outside_users(s, sch, x):
                add(obj, line)
            continue
        desc = relation_description(cat, x, visible)
        add(desc, f"{desc} depends on {this}")
        if isinstance(x, Table):
            for v, line in views_depending(cat, x, visible):
                if v.schema_oid != sch.oid:
                    add(relation_description(cat, v, visible), line)
    return objs, lines


def create_view(s: SQLSession, tree: exp.Create) -> str:
    """CREATE [OR REPLACE] VIEW name [(cols)] AS query."""
    target = tree.this
    schema, name = table_name(target)
    props = tree.args.get("properties")
    if props is not None and any(isinstance(p, exp.TemporaryProperty) for p in props.expressions):

        schema = temp_schema(s)  # NB: dropped with the session's other TEMP objects
    query = tree.expression
    made_temp = (schema is None or not schema.startswith("pg_temp")) and reads_temp_relation(
        s, query)  # NB: a view of a temporary table is temporary (NOTICE after planning)
    if made_temp and schema is None:
        schema = temp_schema(s)
    cat = s.catalog()
    sch = creation_schema(cat, schema, s.search_path())
    existing = find_relation(cat, sch.name, name, [])
    if existing is not None and not (tree.args.get("replace") and existing.kind == "v"):
        raise DuplicateTable(f'relation "{name}" already exists')
    if existing is None and relation_name_taken(cat, sch.oid, name):
        raise DuplicateTable(f'relation "{name}" already exists')
    refuse_in(query, "views")
    for sel in query.find_all(exp.Select):  # the stored query names today's columns, not `*`
        sel.meta["freeze_stars"] = True
    plan = COMPILER.plan_query(query, cat, ParamTypes(), s.search_path())
    if made_temp:
        s.notice(f'view "{name}" will be a temporary view')
        if not sch.name.startswith("pg_temp"):
            raise InvalidTableDefinition("cannot create temporary relation in non-temporary "
                                         "schema")
    names = [ident(e) for e in target.expressions] if isinstance(target, exp.Schema) else []
    if len(names) > len(plan.columns):
        raise SyntaxError_("CREATE VIEW specifies more column names than columns")
    cols = tuple(Column(names[i] if i < len(names) else c.name, c.type_oid, c.typmod, i + 1)
                 for i, c in enumerate(plan.columns))
    check_view_columns(cols, existing)
    if existing is not None:
        oid, reltype, array_type = existing.oid, existing.reltype, existing.array_type
    else:
        oid, reltype, array_type = (s.store.allocate_oid(), s.store.allocate_oid(),
                                    s.store.allocate_oid())
    owner = existing.owner if existing is not None else current_role_oid(s)
    items = parse_options(tree.meta.get("view_options") or "")  # WITH (security_barrier, ...)
    if tree.meta.get("check_option"):  # NB: WITH [CASCADED | LOCAL] CHECK OPTION
        items.append(("check_option", tree.meta["check_option"]))
    options = view_options(items)  # NB: kept as PG does, in reloptions
    check = option_value(options, "check_option")
    if check is not None:
        why = not_updatable(view_query(query.sql("postgres")))
        if why is not None:
            raise FeatureNotSupported("WITH CHECK OPTION is supported only on automatically "
                                      "updatable views", hint=why)
    view = Table(oid, name, sch.oid, cols, kind="v", view_sql=query.sql("postgres"),
                 options=options,
                 reltype=reltype, array_type=array_type, owner=owner,
                 acl=existing.acl if existing is not None else table_acl(s, owner, sch.oid))
    s.store.put(s.ensure_txn(), s.db.oid, view)
    s.catalog_changed()
    return "CREATE VIEW"


_COMMENT = re.compile(
    r"COMMENT\s+ON\s+(?P<kind>TABLE|COLUMN|VIEW|INDEX|SEQUENCE|SCHEMA|DATABASE|CONSTRAINT|"
    r"FUNCTION|PROCEDURE|ROUTINE|COLLATION)\s+"
    r"(?P<name>.+?)\s+IS\s+(?P<text>NULL|E?'(?:[^']|'')*')\s*$", re.I | re.S)


def analyse_comment(session: SQLSession, sql: str) -> Stmt:
    """COMMENT ON TABLE / COLUMN / ... IS 'text' | NULL."""
    m = _COMMENT.match(sql)
    if m is None:
        raise SyntaxError_(f"syntax error in COMMENT: {sql[:60]}")
    kind = m.group("kind").upper()
    raw = m.group("name").strip()
    text_lit = m.group("text")
    text = None if text_lit.upper() == "NULL" else text_lit[text_lit.index("'") + 1:-1].replace(
        "''", "'")

    def run(s: SQLSession, p: list[Any]) -> Result:
        cat = s.catalog()
        objoid, subid = 0, 0
        if kind in ("TABLE", "VIEW"):
            schema, name = parse_qualified(raw)
            objoid = get_relation(cat, schema, name, s.search_path()).oid
        elif kind == "COLUMN":
            qual, col = raw.rsplit(".", 1)
            schema, name = parse_qualified(qual)
            t = get_relation(cat, schema, name, s.search_path())
            colname = parse_qualified(col)[1]
            c = next((c for c in t.live_columns if c.name == colname), None)
            if c is None:
                raise UndefinedColumn(
                    f'column "{colname}" of relation "{t.name}" does not exist')
            objoid, subid = t.oid, c.attnum
        elif kind == "SCHEMA":
            sch = schema_by_name(cat, parse_qualified(raw)[1])
            if sch is None:
                raise InvalidSchemaName(f'schema "{raw}" does not exist')
            objoid = sch.oid
        elif kind == "INDEX":
            idx = next((i for i in cat.indexes if i.name == parse_qualified(raw)[1]), None)
            if idx is None:
                raise UndefinedObject(f'index "{raw}" does not exist')
            objoid = idx.oid
        elif kind == "SEQUENCE":
            q = next((q for q in cat.sequences if q.name == parse_qualified(raw)[1]), None)
            if q is None:
                raise UndefinedObject(f'relation "{raw}" does not exist')
            objoid = q.oid
        elif kind == "DATABASE":
            objoid = s.db.oid
        elif kind in ("FUNCTION", "PROCEDURE", "ROUTINE"):
            objoid = find_routine(s, kind, raw).oid
        elif kind == "COLLATION":
            objoid = collation_oid(cat, parse_qualified(raw)[1]) or 0
            if not objoid:
                raise unknown_collation(parse_qualified(raw)[1])
        elif kind == "CONSTRAINT":
            cm = re.fullmatch(r"(?P<con>\"(?:[^\"]|\"\")*\"|\S+)\s+ON\s+(?:DOMAIN\s+)?(?P<rel>.+)",
                              raw, re.I | re.S)
            if cm is None:
                raise SyntaxError_(f"syntax error in COMMENT: {sql[:60]}")
            conname = parse_qualified(cm.group("con"))[1]
            schema, name = parse_qualified(cm.group("rel").strip())
            t = get_relation(cat, schema, name, s.search_path())
            con = next((c for c in cat.constraints_of(t.oid) if c.name == conname), None)
            if con is None:
                raise UndefinedObject(
                    f'constraint "{conname}" for table "{t.name}" does not exist')
            objoid = con.oid
        else:
            return Result("COMMENT")
        s.store.set_comment(s.ensure_txn(), s.db.oid, objoid, subid, text)
        s.catalog_changed()
        return Result("COMMENT")

    return Stmt(sql, "ddl", run, None, [], -1, tag="COMMENT")
