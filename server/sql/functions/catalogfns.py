"""Catalog functions psql and ORMs call: format_type, pg_get_*def, visibility, descriptions.

They read the statement's catalog snapshot through the same text builders as
the pg_catalog views (`pgcatalog.ddltext`). Expressions are kept as SQL text
in the catalog (pg_attrdef.adbin, pg_index.indpred), so pg_get_expr returns
its argument.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ...errors import UndefinedColumn
from ...pgtypes import oids as T
from ..pgcatalog.aggdata import ORDERED_ARGS
from ..pgcatalog.atomictext import atomic_text
from ..pgcatalog.ddltext import constraint_def, format_type, index_def
from ..pgcatalog.exprtext import pretty_text
from ..pgcatalog.icucollations import descriptions as icu_descriptions
from ..pgcatalog.names import names, quote_ident
from ..pgcatalog.partitions import constraint_text
from ..pgcatalog.procoids import BY_OID
from ..pgcatalog.procoptions import config_lines
from ..pgcatalog.seqdeps import qualify_nextval
from ..pgcatalog.triggertext import trigger_def
from ..pgcatalog.updatable import INSERT, UPDATE, relation_events
from ..pgcatalog.viewtext import relation_shown, view_text
from .regcasts import labelled, regclass_out, regtype_out, relation_oid
from .registry import FUNCTIONS, FunctionContext, register


@register("format_type", args=[T.OID, T.INT4], returns=T.TEXT, strict=False,
          needs_context=True)
def format_type_fn(ctx: Any, oid: int | None, typmod: int | None) -> str | None:
    """Returns a type's SQL name with its modifier ("character varying(50)"); a relation's
    row type prints as the relation, as regtype does."""
    text = format_type(oid, typmod)
    if text is not None and text.startswith("???") and oid:  # NB: `???[]` too (a t[])
        shown = regtype_out(ctx, oid)
        return text if shown == str(oid) else shown
    return text


@register("pg_get_expr", args=[T.PG_NODE_TREE, T.OID], returns=T.TEXT, needs_context=True)
def pg_get_expr(ctx: Any, expr: str, relid: int, pretty: bool = False) -> str:
    """Returns a stored expression's text: adbin holds the plain form, pretty drops parentheses;
    a nextval's sequence is qualified outside the search_path, as pg_dump needs."""
    expr = qualify_nextval(ctx.catalog, relid, expr, ctx.search_path())
    return pretty_text(expr) if pretty else expr


for _args in ([T.PG_NODE_TREE, T.OID, T.BOOL], [T.TEXT, T.OID], [T.TEXT, T.OID, T.BOOL]):
    register("pg_get_expr", args=_args, returns=T.TEXT, needs_context=True)(pg_get_expr)


@register("pg_get_indexdef", args=[T.OID], returns=T.TEXT, needs_context=True)
def pg_get_indexdef(ctx: Any, oid: int, column: int = 0, pretty: bool = False) -> str | None:
    """Returns CREATE INDEX text, or one key column's name when column > 0."""
    return index_def(ctx.catalog, oid, column, bool(pretty), ctx)


register("pg_get_indexdef", args=[T.OID, T.INT4, T.BOOL], returns=T.TEXT,
         needs_context=True)(pg_get_indexdef)


@register("pg_get_constraintdef", args=[T.OID], returns=T.TEXT, needs_context=True)
def pg_get_constraintdef(ctx: Any, oid: int, pretty: bool = False) -> str | None:
    """Returns a constraint's definition ("PRIMARY KEY (id)")."""
    return constraint_def(ctx.catalog, ctx, oid, bool(pretty))


register("pg_get_constraintdef", args=[T.OID, T.BOOL], returns=T.TEXT,
         needs_context=True)(pg_get_constraintdef)


@register("pg_get_ruledef", args=[T.OID], returns=T.TEXT)
def pg_get_ruledef(oid: int, pretty: bool = False) -> str | None:
    """A rewrite rule's CREATE RULE text: Cumulo has no rules (pg_rewrite is empty)."""
    return None


register("pg_get_ruledef", args=[T.OID, T.BOOL], returns=T.TEXT)(pg_get_ruledef)


