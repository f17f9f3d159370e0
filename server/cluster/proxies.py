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

from typing import Any

from ..kivi.remote import RemoteNode
from .services import Forget, From, LogRead, LogRecord, LogStatus, LogTrim, PollWoken, Reset


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
        self.proxy.client.handle(Forget(txn, self.holder))


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
        """Sends one message; returns the manager's outputs."""
        return list(self.client.handle(From(self.ltm_id, msg)))

    def poll_woken(self, timeout: float) -> tuple[int, ...]:
        """Waits up to timeout seconds for wake-ups of this LTM's waiters; returns their tids."""
        return self.client.handle(PollWoken(self.ltm_id, timeout)).txns

    def reset(self, high_mark: int = 0) -> None:
        """Makes the remote manager forget everything (see `services.Reset`)."""
        self.client.handle(Reset(high_mark))

    def close(self) -> None:
        self.client.close()


class RemoteLogGroup:
    """Several remote loggers sharing the records by commit ts, like `logger.LogGroup`."""

    def __init__(self, addresses: list[tuple[str, int]], ltm_id: int = 0) -> None:
        self.loggers = [RemoteNode(h, p) for h, p in addresses]
        self.ltm_id = ltm_id  # NB: a logger refuses a fenced (dead) LTM's records

    def log(self, ts: int, payload: bytes) -> None:
        """Returns once the record is durable on its logger."""
        self.loggers[ts % len(self.loggers)].handle(LogRecord(ts, payload, self.ltm_id))

    def read(self, after_ts: int) -> list[bytes]:
        """Returns every logger's records above after_ts (for recovery)."""
        return [p for lg in self.loggers for p in lg.handle(LogRead(after_ts)).payloads]

    def trim(self, upto_ts: int) -> int:
        """Trims every logger; returns how many segments went."""
        return sum(lg.handle(LogTrim(upto_ts)).value or 0 for lg in self.loggers)

    @property
    def fsyncs(self) -> int:
        """The fsyncs done so far by all the loggers."""
        return sum(lg.handle(LogStatus()).fsyncs for lg in self.loggers)

    def close(self) -> None:
        """Closes the connections (the loggers keep running)."""
        for lg in self.loggers:
            lg.close()
