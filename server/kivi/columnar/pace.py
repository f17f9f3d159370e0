"""Analytic scans give way to OLTP: while transactions run, a scan takes a share of the CPU.

Cumulo runs analytic and transactional statements in one process. A columnar
scan is fast (numpy and Arrow kernels, one pack at a time), so a client that
loops over analytic queries keeps a core busy for as long as it likes: on a
2-core machine that core is taken from the OLTP sessions, their group commit
and their clients, and every OLTP round trip waits longer for a CPU and for
the GIL. Measured with `python -m bench htap` (pgbench TPC-B -c 4 beside one
connection looping over GROUP BY, join and top-N queries on pgbench's tables,
scale 5, load average 12-17 from other tenants): unpaced, Cumulo answered 62
analytic queries/s (PostgreSQL 9) and kept 47 % of its TPC-B tps; at a 25 %
share, 18-22 queries/s and 69-72 %; at 15 %, 14 queries/s and 98 %. The
CH-benCHmark stream (heavier queries, where Cumulo is only about 1.7 times
PostgreSQL's speed) ran as many queries as PostgreSQL's at 25 % and kept 76 %
of tpmC (PostgreSQL 82 %); at 20 %, 18 queries against PostgreSQL's 34, and
66 %. So the default was 25 %. (Every figure is one run on a machine whose load
average other tenants kept at 8-19: read them as directions, not values.)

It is 15 % now (it was 10 % for a while). Why not 25 %: until `pacing` counted an
offloaded statement once, its worker and its session were two sessions splitting the share, so a statement with more than `SLICE`
of vector work ran at 12.5 % (the quiet `bench htap --repeat 2` that kept 76.8 % of TPC-B
at 8.85 analytic q/s, PostgreSQL 42.4 % at 8.18, ran so). With the count fixed, 25 % would
double that statement's CPU rate; 10 % keeps it below the old rate, and the join query's
CPU fell by two thirds (`exec.vector.eager`). Loaded A/B (`bench htap`'s loop beside
TPC-B -c 8, two alternating pairs): 13.4-13.7 analytic q/s at 10 % against 13.8-14.4 with
the old count at 25 %, the analytic worker's CPU 76-79 against 95-124 ms a second.
`bench ch --seconds 15` (loaded, one run each, PostgreSQL in the same run): at 10 %, 23
analytic queries beside TPC-C (PostgreSQL 36) and 0.672 of tpmC kept (0.753); at 25 % with
the count fixed, 28 (51) and 0.229 (0.558). Then quiet runs of `bench htap --repeat 2`
(the machine otherwise idle, PostgreSQL in the same run), the issue's two bars being OLTP
kept >= 80 % and analytic q/s >= PostgreSQL's: at 10 %, 98.8 % kept and 7.45 q/s against
PostgreSQL's 8.09 (52.7 % kept); at 15 %, 82.7 % kept and 9.82 q/s against 7.99 (37.9 %
kept). 15 % meets both.

The rule (a lower priority for analytic work, cooperatively):

- the KiVi node's point reads and commit applies stamp the calling session as
  running OLTP (`touch`, a dict store and a count), once per request (not per
  region: a TPC-B commit was four touches); OLTP runs while at least
  `BUSY` touches fell in the last window or two and one of them came from
  another session than the scan's in the last `WINDOW` seconds (a lone commit,
  as a freshness probe's, does not slow the scans after it);
- an analytic scan calls `pace()` at every pack (`Pack.column`, the partial
  aggregate's loop, the first build of a copy). While another session touched
  the row store in the last `WINDOW` seconds, once the scan's thread has used
  `SLICE` seconds of CPU (thread CPU time: kernels without the GIL count too)
  since its last pause, it sleeps long enough to keep its share at `share()`;
  otherwise `pace()` costs one clock read. A scan alone runs at full speed.
- sessions paced in the same `WINDOW` split the share (`pacing`): an analytic
  query beside an automatic ANALYZE's read (`optimizer.sampling`, paced too) took
  a share each, and the ANALYZE alone was 44 % of the server's GIL samples in
  one CH mixed window;
- the count starts afresh with each vectorized statement (`begin`), so a query
  that needs less than `SLICE` of CPU is never paused. Why: the count used to run
  on across statements, so a session polling a table with short columnar counts
  (the freshness probe of `bench columnar`, about 1-2 ms of CPU each beside one
  writer) slept 12-16 ms every third or fourth query, and up to `MAX_PAUSE` after a
  longer one: 77 % of the probe's time at 10M rows was spent in those sleeps, and
  its p99 (commit to visible) was 17-85 ms against PostgreSQL's 10. A short query
  is not what starves OLTP; a long one is still held to its share.

While a scan is paced, the interpreter's GIL switch interval is `FAST_SWITCH`
(0.5 ms, not Python's 5 ms), and back to what it was once a paced scan finds
no OLTP running. (Not while OLTP runs alone: setting it as soon as OLTP counted as
running, so that a freeze's or a checkpoint's Python stretches would give way too,
cost TPC-C alone about 10 %: 2,527 against 2,835 tpmC, three 15 s runs each,
alternating, load 8-9; more hand-offs between the OLTP threads themselves.)
Why: an OLTP session wakes up for every message of its
client and must get the GIL back each time; while the analytic thread runs
Python code it gives the GIL up only at the switch interval, so each wake-up
waited up to 5 ms. Measured with the htap workload's queries beside pgbench
TPC-B -c 4 (scale 10, load average 17-18, the two settings alternating, two
15 s runs each): 531 and 477 tps at 0.5 ms against 494 and 428 at 5 ms, OLTP
p99 37 and 46 ms against 63 and 57, longest transaction 159 and 214 ms
against 317 and 351, analytic queries/s 18 and 17 against 23 and 19.
Not for an analytic worker's scan (`offload`): on the event-loop front end every
OLTP session runs on the loop's one thread, and a shorter interval only makes
that thread hand the GIL to the worker more often. Quiet `bench htap --repeat 2`
(TPC-B -c 8 beside the analytic loop, one run each, PostgreSQL kept 41-44 %):
0.5 ms kept 75.6 % of OLTP at 9.21 analytic q/s (PostgreSQL 8.82), 5 ms 83.6 %
at 7.42 (8.65), 2 ms 82.7 % at 6.03 (8.31).

The sleep releases the GIL and the CPU; on the event-loop front end it parks
only the analytic session's greenlet (`waits.Event.wait`), though there the
thread's CPU clock also counts the other sessions' work, so a scan pauses
more than its share requires.

On the event-loop front end every session shares one thread, so whatever an
analytic statement runs there (kernels that release the GIL included) no OLTP
session runs meanwhile, and the kernel gives the whole server one thread's share
of a loaded machine's CPU. Three rules for it:

- `offload`: while OLTP runs, a statement's vector work (`exec.vector.run`) runs
  on one of WORKERS analytic threads while its greenlet parks; `pace` counts
  that thread's own CPU, and its GIL-free kernels overlap the loop's work. A/B
  on `bench htap`'s workload (TPC-B -c 8 scale 10 beside the analytic loop, the
  two servers taking turns, 3 rounds of 10 s, load average 13-17): OLTP kept
  29 % before (rounds 102, 21, 29 %), 91 % with these rules (154, 68, 91 %),
  at 8.6 analytic queries/s against 21 (PostgreSQL ran 3-4.5 in other runs).
  Once the result is built the session parks (`settle`) so that the statement,
  parse to result, used only its share of the CPU: a short query's work is
  under `SLICE`, so `pace` never paused it, and the loop's part never was.
- `give_way`: a read-only statement that has held the loop's thread for
  LOOP_SLICE while OLTP runs parks to keep its share (the row path's analytic
  queries; `waits.maybe_yield` alone let one run 20 ms at a time).
- `background`: a checkpoint's frames, a freeze's windows and a collection's
  chunks pace themselves as an analytic scan does, beside two OLTP sessions or
  more; before, they gave the GIL away with `sleep(0)`, which the loop's thread
  seldom won. `pace()` is never called with the node lock
held (packs are read and built outside it), so a paused scan blocks no
writer. The share is `SHARE`, or the environment's `CUMULO_ANALYTIC_SHARE`
at start (1 turns pacing off), or `set_share()`.

    >>> clock = [0.0]; slept = []; switched = []
    >>> p = Pacer(0.25, cpu=lambda: clock[0], now=lambda: 100 + clock[0], sleep=slept.append,
    ...           switch=switched.append)
    >>> p.pace(); clock[0] = 0.008; p.pace(); slept   # alone: no pause
    []
    >>> p.touch(who=1); clock[0] = 0.016; p.pace(who=2); slept   # one commit: no pause
    []
    >>> for _ in range(BUSY): p.touch(who=1)
    >>> clock[0] = 0.024; p.pace(who=2); slept   # OLTP runs: 8 ms used, 24 ms pause
    [0.024]
    >>> switched   # and the GIL changes hands every 0.5 ms meanwhile
    [0.0005]
    >>> p.begin(); clock[0] = 0.027; p.pace(who=2); clock[0] = 0.030; p.pace(who=2)
    >>> slept   # a new statement: 6 ms since the pause, but only 3 ms of its own
    [0.024]
"""

