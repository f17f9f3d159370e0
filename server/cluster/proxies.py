"""Clients of the remote components, shaped like the in-process ones the LTM already uses.

Why: `txn.ltm.LocalTxnManager` is written against a `ConflictManager` (`handle`,
`owned`, and `waiters` when a waiter gives up) and a log group (`log`, `trim`,
`fsyncs`, `close`). Proxies with the same shape let the very same LTM run against
components in other processes, so embedded and cluster mode share every line of
the commit protocol.

Each proxy holds a `kivi.remote.RemoteNode`, which is the generic blocking client
(a pool of sockets; one round trip per call; remote errors raised again as the same
SQLError) despite its name.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from ..errors import ConnectionFailure, SerializationFailure, SQLError
from ..kivi.remote import RemoteNode
from ..txn.conflicts import Prune, Release, ReleaseSpaces, Settle
from ..txn.logger import LOG_PART_BYTES, split_record
from .services import (
    NOT_RESET,
    Forget,
    From,
    LogRead,
    LogRecord,
    LogStatus,
    LogTrim,
    PollWoken,
    Reset,
)

# What an LTM sends a conflict manager once the outcome is decided: moot if it died.
AFTER_COMMIT = (Release, ReleaseSpaces, Settle, Prune)


class _Waiters:
    """Stands for `ConflictManager.waiters`: `.get(holder, d).discard(txn)` sends a Forget."""

    __slots__ = ("proxy",)

    def __init__(self, proxy: RemoteConflictManager) -> None:
        self.proxy = proxy

    def get(self, holder: int, default: Any = None) -> _WaitSet:
        return _WaitSet(self.proxy, holder)


class _WaitSet:
    __slots__ = ("proxy", "holder")

    def __init__(self, proxy: RemoteConflictManager, holder: int) -> None:
        self.proxy, self.holder = proxy, holder

    def discard(self, txn: int) -> None:
        self.proxy.forget(txn, self.holder)


class RemoteConflictManager:
    """A `ConflictManager` in another process (served by `services.ConflictService`).

    Messages go out as `From(ltm_id, msg)`, so that the manager returns only the wake-ups
    of this LTM's waiters and keeps the others' for their LTMs; `poll_woken` fetches
    the wake-ups that other LTMs' releases left for this one.
    """

    def __init__(
        self, host: str, port: int, owned: frozenset[int] | None, ltm_id: int = 0
    ) -> None:
        self.client = RemoteNode(host, port)
        self.owned = owned
        self.ltm_id = ltm_id
        self.waiters = _Waiters(self)

    def handle(self, msg: Any, now: float = 0.0) -> list[Any]:
        """Sends one message; returns the manager's outputs.

        A manager that cannot be reached died (or is restarting, `cluster.cmfailover`):
        a release or settle is skipped (the locks died with it, and its replacement
        counts every key as committed at its watermark); anything else fails with 40001.
        A replacement not reset yet knows no locks either: a release it refuses is
        skipped too, so that the caller goes on releasing at the other managers (a
        doomed transaction's release stopped at the first one, and its locks at the
        others held their later writers back for ever).
        """
        try:
            return list(self.client.handle(From(self.ltm_id, msg)))
        except ConnectionFailure:
            if type(msg) in AFTER_COMMIT:
                return []
            raise SerializationFailure(
                "could not serialize access: a conflict manager is unavailable",
                hint="It restarts; retry the transaction.") from None
        except SQLError as e:
            if type(msg) in AFTER_COMMIT and e.sqlstate == NOT_RESET:
                return []
            raise

    def forget(self, txn: int, holder: int) -> None:
        """`txn` gave up waiting for `holder` (see `services.Forget`); moot if the manager died."""
        try:
            self.client.handle(Forget(txn, holder))
        except ConnectionFailure:
            pass

    def poll_woken(self, timeout: float) -> tuple[int, ...]:
        """Waits up to timeout seconds for wake-ups of this LTM's waiters; returns their tids."""
        return self.client.handle(PollWoken(self.ltm_id, timeout)).txns

    def reset(self, high_mark: int = 0) -> None:
        """Makes the remote manager forget everything (see `services.Reset`)."""
        self.client.handle(Reset(high_mark))

    def close(self) -> None:
        self.client.close()


def _refused(e: SQLError) -> None:
    """A logger's first answer refused the record (a MasterMind term ended: its timestamp
    is fenced, `cluster.leader`): it is in no log, so the commit certainly did not happen
    and the client may simply retry (40001, not 40003: outcome unknown)."""
    if e.sqlstate == "40001":
        raise SerializationFailure(e.message, hint=e.hint) from e


def _send_all(logger: RemoteNode, records: list[LogRecord]) -> None:
    """Makes the records durable on one logger, one request each, in order."""
    for record in records:
        logger.handle(record)


