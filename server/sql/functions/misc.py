"""Sequence functions, advisory locks, gen_random_uuid and pg_typeof.

Advisory locks are held per session (keyed by backend pid) in one table per
server process, so pg_try_advisory_lock in one session sees another's lock,
and pg_advisory_unlock_all (which asyncpg's pool sends on release) frees
every lock of the session. A lock whose session has closed is free again, as
PostgreSQL frees session locks at disconnect.
"""

from __future__ import annotations

import datetime as dt
import threading
import uuid
from decimal import Decimal
from typing import Any

from ... import waits
from ...errors import ObjectNotInPrerequisiteState, QueryCanceled, WrongObjectType
from ...pgtypes import oids as T
from ..expr.regcast import RegOid
from ..pgcatalog.ddltext import format_type
from ..pgcatalog.names import names
from ..sessionview import SessionView
from .regcasts import relation_oid
from .registry import ANY, register


@register("gen_random_uuid", args=[], returns=T.UUID, volatile=True)
def gen_random_uuid() -> uuid.UUID:
    """Returns a random (version 4) UUID."""
    return uuid.uuid4()


register("uuid_generate_v4", args=[], returns=T.UUID, volatile=True)(gen_random_uuid)


def value_type(v: Any) -> int:
    """Returns the type OID a Python value most likely has (for pg_typeof without static types)."""
    if v is None:
        return T.UNKNOWN
    for py, oid in ((bool, T.BOOL), (int, T.INT4), (float, T.FLOAT8), (Decimal, T.NUMERIC),
                    (str, T.TEXT), (bytes, T.BYTEA), (uuid.UUID, T.UUID),
                    (dt.timedelta, T.INTERVAL), (dt.time, T.TIME)):
        if isinstance(v, py):
            if oid == T.INT4 and isinstance(v, int) and not -(2**31) <= v < 2**31:
                return T.INT8
            return oid
    if isinstance(v, dt.datetime):
        return T.TIMESTAMPTZ if v.tzinfo else T.TIMESTAMP
    if isinstance(v, dt.date):
        return T.DATE
    if isinstance(v, list):
        inner = next((x for x in v if x is not None), None)
        return T.ARRAY_OF.get(value_type(inner), T.ARRAY_OF[T.TEXT])
    return T.UNKNOWN


# NB: the compiler should fold pg_typeof(x) to x's static type; this runtime guess is a fallback.
@register("pg_typeof", args=[ANY], returns=T.REGTYPE, strict=False)
def pg_typeof(v: Any) -> int:
    """Returns the type of its argument (a regtype: prints as the type's name)."""
    oid = value_type(v)
    return RegOid(oid, format_type(oid, None) or str(oid))


_LAST: dict[int, int] = {}


def _sequence(ctx: Any, rel: Any) -> int:
    oid = relation_oid(ctx, rel)
    found = names(ctx.catalog).rel.get(oid) if oid is not None else None
    if oid is None or found is None or found.kind != "S":
        label = found.name if found else str(rel)
        raise WrongObjectType(f'"{label}" is not a sequence')
    return oid


@register("nextval", args=[T.REGCLASS], returns=T.INT8, needs_context=True, volatile=True)
def nextval(ctx: Any, rel: Any) -> int:
    """Advances the sequence and returns its new value."""
    value = ctx.nextval(_sequence(ctx, rel))
    _LAST[ctx.backend_pid] = value
    return value


@register("currval", args=[T.REGCLASS], returns=T.INT8, needs_context=True, volatile=True)
def currval(ctx: Any, rel: Any) -> int:
    """Returns the value nextval last returned for the sequence in this session."""
    return ctx.currval(_sequence(ctx, rel))


@register("setval", args=[T.REGCLASS, T.INT8], returns=T.INT8, needs_context=True,
          volatile=True)
def setval(ctx: Any, rel: Any, value: int, is_called: bool = True) -> int:
    """Sets the sequence's current value."""
    return ctx.setval(_sequence(ctx, rel), value, is_called)


register("setval", args=[T.REGCLASS, T.INT8, T.BOOL], returns=T.INT8, needs_context=True,
         volatile=True)(setval)
for _fn, _args in ((nextval, [T.TEXT]), (currval, [T.TEXT]), (setval, [T.TEXT, T.INT8]),
                   (setval, [T.TEXT, T.INT8, T.BOOL])):
    register(_fn.__name__, args=_args, returns=T.INT8, needs_context=True,
             volatile=True)(_fn)