from __future__ import annotations

import concurrent.futures
import contextvars
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import greenlet

from ...waits import Event, current_hub

SHARE = 0.15  # the CPU share of an analytic session while OLTP runs (1.0: no pacing)
BACKGROUND_SHARE = 0.25  # background work's share at least (`background`)
WINDOW = 0.1  # seconds: OLTP seen this recently counts as running
SLICE = 0.004  # seconds of CPU an analytic session runs between pauses
MAX_PAUSE = 0.1  # seconds: no single pause is longer
BUSY = 8  # touches within a window or two that count as OLTP running
FAST_SWITCH = 0.0005  # seconds: the GIL switch interval while a scan is paced
LOOP_SLICE = 0.005  # seconds a read-only statement holds the loop's thread before `give_way`
LONG = 0.05  # seconds a statement has run before `give_way` counts it as analytic
WORKERS = 2  # threads that run offloaded analytic work (`offload`): at most this many at once

T = TypeVar("T")


_OWNER: contextvars.ContextVar[int | None] = contextvars.ContextVar("analytic_owner", default=None)


def _session() -> int:
    # The current greenlet names the session: on a thread it is that thread's main greenlet,
    # on the event loop the session's own; on an analytic worker, the session that offloaded
    # the statement (`offload` sets `_OWNER` in the context it runs): the worker's `pace` and
    # the session's `settle` are one session to `pacing`, not two halving each other's share.
    owner = _OWNER.get()
    return id(greenlet.getcurrent()) if owner is None else owner


