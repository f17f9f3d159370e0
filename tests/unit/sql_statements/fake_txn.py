"""An in-memory `TxnManager` with snapshot isolation, for statement-layer tests.

Used until (and besides) `txn.embedded.open_embedded`: it implements the
`txn.api` protocol literally (lazy snapshots, private write sets, savepoints,
first-committer-wins with 40001 / RetryStatement), with no durability.
"""

from __future__ import annotations

import itertools
import threading
from typing import Any

from cumulo.server.errors import ReadOnlySQLTransaction, SerializationFailure
from cumulo.server.txn.api import RetryStatement, ScanSpec
from sortedcontainers import SortedDict


class FakeTxn:
    def __init__(self, mgr: FakeTxnManager, isolation: str, read_only: bool) -> None:
        self.mgr = mgr
        self.isolation = isolation
        self.read_only = read_only
        self._ts: int | None = None
        self.writes: dict[tuple[int, bytes], Any] = {}  # value None = tombstone
        self.log: list[tuple[tuple[int, bytes], Any, bool]] = []
        self.done = False

    @property
    def start_ts(self) -> int | None:
        return self._ts

    @property
    def has_writes(self) -> bool:
        return bool(self.writes)

    def _snap(self) -> int:
        if self._ts is None:
            self._ts = self.mgr.clock
        return self._ts

    def new_statement(self) -> None:
        if self.isolation == "read committed":
            self._ts = None

    def _visible(self, space: int, key: bytes) -> Any:
        if (space, key) in self.writes:
            return self.writes[(space, key)]
        return self.mgr.read(space, key, self._snap())

    def get(self, space: int, keys: list[bytes]) -> list[Any]:
        self._snap()
        return [self._visible(space, k) for k in keys]

    def scan(self, spec: ScanSpec):
        ts = self._snap()
        keys = set(self.mgr.keys(spec.space))
        keys.update(k for (s, k) in self.writes if s == spec.space)
        out = []
        for k in sorted(keys, reverse=spec.reverse):
            if spec.lo is not None and k < spec.lo or spec.hi is not None and k >= spec.hi:
                continue
            row = self.writes[(spec.space, k)] if (spec.space, k) in self.writes else \
                self.mgr.read(spec.space, k, ts)
            if row is None:
                continue
            if spec.projection is not None:
                row = tuple(row[i] for i in spec.projection)
            out.append((k, *row) if spec.with_keys else row)
            if spec.limit is not None and len(out) >= spec.limit:
                break
        for i in range(0, len(out), spec.batch_size):
            yield out[i : i + spec.batch_size]

    def _write(self, space: int, items: list[tuple[bytes, Any]]) -> None:
        if self.read_only:
            raise ReadOnlySQLTransaction("cannot execute in a read-only transaction")
        ts = self._snap()
        for k, row in items:
            if self.mgr.committed_after(space, k, ts):
                if self.isolation == "read committed":
                    raise RetryStatement("concurrent update")
                raise SerializationFailure("could not serialize access due to concurrent update")
            key = (space, k)
            self.log.append((key, self.writes.get(key), key in self.writes))
            self.writes[key] = row

    def put(self, space: int, items: list[tuple[bytes, Any]]) -> None:
        self._write(space, [(k, tuple(r)) for k, r in items])

    def delete(self, space: int, keys: list[bytes]) -> None:
        self._write(space, [(k, None) for k in keys])

    def savepoint(self) -> int:
        return len(self.log)

    def rollback_to(self, token: int) -> None:
        while len(self.log) > token:
            key, old, existed = self.log.pop()
            if existed:
                self.writes[key] = old
            else:
                self.writes.pop(key, None)

    def commit(self) -> int | None:
        if self.done:
            return None
        self.done = True
        if not self.writes:
            return None
        return self.mgr.commit(self)

    def abort(self) -> None:
        self.done = True


class FakeTxnManager:
    def __init__(self) -> None:
        self.data: dict[int, SortedDict] = {}
        self.clock = 1
        self.lock = threading.Lock()
        self.dropped: list[int] = []
        self.checkpoints = 0
        self._ids = itertools.count()

    def begin(self, *, isolation: str = "read committed", read_only: bool = False,
              session: Any = None) -> FakeTxn:
        return FakeTxn(self, isolation, read_only)

    def keys(self, space: int):
        return list(self.data.get(space, {}).keys())

    def read(self, space: int, key: bytes, ts: int) -> Any:
        versions = self.data.get(space, {}).get(key)
        if not versions:
            return None
        for cts, row in reversed(versions):
            if cts <= ts:
                return row
        return None

    def committed_after(self, space: int, key: bytes, ts: int) -> bool:
        versions = self.data.get(space, {}).get(key)
        return bool(versions) and versions[-1][0] > ts

    def commit(self, txn: FakeTxn) -> int:
        with self.lock:
            ts = txn._snap()
            for (space, k) in txn.writes:
                if self.committed_after(space, k, ts):
                    raise SerializationFailure(
                        "could not serialize access due to concurrent update")
            self.clock += 1
            for (space, k), row in txn.writes.items():
                self.data.setdefault(space, SortedDict()).setdefault(k, []).append(
                    (self.clock, row))
            return self.clock

    def drop_space(self, space: int) -> None:
        self.dropped.append(space)
        self.data.pop(space, None)

    def checkpoint(self) -> None:
        self.checkpoints += 1

    def close(self) -> None:
        pass
