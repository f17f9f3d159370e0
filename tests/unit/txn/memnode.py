"""A small in-memory `KiviNodeAPI`, written independently of `kivi.node`, for txn tests.

Why: the transaction layer was built before `kivi.node` existed, against this
node; the tests now run the transaction layer over both, so that a
misreading of the `kivi.api` contract shared by the two layers is less
likely to pass unnoticed. It implements the contract literally and simply:
one sorted map per space from key to its versions `[(commit_ts, row_or_None),
...]`, oldest first.

Checkpoints, when a directory is given, write the state as of `ts` (newest
visible version of each key) to one msgpack file, replaced atomically; the
node reloads it on start, and `checkpoint_ts` tells recovery where to replay
the redo log from.
"""

from __future__ import annotations

import os
import threading
from bisect import bisect_right
from typing import Any

from sortedcontainers import SortedDict

from cumulo.server.kivi.agg import partial_aggregate
from cumulo.server.kivi.api import (
    Ack,
    Apply,
    Checkpoint,
    Collect,
    DropSpace,
    Get,
    GetReply,
    LatestCommit,
    LatestCommitReply,
    Row,
    Scan,
    ScanReply,
)
from cumulo.server.kivi.filters import rows as compile_filter
from cumulo.server.kivi.wire import packb, unpackb


def _visible(versions: list[tuple[int, Row | None]], ts: int) -> Row | None:
    i = bisect_right(versions, ts, key=lambda v: v[0])
    return versions[i - 1][1] if i else None


class MemNode:
    """An in-memory MVCC node with optional file checkpoints."""

    def __init__(self, data_dir: str | None = None) -> None:
        self.spaces: dict[int, SortedDict] = {}
        self.lock = threading.Lock()
        self.data_dir = data_dir
        self.checkpoint_ts = 0
        if data_dir:
            os.makedirs(data_dir, exist_ok=True)
            self._load()

    def close(self) -> None:
        """Holds no connection or thread (`KiviNodeAPI.close`)."""

    # -- reads ------------------------------------------------------------

    def get_rows(self, space: int, ts: int, keys: list[bytes]) -> list[Any]:
        """`get`'s rows."""
        return self.get(Get(space, ts, keys)).rows

    def get(self, req: Get) -> GetReply:
        """Reads the newest version <= ts of each key."""
        sp = self.spaces.get(req.space)
        if sp is None:
            return GetReply([None] * len(req.keys))
        out = []
        for k in req.keys:
            versions = sp.get(k)
            out.append(_visible(versions, req.ts) if versions else None)
        return GetReply(out)

    def scan(self, req: Scan) -> ScanReply:
        """Reads visible rows in [lo, hi) in key order, with filter/projection/limit/aggregate."""
        sp = self.spaces.get(req.space)
        if sp is None:
            if req.aggregate is not None:
                return ScanReply(partial_aggregate(req.aggregate, []))
            return ScanReply([])
        with self.lock:  # NB: held for one batch, so that apply cannot resize the map under us
            return self._scan(sp, req)

    def _scan(self, sp: SortedDict, req: Scan) -> ScanReply:
        keys = sp.irange(req.lo, req.hi, (True, False), reverse=req.reverse)
        keep = compile_filter(req.filter) if req.filter is not None else None
        if req.aggregate is not None:
            rows = [r for k in keys if (r := _visible(sp[k], req.ts)) is not None]
            kept = keep(rows, req.params) if keep else rows
            return ScanReply(partial_aggregate(req.aggregate, [kept]))
        proj = req.projection
        out: list[Row] = []
        limit = req.limit
        for k in keys:
            r = _visible(sp[k], req.ts)
            if r is None or (keep is not None and not keep([r], req.params)):
                continue
            if proj is not None:
                r = tuple(r[i] for i in proj)
            out.append((k, *r) if req.with_keys else r)
            if limit is not None and len(out) >= limit:
                return ScanReply(out)
            if len(out) >= req.batch_size:
                return ScanReply(out, k if req.reverse else k + b"\x00")
        return ScanReply(out)

    def latest_commit(self, req: LatestCommit) -> LatestCommitReply:
        """Returns the newest commit ts of each key, tombstones included."""
        sp = self.spaces.get(req.space, {})
        return LatestCommitReply([sp[k][-1][0] if k in sp else None for k in req.keys])

    # -- writes -------------------------------------------------------------

    def apply(self, req: Apply) -> Ack:
        """Installs a committed write set at its commit ts (idempotent)."""
        ts = req.ts
        with self.lock:
            for w in req.writes:
                sp = self.spaces.get(w.space)
                if sp is None:
                    sp = self.spaces[w.space] = SortedDict()
                versions = sp.get(w.key)
                if versions is None:
                    sp[w.key] = [(ts, w.row)]
                elif versions[-1][0] < ts:
                    versions.append((ts, w.row))
                else:
                    i = bisect_right(versions, ts, key=lambda v: v[0])
                    if not (i and versions[i - 1][0] == ts):
                        versions.insert(i, (ts, w.row))
        return Ack()

    def drop_space(self, req: DropSpace) -> Ack:
        """Removes every version of a space."""
        with self.lock:
            self.spaces.pop(req.space, None)
        return Ack()

    def collect(self, req: Collect) -> Ack:
        """Drops versions that no snapshot >= low_water can see."""
        lw = req.low_water
        removed = 0
        with self.lock:
            for sp in self.spaces.values():
                dead = []
                for k, versions in sp.items():
                    i = bisect_right(versions, lw, key=lambda v: v[0])
                    if i > 1:
                        del versions[: i - 1]
                        removed += i - 1
                    if len(versions) == 1 and versions[0][1] is None and versions[0][0] <= lw:
                        dead.append(k)
                for k in dead:
                    del sp[k]
                    removed += 1
        return Ack(removed)

    def checkpoint(self, req: Checkpoint) -> Ack:
        """Writes the state as of ts to the data dir (atomically)."""
        if not self.data_dir:
            return Ack()
        with self.lock:
            state = []
            for space, sp in self.spaces.items():
                for k, versions in sp.items():
                    r = _visible(versions, req.ts)
                    if r is not None:
                        state.append((space, k, list(r)))
        path = os.path.join(self.data_dir, "checkpoint.msgpack")
        tmp = path + ".tmp"
        with open(tmp, "wb") as f:
            f.write(packb([req.ts, state]))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        _fsync_dir(self.data_dir)
        self.checkpoint_ts = req.ts
        return Ack(req.ts)  # durable as of ts: the LTM may trim the log below it

    def _load(self) -> None:
        path = os.path.join(self.data_dir or "", "checkpoint.msgpack")
        if not os.path.exists(path):
            return
        with open(path, "rb") as f:
            ts, state = unpackb(f.read())
        for space, k, r in state:
            self.spaces.setdefault(space, SortedDict())[k] = [(ts, tuple(r))]
        self.checkpoint_ts = ts

    def version_count(self) -> int:
        """Returns how many versions the node holds (for GC tests)."""
        return sum(len(v) for sp in self.spaces.values() for v in sp.values())


def _fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


__all__: list[Any] = ["MemNode"]
