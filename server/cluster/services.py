"""Cluster mode's remote components: conflict managers and loggers behind a socket.

Why: in cluster mode the conflict managers and the loggers run in processes of their
own (ARCHITECTURE.md), and the LTMs reach them over TCP. The transport is the one
KiVi nodes already use (`kivi.remote`: asyncio streams, length-prefixed `kivi.wire`
msgpack frames, errors travelling as SQLSTATEs): any object with `handle(request) ->
reply` can be served by it. This module provides those objects:

- `ConflictService` wraps one `ConflictManager` (a state machine: it is served inline
  on the event loop, which also serialises its messages). Besides the manager's own
  messages it understands `Forget` (a waiter gave up: a deadlock victim, a timeout or
  a cancel) and `Reset` (start from a blank state, for tests and re-initialisation).
- `LoggerService` wraps one `RedoLog`. `LogRecord` returns only once the record is
  durable; those requests are run in the loop's thread pool, so that concurrent
  commits from several connections share an fsync (group commit works across the
  socket as it does in-process). `LogRead` returns the records above a timestamp, for
  recovery by a restarted LTM; `LogTrim` drops what a checkpoint covers; `FenceTs`
  (a new MasterMind leader, `cluster.leader`) refuses the timestamps of the term that
  ended.

The matching clients are in `cluster.proxies`.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import threading
from dataclasses import dataclass
from typing import Any

from ..errors import SQLError
from ..kivi.api import Ack
from ..kivi.wire import register_messages
from ..txn.conflicts import (
    LATEST,
    Acquire,
    AcquireSpace,
    Conflict,
    ConflictManager,
    ReleaseSpaces,
    Woken,
)
from ..txn.logger import RedoLog, _record_ts, read_log


@dataclass(frozen=True)
class Forget:
    """`txn` no longer waits for `holder`: drop its registration (no Woken for it)."""

    txn: int
    holder: int


@dataclass(frozen=True)
class Reset:
    """Forget every hold, waiter and last commit (a fresh cluster, or a test).

    `high_mark` is the largest commit ts handed out so far: the SERIALIZABLE half then
    counts everything as read and written at it (`validate.SerialState.restart`), so that
    a serializable transaction older than the reset fails safely instead of validating
    against nothing. Every key then counts as committed at it, too (`ConflictService.floor`:
    a write at an older snapshot gets 40001), since the commits the manager forgot may
    be newer than that snapshot.
    """

    high_mark: int = 0
    only_if_needed: bool = False  # ignored unless the manager waits for a reset (restarted)


@dataclass(frozen=True)
class CmStatus:
    """Asks a conflict manager whether it waits for a `Reset` (replies a bool)."""


@dataclass(frozen=True)
class From:
    """A message from LTM `ltm`: the `Woken` of its releases that concern other LTMs'
    transactions are kept for those LTMs (`PollWoken`) instead of being returned to it."""

    ltm: int
    msg: Any


@dataclass(frozen=True)
class PollWoken:
    """Wait up to `timeout` seconds for wake-ups of LTM `ltm`'s waiters; reply `WokenFor`."""

    ltm: int
    timeout: float


@dataclass(frozen=True)
class WokenFor:
    txns: tuple[int, ...]


@dataclass(frozen=True)
class LogRecord:
    """Make a redo record durable; the reply (an Ack) comes once it is. `ltm` is the
    sender's LTM id: a logger refuses the records of an LTM fenced by `FenceLtm`."""

    ts: int
    payload: bytes
    ltm: int = 0


@dataclass(frozen=True)
class FenceLtm:
    """LTM `ltm` was declared dead (`cluster.reaper`): refuse its records from now on,
    and reply once every record of it accepted before is durable, so that a `LogRead`
    after the reply sees all the records it will ever have."""

    ltm: int


@dataclass(frozen=True)
class FenceTs:
    """A new MasterMind leader took over (`cluster.leader`): refuse every record with a
    commit ts at or below `upto` (the old leader handed out no more), and reply once
    those accepted before are durable, so that a `LogRead` after the reply sees every
    commit of the old term that will ever be logged."""

    upto: int


@dataclass(frozen=True)
class ReleaseLtm:
    """LTM `ltm` was declared dead: drop its transactions' holds, recording them as
    committed at `commit_ts` (every timestamp it was ever handed is at or below it, so a
    commit of it that the log holds is covered; one it never made only costs a writer
    with an older snapshot a 40001), and wake their waiters (other LTMs': mailboxes).
    From then on the manager refuses the LTM's locks (57P01)."""

    ltm: int
    commit_ts: int


@dataclass(frozen=True)
class LogTrim:
    upto_ts: int


@dataclass(frozen=True)
class LogRead:
    """Return every record with commit ts > after_ts (in no particular order)."""

    after_ts: int


@dataclass(frozen=True)
class LogRecords:
    payloads: list[bytes]


@dataclass(frozen=True)
class LogStatus:
    pass


