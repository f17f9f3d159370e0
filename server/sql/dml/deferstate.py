"""What a transaction has deferred: SET CONSTRAINTS modes and the foreign-key, unique and exclusion checks recorded for COMMIT.

The table writer (`writer.TableWriter.check_fks`, `check_unique`) and the
parent-side actions (`cascade`) record here; `deferred` runs the recorded checks at COMMIT or SET
CONSTRAINTS ... IMMEDIATE. The state lives per session (`_STATE`, by weak
reference) and is dropped when the transaction ends (`forget`).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, overload

from ...errors import ObjectInUse
from ..catalog.model import CatalogSnapshot, Constraint, Function, Table, Trigger

if TYPE_CHECKING:
    from ..session import SQLSession


@dataclass
class Deferred:
    """One transaction's SET CONSTRAINTS modes and recorded checks."""

    all_mode: bool | None = None  # SET CONSTRAINTS ALL DEFERRED (True) / IMMEDIATE (False)
    modes: dict[int, bool] = field(default_factory=dict)  # constraint oid -> deferred?
    children: dict[int, dict[bytes, None]] = field(default_factory=dict)  # fk oid -> row keys
    parents: dict[int, dict[tuple[Any, ...], None]] = field(default_factory=dict)  # fk -> vals
    # deferred UNIQUE constraints: constraint oid -> key values written while deferred
    uniques: dict[int, dict[tuple[Any, ...], None]] = field(default_factory=dict)
    # ... of those, the ones whose writes met a possible duplicate: PostgreSQL queues their
    # recheck as a trigger event then (and only then), which ALTER/TRUNCATE refuse (55006)
    unique_events: set[int] = field(default_factory=set)
    # deferred EXCLUDE constraints: constraint oid -> table keys of the rows written
    exclusions: dict[int, dict[bytes, None]] = field(default_factory=dict)
    # deferred constraint triggers' firings, in order: (constraint oid, function, TriggerCall)
    triggers: list[tuple[int, Function, Any]] = field(default_factory=list)
    # savepoint -> (len(triggers), all_mode, modes) when it was set
    marks: list[tuple[Any, int, bool | None, dict[int, bool]]] = field(default_factory=list)


_STATE: weakref.WeakKeyDictionary[Any, Deferred] = weakref.WeakKeyDictionary()
# NB: `_STATE.data` (its dict of weak references) tells "no session has state" with no
# Python call: `len` of a WeakKeyDictionary is one (every commit asked twice). A dict
# not empty yet (a dead session's entry still pending removal) only sends to the lookup.
# Public: COMMIT (`SQLSession.commit_txn`) tests it before calling `pending`.
ANY: dict[Any, Deferred] = _STATE.data  # type: ignore[attr-defined]  # NB: not in typeshed


@overload
def state_of(s: SQLSession) -> Deferred: ...


@overload
def state_of(s: SQLSession, create: bool) -> Deferred | None: ...


def state_of(s: SQLSession, create: bool = True) -> Deferred | None:
    """The session's deferred-check state; made on first use unless `create` is False."""
    st = _STATE.get(s)
    if st is None and create:
        st = _STATE[s] = Deferred()
    return st


def is_deferred(s: SQLSession, con: Constraint) -> bool:
    """Tells whether a foreign key's or unique key's checks wait for COMMIT in s's
    transaction right now."""
    return _deferred_now(s, con.deferrable, con.oid, con.deferred)


def trigger_deferred(s: SQLSession, t: Trigger) -> bool:
    """Tells whether a constraint trigger's firings wait for COMMIT right now."""
    return _deferred_now(s, t.deferrable, t.constraint_oid, t.initdeferred)


def _deferred_now(s: SQLSession, deferrable: bool, oid: int, initially: bool) -> bool:
    """SET CONSTRAINTS by name, then SET CONSTRAINTS ALL, then the INITIALLY default."""
    if not deferrable:
        return False
    st = _STATE.get(s)
    if st is not None:
        mode = st.modes.get(oid)
        if mode is not None:
            return mode
        if st.all_mode is not None:
            return st.all_mode
    return initially


def defer_trigger(s: SQLSession, t: Trigger, fn: Function, call: Any) -> None:
    """Queues one firing of a deferred constraint trigger (`call`: its TriggerCall)."""
    state_of(s).triggers.append((t.constraint_oid, fn, call))


def mark(s: SQLSession, token: Any) -> None:
    """SAVEPOINT: remembers how many trigger firings were queued and the SET CONSTRAINTS
    modes (ROLLBACK TO drops the later firings and restores the modes, as PostgreSQL drops an
    aborted subtransaction's events and puts back its saved trigger state)."""
    st = state_of(s)
    st.marks.append((token, len(st.triggers), st.all_mode, dict(st.modes)))


