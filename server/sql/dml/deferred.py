"""Deferred foreign keys: DEFERRABLE INITIALLY DEFERRED, SET CONSTRAINTS, checks at COMMIT.

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

The state lives per session (`_STATE`, by weak reference) and is dropped when
the transaction ends.
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...errors import SQLError, SyntaxError_, UndefinedObject
from ...pgwire.backend import Result
from ..catalog.model import Constraint
from ..parse import unquote_ident

if TYPE_CHECKING:
    from ..session import SQLSession


@dataclass
class Deferred:
    """One transaction's SET CONSTRAINTS modes and recorded checks."""

    all_mode: bool | None = None  # SET CONSTRAINTS ALL DEFERRED (True) / IMMEDIATE (False)
    modes: dict[int, bool] = field(default_factory=dict)  # constraint oid -> deferred?
    children: dict[int, dict[bytes, None]] = field(default_factory=dict)  # fk oid -> row keys
    parents: dict[int, dict[tuple[Any, ...], None]] = field(default_factory=dict)  # fk -> vals


_STATE: weakref.WeakKeyDictionary[Any, Deferred] = weakref.WeakKeyDictionary()


def _state(s: SQLSession) -> Deferred:
    st = _STATE.get(s)
    if st is None:
        st = _STATE[s] = Deferred()
    return st


def is_deferred(s: SQLSession, fk: Constraint) -> bool:
    """Tells whether fk's checks wait for COMMIT in s's transaction right now."""
    if not fk.deferrable:
        return False
    st = _STATE.get(s)
    if st is not None:
        mode = st.modes.get(fk.oid)
        if mode is not None:
            return mode
        if st.all_mode is not None:
            return st.all_mode
    return fk.deferred


def defer_child_rows(s: SQLSession, fk: Constraint, keys: list[bytes]) -> None:
    """Records referencing rows (by key) whose parents COMMIT must find."""
    _state(s).children.setdefault(fk.oid, {}).update(dict.fromkeys(keys))


def defer_parent_keys(s: SQLSession, fk: Constraint, vals: tuple[Any, ...]) -> None:
    """Records a referenced key that went away: COMMIT checks nothing still points at it."""
    _state(s).parents.setdefault(fk.oid, {})[vals] = None


def pending(s: SQLSession) -> bool:
    """Tells whether checks wait for COMMIT."""
    st = _STATE.get(s) if _STATE else None  # NB: the common case skips the weak lookup
    return st is not None and bool(st.children or st.parents)


def forget(s: SQLSession) -> None:
    """Drops the transaction's modes and checks (it ended)."""
    if _STATE:
        _STATE.pop(s, None)


def check_at_commit(s: SQLSession) -> None:
    """Runs every recorded check (23503 on the first violation)."""
    st = _STATE.get(s)
    if st is not None:
        _run(s, st, None)


def _run(s: SQLSession, st: Deferred, only: set[int] | None) -> None:
    from .cascade import _children_rows, _violation
    from .writer import find_missing_parents, writer_for

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
            if vals in gone and _children_rows(s, fk, vals):
                _violation(s, pw, fk, vals, "update or delete")


_SET = re.compile(r"SET\s+CONSTRAINTS\s+(?P<names>.+?)\s+(?P<mode>DEFERRED|IMMEDIATE)\s*;?\s*$",
                  re.I | re.S)


def set_constraints(s: SQLSession, sql: str) -> Result:
    """SET CONSTRAINTS { ALL | name [, ...] } { DEFERRED | IMMEDIATE }."""
    m = _SET.match(sql.strip())
    if m is None:
        raise SyntaxError_("syntax error at or near \"CONSTRAINTS\"")
    deferred = m.group("mode").upper() == "DEFERRED"
    names = [n.strip() for n in m.group("names").split(",")]
    if not s.in_block:
        s.notice("SET CONSTRAINTS can only be used in transaction blocks", sqlstate="25P01",
                 severity="WARNING")
        return Result("SET CONSTRAINTS")
    st = _state(s)
    if len(names) == 1 and names[0].upper() == "ALL":
        st.all_mode = deferred
        st.modes.clear()
        if not deferred:
            _run(s, st, None)
        return Result("SET CONSTRAINTS")
    cat = s.catalog()
    chosen: list[Constraint] = []
    for raw in names:
        name = unquote_ident(raw.split(".")[-1].strip())
        found = [c for c in cat.constraints if c.name == name]
        if not found:
            raise UndefinedObject(f'constraint "{name}" does not exist')
        for c in found:
            if not c.deferrable:
                raise SQLError(f'constraint "{name}" is not deferrable',
                               sqlstate="42809")  # wrong_object_type, as PostgreSQL
        chosen += found
    for c in chosen:
        st.modes[c.oid] = deferred
    if not deferred:
        _run(s, st, {c.oid for c in chosen})
    return Result("SET CONSTRAINTS")

