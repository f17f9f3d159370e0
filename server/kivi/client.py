"""KiviClient: the `KiviNodeAPI` over many nodes, routing every request by the region map.

The transaction layer talks to one `KiviNodeAPI` whether there is one node or
twenty. This client splits each request by region owner:

- `get` / `latest_commit`: keys grouped by owning node, one request per node,
  answers put back in the caller's order;
- `apply`: writes grouped by owning node, one `Apply` per node, same ts;
- `scan`: the regions overlapping [lo, hi) visited in key order (reverse
  order for a reverse scan), each asked for its share of the range and of the
  remaining `batch_size`/`limit`; `resume_key` continues inside a region or at
  the next region's boundary. With an aggregate, every region's partials are
  merged by `agg.merge_partials`;
- `drop_space`, `collect`, `checkpoint`: sent to every node.

`split` and `move` change placement: the owner node splits or exports the
region, the map records it. NB: a move copies a region while writes may still
arrive; callers quiesce writes to the region first (or replay them after).
In cluster mode placement changes are the MasterMind's (`cluster.placer`),
which freezes a region before it moves it.

Stale routing (cluster mode, `kivi.routing`): a node in placement mode answers
`WrongRegion` for keys it does not hold. The client then asks its map to
`refresh` the spaces involved (a `cluster.zkmap.ZkRegionMap` re-reads
ZooKeeper), tells a node that the fresh map still names as owner to open the
regions it lacks (a new table's region, or one a restarted node had no file
for), and sends the whole request again; `RegionMoving` is waited out, trying
again every few milliseconds (`MOVING_PAUSE`). Every request may be sent twice (see `kivi.routing`), so
the retry is transparent; it gives up with the (retryable, 40001) error after
`RETRY_SECONDS`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ..errors import ConnectionFailure, SQLError
from .agg import merge_partials
from .api import (
    Ack,
    Apply,
    Checkpoint,
    Collect,
    DropRegion,
    DropSpace,
    ExportRegion,
    Get,
    GetReply,
    ImportRegion,
    KiviNodeAPI,
    LatestCommit,
    LatestCommitReply,
    NodeStatus,
    Row,
    Scan,
    ScanReply,
    SpaceWrites,
    SplitRegion,
    Write,
)
from .node import KiviNode
from .regionmap import RegionInfo, RegionMap
from .remote import RemoteNode
from .routing import OpenRegion, RegionMoving, RegionSizes, WrongRegion

RETRY_SECONDS = 30.0  # how long stale routing or a moving region may delay one request
MOVING_PAUSE = 0.02  # the longest wait between two tries of a region that is moving


class Misrouted(Exception):
    """`node` answered WrongRegion (internal to `KiviClient`: it refreshes and retries)."""

    def __init__(self, node: str, error: SQLError) -> None:
        super().__init__(node)
        self.node = node
        self.error = error


class Unreachable(Misrouted):
    """`node` could not be reached (it died, or restarted elsewhere)."""


class KiviClient:
    """Routes KiVi requests to the nodes that own the keys; itself a `KiviNodeAPI`."""

    def __init__(
        self,
        nodes: Mapping[str, Any],
        region_map: RegionMap | None = None,
        parallel: bool | None = None,
    ) -> None:
        self.nodes: dict[str, Any] = dict(nodes)
        self.map = region_map if region_map is not None else RegionMap(sorted(self.nodes))
        # Requests to several remote nodes go out concurrently; in-process nodes share the
        # GIL, so threads would only add overhead there.
        if parallel is None:
            parallel = any(not isinstance(n, KiviNode) for n in self.nodes.values())
        self._pool = ThreadPoolExecutor(len(self.nodes), "kivi-client") if parallel else None

    def _node(self, name: str) -> Any:
        """The node named `name`, connected through the map the first time (a node that
        joined after this client started)."""
        node = self.nodes.get(name)
        if node is None:
            node = self.nodes[name] = self.map.connect(name)
        return node

    def _send(self, name: str, method: str, req: Any) -> Any:
        """One call to one node; WrongRegion becomes `Misrouted` (which node said it)."""
        try:
            return getattr(self._node(name), method)(req)
        except WrongRegion as e:
            raise Misrouted(name, e) from None
        except ConnectionFailure as e:
            raise Unreachable(name, e) from None

    def _fanout(self, calls: list[tuple[str, str, Any]]) -> list[Any]:
        """Runs (node, method, request) calls, concurrently when worthwhile; replies in order."""
        if self._pool is None or len(calls) < 2:
            return [self._send(n, m, r) for n, m, r in calls]
        futures = [self._pool.submit(self._send, n, m, r) for n, m, r in calls]
        return [f.result() for f in futures]

    def _broadcast(self, calls: list[tuple[str, str, Any]]) -> list[Any]:
        """`_fanout` of requests that are not routed (no retry): a node's error as it is."""
        try:
            return self._fanout(calls)
        except Misrouted as e:
            raise e.error from None

    def _serving(self) -> list[str]:
        """The nodes that own regions or serve: those a checkpoint must reach."""
        return sorted(set(self.map.nodes) | {i.node for i in self.map.all_regions()})

    def _retrying(self, spaces: Callable[[], set[int]], call: Callable[[], Any]) -> Any:
        """Runs a routed request until no node says the routing was stale (module docstring)."""
        deadline = time.monotonic() + RETRY_SECONDS
        pause = 0.005
        moving = 0.002
        while True:
            try:
                return call()
            except Unreachable as e:
                # A dead node: wait while its regions are reopened elsewhere (a map that
                # cannot change, outside cluster mode, cannot help: fail at once).
                if not self.map.refresh(spaces()):
                    raise e.error from None
                if time.monotonic() > deadline:
                    raise RegionMoving(f"KiVi node {e.node} is unreachable") from None
                self.nodes.pop(e.node, None)  # NB: reconnect through the map (a new address)
                time.sleep(pause)
                pause = min(pause * 2, 0.5)
            except Misrouted as e:
                if time.monotonic() > deadline or not self.map.refresh(spaces()):
                    raise e.error from None
                self._heal(spaces(), e.node)
            except RegionMoving:
                if time.monotonic() > deadline:
                    raise
                # NB: short and flat: a moving region's reads and writes wait only for its
                # switch (a ZooKeeper write, or the log's tail), and a 0.5 s nap overslept it
                time.sleep(moving)
                moving = min(moving * 2, MOVING_PAUSE)

    def _heal(self, spaces: set[int], node: str) -> None:
        """Has `node` open the regions the (refreshed) map gives it in `spaces`."""
        for space in spaces:
            for info in self.map.regions(space):
                if info.node == node:
                    self._node(node).handle(OpenRegion(space, info.lo, info.hi))

    def node_left(self, name: str) -> None:
        """The node `name` left the cluster (its ZooKeeper session expired): requests that
        wait for its replies fail now (and are retried by the map) instead of after the
        socket timeout; the next request reconnects through the map."""
        node = self.nodes.pop(name, None)
        if isinstance(node, RemoteNode):
            node.abort()

    def close(self) -> None:
        """Stops the fan-out threads and closes the node connections that can be closed."""
        if self._pool is not None:
            self._pool.shutdown()
        for node in self.nodes.values():
            node.close()

    @property
    def checkpoint_ts(self) -> int:
        """The smallest checkpoint ts over the nodes: replay redo records after it."""
        return self.checkpoint_bounds()[0]

    def checkpoint_bounds(self) -> tuple[int, int]:
        """(smallest, largest) checkpoint ts over the nodes: redo replays after the
        smallest, and timestamps must continue above the largest (a node's checkpoint
        holds commits up to it even when the loggers no longer do)."""
        got = [r.checkpoint_ts
               for r in self._broadcast([(n, "handle", NodeStatus()) for n in self._serving()])]
        return (min(got), max(got)) if got else (0, 0)

    @classmethod
    def single(cls, node: KiviNodeAPI, name: str = "n0") -> KiviClient:
        """Wraps one node (embedded mode)."""
        return cls({name: node})

    def _by_node(self, space: int, keys: list[bytes]) -> dict[str, list[int]]:
        groups: dict[str, list[int]] = {}
        locate = self.map.locate
        for i, k in enumerate(keys):
            groups.setdefault(locate(space, k).node, []).append(i)
        return groups

    def _per_node(self, req: Get | LatestCommit, method: str) -> list[Any] | None:
        """Splits a keyed request by owning node; returns the answers in key order.

        None means one node owns every key: the caller forwards the request unchanged.
        """
        groups = self._by_node(req.space, req.keys)
        if len(groups) == 1:
            return None
        calls = [
            (node, method, dataclasses.replace(req, keys=[req.keys[i] for i in idxs]))
            for node, idxs in groups.items()
        ]
        out: list[Any] = [None] * len(req.keys)
        for idxs, reply in zip(groups.values(), self._fanout(calls), strict=True):
            values = reply.rows if method == "get" else reply.ts
            for i, v in zip(idxs, values, strict=True):
                out[i] = v
        return out

    def get(self, req: Get) -> GetReply:
        """Reads many keys, one request per owning node."""
        return self._retrying(lambda: {req.space}, lambda: self._get(req))

    def get_rows(self, space: int, ts: int, keys: list[bytes]) -> list[Row | None]:
        """`get`'s rows (KiviNodeAPI)."""
        return self.get(Get(space, ts, keys)).rows

    def _get(self, req: Get) -> GetReply:
        rows = self._per_node(req, "get")
        if rows is None:
            return self._send(self.map.locate(req.space, req.keys[0]).node, "get", req)
        return GetReply(rows)

    def latest_commit(self, req: LatestCommit) -> LatestCommitReply:
        """Asks the owners of the keys for their newest commit ts."""
        return self._retrying(lambda: {req.space}, lambda: self._latest_commit(req))

    def _latest_commit(self, req: LatestCommit) -> LatestCommitReply:
        ts = self._per_node(req, "latest_commit")
        if ts is None:
            return self._send(self.map.locate(req.space, req.keys[0]).node, "latest_commit", req)
        return LatestCommitReply(ts)

    def apply(self, req: Apply) -> Ack:
        """Applies a write set, split into one Apply per owning node."""
        return self._retrying(
            lambda: {w.space for w in req.writes} | {sw.space for sw in req.spaces},
            lambda: self._apply(req),
        )

    def _apply(self, req: Apply) -> Ack:
        groups: dict[str, list[Write]] = {}
        bulk: dict[str, list[SpaceWrites]] = {}
        locate = self.map.locate
        for w in req.writes:
            groups.setdefault(locate(w.space, w.key).node, []).append(w)
        for sw in req.spaces:
            for node, part in self._split_space(sw).items():
                bulk.setdefault(node, []).append(part)
        nodes = set(groups) | set(bulk)
        if len(nodes) == 1:
            (node,) = nodes
            return self._send(node, "apply", req)
        self._fanout([(node, "apply", Apply(req.ts, groups.get(node, []), bulk.get(node, [])))
                      for node in nodes])
        return Ack()

    def _split_space(self, sw: SpaceWrites) -> dict[str, SpaceWrites]:
        """Splits one space's bulk writes by owning node (whole when one node owns the space)."""
        infos = self.map.overlapping(sw.space, None, None)
        if len({i.node for i in infos}) == 1:  # NB: a space always has a region (see RegionMap)
            return {infos[0].node: sw}
        parts: dict[str, tuple[list[bytes], list[Row | None]]] = {}
        locate = self.map.locate
        for k, r in zip(sw.keys, sw.rows, strict=True):
            ks, rs = parts.setdefault(locate(sw.space, k).node, ([], []))
            ks.append(k)
            rs.append(r)
        return {node: SpaceWrites(sw.space, ks, rs) for node, (ks, rs) in parts.items()}

    def scan(self, req: Scan) -> ScanReply:
        """Scans across regions in key order, honouring batch_size and limit."""
        return self._retrying(lambda: {req.space}, lambda: self._scan(req))

    def _scan(self, req: Scan) -> ScanReply:
        infos = self.map.overlapping(req.space, req.lo, req.hi)
        if req.reverse:
            infos.reverse()
        if req.aggregate is not None:
            calls = []
            for info in infos:
                clipped = info.clip(req.lo, req.hi)
                assert clipped is not None  # `overlapping` returns overlapping regions only
                calls.append(
                    (info.node, "scan", dataclasses.replace(req, lo=clipped[0], hi=clipped[1]))
                )
            partials = [row for reply in self._fanout(calls) for row in reply.rows]
            return ScanReply(merge_partials(req.aggregate, partials), None)
        if len(infos) == 1:
            return self._send(infos[0].node, "scan", req)
        want = req.batch_size if req.limit is None else min(req.batch_size, req.limit)
        rows: list[Row] = []
        for i, info in enumerate(infos):
            clipped = info.clip(req.lo, req.hi)
            if clipped is None:
                continue
            room = want - len(rows)
            limit = None if req.limit is None else req.limit - len(rows)
            sub = dataclasses.replace(
                req, lo=clipped[0], hi=clipped[1], batch_size=room, limit=limit
            )
            reply = self._send(info.node, "scan", sub)
            rows.extend(reply.rows)
            if reply.resume_key is not None:
                return ScanReply(rows, reply.resume_key)
            if len(rows) >= want:
                if (req.limit is not None and len(rows) >= req.limit) or i == len(infos) - 1:
                    return ScanReply(rows, None)
                # Continue at the boundary with the next region in scan order.
                return ScanReply(rows, info.lo if req.reverse else infos[i + 1].lo)
        return ScanReply(rows, None)

    def drop_space(self, req: DropSpace) -> Ack:
        """Drops a space on every node and forgets its regions."""
        self._broadcast([(n, "drop_space", req) for n in self.map.nodes])
        self.map.drop_space(req.space)
        return Ack()

    def collect(self, req: Collect) -> Ack:
        """Garbage-collects on every node; replies with the total of versions dropped."""
        return Ack(
            sum(a.value or 0 for a in self._broadcast([(n, "collect", req)
                                                       for n in self.map.nodes]))
        )

    def checkpoint(self, req: Checkpoint) -> Ack:
        """Checkpoints every node at req.ts; acks req.ts only if every node wrote its files."""
        # NB: every node that owns a region, reachable or not: the loggers must not be
        # trimmed while a dead node's regions still need their records (cluster.failover)
        acks = self._broadcast([(n, "checkpoint", req) for n in self._serving()])
        return Ack(req.ts if all(getattr(a, "value", None) == req.ts for a in acks) else None)

    # --- placement ----------------------------------------------------------------------------

    def split(self, space: int, key: bytes) -> tuple[RegionInfo, RegionInfo]:
        """Splits the region holding key at key (both halves stay on their node)."""
        if self.map.request_split(space, key):  # cluster mode: the MasterMind did it
            upper = self.map.locate(space, key)
            (lower,) = [i for i in self.map.regions(space) if i.hi == key]
            return lower, upper
        info = self.map.locate(space, key)
        if key == info.lo:
            raise ValueError("the key is already a region boundary")
        self.nodes[info.node].handle(SplitRegion(space, key))
        return self.map.split(info, key)

    def move_region(self, region_id: int, to_node: str) -> None:
        """Moves the region with that id (cluster mode; elsewhere regions have no ids)."""
        if not self.map.request_move(region_id, to_node):
            found = [i for i in self.map.all_regions() if i.id == region_id and i.id]
            if not found:
                raise ValueError(f"region {region_id} does not exist")
            self.move(found[0], to_node)

    def describe(self) -> list[tuple[RegionInfo, int | None, int | None]]:
        """Every region with its (keys, estimated bytes) as its node reports them (None
        when the node does not answer)."""
        infos = self.map.all_regions()
        sizes: dict[tuple[str, int, bytes], tuple[int, int]] = {}
        answered = set()
        for name in sorted({i.node for i in infos}):
            try:
                reply = self._node(name).handle(RegionSizes())
            except SQLError:
                continue
            answered.add(name)
            for space, lo, _hi, keys, size in reply:
                sizes[(name, space, lo)] = (keys, size)
        out: list[tuple[RegionInfo, int | None, int | None]] = []
        for i in infos:
            keys, size = sizes.get((i.node, i.space, i.lo), (0, 0))  # not opened yet: empty
            out.append((i, keys, size) if i.node in answered else (i, None, None))
        return out

    def move(self, region: RegionInfo, to_node: str) -> RegionInfo:
        """Moves a region's versions to another node and records the new owner."""
        if region.node == to_node:
            return region
        src, dst = self.nodes[region.node], self.nodes[to_node]
        data = src.handle(ExportRegion(region.space, region.lo))
        dst.handle(ImportRegion(data))
        moved = self.map.move(region, to_node)
        src.handle(DropRegion(region.space, region.lo))
        return moved
