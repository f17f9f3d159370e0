"""Parallel row scans: a range that spans regions on several nodes is read from all at once.

Why: `KiviClient.scan` answers one page of a row scan at a time, region after
region in key order, so a filtered scan of a table spread over N nodes keeps
one node busy while the others idle. Each node filters and projects its own
rows (the pushed IR), so the work that matters runs in the nodes' processes:
reading ahead in every region of the span at once overlaps it. (Aggregate
scans are already fanned out by `KiviClient.scan`: one request per region,
partials merged.)

`scan_batches(kivi, req)` yields the batches of a row scan in key order (reverse
order for a reverse scan), exactly what paging `kivi.scan` with `resume_key`
gives. When `kivi` is a `KiviClient` whose nodes are remote and the span
covers regions on two or more nodes, each region becomes a `RegionStream`
paging its own share of the range; the consumer takes the regions' batches in
order while the next `window` regions fetch ahead, at most `depth` pages each
(bounded memory). Every page is one pool task that returns at once: no pool
thread ever waits for the consumer, so scans and the client's own fan-outs
cannot starve each other. The replies are handled on the consumer's thread
only, so the streams need no lock.

Pages go through `kivi.scan` with the range clipped to one region, so routing
(and whatever retry the client does on a moved region) stays the client's.
A LIMIT scan keeps the sequential path: the first regions usually satisfy
it, and reading ahead would be wasted work.

>>> from cumulo.server.kivi.node import KiviNode
>>> from cumulo.server.kivi.api import Apply, Write, Scan
>>> n = KiviNode()
>>> _ = n.apply(Apply(1, [Write(7, bytes([i]), (i,)) for i in range(5)]))
>>> [r for b in scan_batches(n, Scan(7, 1, batch_size=2)) for r in b]
[(0,), (1,), (2,), (3,), (4,)]
"""

from __future__ import annotations

import dataclasses
import threading
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from .api import Row, Scan, ScanReply
from .client import KiviClient
from .node import KiviNode

DEPTH = 2  # pages a region may hold fetched ahead of the consumer
_POOL_SIZE = 8

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()
# How many row scans went out to several nodes at once (tests and EXPLAIN-style checks).
stats = {"parallel_scans": 0, "regions": 0}


def _executor() -> ThreadPoolExecutor:
    """The process's scan pool (threads: every page is a blocking socket round trip)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(_POOL_SIZE, "kivi-scan")
        return _pool


def paged(kivi: Any, req: Scan) -> Iterator[list[Row]]:
    """Pages through `kivi.scan` with resume keys (the sequential path)."""
    lo, hi, limit = req.lo, req.hi, req.limit
    page = req  # NB: the first page is the request itself (`replace` costs microseconds)
    while True:
        rep = kivi.scan(page)
        if rep.rows:
            yield rep.rows
        if rep.resume_key is None:
            return
        if limit is not None:
            limit -= len(rep.rows)
            if limit <= 0:
                return
        if req.reverse:
            hi = rep.resume_key
        else:
            lo = rep.resume_key
        page = dataclasses.replace(req, lo=lo, hi=hi, limit=limit)


def local_node(kivi: Any) -> KiviNode | None:
    """The one in-process node behind `kivi` (a bare node, or a client of one local node);
    None otherwise (column scans read a node's stores directly)."""
    if isinstance(kivi, KiviNode):
        return kivi
    if isinstance(kivi, KiviClient) and len(kivi.nodes) == 1:
        (node,) = kivi.nodes.values()
        return node if isinstance(node, KiviNode) else None
    return None


def parallel_plan(kivi: Any, req: Scan) -> list[Scan] | None:
    """One request per region of the span, in scan order; None when a fan-out does not pay.

    It pays for a row scan without a limit, on a client with remote nodes, over regions
    held by two or more nodes.
    """
    if not isinstance(kivi, KiviClient) or req.aggregate is not None or req.limit is not None:
        return None
    if all(isinstance(n, KiviNode) for n in kivi.nodes.values()):
        return None  # in-process nodes share this process's GIL: nothing would overlap
    infos = kivi.map.overlapping(req.space, req.lo, req.hi)
    if len({i.node for i in infos}) < 2:
        return None
    if req.reverse:
        infos.reverse()
    subs = []
    for info in infos:
        clipped = info.clip(req.lo, req.hi)
        if clipped is not None:
            subs.append(dataclasses.replace(req, lo=clipped[0], hi=clipped[1]))
    return subs


class RegionStream:
    """One region's share of a scan, paged ahead of the consumer by pool tasks."""

    __slots__ = ("kivi", "req", "ready", "pending", "done")

    def __init__(self, kivi: Any, req: Scan) -> None:
        self.kivi = kivi
        self.req = req  # the next page's request
        self.ready: deque[list[Row]] = deque()
        self.pending: Future[ScanReply] | None = None
        self.done = False

    def fetch_ahead(self, pool: ThreadPoolExecutor) -> None:
        """Starts the next page unless one is in flight, enough are held, or none is left."""
        if not self.done and self.pending is None and len(self.ready) < DEPTH:
            self.pending = pool.submit(self.kivi.scan, self.req)

    def _receive(self) -> None:
        assert self.pending is not None
        rep = self.pending.result()
        self.pending = None
        if rep.rows:
            self.ready.append(rep.rows)
        if rep.resume_key is None:
            self.done = True
        elif self.req.reverse:
            self.req = dataclasses.replace(self.req, hi=rep.resume_key)
        else:
            self.req = dataclasses.replace(self.req, lo=rep.resume_key)

    def take(self, pool: ThreadPoolExecutor) -> list[Row] | None:
        """The region's next batch (waiting for it); None once the region is exhausted."""
        while not self.ready:
            if self.pending is None:
                if self.done:
                    return None
                self.fetch_ahead(pool)
            self._receive()
        return self.ready.popleft()

    def cancel(self) -> None:
        """Drops a page not started yet (one running completes and is discarded)."""
        if self.pending is not None:
            self.pending.cancel()
            self.pending = None
        self.done = True


def scan_batches(kivi: Any, req: Scan, window: int | None = None) -> Iterator[list[Row]]:
    """Yields a row scan's batches in key order, reading regions on several nodes in parallel.

    `window`: how many regions read ahead at once (default: the client's node count).
    """
    subs = parallel_plan(kivi, req)
    if subs is None:
        yield from paged(kivi, req)
        return
    stats["parallel_scans"] += 1
    stats["regions"] += len(subs)
    pool = _executor()
    width = window if window is not None else len(kivi.nodes)
    streams = [RegionStream(kivi, s) for s in subs]
    try:
        for i, stream in enumerate(streams):
            while True:
                for ahead in streams[i : i + width]:
                    ahead.fetch_ahead(pool)
                batch = stream.take(pool)
                if batch is None:
                    break
                yield batch
    finally:  # the consumer stopped early (an error, a cancel, a LIMIT above): stop fetching
        for s in streams:
            s.cancel()


__all__ = ["local_node", "paged", "parallel_plan", "scan_batches", "stats", "RegionStream"]
