"""Fires a table's triggers from its write path (`writer.TableWriter`) and its statements.

A `TableTriggers` is built with the table's writer (once per catalog version) and
only when the table has an enabled trigger, so a table without triggers costs the
writer one attribute test per batch. Row-level triggers fire per row, in name
order as PostgreSQL's: BEFORE ones on the rows about to be written (a trigger's
returned row replaces NEW for the next trigger and the write; NULL skips the row
and the triggers after it), AFTER ones on the rows as stored, once the batch is
written (PostgreSQL queues them to the statement's end; a batch is our unit of
writing). Statement-level triggers fire around the statement's run
(`with_statement_triggers`), even when it touches no row. An AFTER trigger
with transition tables (REFERENCING) sees the statement's rows, captured as
the writer hands them over (`_CAPTURE`), as relations (`plan.transition`). A
deferred constraint trigger's firing is queued for COMMIT (`deferstate`,
run by `deferred`). The function runs
through the session (`FunctionContext.run_trigger`), which owns the PL/pgSQL
runner: this layer knows the catalog rows, not how to run a body.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ..catalog.model import CatalogSnapshot, Function, Table, Trigger
from ..ddl.names import find_relation, table_name
from ..partitions.members import ancestors
from ..plan.transition import Transition, bound
from ..plpgsql.triggerdata import TriggerCall
from ..stmt import Stmt
from .deferstate import defer_trigger, trigger_deferred

if TYPE_CHECKING:
    from ..session import SQLSession

ROW, BEFORE, INSERT, DELETE, UPDATE, TRUNCATE, INSTEAD = 1, 2, 4, 8, 16, 32, 64
EVENTS = ((INSERT, "INSERT"), (UPDATE, "UPDATE"), (DELETE, "DELETE"), (TRUNCATE, "TRUNCATE"))
_OP_BIT = {op: bit for bit, op in EVENTS}


@dataclass
class _Captured:
    """The rows one statement changed in one table, for its transition tables."""

    olds: list[Any] = field(default_factory=list)
    news: list[Any] = field(default_factory=list)
    # AFTER ROW firings held to the statement's end, as PostgreSQL's, so that a row trigger's
    # transition tables hold every row: (the table's triggers, trigger, function, call)
    queued: list[tuple[Any, Trigger, Function, TriggerCall]] = field(default_factory=list)
    built: tuple[Any, dict[str, Transition]] | None = None  # the last tables made of them


# (table oid, op) -> rows, while a statement whose table has transition tables runs
_CAPTURE: ContextVar[dict[tuple[int, str], _Captured] | None] = ContextVar(
    "transition_capture", default=None)


# (child table oid, op) -> (its triggers, its captured rows): the tables a statement's
# foreign-key cascades wrote, whose AFTER STATEMENT triggers fire once at its end
_RI: ContextVar[dict[tuple[int, str], tuple[TableTriggers, dict[Any, Any]]] | None] = \
    ContextVar("cascaded_statements", default=None)


# the target of the running MERGE, whose statement triggers the MERGE fires itself, once per
# action type, and whose AFTER ROW firings wait for the MERGE's end (`merge_triggers`)
_MERGING: ContextVar[int | None] = ContextVar("merge_target", default=None)


def merge_triggers(s: SQLSession, table: Table, ops: set[str], run: Callable[[], Any]) -> Any:
    """Runs a MERGE's parts (`run`) inside its target's statement triggers, fired as
    PostgreSQL fires them: BEFORE STATEMENT for INSERT, UPDATE, DELETE (the actions its
    WHEN clauses name), then every row, the AFTER ROW firings held to the end, then AFTER
    STATEMENT for DELETE, UPDATE, INSERT. (The parts still run action by action, so BEFORE
    ROW firings follow the source's order only within each action.)"""
    trig = TableTriggers.of(s.catalog(), table)
    if trig is None:
        return run()
    for op in ("INSERT", "UPDATE", "DELETE"):
        if op in ops:
            trig.statement(s, "BEFORE", op)
    target = _MERGING.set(table.oid)
    try:
        with capturing({}):
            res = run()
            fire_held(s)
    finally:
        _MERGING.reset(target)
    for op in ("DELETE", "UPDATE", "INSERT"):
        if op in ops:
            trig.statement(s, "AFTER", op)
    return res


def _cascades_to_triggers(cat: CatalogSnapshot, table: Table) -> bool:
    """Tells whether a DELETE or UPDATE of `table` may cascade (ON DELETE / UPDATE CASCADE,
    SET NULL, SET DEFAULT) into a table with statement-level triggers."""
    seen, todo = {table.oid}, [table.oid]
    while todo:
        oid = todo.pop()
        for c in cat.constraints:
            if c.kind != "f" or c.ref_table_oid != oid or c.table_oid in seen or (
                    c.on_delete in "ar" and c.on_update in "ar"):
                continue
            seen.add(c.table_oid)
            todo.append(c.table_oid)
            child = cat.table_by_oid(c.table_oid)
            trig = TableTriggers.of(cat, child) if child is not None else None
            if trig is not None and any(trig.has_statement(o) for o in ("DELETE", "UPDATE")):
                return True
    return False


def cascaded_statement(s: SQLSession, trig: TableTriggers | None, op: str,
                       action: Callable[[], Any]) -> None:
    """One foreign-key cascade into a table (PostgreSQL's RI query) as a statement on it:
    its BEFORE STATEMENT triggers fire at the statement's first cascade into it, its AFTER
    STATEMENT ones once at the statement's end, seeing all the rows the cascades wrote."""
    if trig is None or not trig.has_statement(op):
        action()
        return
    reg = _RI.get()
    if reg is None:  # NB: no statement around it (cannot happen from SQL): a statement each
        trig.statement(s, "BEFORE", op)
        with capturing({}):
            action()
            fire_held(s)
            trig.statement(s, "AFTER", op)
        return
    key = (trig.table.oid, op)
    if key not in reg:
        trig.statement(s, "BEFORE", op)
        reg[key] = (trig, {})
    with capturing(reg[key][1]):
        action()
        fire_held(s)


def fire_held(s: SQLSession) -> None:
    """Runs the AFTER ROW firings the running statement held (in the order they came),
    before its AFTER STATEMENT triggers: each sees all the statement's rows."""
    cap = _CAPTURE.get()
    for (_, op), got in list(cap.items()) if cap else ():
        queued, got.queued = got.queued, []
        for owner, t, fn, call in queued:
            owner._after_row(s, t, fn, call, op, None, None)


@contextlib.contextmanager
def capturing(rows: dict[Any, Any]) -> Iterator[None]:
    """Collects the written rows into `rows` for transition tables (a COPY FROM keeps one
    across its messages, entering this for each batch and for its AFTER STATEMENT triggers)."""
    token = _CAPTURE.set(rows)
    try:
        yield
    finally:
        _CAPTURE.reset(token)


class TableTriggers:
    """The enabled triggers of one table, grouped by (timing, level, event)."""

    def __init__(self, cat: CatalogSnapshot, table: Table, triggers: list[Trigger]) -> None:
        schema = cat.schema_by_oid(table.schema_oid)
        self.table = table
        self.schema = schema.name if schema is not None else ""
        self.columns = tuple((c.attnum - 1, c.name, c.type_oid, c.typmod)
                             for c in table.live_columns)
        fns = {f.oid: f for f in cat.functions}
        self.groups: dict[tuple[str, str, str], list[tuple[Trigger, Function]]] = {}
        self.transitions: set[str] = set()  # the ops with an AFTER trigger's REFERENCING
        for t in sorted(triggers, key=lambda t: t.name):
            fn = fns.get(t.function_oid)
            if fn is None:
                continue
            when = "BEFORE" if t.tgtype & BEFORE else "INSTEAD OF" if t.tgtype & INSTEAD \
                else "AFTER"
            level = "ROW" if t.tgtype & ROW else "STATEMENT"
            for bit, op in EVENTS:
                if t.tgtype & bit:
                    self.groups.setdefault((when, level, op), []).append((t, fn))
                    if t.old_table or t.new_table:
                        self.transitions.add(op)

    @staticmethod
    def of(cat: CatalogSnapshot, table: Table) -> TableTriggers | None:
        """The table's triggers, or None when it has no enabled one (the writer's fast test)."""
        if not cat.triggers:
            return None
        # NB: a partition's rows fire its parents' row triggers too, as PostgreSQL's clones
        above = ancestors(cat, table) if table.partof else ()
        mine = [t for t in cat.triggers if t.enabled != "D" and (
            t.table_oid == table.oid or (t.table_oid in above and t.tgtype & 1))]
        return TableTriggers(cat, table, mine) if mine else None

    def _call(self, t: Trigger, when: str, level: str, op: str, new: Any, old: Any
              ) -> TriggerCall:
        return TriggerCall(t.name, when, level, op, self.table.oid, self.table.name,
                           self.schema, t.args, self.columns, new, old, t.when)

    def _fire_rows(self, s: SQLSession, when: str, op: str, news: list[Any] | None,
                   olds: list[Any] | None, targets: frozenset[int] | None = None
                   ) -> list[int]:
        """Runs the row triggers of (when, op); returns the indices of the rows kept
        (BEFORE: a row whose trigger returned NULL is dropped; `news` is updated in place)."""
        group = self.groups.get((when, "ROW", op))
        n = len(news if news is not None else olds or [])
        if not group:
            return list(range(n))
        kept = []
        for i in range(n):
            new = news[i] if news is not None else None
            old = olds[i] if olds is not None else None
            alive = True
            for t, fn in group:
                if t.columns and op == "UPDATE" and not _touches(t, new, old, targets):
                    continue
                call = self._call(t, when, "ROW", op, new, old)
                if when != "BEFORE":
                    held = self._held(op)
                    if held is not None:
                        held.queued.append((self, t, fn, call))
                    else:
                        self._after_row(s, t, fn, call, op, olds, news)
                    continue
                got = s.functions.run_trigger(fn, call)
                if got is None:
                    alive = False
                    break
                if news is not None:
                    new = got
            if alive:
                if news is not None and when == "BEFORE":
                    news[i] = new
                kept.append(i)
        return kept

    # -- the writer's hooks ----------------------------------------------------------
    # With BEFORE ROW triggers the rows are written one at a time, as PostgreSQL does: a
    # BEFORE trigger sees the rows of its statement written before its own (a per-group
    # counter). AFTER ROW triggers run once the rows are all written, as at the end of
    # PostgreSQL's statement.

    def before_insert(self, s: SQLSession, rows: list[Any]) -> list[Any]:
        """The rows as BEFORE INSERT triggers leave them (those returning NULL dropped)."""
        rows = list(rows)
        kept = self._fire_rows(s, "BEFORE", "INSERT", rows, None)
        return rows if len(kept) == len(rows) else [rows[i] for i in kept]

    def insert(self, w: Any, s: SQLSession, rows: list[Any], check_unique: bool,
               converted: frozenset[int], before_fired: bool,
               keys_out: list[bytes] | None = None) -> list[Any]:
        """`TableWriter.insert_rows` of a table with triggers (`w.write_rows` writes)."""
        if before_fired or not self.groups.get(("BEFORE", "ROW", "INSERT")):
            stored = w.write_rows(s, rows, check_unique,
                                  frozenset() if before_fired else converted, keys_out)
        else:
            stored = []
            for r in rows:  # NB: a trigger may have changed any column: typmods again
                kept = self.before_insert(s, [r])
                if kept:
                    stored.extend(w.write_rows(s, kept, check_unique, frozenset(), keys_out))
        self._capture("INSERT", None, stored)
        self._fire_rows(s, "AFTER", "INSERT", stored, None)
        return stored

    def update(self, w: Any, s: SQLSession, keys: list[bytes], olds: list[Any],
               news: list[Any], kept: frozenset[int]) -> list[Any]:
        """`TableWriter.update_rows` of a table with triggers (`kept`: the columns the
        statement does not set, so UPDATE OF knows the ones it does)."""
        targets = self._targets(kept)
        if not self.groups.get(("BEFORE", "ROW", "UPDATE")):
            rows = w.replace_rows(s, keys, olds, news, kept)
            done = olds
        else:
            rows, done = [], []
            for key, old, new in zip(keys, olds, news, strict=True):
                one = [new]
                if self._fire_rows(s, "BEFORE", "UPDATE", one, [old], targets):
                    rows.extend(w.replace_rows(s, [key], [old], one, frozenset()))
                    done.append(old)
        self._capture("UPDATE", done, rows)
        self._fire_rows(s, "AFTER", "UPDATE", rows, done, targets)
        return rows

    def delete(self, w: Any, s: SQLSession, keys: list[bytes], olds: list[Any]
               ) -> list[Any]:
        """`TableWriter.delete_rows` of a table with triggers."""
        if not self.groups.get(("BEFORE", "ROW", "DELETE")):
            gone = w.remove_rows(s, keys, olds)
        else:
            gone = []
            for key, old in zip(keys, olds, strict=True):
                if self._fire_rows(s, "BEFORE", "DELETE", None, [old]):
                    gone.extend(w.remove_rows(s, [key], [old]))
        self._capture("DELETE", gone, None)
        self._fire_rows(s, "AFTER", "DELETE", None, gone)
        return gone

    def instead(self, s: SQLSession, op: str, new: list[Any] | None, old: list[Any] | None
                ) -> list[Any] | None:
        """Runs the INSTEAD OF ROW triggers of a view for one row, in name order: the row
        the last one returned (each gets the one before's), or None when one skipped it."""
        row = new
        for t, fn in self.groups.get(("INSTEAD OF", "ROW", op), ()):
            got = s.functions.run_trigger(fn, self._call(t, "INSTEAD OF", "ROW", op, row, old))
            if got is None:
                return None
            if row is not None:
                row = got
        return row if row is not None else old

    def _after_row(self, s: SQLSession, t: Trigger, fn: Function, call: TriggerCall, op: str,
                   olds: list[Any] | None, news: list[Any] | None) -> None:
        """One AFTER ROW firing: queued for COMMIT when it is a deferred constraint
        trigger, else run (seeing its transition tables, if it has any)."""
        if t.constraint_oid and trigger_deferred(s, t):
            defer_trigger(s, t, fn, call)  # NB: runs at COMMIT (deferred.py)
        elif t.old_table or t.new_table:
            with bound(self._transition_tables(t, op, olds, news)):
                s.functions.run_trigger(fn, call)
        else:
            s.functions.run_trigger(fn, call)

    # -- transition tables -------------------------------------------------------------

    def _held(self, op: str) -> _Captured | None:
        """Where AFTER ROW firings of `op` wait for the statement's end: only while a
        statement captures this table's rows for transition tables."""
        if op not in self.transitions and _MERGING.get() != self.table.oid:
            return None
        cap = _CAPTURE.get()
        return None if cap is None else cap.setdefault((self.table.oid, op), _Captured())

    def _capture(self, op: str, olds: list[Any] | None, news: list[Any] | None) -> None:
        """Keeps the rows a write changed, when a trigger of `op` has transition tables."""
        if op not in self.transitions:
            return
        cap = _CAPTURE.get()
        if cap is None:
            return
        got = cap.setdefault((self.table.oid, op), _Captured())
        got.olds.extend(olds or ())
        got.news.extend(news or ())

    def _transition_tables(self, t: Trigger, op: str, olds: list[Any] | None,
                           news: list[Any] | None) -> dict[str, Transition]:
        """The trigger's OLD TABLE and NEW TABLE: the statement's rows (captured), or the
        batch's when nothing captured them (a write path without a statement wrapper)."""
        cap = _CAPTURE.get()
        got = cap.get((self.table.oid, op)) if cap is not None else None
        if got is not None:
            olds, news = got.olds, got.news
            key = (t.old_table, t.new_table, len(olds), len(news))
            if got.built is not None and got.built[0] == key:
                return got.built[1]  # NB: each row trigger of the statement sees the same
        cols = tuple((name, oid, typmod) for _, name, oid, typmod in self.columns)
        out = {}
        for name, rows in ((t.old_table, olds), (t.new_table, news)):
            if name:
                out[name] = Transition(cols, [tuple(r[p] for p, *_ in self.columns)
                                              for r in rows or ()])
        if got is not None:
            got.built = (key, out)
        return out

    def _targets(self, kept: frozenset[int]) -> frozenset[int] | None:
        """The columns an UPDATE sets (None: not known, compare the values)."""
        if not kept:
            return None
        return frozenset(pos for pos, *_ in self.columns) - kept

    # -- statement level ---------------------------------------------------------------

    def has_statement(self, op: str) -> bool:
        return op in self.transitions or any(
            self.groups.get((w, "STATEMENT", op)) for w in ("BEFORE", "AFTER"))

    def statement(self, s: SQLSession, when: str, op: str) -> None:
        for t, fn in self.groups.get((when, "STATEMENT", op), ()):
            call = self._call(t, when, "STATEMENT", op, None, None)
            if t.old_table or t.new_table:
                with bound(self._transition_tables(t, op, [], [])):
                    s.functions.run_trigger(fn, call)
            else:
                s.functions.run_trigger(fn, call)


def _touches(t: Trigger, new: Any, old: Any, targets: frozenset[int] | None) -> bool:
    """UPDATE OF columns: PostgreSQL fires when the statement sets one of them."""
    cols = [a - 1 for a in t.columns]
    if targets is not None:
        return any(c in targets for c in cols)
    return new is None or old is None or any(new[c] != old[c] for c in cols)


def with_statement_triggers(s: SQLSession, tree: exp.Expression, stmt: Stmt) -> Stmt:
    """`stmt` (an INSERT, UPDATE or DELETE) firing its table's statement-level triggers
    around its run; `stmt` itself when the table has none."""
    cat = s.catalog()
    if not cat.triggers:
        return stmt
    target = tree.this
    if isinstance(target, exp.Schema):
        target = target.this
    if not isinstance(target, exp.Table):
        return stmt
    schema, name = table_name(target)
    table = find_relation(cat, schema, name, s.search_path())
    op = "INSERT" if isinstance(tree, exp.Insert) else \
        "UPDATE" if isinstance(tree, exp.Update) else "DELETE"
    if table is None:
        return stmt
    ops = [op]
    conflict = tree.args.get("conflict") if op == "INSERT" else None
    if conflict is not None and "UPDATE" in str(conflict.args.get("action") or "").upper():
        ops.append("UPDATE")  # NB: ON CONFLICT DO UPDATE fires both, as PostgreSQL
    trig = TableTriggers.of(cat, table)
    cascades = op != "INSERT" and _cascades_to_triggers(cat, table)
    if not cascades and (trig is None or not any(trig.has_statement(o) for o in ops)):
        return stmt
    inner = stmt.run

    def run(sess: SQLSession, values: list[Any]) -> Any:
        now = TableTriggers.of(sess.catalog(), table)
        merged = _MERGING.get() == table.oid  # NB: a MERGE's part: the MERGE fires them
        for o in ops if now is not None and not merged else ():
            now.statement(sess, "BEFORE", o)  # type: ignore[union-attr]
        token = _CAPTURE.set({}) if now is not None and now.transitions else None
        ri = _RI.set({}) if cascades else None
        try:
            res = inner(sess, values)
            if token is not None:
                fire_held(sess)
            for o in reversed(ops) if now is not None and not merged else ():
                now.statement(sess, "AFTER", o)  # type: ignore[union-attr]
            if ri is not None:
                for (_, o), (child, rows) in list((_RI.get() or {}).items()):
                    with capturing(rows):  # NB: the cascades' tables, once, at the end
                        child.statement(sess, "AFTER", o)
        finally:
            if ri is not None:
                _RI.reset(ri)
            if token is not None:
                _CAPTURE.reset(token)
        return res

    stmt.run = run
    stmt.many = None  # NB: pipelined runs of one INSERT are each a statement
    return stmt