def _sleep(seconds: float) -> None:
    Event().wait(seconds)


class _Mark(threading.local):
    """This thread's CPU clock at its last pause (None: not paced yet), the wall clock at
    its last CPU clock read, and the greenlet that paced (`who`): on the event loop's thread
    every session shares the clock, and a count another session left holds the CPU of
    every session since, so a session that finds another's mark starts its own count."""

    at: float | None = None
    wall: float = 0.0
    who: int = 0
    slept: float = 0.0  # seconds paused since the statement's `begin` (`offload`'s bill)
    worker: bool = False  # an analytic worker's thread (`offload`): no FAST_SWITCH


class Pacer:
    """Keeps analytic sessions to a share of the time while others run OLTP work."""

    def __init__(self, share: float = SHARE, cpu: Callable[[], float] = time.thread_time,
                 now: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = _sleep,
                 switch: Callable[[float], None] | None = None) -> None:
        self.share = 1.0
        self.set_share(share)
        self.cpu, self.now, self.sleep = cpu, now, sleep
        # Sets the GIL switch interval (None: leaves it alone), and the interval to go back to.
        self.switch = switch
        self.slow_switch = sys.getswitchinterval()
        self.fast = False
        self.seen: dict[int, float] = {}  # session id -> when it last touched the row store
        self.since = 0.0  # the start of the current window of touches
        self.count = 0  # touches in the current window
        self.before = 0  # touches in the window before it (0: it was not the last one)
        self.mark = _Mark()
        self.paced: dict[int, float] = {}  # session id -> when it last paused (`pacing`)

    def set_share(self, share: float) -> None:
        if not 0.0 < share <= 1.0:
            raise ValueError(f"analytic share must be in (0, 1], got {share}")
        self.share = share

    def touch(self, who: int | None = None) -> None:
        """Notes that a session (the caller's by default) ran OLTP work just now."""
        now = self.now()
        if who is None:  # NB: `_session` inline: every row-store read and write comes here
            owner = _OWNER.get()
            who = id(greenlet.getcurrent()) if owner is None else owner
        self.seen[who] = now
        if now - self.since > WINDOW:  # NB: unlocked counts: a lost increment is harmless
            self.before = self.count if now - self.since <= 2 * WINDOW else 0
            self.count = 0
            self.since = now
        self.count += 1

    def active(self, other_than: int, sessions: int = 1) -> bool:
        """Tells whether `sessions` sessions other than `other_than` touched the store in
        the last WINDOW seconds (and forgets the sessions that did not)."""
        if self.count + self.before < BUSY:
            return False
        horizon = self.now() - WINDOW
        found = 0
        for who, at in list(self.seen.items()):
            if at < horizon:
                if self.seen.get(who, horizon) < horizon:
                    self.seen.pop(who, None)
            elif who != other_than:
                found += 1
        return found >= sessions

    def begin(self) -> None:
        """A statement's analytic work starts on this thread: its CPU is counted from the
        next `pace()`, not carried over from earlier statements (see the module doc)."""
        self.mark.at = None
        self.mark.slept = 0.0

    def pace(self, who: int | None = None, sessions: int = 1, least: float = 0.0) -> None:
        """Pauses the calling analytic scan if it used more than its share (at least
        `least`) while OLTP runs (in `sessions` sessions or more other than the caller's)."""
        share = max(self.share, least)
        if share >= 1.0:
            return
        m = self.mark
        g = id(greenlet.getcurrent())
        if m.who != g:
            m.who, m.at = g, None
        wall = self.now()
        if wall - m.wall < SLICE / 2:
            return  # too little CPU can have been used: skip the CPU clock (a system call)
        m.wall = wall
        cpu = self.cpu()
        mark = m.at
        if mark is None or cpu < mark:
            self.mark.at = cpu
            return
        used = cpu - mark
        if used < SLICE:
            return
        self.mark.at = cpu
        if not self.active(_session() if who is None else who, sessions):
            self._fast(False)
            return
        self._fast(not m.worker)
        me = _session() if who is None else who
        mine = share / self.pacing(me, wall)
        pause = min(MAX_PAUSE, used * (1.0 - mine) / mine)
        self.sleep(pause)
        m.slept += pause
        self.mark.at = self.cpu()

    def pacing(self, who: int, now: float) -> int:
        """Notes that session `who` is being paced now; returns how many sessions were in
        the last WINDOW (itself included), which split the share between them: two
        analytic sessions, or a query beside an automatic ANALYZE, together keep to it."""
        paced = self.paced
        paced[who] = now
        n = 0
        for other, at in list(paced.items()):  # NB: a copy: another thread may add itself
            if now - at <= WINDOW:
                n += 1
            else:
                paced.pop(other, None)
        return max(1, n)

    def _fast(self, on: bool) -> None:
        """Hands the GIL over every FAST_SWITCH seconds (on) or as before (off)."""
        if on != self.fast and self.switch is not None:
            self.fast = on  # NB: unlocked: two scans may both switch, to the same value
            self.switch(FAST_SWITCH if on else self.slow_switch)