@dataclass(frozen=True)
class LogStatusReply:
    fsyncs: int
    records: int
    trimmed: int = 0  # the highest `LogTrim` bound: records at or below it may be gone


def _message_classes(module: Any) -> list[type]:
    return [
        c for c in vars(module).values()
        if isinstance(c, type) and dataclasses.is_dataclass(c) and c.__module__ == module.__name__
    ]


# NB: every dataclass of the conflict managers' modules (`validate` is their SERIALIZABLE
# half), so that messages added there later travel too.
for _name in ("conflicts", "validate"):
    try:
        register_messages(*_message_classes(importlib.import_module(f"..txn.{_name}", __package__)))
    except ImportError:  # pragma: no cover - a tree without the SERIALIZABLE half
        pass
register_messages(Forget, Reset, From, PollWoken, WokenFor, LogRecord, LogTrim, LogRead,
                  LogRecords, LogStatus, LogStatusReply, FenceLtm, ReleaseLtm, CmStatus, FenceTs)

LTM_SHIFT = 48  # a transaction id is `ltm_id << 48 | n` (txn.ltm)
NOT_RESET = "57P03"  # a restarted conflict manager refuses everything until it is reset


def ltm_of(tid: int) -> int:
    """The id of the LTM that owns transaction tid."""
    return tid >> LTM_SHIFT


class ConflictService:
    """One conflict manager, served over `kivi.remote` (see the module docstring).

    Several LTMs may share it. A release's `Woken` names waiters of any LTM; those of
    the releasing LTM (the sender of `From`) go back in the reply, the others wait in
    their LTM's mailbox until it fetches them with `PollWoken` (a long poll, run in the
    thread pool; everything else runs on the event loop, one message at a time).
    """

    def __init__(self, owned: frozenset[int] | None = None, needs_reset: bool = False) -> None:
        self.owned = owned
        self.cm = ConflictManager(owned)
        # NB: a manager process that (re)starts knows no holds and no last commits: serving
        # writes with that blank state could let two writers win. It refuses them (57P03)
        # until an LTM resets it with the high mark (`ClusterTxnManager(reset_conflicts=True)`).
        self.needs_reset = needs_reset
        self.floor = 0  # every key's last commit is at least this (see `Reset`)
        # LTMs declared dead (`ReleaseLtm`): their locks went then, so a session of one that
        # resumes (an engine paused past its ZooKeeper session) may take no more (57P01, as
        # the MasterMind and the loggers refuse it): nobody would ever release those
        self.fenced: set[int] = set()
        self._mail: dict[int, list[int]] = {}
        self._mail_cond = threading.Condition()

    @staticmethod
    def offload(msg: Any) -> bool:
        """Long polls run off the event loop."""
        return type(msg) is PollWoken

    def handle(self, msg: Any) -> Any:
        """Runs one message; the manager's outputs come back as a list."""
        sender = None
        if type(msg) is From:
            sender, msg = msg.ltm, msg.msg
        if type(msg) is PollWoken:
            return self._poll(msg.ltm, msg.timeout)
        if type(msg) is Forget:
            self.cm.waiters.get(msg.holder, set()).discard(msg.txn)
            return Ack()
        if type(msg) is ReleaseLtm:
            return self._release_ltm(msg.ltm, msg.commit_ts)
        if type(msg) is CmStatus:
            return self.needs_reset
        if type(msg) is Reset:
            if msg.only_if_needed and not self.needs_reset:
                return Ack(False)
            self.cm = ConflictManager(self.owned)
            if msg.high_mark:
                self.cm.ser.restart(msg.high_mark)
            self.floor = msg.high_mark
            self.needs_reset = False
            return Ack()
        if self.needs_reset:
            raise SQLError(
                "the conflict manager restarted and has not been re-initialised",
                sqlstate=NOT_RESET,
                hint="Restart the query engine (its LTM resets the conflict managers).",
            )
        if self.fenced and type(msg) in (AcquireSpace, Acquire) and ltm_of(msg.txn) in self.fenced:
            raise SQLError("terminating connection: this query engine was declared dead",
                           sqlstate="57P01",
                           hint="Its transactions were aborted; reconnect to another one.")
        if self.floor and type(msg) in (AcquireSpace, Acquire):
            below = self._below_floor(msg)
            if below is not None:
                return [below]
        out = self.cm.handle(msg)
        if sender is None or not any(type(o) is Woken for o in out):
            return out
        routed = []
        for o in out:
            if type(o) is Woken:
                o = self._route(o, sender)
                if o is None:
                    continue
            routed.append(o)
        return routed

    def _below_floor(self, msg: Any) -> Conflict | None:
        """A write at a snapshot older than the floor conflicts (see `Reset`); a READ
        COMMITTED row lock (`LATEST`) waives the check, as the manager's own does."""
        if msg.snapshot >= self.floor or msg.snapshot == LATEST or not msg.keys:
            return None
        key = (msg.space, msg.keys[0]) if type(msg) is AcquireSpace else msg.keys[0]
        return Conflict(msg.txn, key, self.floor)

    def _release_ltm(self, ltm: int, commit_ts: int) -> Ack:
        """Answers `ReleaseLtm` (see it)."""
        self.fenced.add(ltm)
        cm = self.cm
        held = cm.holdings(lambda tid: ltm_of(tid) == ltm)
        for tid, spaces in held.items():
            msg = ReleaseSpaces(tid, tuple((s, tuple(ks)) for s, ks in spaces.items()), commit_ts)
            for o in cm.handle(msg):
                if type(o) is Woken:
                    self._route(o, ltm)
        for holder in [h for h in cm.waiters if ltm_of(h) == ltm]:  # NB: ended without a hold
            woken = cm.waiters.pop(holder)
            if woken:
                self._route(Woken(tuple(woken)), ltm)
        for waiting in cm.waiters.values():  # its own waiters wait no more
            waiting.difference_update([t for t in waiting if ltm_of(t) == ltm])
        with self._mail_cond:
            self._mail.pop(ltm, None)
        return Ack(len(held))

    def _route(self, woken: Woken, sender: int) -> Woken | None:
        """Posts the other LTMs' waiters to their mailboxes; returns the sender's part."""
        mine: list[int] = []
        with self._mail_cond:
            for tid in woken.txns:
                owner = ltm_of(tid)
                if owner == sender:
                    mine.append(tid)
                else:
                    self._mail.setdefault(owner, []).append(tid)
                    self._mail_cond.notify_all()
        return Woken(tuple(mine)) if mine else None

    def _poll(self, ltm: int, timeout: float) -> WokenFor:
        with self._mail_cond:
            if not self._mail.get(ltm):
                self._mail_cond.wait(timeout)
            return WokenFor(tuple(self._mail.pop(ltm, ())))