class RemoteLogGroup:
    """Several remote loggers sharing the records by commit ts, like `logger.LogGroup`.

    With `locate` (cluster mode: the loggers registered in ZooKeeper now), a logger that
    cannot be reached is looked up again and the record is sent to any live logger, for
    up to `retry_seconds` (a logger restarted elsewhere, or another one taking its load:
    recovery reads every logger, so any of them may hold any record, and a record sent
    twice is replayed once). Only then does the commit fail (40003: its outcome is
    unknown to the client, since the lost reply may have followed the fsync).
    """

    def __init__(self, addresses: list[tuple[str, int]], ltm_id: int = 0,
                 locate: Callable[[], list[tuple[str, int]]] | None = None,
                 retry_seconds: float = 30.0, part_bytes: int = LOG_PART_BYTES) -> None:
        self.loggers = [RemoteNode(h, p) for h, p in addresses]
        self.part_bytes = part_bytes
        self.ltm_id = ltm_id  # NB: a logger refuses a fenced (dead) LTM's records
        self.locate = locate
        self.retry_seconds = retry_seconds
        self._lock = threading.Lock()

    def log_pieces(self, ts: int, pieces: Iterable[bytes], durable: bool = True) -> None:
        """`log` of a record made in pieces (`codec.record_pieces`), joined: a remote
        logger gets parts of it anyway (`log`)."""
        self.log(ts, b"".join(pieces))

    def log(self, ts: int, payload: bytes, durable: bool = True) -> None:
        """Returns once the record is durable on a logger (`durable=False` too: a
        remote logger acknowledges a record once it is durable, which
        synchronous_commit = off allows).

        A record above `part_bytes` goes as parts (`txn.logger.split_record`), one request
        each, every one durable before the next is sent: no request is larger than a part,
        so none outlasts the socket timeout however large the commit (a 1M-row COPY's
        record was one 100 MB request). The commit is acknowledged after the last part;
        a logger lost mid-way gets all the parts sent again to another one (recovery
        ignores a record whose parts are not all in one logger's files).
        """
        if len(payload) > self.part_bytes:
            # NB: the id keeps apart two records of one ts (a record resent after a fence)
            records = [LogRecord(ts, p, self.ltm_id) for p in split_record(
                ts, payload, self.part_bytes, secrets.randbits(63))]
        else:
            records = [LogRecord(ts, payload, self.ltm_id)]
        loggers = self.loggers
        try:
            if not loggers:  # NB: none was registered at the last relocation: look again
                raise ConnectionFailure("no logger is registered")
            _send_all(loggers[ts % len(loggers)], records)
            return
        except ConnectionFailure:
            if self.locate is None:
                raise
        except SQLError as e:
            _refused(e)
            raise
        deadline = time.monotonic() + self.retry_seconds
        pause = 0.05
        while True:
            loggers = self._relocate()
            for i in range(len(loggers)):
                try:
                    _send_all(loggers[(ts + i) % len(loggers)], records)
                    return
                except ConnectionFailure:
                    continue
                # NB: a refusal after a lost reply is no answer: the record may be durable
                # on the logger that did not reply (the takeover's scan then finds it)
            if time.monotonic() > deadline:
                raise ConnectionFailure(f"no logger could make commit {ts} durable within "
                                        f"{self.retry_seconds:g} s")
            time.sleep(pause)
            pause = min(pause * 2, 0.5)

    def _relocate(self) -> list[RemoteNode]:
        """Reconnects to the loggers registered now (keeps the clients of unchanged ones)."""
        assert self.locate is not None
        try:
            addresses = self.locate()
        except Exception:  # noqa: BLE001 - ZooKeeper briefly away: keep what we have
            return self.loggers
        with self._lock:
            known: dict[tuple[str, int], RemoteNode | None] = {
                (lg.host, lg.port): lg for lg in self.loggers}
            fresh = [known.pop((h, p), None) or RemoteNode(h, p) for h, p in addresses]
            for gone in known.values():
                if gone is not None:
                    gone.close()
            self.loggers = fresh
        return fresh

    def read(self, after_ts: int) -> list[bytes]:
        """Returns every logger's records above after_ts (for recovery)."""
        return self._each(lambda lgs: [p for lg in lgs for p in lg.handle(LogRead(after_ts)).payloads])

    def trim(self, upto_ts: int) -> int:
        """Trims every logger; returns how many segments went."""
        return self._each(lambda lgs: sum(lg.handle(LogTrim(upto_ts)).value or 0 for lg in lgs))

    def _each(self, call: Callable[[list[RemoteNode]], Any]) -> Any:
        """`call(loggers)`, once more with the loggers registered now if one was away."""
        try:
            return call(self.loggers)
        except ConnectionFailure:
            if self.locate is None:
                raise
            return call(self._relocate())

    @property
    def fsyncs(self) -> int:
        """The fsyncs done so far by all the loggers."""
        return sum(lg.handle(LogStatus()).fsyncs for lg in self.loggers)

    def close(self) -> None:
        """Closes the connections (the loggers keep running)."""
        for lg in self.loggers:
            lg.close()