def _initial_share() -> float:
    raw = os.environ.get("CUMULO_ANALYTIC_SHARE")
    try:
        return SHARE if raw is None else min(1.0, max(0.01, float(raw)))
    except ValueError:
        return SHARE


PACER = Pacer(_initial_share(), switch=sys.setswitchinterval)
touch = PACER.touch
pace = PACER.pace
begin = PACER.begin
set_share = PACER.set_share


def background() -> None:
    """`pace` for background work (a checkpoint's frames, a freeze's windows), called
    between its steps on its own thread: it keeps to the analytic share while OLTP runs
    in two sessions or more. Why two: a bulk load is one session, and slowing the freeze
    behind it only lets its hot rows pile up (a higher peak of memory). Why at all: a
    busy Python thread takes the GIL from the event loop's thread each time that one
    waits for its clients, and gives it back only at the switch interval. Its share is
    BACKGROUND_SHARE at least: a checkpoint or a freeze held to the analytic queries' 15 %
    would let the redo log and the hot rows grow under a busy OLTP load."""
    PACER.pace(sessions=2, least=BACKGROUND_SHARE)


def _mark_worker() -> None:
    """Marks an analytic worker's thread once, as it starts (`_Mark.worker`)."""
    PACER.mark.worker = True


_pool: concurrent.futures.ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _workers() -> concurrent.futures.ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = concurrent.futures.ThreadPoolExecutor(
                WORKERS, thread_name_prefix="analytic", initializer=_mark_worker)
        return _pool