@register("pg_get_viewdef", args=[T.OID], returns=T.TEXT, needs_context=True)
def pg_get_viewdef(ctx: Any, view: Any, pretty: Any = False) -> str | None:
    """Returns a view's defining SELECT, laid out as PostgreSQL prints it when it can be."""
    oid = relation_oid(ctx, view)
    t = ctx.catalog.table_by_oid(oid)
    if t is None or t.view_sql is None:
        return None
    tables = {x.name: x for x in ctx.catalog.tables if x.kind in ("r", "v")}
    text = view_text(t.view_sql, tables, pretty is not False, relation_shown(ctx))  # NB: int: a wrap
    return text if text is not None else t.view_sql


for _args in ([T.OID, T.BOOL], [T.OID, T.INT4], [T.TEXT], [T.TEXT, T.BOOL]):
    register("pg_get_viewdef", args=_args, returns=T.TEXT, needs_context=True)(pg_get_viewdef)


@register("pg_get_serial_sequence", args=[T.TEXT, T.TEXT], returns=T.TEXT, needs_context=True)
def pg_get_serial_sequence(ctx: Any, table: str, column: str) -> str | None:
    """Returns the qualified name of the sequence a SERIAL or identity column uses."""
    cat = ctx.catalog
    oid = relation_oid(ctx, table)
    t = cat.table_by_oid(oid)
    col = None
    if t is not None:
        wanted = column[1:-1] if column.startswith('"') else column.lower()
        col = next((c for c in t.live_columns if c.name == wanted), None)
    if col is None:
        raise UndefinedColumn(f'column "{column}" of relation "{table}" does not exist')
    for s in cat.sequences:
        if s.owned_by == (oid, col.attnum):
            schema = names(cat).schema_name(s.schema_oid) or "public"
            return quote_ident(schema) + "." + quote_ident(s.name)
    return None


@register("pg_table_is_visible", args=[T.OID], returns=T.BOOL, needs_context=True)
def pg_table_is_visible(ctx: Any, oid: int) -> bool | None:
    """True when the search path finds the relation by its bare name (NULL if no relation)."""
    idx = names(ctx.catalog)
    if oid not in idx.rel:
        return None
    return idx.rel_visible(ctx, oid)


@register("pg_type_is_visible", args=[T.OID], returns=T.BOOL, needs_context=True)
def pg_type_is_visible(ctx: FunctionContext, oid: int) -> bool | None:
    """True for the built-in types (all live in pg_catalog) and for CREATE TYPE's types and
    tables' row types whose schema is on the search_path; NULL for an unknown OID."""
    if oid in T.TYPES:
        return True
    cat = ctx.catalog
    owner = next((t.schema_oid for t in cat.types if oid in (t.oid, t.array_oid)), None)
    if owner is None:
        owner = next((t.schema_oid for t in cat.tables if t.reltype and
                      oid in (t.reltype, t.array_type)), None)
    if owner is None:
        return None
    schema = cat.schema_by_oid(owner)
    return schema is not None and schema.name in ctx.search_path()


def _always_visible(oid: int) -> bool:
    """True: every such object lives in pg_catalog."""
    return True


@register("pg_function_is_visible", args=[T.OID], returns=T.BOOL, needs_context=True)
def pg_function_is_visible(ctx: FunctionContext, oid: int) -> bool:
    """True for the built-ins (pg_catalog); a CREATE FUNCTION's function when its schema is
    on the search_path."""
    u = _user_function(ctx, oid)
    if u is None:
        return True
    schema = ctx.catalog.schema_by_oid(u.schema_oid)
    return schema is not None and schema.name in ctx.search_path()


for _name in ("pg_collation_is_visible", "pg_opclass_is_visible", "pg_operator_is_visible",
              "pg_conversion_is_visible", "pg_statistics_obj_is_visible",
              "pg_ts_config_is_visible", "pg_opfamily_is_visible", "pg_ts_dict_is_visible",
              "pg_ts_parser_is_visible", "pg_ts_template_is_visible"):
    register(_name, args=[T.OID], returns=T.BOOL)(_always_visible)