def rewind(s: SQLSession, token: Any) -> None:
    """ROLLBACK TO SAVEPOINT: forgets the firings queued since `mark(s, token)` and the SET
    CONSTRAINTS run since (Django's test teardown sets ALL DEFERRED in a savepoint)."""
    st = _STATE.get(s)
    if st is None:
        return
    for i, (t, n, all_mode, modes) in enumerate(st.marks):
        if t == token:
            del st.triggers[n:]
            del st.marks[i + 1:]
            st.all_mode, st.modes = all_mode, dict(modes)
            return


def defer_child_rows(s: SQLSession, fk: Constraint, keys: list[bytes],
                     changes: tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]] | None = None
                     ) -> None:
    """Records referencing rows (by key) whose parents COMMIT must find.

    `changes` (an UPDATE's old and new rows, in `keys`' order): as PostgreSQL's
    RI_FKey_fk_upd_check_required, a row whose referencing columns kept their values queues
    no check, unless rows of this foreign key already wait (one this transaction inserted
    may be among them, and may have moved). A queued check is a pending trigger event that
    ALTER TABLE and CREATE INDEX refuse (55006): Django's `add_field` then `UPDATE` then
    `CREATE INDEX` in one transaction met it."""
    st = state_of(s)
    waiting = st.children.get(fk.oid)
    if changes is not None and not waiting:
        pos = [a - 1 for a in fk.columns]
        old, new = changes
        keys = [k for k, o, r in zip(keys, old, new, strict=True)
                if any(o[i] != r[i] for i in pos)]
        if not keys:
            return
    st.children.setdefault(fk.oid, {}).update(dict.fromkeys(keys))


def defer_parent_keys(s: SQLSession, fk: Constraint, vals: tuple[Any, ...]) -> None:
    """Records a referenced key that went away: COMMIT checks nothing still points at it."""
    state_of(s).parents.setdefault(fk.oid, {})[vals] = None


def defer_unique_keys(s: SQLSession, con: Constraint, vals: list[tuple[Any, ...]],
                      event: bool = False) -> None:
    """Records key values a deferred UNIQUE constraint must find once each at COMMIT;
    `event`: one of them met another entry when written (a pending recheck event)."""
    st = state_of(s)
    st.uniques.setdefault(con.oid, {}).update(dict.fromkeys(vals))
    if event:
        st.unique_events.add(con.oid)


def defer_exclusion(s: SQLSession, con: Constraint, keys: list[bytes]) -> None:
    """Records rows (by table key) a deferred EXCLUDE constraint rechecks at COMMIT."""
    state_of(s).exclusions.setdefault(con.oid, {}).update(dict.fromkeys(keys))


def pending(s: SQLSession) -> bool:
    """Tells whether checks wait for COMMIT."""
    st = _STATE.get(s) if ANY else None  # NB: the common case skips the weak lookup
    return st is not None and bool(st.children or st.parents or st.triggers or st.uniques
                                   or st.exclusions)


def refuse_pending(s: SQLSession, cat: CatalogSnapshot, table: Table, verb: str) -> None:
    """PostgreSQL's 55006 for TRUNCATE, DROP TABLE, ALTER TABLE or CREATE INDEX (`verb`) of
    a table with checks waiting for COMMIT: a deferred foreign key's (on the referencing
    table for rows written, on the referenced one for keys that went away) or a deferred
    constraint trigger's, or a deferred UNIQUE's recheck, an event there only when a write
    met a possible duplicate (`unique_events`)."""
    st = _STATE.get(s) if ANY else None
    if st is None or not (st.children or st.parents or st.triggers or st.unique_events):
        return
    fks = {c.oid: c for c in cat.constraints if c.kind == "f"}
    tables = {fks[o].table_oid for o, keys in st.children.items() if keys and o in fks}
    tables |= {c.table_oid for c in cat.constraints if c.oid in st.unique_events}
    tables |= {fks[o].ref_table_oid for o, vals in st.parents.items() if vals and o in fks}
    queued = {oid for oid, _, _ in st.triggers}
    tables |= {t.table_oid for t in cat.triggers if t.constraint_oid in queued}
    if table.oid in tables:
        raise ObjectInUse(f'cannot {verb} "{table.name}" because it has pending trigger events')


def forget(s: SQLSession) -> None:
    """Drops the transaction's modes and checks (it ended)."""
    if ANY:
        _STATE.pop(s, None)