class Bill:
    """What an offloaded statement beside OLTP owes (`settle`): the time its greenlet held
    the loop's thread before the offload (`loop`: parse and plan), its worker's CPU time
    (`cpu`), when the greenlet got the thread back (`back`: the result is built from
    there), and the seconds its worker's `pace` paused it already (`paid`)."""

    __slots__ = ("loop", "cpu", "back", "paid")

    def __init__(self, loop: float, cpu: float, back: float, paid: float) -> None:
        self.loop, self.cpu, self.back, self.paid = loop, cpu, back, paid

    def owed(self, now: float, share: float) -> float:
        """Seconds to park at `now` so that the statement used `share` of the time since it
        began: its loop-thread time before and after the offload, and its worker's CPU.

        >>> round(Bill(0.001, 0.002, 10.0, 0.0).owed(10.001, 0.25), 6)   # 4 ms used: 12 ms
        0.012
        >>> Bill(0.0, 0.02, 10.0, 0.075).owed(10.0, 0.25) <= 0   # its worker's pauses paid it
        True
        """
        used = self.loop + self.cpu + max(0.0, now - self.back)
        return used * (1.0 - share) / share - self.paid


_BILL: contextvars.ContextVar[Bill | None] = contextvars.ContextVar("analytic_bill", default=None)


def _measured(fn: Callable[..., T], args: tuple[Any, ...]) -> tuple[T, float, float]:
    """fn(*args) on a worker, the worker's CPU time for it, and the seconds `pace` paused it."""
    PACER.mark.slept = 0.0
    cpu = time.thread_time()
    out = fn(*args)
    return out, time.thread_time() - cpu, PACER.mark.slept