@register("obj_description", args=[T.OID, T.NAME], returns=T.TEXT, needs_context=True)
def obj_description(ctx: Any, oid: int, catalog: str | None = None) -> str | None:
    """Returns the comment on an object: the user's, else PostgreSQL's built-in one."""
    text = ctx.catalog.comments.get((oid, 0))
    if text is not None:
        return text
    from ..pgcatalog.relations import BUILTIN_DESCRIPTION_OF, BUILTIN_DESCRIPTIONS

    if catalog is None:
        return next((d for o, _, _, d in BUILTIN_DESCRIPTIONS if o == oid),
                    None) or icu_descriptions().get(oid)
    classoid = _CATALOG_OIDS.get(catalog.removeprefix("pg_catalog."), 0)
    if classoid == 3456:  # pg_collation: initdb's comments on the ICU ones
        return icu_descriptions().get(oid)
    return BUILTIN_DESCRIPTION_OF.get((oid, classoid))


_CATALOG_OIDS = {"pg_collation": 3456, "pg_namespace": 2615, "pg_language": 2612,
                 "pg_extension": 3079,
                 "pg_class": 1259, "pg_proc": 1255, "pg_constraint": 2606, "pg_type": 1247,
                 "pg_operator": 2617}


register("obj_description", args=[T.OID], returns=T.TEXT, needs_context=True)(obj_description)
register("shobj_description", args=[T.OID, T.NAME], returns=T.TEXT,
         needs_context=True)(obj_description)


@register("col_description", args=[T.OID, T.INT4], returns=T.TEXT, needs_context=True)
def col_description(ctx: Any, oid: int, attnum: int) -> str | None:
    """Returns the comment on a table column."""
    return ctx.catalog.comments.get((oid, attnum))


@register("pg_get_partition_constraintdef", args=[T.OID], returns=T.TEXT, needs_context=True)
def pg_get_partition_constraintdef(ctx: Any, oid: int) -> str | None:
    """A partition's bound as a condition (pgcatalog.partitions); NULL for other relations."""
    t = ctx.catalog.table_by_oid(oid)
    return constraint_text(ctx.catalog, t) if t is not None else None


def _lineage(ctx: Any, rel: Any) -> list[Any]:
    """A partition or partitioned table, then its ancestors up to the root ([] otherwise)."""
    t = ctx.catalog.table_by_oid(relation_oid(ctx, rel))
    if t is None or not (t.partof or t.partkey):
        return []
    out = [t]
    while out[-1].partof:
        out.append(ctx.catalog.existing_table(out[-1].partof))
    return out


@register("pg_partition_ancestors", args=[T.REGCLASS], returns=T.REGCLASS, set_returning=True,
          needs_context=True, out_column="relid")
def pg_partition_ancestors(ctx: Any, rel: Any) -> Iterator[Any]:
    """The relation and the partitioned tables above it (sql.partitions)."""
    return iter([labelled(ctx, t.oid, regclass_out) for t in _lineage(ctx, rel)])


@register("pg_partition_root", args=[T.REGCLASS], returns=T.REGCLASS, needs_context=True)
def pg_partition_root(ctx: Any, rel: Any) -> Any:
    """The top of a partition tree (NULL for a table that is in none)."""
    line = _lineage(ctx, rel)
    return labelled(ctx, line[-1].oid, regclass_out) if line else None


@register("pg_partition_tree", args=[T.REGCLASS], returns=T.RECORD, set_returning=True,
          needs_context=True, out_columns=[("relid", T.REGCLASS), ("parentrelid", T.REGCLASS),
                                           ("isleaf", T.BOOL), ("level", T.INT4)])
def pg_partition_tree(ctx: Any, rel: Any) -> Iterator[tuple[Any, ...]]:
    """The partition tree under a relation, parents before their partitions."""
    top = _lineage(ctx, rel)
    if not top:
        return iter(())
    cat = ctx.catalog
    out: list[tuple[Any, ...]] = []
    level = [(top[0], 0)]
    while level:
        out += [(labelled(ctx, t.oid, regclass_out), labelled(ctx, t.partof or None, regclass_out),
                 not t.partkey, n) for t, n in level]
        level = [(p, n + 1) for t, n in level for p in cat.tables if p.partof == t.oid]
    return iter(out)


