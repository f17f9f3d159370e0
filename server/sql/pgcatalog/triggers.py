"""pg_trigger and information_schema.triggers, from the catalog's CREATE TRIGGER rows.

psql's `\\d t` lists a table's triggers from pg_trigger (tgname,
pg_get_triggerdef(oid, true), tgenabled, tgisinternal) when pg_class says
relhastriggers; information_schema.triggers has one row per event.
"""

from __future__ import annotations

from typing import Any

from ..catalog import model as M
from .names import names
from .registry import pg_relation
from .triggertext import action, condition, events, timing

_ROW = 1


def live_triggers(cat: M.CatalogSnapshot) -> list[M.Trigger]:
    """The triggers whose table still exists."""
    tables = {t.oid for t in cat.tables}
    return [t for t in cat.triggers if t.table_oid in tables]


@pg_relation("pg_catalog", "pg_trigger")
def pg_trigger(ctx: Any) -> list[tuple[Any, ...]]:
    """One row per trigger, as PostgreSQL's (tgargs: each argument NUL-terminated)."""
    out = []
    for t in live_triggers(ctx.catalog):
        args = b"".join(a.encode() + b"\x00" for a in t.args)
        attrs = " ".join(str(a) for a in t.columns)
        out.append((t.oid, t.table_oid, 0, t.name, t.function_oid, t.tgtype, t.enabled, False,
                    t.constrrelid, 0, t.constraint_oid, t.deferrable, t.initdeferred,
                    len(t.args), attrs,
                    args, t.when or None,
                    t.old_table or None, t.new_table or None))
    return out


@pg_relation("information_schema", "triggers")
def triggers(ctx: Any) -> list[tuple[Any, ...]]:
    """One row per trigger and event (action_order: the trigger's place among the table's
    triggers of that event and timing, by name)."""
    cat = ctx.catalog
    idx = names(cat)
    db = cat.database.name
    rows = []
    for t in live_triggers(cat):
        table = cat.existing_table(t.table_oid)
        schema = idx.schema_name(table.schema_oid)
        for ev in events(t):
            if ev == "TRUNCATE":  # NB: the SQL standard has no TRUNCATE triggers
                continue
            peers = sorted(u.name for u in live_triggers(cat) if u.table_oid == t.table_oid
                           and ev in events(u) and timing(u) == timing(t)
                           and (u.tgtype & _ROW) == (t.tgtype & _ROW))
            rows.append((db, schema, t.name, ev, db, schema, table.name,
                         peers.index(t.name) + 1,
                         f"({condition(t, True)})" if t.when else None, action(cat, t),
                         "ROW" if t.tgtype & _ROW else "STATEMENT", timing(t),
                         t.old_table or None, t.new_table or None, None, None, None))
    return rows