def offload(fn: Callable[..., T], *args: Any) -> T:
    """fn(*args), run on an analytic worker thread when the caller is a session of the
    event-loop front end and OLTP runs beside it; else a plain call. An offloaded call
    that answered (not None: a None is the vector form refusing, and the row plan runs
    next, paced by `give_way`) leaves the session a `Bill` that `settle` pays once the
    statement's result is built."""
    hub = current_hub()
    if hub is None or PACER.share >= 1.0 or not PACER.active(_session()):
        return fn(*args)
    loop = time.monotonic() - hub.switched_at  # (held the thread since then: parse, plan)
    ctx = contextvars.copy_context()
    ctx.run(_OWNER.set, _session())
    out, cpu, slept = hub.run_on(_workers(), ctx.run, _measured, fn, args)
    # NB: the statement's work on the loop's thread (parse, plan, result) and a short
    # statement's vector work (under `SLICE`: the worker's `pace` never pauses it) are
    # paced in `settle`: unpaced, an analytic client looping over short queries took
    # half the loop from TPC-B (`bench htap --repeat 2`, quiet: 54.5 q/s, OLTP kept
    # 47.7 %); a fixed 80 ms after each (12.2 q/s, 91.4 %) slowed short queries most.
    _BILL.set(None if out is None else Bill(loop, cpu, time.monotonic(), slept))
    return out


def billed() -> bool:
    """Whether the session's statement was offloaded and owes a `Bill`: `settle` paces its
    loop-thread work then, and a `pace` on the loop's thread meanwhile would count it twice
    (and read the CPU clock, a system call, for nothing)."""
    return _BILL.get() is not None


def settle() -> None:
    """Parks the session so that, while OLTP runs, its offloaded statement (the `Bill`
    that `offload` left) used only the analytic share of the time, from its parse to its
    result built; no pause alone. Called once the statement's rows are built.

    Why the worker's CPU time and not its wall time: beside a busy loop the worker waits
    for the GIL most of its wall time, and OLTP runs meanwhile; a bill of the wall time
    charged those waits three times over (at a share of 25 %), and the busier the OLTP, the
    fewer analytic queries ran. Loaded (load 8-16), at nice -20, wall bill against CPU bill:
    `bench htap` 12.1 against 18.2 analytic q/s, OLTP kept 80.0 % against 78.8 %; `bench
    ch` 48 against 60 analytic queries, TPC-C kept 0.555 against 0.67. The loop's part is
    wall time, since on the loop's thread the statement's greenlet is what runs."""
    bill = _BILL.get()
    if bill is None:
        return
    _BILL.set(None)
    hub = current_hub()
    p = PACER
    me = _session()
    if hub is None or p.share >= 1.0 or not p.active(me):
        return
    now = p.now()
    owed = bill.owed(now, p.share / p.pacing(me, now))
    if owed > 0.0:
        Event().wait(min(MAX_PAUSE, owed))


def give_way(writes: bool, since: float | None = None) -> None:
    """On the event loop: parks a statement that has held the loop's thread for LOOP_SLICE
    while OLTP runs in other sessions, long enough to keep it to its share of the thread;
    with `since` (when the statement began), only once it has run LONG: a short read
    (TPC-C's stock level, a catalog reload after DDL) is OLTP too, and pausing it only
    stretched it (multi-session tests ran twice as long).

    Called once per batch by every running statement (`ExecContext.check_cancel`). A
    statement with writes (`writes`) is never paused: it may hold row locks that the
    OLTP sessions wait for. Off the loop (threads, the analytic workers) the kernel
    shares the CPU and `pace` keeps the share. Why: a row-path analytic query on the
    loop held the thread for `waits.SLICE` (20 ms) at a time, and every OLTP round trip
    that arrived meanwhile waited for the rest of that slice.
    """
    hub = current_hub()
    if hub is None or writes:
        return
    now = time.monotonic()
    if since is not None and now - since < LONG:
        return
    held = now - hub.switched_at
    if held < LOOP_SLICE:
        return
    p = PACER
    me = _session()
    if p.share >= 1.0 or not p.active(me):
        return
    mine = p.share / p.pacing(me, now)
    Event().wait(min(MAX_PAUSE, held * (1.0 - mine) / mine))


def share() -> float:
    """The analytic share in force."""
    return PACER.share


__all__ = ["BUSY", "PACER", "SHARE", "Bill", "Pacer", "background", "begin", "billed", "give_way",
           "offload", "pace", "set_share", "settle", "share", "touch"]