# NB: a name literal (`pg_partition_tree('m')`) reaches them as text, looked up as regclass_in
register("pg_partition_ancestors", args=[T.TEXT], returns=T.REGCLASS, set_returning=True,
         needs_context=True, out_column="relid")(pg_partition_ancestors)
register("pg_partition_root", args=[T.TEXT], returns=T.REGCLASS,
         needs_context=True)(pg_partition_root)
register("pg_partition_tree", args=[T.TEXT], returns=T.RECORD, set_returning=True,
         needs_context=True, out_columns=[("relid", T.REGCLASS), ("parentrelid", T.REGCLASS),
                                          ("isleaf", T.BOOL), ("level", T.INT4)])(pg_partition_tree)


def _function(oid: int) -> Any:
    from ..pgcatalog.runtime import proc_definition

    f = proc_definition(oid)
    if f is not None:
        return f
    name = BY_OID.get(oid)
    if name is None:
        return None
    base, _, n = name.partition("#")
    defs = FUNCTIONS.get(base, [])
    idx = int(n) if n.isdigit() else 0
    return defs[idx] if idx < len(defs) else None


def _arguments_text(modes: Sequence[str], texts: Sequence[str], defaults: Sequence[str],
              with_defaults: bool) -> str:
    """pg_get_function_arguments (with defaults) / _identity_arguments (without): every
    parameter but a RETURNS TABLE's columns."""
    out = []
    for m, t, d in zip(modes, texts, defaults, strict=True):
        if m != "t":
            out.append(t + (f" DEFAULT {d}" if d and with_defaults else ""))
    return ", ".join(out)


def _table_result(modes: Sequence[str], texts: Sequence[str]) -> str | None:
    """`TABLE(x integer, y text)` for a RETURNS TABLE function, else None."""
    cols = [t for m, t in zip(modes, texts, strict=True) if m == "t"]
    return f"TABLE({', '.join(cols)})" if cols else None


def _user_function(ctx: FunctionContext, oid: int) -> Any:
    """A CREATE FUNCTION's catalog row (None for a built-in or no function)."""
    return next((f for f in ctx.catalog.functions if f.oid == oid), None)


@register("pg_get_function_result", args=[T.OID], returns=T.TEXT, needs_context=True)
def pg_get_function_result(ctx: FunctionContext, oid: int) -> str | None:
    """Returns a function's result type as SQL text (SETOF for set-returning ones,
    TABLE(...) for RETURNS TABLE)."""
    u = _user_function(ctx, oid)
    if u is not None and u.kind == "p":
        return None  # NB: a procedure has no result type
    if u is not None:
        table = _table_result(u.param_modes, u.param_texts)
        return table or ("SETOF " if u.retset else "") + (
            format_type(u.returns_domain or u.returns, None) or "")
    f = _function(oid)
    if f is None:
        return None
    if f.out_columns:
        cols = ", ".join(f"{n} {format_type(t, None)}" for n, t in f.out_columns)
        return f"TABLE({cols})"
    ret = f.returns if isinstance(f.returns, int) else T.ANYELEMENT
    return ("SETOF " if f.set_returning else "") + (format_type(ret, None) or "")


def _arguments(ctx: FunctionContext, oid: int, with_defaults: bool) -> str | None:
    u = _user_function(ctx, oid)
    if u is not None:
        if not u.param_texts:  # NB: made before the catalog kept the declarations
            return ", ".join(format_type(a, None) or "" for a in u.arg_types)
        return _arguments_text(u.param_modes, u.param_texts, u.param_defaults, with_defaults)
    if oid in ORDERED_ARGS:  # `double precision ORDER BY anyelement`: an ordered-set aggregate
        return ORDERED_ARGS[oid][1]
    f = _function(oid)
    if f is None:
        return None
    if f.args is None:
        return 'VARIADIC "any"'
    return ", ".join(format_type(a, None) or "" for a in f.args)


def user_sqlbody(ctx: FunctionContext, oid: int) -> str | None:
    """pg_get_function_sqlbody: a CREATE FUNCTION's SQL-standard body as ruleutils prints
    it (what pg_dump writes for it), None for a body given as a string."""
    u = _user_function(ctx, oid)
    if u is None or not u.atomic:
        return None
    statements = _atomic_statements(ctx, u)
    return statements if u.body.startswith("RETURN ") else f"BEGIN ATOMIC\n{statements}END"