@register("lastval", args=[], returns=T.INT8, needs_context=True, volatile=True)
def lastval(ctx: Any) -> int:
    """Returns the value nextval last returned in this session, for any sequence."""
    if ctx.backend_pid not in _LAST:
        raise ObjectNotInPrerequisiteState("lastval is not yet defined in this session")
    return _LAST[ctx.backend_pid]


class AdvisoryLocks:
    """Session-level advisory locks: key -> (holding pid, re-entrance count)."""

    def __init__(self) -> None:
        self.held: dict[Any, list[int]] = {}
        self.cond = waits.Condition()

    def try_lock(self, pid: int, key: Any, alive: set[int] | None = None) -> bool:
        """Takes the lock if it is free, ours, or held by a session no longer alive."""
        with self.cond:
            entry = self.held.get(key)
            if entry is not None and alive is not None and entry[0] not in alive:
                entry = None  # NB: its session closed without unlocking, as at a disconnect
            if entry is None:
                self.held[key] = [pid, 1]
                return True
            if entry[0] == pid:
                entry[1] += 1
                return True
            return False

    def lock(self, pid: int, key: Any, alive: Any = None, timeout: float | None = None) -> bool:
        """Waits for the lock (up to timeout seconds, forever by default).

        `alive()` returns the pids of open sessions; it is re-read every second while waiting.
        """
        with self.cond:
            while True:
                if self.try_lock(pid, key, alive() if alive else None):
                    return True
                if not self.cond.wait(1.0 if timeout is None else timeout) and timeout:
                    return False

    def unlock(self, pid: int, key: Any) -> bool:
        """Releases one hold of the lock; false if this session did not hold it."""
        with self.cond:
            entry = self.held.get(key)
            if entry is None or entry[0] != pid:
                return False
            entry[1] -= 1
            if entry[1] == 0:
                del self.held[key]
                self.cond.notify_all()
            return True

    def unlock_all(self, pid: int) -> None:
        """Releases every lock the session holds."""
        with self.cond:
            for key in [k for k, e in self.held.items() if e[0] == pid]:
                del self.held[key]
            self.cond.notify_all()


LOCKS = AdvisoryLocks()


def _key(*parts: int) -> tuple[int, ...]:
    return parts


def _alive(ctx: Any) -> set[int] | None:
    """Returns the pids of the engine's open sessions, None when the context cannot tell."""
    session: SessionView | None = ctx.session
    if session is None:
        return None
    return {s.backend_pid for s in session.engine.sessions()}


@register("pg_advisory_lock", args=[T.INT8], returns=T.VOID, needs_context=True,
          volatile=True)
def pg_advisory_lock(ctx: Any, *key: int) -> None:
    """Waits for and takes a session advisory lock."""
    LOCKS.lock(ctx.backend_pid, _key(*key), lambda: _alive(ctx))


@register("pg_try_advisory_lock", args=[T.INT8], returns=T.BOOL, needs_context=True,
          volatile=True)
def pg_try_advisory_lock(ctx: Any, *key: int) -> bool:
    """Takes a session advisory lock if it is free."""
    return LOCKS.try_lock(ctx.backend_pid, _key(*key), _alive(ctx))


@register("pg_advisory_unlock", args=[T.INT8], returns=T.BOOL, needs_context=True,
          volatile=True)
def pg_advisory_unlock(ctx: Any, *key: int) -> bool:
    """Releases a session advisory lock."""
    return LOCKS.unlock(ctx.backend_pid, _key(*key))


for _fn in (pg_advisory_lock, pg_try_advisory_lock, pg_advisory_unlock):
    _ret = T.VOID if _fn is pg_advisory_lock else T.BOOL
    register(_fn.__name__, args=[T.INT4, T.INT4], returns=_ret, needs_context=True,
             volatile=True)(_fn)


@register("pg_advisory_unlock_all", args=[], returns=T.VOID, needs_context=True, volatile=True)
def pg_advisory_unlock_all(ctx: Any) -> None:
    """Releases every advisory lock of the session."""
    LOCKS.unlock_all(ctx.backend_pid)


@register("pg_sleep", args=[T.FLOAT8], returns=T.VOID, needs_context=True, volatile=True)
def pg_sleep(ctx: Any, seconds: float) -> None:
    """Sleeps for the given number of seconds; a cancel or statement timeout wakes it (57014).

    Meanwhile pg_stat_activity shows the wait as PostgreSQL does (Timeout / PgSleep).
    """
    ev: threading.Event = ctx.cancel_event
    session: SessionView | None = ctx.session
    if session is not None:
        session.wait_event = ("Timeout", "PgSleep")
    try:
        if ev.wait(max(seconds, 0.0)):
            ev.clear()
            raise QueryCanceled("canceling statement due to user request")
    finally:
        if session is not None:
            session.wait_event = None
