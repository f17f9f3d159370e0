"""Blocking primitives that park a session's greenlet instead of its thread.

The event-loop front end (`pgwire/loop.py`) runs every session as a greenlet
on the loop's thread. The layers below it (`txn`, `sql`) were written for a
thread per session: a lock wait, a commit waiting for its fsync and
`pg_sleep` block on a condition variable. This module is the one seam
between the two worlds: `Condition` and `Event` behave exactly like
`threading`'s on an ordinary thread, but on a thread that runs a `Hub`, from
inside a session greenlet, a wait switches back to the loop and the greenlet
is switched in again when it is notified or its timeout expires. Nothing
else in the lower layers needs to know which front end runs them.

Rules that keep this correct:

- A greenlet parks only inside `wait`, which has released the condition's
  lock, so no other greenlet on the same thread can meet a lock held by a
  parked one. Code must not hold another lock across a `wait`; the lower
  layers already follow that rule (a thread holding it would stall others).
- A wake-up never switches greenlets directly (the waker may hold a lock):
  it schedules the switch on the loop. `notify_all` wakes every waiter of
  one hub with a single scheduled callback (`wake_all`). The redo log parks
  its committers as `Waiter`s of its own and resumes exactly those an fsync
  covered, from the loop callback that reads the fsync's answer
  (`txn.logger.RedoLog._on_answer`): a loop callback may switch to a parked
  greenlet directly once it holds no lock.
- A call that blocks in the kernel for long (the log's fsync: 5-25 ms on
  this machine's disk; a CHECKPOINT's file writes) goes through `blocking`:
  on a hub it runs on a helper thread while the session greenlet parks, so
  the loop keeps serving every other session meanwhile. The hand-off costs
  two thread wake-ups (tens of microseconds), far less than the stall. The
  caller must hold no lock across it (the rule above).
- `call_later` arms a timer on the loop (statement_timeout) when the caller
  runs on a hub, else a `threading.Timer`.

>>> ev = Event()
>>> ev.wait(0.0)
False
>>> ev.set(); ev.wait()
True
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

import greenlet

BLOCKING_THREADS = 4  # helper threads of a hub for `blocking` calls (fsyncs, checkpoints)


class Hub:
    """The loop thread's scheduler of session greenlets; install it with `install()`."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.main: Any = greenlet.getcurrent()
        self.thread = threading.get_ident()
        self.parks = 0  # how many times a session greenlet parked (stats, tests)
        self.switched_at = 0.0  # when the running session greenlet got the thread
        self.offloaded = 0  # how many `blocking` calls ran on a helper thread (stats, tests)
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None

    def install(self) -> Hub:
        """Makes this the hub of the calling thread (the loop's)."""
        _local.hub = self
        return self

    def uninstall(self) -> None:
        """Detaches the hub from its thread (and lets its helper threads end)."""
        if _local.hub is self:
            _local.hub = None
        if self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None

    def run_blocking(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Runs fn(*args) on a helper thread; the calling session greenlet parks meanwhile."""
        if self._pool is None:
            self._pool = concurrent.futures.ThreadPoolExecutor(
                max_workers=BLOCKING_THREADS, thread_name_prefix="blocking")
        return self.run_on(self._pool, fn, *args)

    def run_on(self, pool: concurrent.futures.Executor, fn: Callable[..., Any],
               *args: Any) -> Any:
        """Runs fn(*args) on `pool` (a caller's own threads: the analytic workers of
        `kivi.columnar.pace`); the calling session greenlet parks meanwhile."""
        w = Waiter(self)
        fut = self.loop.run_in_executor(pool, fn, *args)
        fut.add_done_callback(lambda _f: w._resume(True))
        self.offloaded += 1
        self.parks += 1
        self.main.switch()
        return fut.result()

    def spawn(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Runs fn(*args) in a new session greenlet now, until it ends or parks."""
        g = greenlet.greenlet(fn, parent=self.main)
        return g.switch(*args)


class _ThreadHub(threading.local):
    """The Hub running on this thread (None: none): per thread, not per session, since the
    hub is the loop's scheduler and every session greenlet of the loop shares it."""

    hub: Hub | None = None


_local = _ThreadHub()
# NB: the same, public for `sql.context.ExecContext.check_cancel`, which tests the running
# greenlet's slice (`Hub.switched_at`) with the clock it has read already and calls
# `maybe_yield` only past it: no call and no second clock read per batch
THREAD = _local


def blocking(fn: Callable[..., Any], *args: Any) -> Any:
    """Returns fn(*args), for a call that may block in the kernel for milliseconds.

    On an ordinary thread it is a plain call. From a hub's session greenlet, fn runs on
    one of the hub's helper threads and only this session waits: the loop serves the
    others meanwhile. The caller must not hold a lock (another greenlet of the loop's
    thread taking it would block the loop, and with it the helper's wake-up).

    >>> blocking(sum, [1, 2, 3])
    6
    """
    hub = current_hub()
    if hub is None:
        return fn(*args)
    return hub.run_blocking(fn, *args)


def current_hub() -> Hub | None:
    """The hub of the calling thread, if the caller is one of its session greenlets."""
    hub: Hub | None = _local.hub
    if hub is None or greenlet.getcurrent() is hub.main:
        return None
    return hub


class Waiter:
    """One parked greenlet; `wake()` may be called from any thread, any number of times."""

    __slots__ = ("hub", "g", "done", "timer")

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.g: Any = greenlet.getcurrent()
        self.done = False
        self.timer: asyncio.TimerHandle | None = None

    def park(self, timeout: float | None) -> bool:
        """Switches to the loop until woken (True) or timed out (False)."""
        hub = self.hub
        if timeout is not None:
            if timeout <= 0:
                self.done = True
                return False
            self.timer = hub.loop.call_later(timeout, self._resume, False)
        hub.parks += 1
        return bool(hub.main.switch())

    def _resume(self, value: bool) -> None:
        """Runs on the loop: switches the greenlet back in (once)."""
        if self.done:
            return
        self.done = True
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self.hub.switched_at = time.monotonic()
        self.g.switch(value)

    def wake(self) -> None:
        wake_all([self])


def _resume_all(waiters: list[Waiter]) -> None:
    for w in waiters:
        w._resume(True)


def wake_all(waiters: list[Waiter]) -> None:
    """Wakes parked greenlets: one scheduled callback per hub, whoever calls it."""
    if len(waiters) == 1:  # NB: one (a Condition's notify: a row lock released), no grouping
        w = waiters[0]
        if not w.done:
            hub = w.hub
            try:
                if hub.thread == threading.get_ident():
                    hub.loop.call_soon(w._resume, True)
                else:
                    hub.loop.call_soon_threadsafe(w._resume, True)
            except RuntimeError:  # the loop is closed: the server is gone
                pass
        return
    by_hub: dict[Hub, list[Waiter]] = {}
    for w in waiters:
        if not w.done:
            by_hub.setdefault(w.hub, []).append(w)
    here = threading.get_ident()
    for hub, ws in by_hub.items():
        try:
            if hub.thread == here:
                hub.loop.call_soon(_resume_all, ws)
            else:
                hub.loop.call_soon_threadsafe(_resume_all, ws)
        except RuntimeError:  # the loop is closed: the server is gone
            pass


_PLAIN_LOCK = type(threading.Lock())


class Condition(threading.Condition):
    """A `threading.Condition` whose `wait` parks a hub's greenlet instead of its thread."""

    def __init__(self, lock: Any = None) -> None:
        if type(lock) is _PLAIN_LOCK:
            # NB: threading's __init__ less its three probes of the lock for _release_save,
            # _acquire_restore and _is_owned, which a plain Lock lacks (so threading's own
            # stand-ins serve): each raised an AttributeError. A row-lock wait makes one
            self._lock: Any = lock
            self.acquire = lock.acquire  # type: ignore[method-assign]
            self.release = lock.release  # type: ignore[method-assign]
            self._waiters: collections.deque[Any] = collections.deque()
        else:
            super().__init__(lock)
        self._parked: list[Waiter] = []
        # NB: a plain Lock has no C-level _is_owned, _release_save and _acquire_restore:
        # threading's Python stand-ins cost three calls per park (a commit's wait for its
        # fsync, a row-lock wait), so `wait` does their work inline for one
        self._plain = type(self._lock) is _PLAIN_LOCK

    def wait(self, timeout: float | None = None) -> bool:
        hub: Hub | None = _local.hub  # NB: `current_hub` inline (a row-lock wait)
        if hub is None or greenlet.getcurrent() is hub.main:
            return super().wait(timeout)
        lock: Any = self._lock
        plain = self._plain
        if plain:
            if lock.acquire(False):  # NB: threading's _is_owned for a plain Lock
                lock.release()
                raise RuntimeError("cannot wait on un-acquired lock")
        elif not self._is_owned():  # type: ignore[attr-defined]
            raise RuntimeError("cannot wait on un-acquired lock")
        w = Waiter(hub)
        self._parked.append(w)
        saved = lock.release() if plain else self._release_save()  # type: ignore[attr-defined]
        woke = False
        try:
            if timeout is None:  # NB: `Waiter.park`'s steps for no timeout, inline
                hub.parks += 1
                woke = bool(hub.main.switch())
            else:
                woke = w.park(timeout)
        finally:
            if plain:
                lock.acquire()
            else:
                self._acquire_restore(saved)  # type: ignore[attr-defined]
            if not woke:
                w.done = True
                if w in self._parked:
                    self._parked.remove(w)
        return woke

    def notify(self, n: int = 1) -> None:
        # NB: threading's notify only when a thread waits (a row lock's release: mostly
        # none does), else its ownership test, inline for a plain Lock, as `notify_all`
        if self._waiters:
            threading.Condition.notify(self, n)
        elif not self._plain:
            if not self._is_owned():  # type: ignore[attr-defined]
                raise RuntimeError("cannot notify on un-acquired lock")
        elif self._lock.acquire(False):
            self._lock.release()
            raise RuntimeError("cannot notify on un-acquired lock")
        if self._parked:
            live = [w for w in self._parked if not w.done]  # NB: a timed-out one may linger
            ws = live[:n]
            self._parked = live[n:]
            wake_all(ws)

    def notify_all(self) -> None:
        # NB: threading's notify_all calls self.notify(n), which would copy the parked list
        # once before it is handed over whole: go to threading's notify directly, and only
        # when a thread waits (a completed group commit, a lock release: mostly none does);
        # else its ownership test, inline for a plain Lock as in `wait`
        waiters = self._waiters
        if waiters:
            threading.Condition.notify(self, len(waiters))
        elif not self._plain:
            if not self._is_owned():  # type: ignore[attr-defined]
                raise RuntimeError("cannot notify on un-acquired lock")
        elif self._lock.acquire(False):
            self._lock.release()
            raise RuntimeError("cannot notify on un-acquired lock")
        if self._parked:
            ws, self._parked = self._parked, []
            wake_all(ws)


class Event(threading.Event):
    """A `threading.Event` whose `wait` parks a hub's greenlet instead of its thread."""

    def __init__(self) -> None:
        super().__init__()
        self._cond = Condition(threading.Lock())


class Flag(Event):
    """An `Event` whose state is also a plain attribute, `up`, that hot paths read without a
    call (`Event.is_set` is a Python method): a session's cancel flag, which pgwire tests
    as each batch of messages arrives."""

    up = False

    def set(self) -> None:
        super().set()
        self.up = True

    def clear(self) -> None:
        self.up = False
        super().clear()


class Lock:
    """A `threading.Lock` that a hub's greenlet waits for by parking.

    For locks held across a wait (the catalog's counters commit, and so wait for the
    log, while holding theirs): with a plain lock, a second greenlet of the same
    thread would block the whole loop, and the holder could never resume.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting = 0
        self._cond = Condition(threading.Lock())

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        if self._lock.acquire(False):
            return True
        if not blocking:
            return False
        if current_hub() is None:
            return self._lock.acquire(True, timeout)
        with self._cond:
            self._waiting += 1
            try:
                while not self._lock.acquire(False):
                    self._cond.wait()
            finally:
                self._waiting -= 1
        return True

    def release(self) -> None:
        self._lock.release()
        if self._waiting:
            with self._cond:
                self._cond.notify()

    def locked(self) -> bool:
        return self._lock.locked()

    # NB: `with` takes a free lock and releases an unwanted one without a second Python
    # call (a catalog counter's lock, once per pgbench transaction)
    def __enter__(self) -> bool:
        return self._lock.acquire(False) or self.acquire()

    def __exit__(self, *exc: object) -> None:
        self._lock.release()
        if self._waiting:
            with self._cond:
                self._cond.notify()


SLICE = 0.02  # how long a statement runs before it lets the loop serve others


def maybe_yield() -> None:
    """Lets the loop run (other sessions, cancel requests, timers) if the calling session
    greenlet has had the thread for more than `SLICE` seconds; called once per batch by
    running statements, so a long query cannot stall the server or ignore its timeout."""
    hub: Hub | None = _local.hub
    if hub is None or time.monotonic() - hub.switched_at < SLICE:
        return
    if greenlet.getcurrent() is hub.main:
        return
    w = Waiter(hub)
    hub.loop.call_soon(w._resume, True)
    hub.main.switch()


class TimerHandle(Protocol):
    def cancel(self) -> None: ...


def call_later(delay: float, fn: Callable[[], None]) -> TimerHandle:
    """Calls fn after delay seconds: on the loop when the caller runs on a hub, else on a
    `threading.Timer` (a daemon)."""
    hub: Hub | None = _local.hub
    if hub is not None:
        return hub.loop.call_later(delay, fn)
    t = threading.Timer(delay, fn)
    t.daemon = True
    t.start()
    return t