def user_functiondef(ctx: FunctionContext, oid: int) -> str | None:
    """pg_get_functiondef of a CREATE FUNCTION's function, laid out as PostgreSQL's
    ruleutils does (psql's `\\sf`); None when `oid` is not one."""
    u = _user_function(ctx, oid)
    if u is None:
        return None
    schema = ctx.catalog.schema_by_oid(u.schema_oid)
    head = f"{quote_ident(schema.name)}." if schema is not None else ""
    args = _arguments(ctx, oid, True)
    result = pg_get_function_result(ctx, oid)
    lang = "plpgsql" if u.language == "plpgsql" else "sql"
    options = {"i": " IMMUTABLE", "s": " STABLE"}.get(u.volatility, "") + (
        " STRICT" if u.strict else "") + (" SECURITY DEFINER" if u.secdef else "")
    options = (f"{options}\n" if options else "") + config_lines(u.config)
    statements = _atomic_statements(ctx, u) if u.atomic else ""
    if u.kind == "p":  # NB: no RETURNS, no volatility; a BEGIN ATOMIC body as its statements
        body = (f"BEGIN ATOMIC\n{statements}END\n" if u.atomic
                else f"AS $procedure${u.body}$procedure$\n")
        return (f"CREATE OR REPLACE PROCEDURE {head}{quote_ident(u.name)}({args})\n"
                f" LANGUAGE {lang}\n" + options + body)
    body = f"AS $function${u.body}$function$\n"
    if u.atomic:  # NB: a SQL-standard body: RETURN expression, or BEGIN ATOMIC ... END
        body = f"{u.body}\n" if u.body.startswith("RETURN ") else \
            f"BEGIN ATOMIC\n{statements}END\n"
    return (f"CREATE OR REPLACE FUNCTION {head}{quote_ident(u.name)}({args})\n"
            f" RETURNS {result}\n LANGUAGE {lang}\n" + options + body)


def _atomic_statements(ctx: Any, u: Any) -> str:
    """A BEGIN ATOMIC body's statements laid out as ruleutils prints them (`atomictext`)."""
    if u.body.startswith("RETURN "):
        return u.body
    tables = {x.name: x for x in ctx.catalog.tables if x.kind in ("r", "v")}
    return atomic_text(u.body, tables, relation_shown(ctx), u.name,
                       list(zip(u.arg_names, u.arg_types, strict=True)))


@register("pg_get_function_arguments", args=[T.OID], returns=T.TEXT, needs_context=True)
def pg_get_function_arguments(ctx: FunctionContext, oid: int) -> str | None:
    """Returns a function's parameters as SQL text: modes, names, types and defaults."""
    return _arguments(ctx, oid, True)


@register("pg_get_function_identity_arguments", args=[T.OID], returns=T.TEXT,
          needs_context=True)
def pg_get_function_identity_arguments(ctx: FunctionContext, oid: int) -> str | None:
    """Returns the parameters that identify a function: as the arguments, without defaults."""
    return _arguments(ctx, oid, False)


@register("pg_get_triggerdef", args=[T.OID], returns=T.TEXT, needs_context=True)
def pg_get_triggerdef(ctx: FunctionContext, oid: int, pretty: bool = False) -> str | None:
    """A CREATE TRIGGER's text (pgcatalog.triggertext); NULL for no such trigger."""
    cat = ctx.catalog
    t = next((t for t in cat.triggers if t.oid == oid), None)
    table = cat.table_by_oid(t.table_oid) if t is not None else None
    if t is None or table is None:
        return None
    schema = cat.schema_by_oid(table.schema_oid)
    path = tuple(ctx.search_path())
    return trigger_def(cat, t, pretty, schema is not None and schema.name in path, path)


register("pg_get_triggerdef", args=[T.OID, T.BOOL], returns=T.TEXT,
         needs_context=True)(pg_get_triggerdef)


def _no_definition(oid: int) -> None:
    """Returns NULL: Cumulo has no rules or extended statistics."""
    return None


