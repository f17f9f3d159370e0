"""Deferred foreign keys and constraint triggers: DEFERRABLE INITIALLY DEFERRED, SET
CONSTRAINTS, checks at COMMIT.

A foreign key is checked when its statement ends, unless it is DEFERRABLE and
deferred, by INITIALLY DEFERRED or by `SET CONSTRAINTS {ALL | name, ...} DEFERRED`
in the transaction. A deferred check is recorded instead: for the referencing
side the keys of the rows written, for the referenced side (NO ACTION only:
RESTRICT and the cascading actions are never deferred, as in PostgreSQL) the
key values that disappeared. COMMIT, or `SET CONSTRAINTS ... IMMEDIATE`, runs
the recorded checks against the rows as they are then: a child row deleted
later, or a parent key inserted again, is no violation. A failed check at
COMMIT rolls the transaction back (23503). Django creates every foreign key
DEFERRABLE INITIALLY DEFERRED, and `loaddata` with forward references needs it.
A deferred CREATE CONSTRAINT TRIGGER's firings are queued the same way and run
first, in their order; an error they raise fails the COMMIT. A deferred UNIQUE
constraint records the key values written; COMMIT finds each in at most one row
of its index, else 23505 as PostgreSQL words it. A deferred EXCLUDE constraint records
the rows written; COMMIT checks each one still there against the others (23P01).

The state lives per session (`deferstate`, below the writer that records into
it) and is dropped when the transaction ends; this module runs the recorded
checks, through the writers and the parent-side lookups of `cascade`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ...errors import SQLError, SyntaxError_, UndefinedObject
from ...pgwire.backend import Result
from ..catalog.model import Table
from ..parse import unquote_ident
from .cascade import children_rows, fk_violation
from .deferstate import Deferred, forget, pending, state_of
from .writer import find_missing_parents, writer_for

if TYPE_CHECKING:
    from ..session import SQLSession

__all__ = ["check_at_commit", "forget", "pending", "set_constraints"]


def check_at_commit(s: SQLSession) -> None:
    """Runs every recorded check (23503 on the first violation)."""
    st = state_of(s, create=False)
    if st is not None:
        _run(s, st, None)


def _run(s: SQLSession, st: Deferred, only: set[int] | None) -> None:
    _fire_triggers(s, st, only)
    cat = s.catalog()
    by_oid = {c.oid: c for c in cat.constraints if c.kind == "f"}
    for oid in list(st.children):
        if only is not None and oid not in only:
            continue
        keys = list(st.children.pop(oid))
        fk = by_oid.get(oid)
        child = cat.table_by_oid(fk.table_oid) if fk is not None else None
        if fk is None or child is None:
            continue  # dropped meanwhile
        rows = [r for r in s.txn.get(child.space, keys) if r is not None]
        if rows:
            writer_for(s, child).check_fks(s, s.txn, rows, only_fk=fk)
    for oid in list(st.parents):
        if only is not None and oid not in only:
            continue
        vals_list = list(st.parents.pop(oid))
        fk = by_oid.get(oid)
        parent = cat.table_by_oid(fk.ref_table_oid) if fk is not None else None
        if fk is None or parent is None:
            continue
        pw = writer_for(s, parent)
        gone = set(find_missing_parents(s, s.txn, parent, fk.ref_columns, vals_list))
        for vals in vals_list:
            if vals in gone and children_rows(s, fk, vals):
                fk_violation(s, pw, fk, vals, "update or delete")
    _check_uniques(s, st, only)


def _check_uniques(s: SQLSession, st: Deferred, only: set[int] | None) -> None:
    """Rechecks the key values written while a UNIQUE constraint was deferred."""
    cat = s.catalog()
    for oid in list(st.uniques):
        if only is not None and oid not in only:
            continue
        wanted = list(st.uniques.pop(oid))
        st.unique_events.discard(oid)
        con = next((c for c in cat.constraints if c.oid == oid), None)
        table = cat.table_by_oid(con.table_oid) if con is not None else None
        if con is None or table is None:
            continue  # dropped meanwhile
        idx = next((i for i in cat.indexes_of(table.oid) if i.oid == con.index_oid), None)
        if idx is not None and idx.space:
            writer_for(s, table).recheck_unique(s.txn, idx, wanted)
    for oid in list(st.exclusions):
        if only is not None and oid not in only:
            continue
        keys = list(st.exclusions.pop(oid))
        table = table_of(cat, oid)
        for ex in writer_for(s, table).exclusions if table is not None else ():
            if ex.con.oid == oid:
                ex.recheck(s.txn, keys)


def table_of(cat: Any, con_oid: int) -> Table | None:
    """The table of constraint `con_oid` (None: dropped meanwhile)."""
    con = next((c for c in cat.constraints if c.oid == con_oid), None)
    return None if con is None else cat.table_by_oid(con.table_oid)


def _fire_triggers(s: SQLSession, st: Deferred, only: set[int] | None) -> None:
    """Runs the queued firings of deferred constraint triggers, in the order they were
    queued (a firing that queues more runs them too); an error fails the COMMIT."""
    while True:
        due = [q for q in st.triggers if only is None or q[0] in only]
        if not due:
            return
        st.triggers = [q for q in st.triggers if not (only is None or q[0] in only)]
        for _, fn, call in due:
            s.functions.run_trigger(fn, call)


_SET = re.compile(r"SET\s+CONSTRAINTS\s+(?P<names>.+?)\s+(?P<mode>DEFERRED|IMMEDIATE)\s*;?\s*$",
                  re.I | re.S)


def set_constraints(s: SQLSession, sql: str) -> Result:
    """SET CONSTRAINTS { ALL | name [, ...] } { DEFERRED | IMMEDIATE }."""
    m = _SET.match(sql.strip())
    if m is None:
        raise SyntaxError_("syntax error at or near \"CONSTRAINTS\"")
    deferred = m.group("mode").upper() == "DEFERRED"
    names = [n.strip() for n in m.group("names").split(",")]
    if not s.in_block:  # NB: PostgreSQL warns, then still looks the names up
        s.notice("SET CONSTRAINTS can only be used in transaction blocks", sqlstate="25P01",
                 severity="WARNING")
    if len(names) == 1 and names[0].upper() == "ALL":
        if not s.in_block:
            return Result("SET CONSTRAINTS")
        st = state_of(s)
        st.all_mode = deferred
        st.modes.clear()
        if not deferred:
            _run(s, st, None)
        return Result("SET CONSTRAINTS")
    cat = s.catalog()
    chosen: list[int] = []
    for raw in names:
        name = unquote_ident(raw.split(".")[-1].strip())
        found = [(c.oid, c.deferrable) for c in cat.constraints if c.name == name]
        found += [(t.constraint_oid, t.deferrable) for t in cat.triggers
                  if t.constraint_oid and t.name == name]  # CREATE CONSTRAINT TRIGGER's
        if not found:
            raise UndefinedObject(f'constraint "{name}" does not exist')
        for _, deferrable in found:
            if not deferrable and deferred:  # NB: IMMEDIATE is what it is already
                raise SQLError(f'constraint "{name}" is not deferrable',
                               sqlstate="42809")  # wrong_object_type, as PostgreSQL
        chosen += [oid for oid, deferrable in found if deferrable]
    if not s.in_block:
        return Result("SET CONSTRAINTS")
    st = state_of(s)
    for oid in chosen:
        st.modes[oid] = deferred
    if not deferred:
        _run(s, st, set(chosen))
    return Result("SET CONSTRAINTS")

