"""pg_get_triggerdef's text of a trigger, and information_schema.triggers' pieces.

PostgreSQL deparses the stored trigger: `CREATE TRIGGER name BEFORE INSERT OR
UPDATE OF a ON public.t FOR EACH ROW WHEN ((new.id > 0)) EXECUTE FUNCTION
f('x')`. The pretty form (psql's `\\d`) leaves out the table's schema when
the search_path finds it and the extra parentheses around WHEN's expression.
We keep WHEN as written and print it as PostgreSQL's deparser would for the
usual forms (identifiers folded to lower case, a top-level operator
parenthesised in the plain form).
"""

from __future__ import annotations

from sqlglot import exp

from ..catalog import model as M
from ..parse import parse_sql
from .names import quote_ident

ROW, BEFORE, INSERT, DELETE, UPDATE, TRUNCATE, INSTEAD = 1, 2, 4, 8, 16, 32, 64
_EVENTS = ((INSERT, "INSERT"), (DELETE, "DELETE"), (UPDATE, "UPDATE"), (TRUNCATE, "TRUNCATE"))


def timing(t: M.Trigger) -> str:
    return "BEFORE" if t.tgtype & BEFORE else "INSTEAD OF" if t.tgtype & INSTEAD else "AFTER"


def events(t: M.Trigger) -> list[str]:
    """The trigger's events in PostgreSQL's order (INSERT, DELETE, UPDATE, TRUNCATE)."""
    return [name for bit, name in _EVENTS if t.tgtype & bit]


def condition(t: M.Trigger, pretty: bool) -> str:
    """WHEN's expression as pg_get_triggerdef prints it (without WHEN's own parentheses)."""
    try:
        node = parse_sql(f"SELECT ({t.when})").expressions[0]
    except Exception:  # NB: stored text came from the user; print it as written
        return t.when
    node = node.this if isinstance(node, exp.Paren) else node
    for ident in node.find_all(exp.Identifier):
        if not ident.args.get("quoted"):
            ident.set("this", ident.this.lower())
    text = node.sql("postgres")
    if not pretty and isinstance(node, exp.Binary | exp.Not | exp.Is | exp.In | exp.Between):
        text = f"({text})"
    return text


def arguments(t: M.Trigger) -> str:
    return ", ".join("'" + a.replace("'", "''") + "'" for a in t.args)


def action(cat: M.CatalogSnapshot, t: M.Trigger, path: tuple[str, ...] | None = None) -> str:
    """`EXECUTE FUNCTION f('x')` (information_schema.triggers.action_statement); with the
    search_path's schemas, a function outside them is qualified (pg_dump's `public.f()`)."""
    fn = next((f for f in cat.functions if f.oid == t.function_oid), None)
    name = quote_ident(fn.name) if fn is not None else "-"
    schema = cat.schema_by_oid(fn.schema_oid) if fn is not None else None
    if schema is not None and path is not None and schema.name not in path:
        name = f"{quote_ident(schema.name)}.{name}"
    return f"EXECUTE FUNCTION {name}({arguments(t)})"


def trigger_def(cat: M.CatalogSnapshot, t: M.Trigger, pretty: bool, visible: bool,
                path: tuple[str, ...] = ()) -> str:
    """pg_get_triggerdef(oid, pretty); `visible`: the search_path finds the table; `path`:
    the search_path's schemas (a constraint trigger's FROM table is qualified outside it)."""
    table = cat.table_by_oid(t.table_oid)
    tname = quote_ident(table.name) if table is not None else "-"
    schema = cat.schema_by_oid(table.schema_oid) if table is not None else None
    if schema is not None and not (pretty and visible):
        tname = f"{quote_ident(schema.name)}.{tname}"
    what = []
    for e in events(t):
        if e == "UPDATE" and t.columns and table is not None:
            cols = ", ".join(quote_ident(table.columns[a - 1].name) for a in t.columns)
            e = f"UPDATE OF {cols}"
        what.append(e)
    kind = "CONSTRAINT TRIGGER" if t.constraint_oid else "TRIGGER"
    out = f"CREATE {kind} {quote_ident(t.name)} {timing(t)} {' OR '.join(what)} ON {tname} "
    ref = cat.table_by_oid(t.constrrelid) if t.constrrelid else None
    if ref is not None:
        ref_schema = cat.schema_by_oid(ref.schema_oid)
        shown = quote_ident(ref.name)
        if ref_schema is not None and ref_schema.name not in path:
            shown = f"{quote_ident(ref_schema.name)}.{shown}"
        out += f"FROM {shown} "
    if t.constraint_oid:
        out += "" if t.deferrable else "NOT "
        out += f"DEFERRABLE INITIALLY {'DEFERRED' if t.initdeferred else 'IMMEDIATE'} "
    if t.old_table or t.new_table:
        out += "REFERENCING "
        out += f"OLD TABLE AS {quote_ident(t.old_table)} " if t.old_table else ""
        out += f"NEW TABLE AS {quote_ident(t.new_table)} " if t.new_table else ""
    out += f"FOR EACH {'ROW' if t.tgtype & ROW else 'STATEMENT'} "
    if t.when:
        out += f"WHEN ({condition(t, pretty)}) "
    return out + action(cat, t, path)