for _name in ("pg_get_ruledef", "pg_get_statisticsobjdef"):
    register(_name, args=[T.OID], returns=T.TEXT)(_no_definition)


@register("pg_get_partkeydef", args=[T.OID], returns=T.TEXT, needs_context=True)
def pg_get_partkeydef(ctx: Any, oid: int) -> str | None:
    """A partitioned table's key as stored (`RANGE (d)`, sql.partitions); NULL otherwise."""
    t = ctx.catalog.table_by_oid(oid)
    return (t.partkey or None) if t is not None else None


@register("pg_relation_is_publishable", args=[T.REGCLASS], returns=T.BOOL, needs_context=True)
def pg_relation_is_publishable(ctx: Any, rel: Any) -> bool:
    """True for ordinary user tables, as PostgreSQL answers."""
    t = ctx.catalog.table_by_oid(relation_oid(ctx, rel))
    return t is not None and t.kind == "r"


def _filenode(ctx: Any, rel: Any) -> int | None:
    """A relation's relfilenode (its OID here), NULL for one without storage (a view, a
    partitioned table or index, a missing OID), as PostgreSQL's pg_relation_filenode."""
    oid = relation_oid(ctx, rel)
    cat = ctx.catalog
    t = cat.table_by_oid(oid)
    if t is not None:
        return oid if t.kind in ("r", "m") and not t.partkey else None
    i = next((x for x in cat.indexes if x.oid == oid), None)
    if i is not None:
        owner = cat.table_by_oid(i.table_oid)
        return None if owner is not None and owner.partkey else oid
    return oid if any(q.oid == oid for q in cat.sequences) else None


@register("pg_relation_filenode", args=[T.REGCLASS], returns=T.OID, needs_context=True)
def pg_relation_filenode(ctx: Any, rel: Any) -> int | None:
    """The relation's filenode: its OID here, NULL for a relation without storage."""
    return _filenode(ctx, rel)


@register("pg_relation_filepath", args=[T.REGCLASS], returns=T.TEXT, needs_context=True)
def pg_relation_filepath(ctx: Any, rel: Any) -> str | None:
    """`base/<database OID>/<filenode>`, PostgreSQL's path under its data directory."""
    node = _filenode(ctx, rel)
    return None if node is None else f"base/{ctx.catalog.database.oid}/{node}"


@register("pg_get_replica_identity_index", args=[T.REGCLASS], returns=T.REGCLASS,
          needs_context=True)
def pg_get_replica_identity_index(ctx: Any, rel: Any) -> Any:
    """The index REPLICA IDENTITY uses: USING INDEX's, else the primary key's (DEFAULT);
    NULL for FULL, NOTHING or no such index."""
    t = ctx.catalog.table_by_oid(relation_oid(ctx, rel))
    if t is None or t.replident not in ("d", "i"):
        return None
    oid = t.replident_index if t.replident == "i" else next(
        (i.oid for i in ctx.catalog.indexes_of(t.oid) if i.primary), None)
    return labelled(ctx, oid, regclass_out) if oid else None


@register("pg_relation_is_updatable", args=[T.REGCLASS, T.BOOL], returns=T.INT4,
          needs_context=True)
def pg_relation_is_updatable(ctx: Any, rel: Any, include_triggers: bool) -> int:
    """The events (UPDATE 4, INSERT 8, DELETE 16) the relation takes (pgcatalog.updatable)."""
    t = ctx.catalog.table_by_oid(relation_oid(ctx, rel))
    return 0 if t is None else relation_events(ctx.catalog, t, ctx.search_path(),
                                               include_triggers)


@register("pg_column_is_updatable", args=[T.REGCLASS, T.INT2, T.BOOL], returns=T.BOOL,
          needs_context=True)
def pg_column_is_updatable(ctx: Any, rel: Any, attnum: int, include_triggers: bool) -> bool:
    """Whether an INSERT and an UPDATE may write the column (a view's: a plain column)."""
    t = ctx.catalog.table_by_oid(relation_oid(ctx, rel))
    if t is None:
        return False
    both = UPDATE | INSERT
    return relation_events(ctx.catalog, t, ctx.search_path(), include_triggers,
                           {attnum}) & both == both