class LoggerService:
    """One redo logger, served over `kivi.remote` (see the module docstring)."""

    def __init__(self, log_dir: str, name: str = "L0", *, sync_commit: bool = True) -> None:
        self.dir = log_dir
        os.makedirs(log_dir, exist_ok=True)
        self.log = RedoLog(log_dir, name, sync_commit=sync_commit)
        self.records = 0
        self.fenced: set[int] = set()  # LTMs declared dead (`FenceLtm`)
        self.ts_fence = 0  # records at or below it are refused (`FenceTs`)
        self.trimmed = 0  # see `LogStatusReply`
        self._writing: dict[int, int] = {}  # LTM -> its records being made durable now
        self._writing_ts: dict[int, int] = {}  # commit ts -> its copies being made durable
        self._fence_cond = threading.Condition()

    @staticmethod
    def offload(msg: Any) -> bool:
        """Requests that block (waiting for an fsync, or reading every file: after a large
        COPY, a recovery's `LogRead` reads hundreds of MB) run off the event loop."""
        return type(msg) in (LogRecord, FenceLtm, FenceTs, LogRead)

    def handle(self, msg: Any) -> Any:
        """Runs one request."""
        match msg:
            case LogRecord(ts, payload, ltm):
                with self._fence_cond:
                    if ltm in self.fenced:
                        raise SQLError(
                            "terminating connection: this query engine was declared dead",
                            sqlstate="57P01",
                            hint="Its transactions were aborted; reconnect to another one.")
                    if ts <= self.ts_fence:
                        raise SQLError(
                            f"commit timestamp {ts} was handed out by a MasterMind that is no "
                            "longer the leader", sqlstate="40001",
                            hint="The transaction did not commit; run it again.")
                    self._writing[ltm] = self._writing.get(ltm, 0) + 1
                    self._writing_ts[ts] = self._writing_ts.get(ts, 0) + 1
                try:
                    self.log.log(ts, payload)
                finally:
                    with self._fence_cond:
                        self._writing[ltm] -= 1
                        left = self._writing_ts.pop(ts) - 1
                        if left:
                            self._writing_ts[ts] = left
                        self._fence_cond.notify_all()
                self.records += 1
                return Ack()
            case FenceLtm(ltm):
                with self._fence_cond:
                    self.fenced.add(ltm)
                    while self._writing.get(ltm):
                        self._fence_cond.wait()
                return Ack()
            case FenceTs(upto):
                self.fence_below(upto)
                return Ack()
            case LogRead(after_ts):
                return LogRecords([p for p in read_log(self.dir) if _record_ts(p) > after_ts])
            case LogTrim(upto_ts):
                self.trimmed = max(self.trimmed, upto_ts)
                return Ack(self.log.trim(upto_ts))
            case LogStatus():
                return LogStatusReply(self.log.fsyncs, self.records, self.trimmed)
        raise TypeError(f"logger: unexpected message {msg!r}")

    def fence_below(self, upto: int) -> None:
        """Refuses records at or below `upto` from now on; returns once those being
        written are durable (see `FenceTs`)."""
        with self._fence_cond:
            self.ts_fence = max(self.ts_fence, upto)
            while any(t <= upto for t in self._writing_ts):
                self._fence_cond.wait()

    def close(self) -> None:
        """Makes everything durable and closes the log."""
        self.log.close()
