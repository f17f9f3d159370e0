"""Live splits and moves of regions, and the MasterMind's loop that splits and balances.

Why here (the MasterMind's): a placement change touches a KiVi node and the region
map in ZooKeeper, and must not race another one, so one process makes them all,
one at a time (`Placer`, served by the MasterMind role: `SplitAt`, `MoveRegion`).
Query engines ask it (`cumulo_split`, `cumulo_move`); without a MasterMind, a
query engine runs a `Placer` itself.

**Split** R at k on its owner A (no data moves; CLUSTER.md §2.2): A cuts R in two in
memory (`SplitRegion`; a scan running over R notices and resumes), then one
ZooKeeper multi replaces R by its halves, with new ids and epoch + 1. Both halves
stay on A, so a query engine that still routes by R reaches the right node.

**Move** R from A to B (run by the MasterMind, which knows the snapshot; CLUSTER.md
§2.2, Bigtable's two compactions with log replay in place of the second):
1. Note S1, the snapshot: every commit at or below it is applied. Copy R from A in
   chunks of keys (`ExportChunk`: A's loop serves R's reads and writes between chunks;
   a version a chunk missed is newer than S1, so step 2 brings it); `RecoverRegion` on
   B (B writes R's file at once, takes applies, but answers reads with `RegionMoving`).
2. Note S2; apply to B the loggers' records of R above S1 (what A applied meanwhile).
3. `FreezeRegion` on A: A answers applies to R with `RegionMoving` from now on
   (clients wait and retry), but still serves its reads. It replies once no apply to R
   runs (applies hold A's lock). Apply to B the records of R above S2: the tail. A
   commit logged later, whose apply A refuses, is applied by its engine to B after the
   switch. Then note S3, the snapshot, and freeze A again with it: A now serves reads
   at snapshots up to S3 only. A commit B takes after the switch was not readable
   when S3 was noted (its apply had not run), so it lies above S3: A holds every
   commit a read at or below S3 may see; later snapshots wait for B.
4. The point of no return: one multi sets R's owner to B, epoch + 1;
   `UnfreezeRegion` on B.
5. `DropRegion` on A: A now answers `WrongRegion` for R, and clients re-read the map
   and go to B.

R's writes wait between 3 and 5 only: one read of the log's tail, not the copy; its
reads wait only for the ZooKeeper write of step 4 (those at snapshots above S3).
Without a snapshot to start from (a query engine's own placer, no MasterMind) A is
frozen from the start, and B gets a plain `ImportRegion`.

No committed row is lost: a commit at or below S1 is in the copy; one above it was
logged before it was applied, so it is in a catch-up if A applied it before the
freeze, and its engine applies it to B otherwise. None is doubled (applies are keyed
by `(key, ts)`). A snapshot is never torn: B answers reads only after the tail, when
it holds every version A had. If anything fails before the point of no return, A is
unfrozen and B drops its copy.

**The loop** (`Placer.run`, every `interval` seconds): the regions of a node that died
are reopened on live ones (`cluster.failover`); a region whose estimated size passes
`split_bytes` is split at its middle key; then at most one region moves to balance
the nodes, by bytes first, then by count (`cluster.balance`).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ..errors import InvalidParameterValue, ObjectNotInPrerequisiteState, SQLError
from ..kivi.api import DropRegion, ImportRegion, RegionData, SplitRegion
from ..kivi.remote import RemoteNode
from ..kivi.routing import (
    READ_ANY,
    ExportChunk,
    Fenced,
    FreezeRegion,
    MiddleKey,
    OpenRegion,
    RecoverRegion,
    RegionSizes,
    UnfreezeRegion,
)
from ..kivi.wire import register_messages
from . import regionstore as rs
from . import zk as zk_mod
from .balance import pick_move
from .failover import recover_dead, region_applies
from .proxies import RemoteLogGroup
from .services import LogStatus

log = logging.getLogger("cumulo.placer")
STARTUP_GRACE = 30.0  # seconds a node never seen live has to register before it is dead


@dataclass(frozen=True)
class SplitAt:
    """Split the region of `space` holding `key` at `key` (replies with the halves' ids)."""

    space: int
    key: bytes


@dataclass(frozen=True)
class MoveRegion:
    """Move region `region_id` to the KiVi node `node` (replies with the region's new epoch)."""

    region_id: int
    node: str


register_messages(SplitAt, MoveRegion)


class KiviMembers:
    """The registered KiVi nodes (a ChildrenWatch) and clients for them, by name."""

    def __init__(self, zk: Any) -> None:
        self.zk = zk
        self.path = f"{zk_mod.ROOT}/kivi"
        self.names: list[str] = []
        self._clients: dict[str, tuple[tuple[str, int], RemoteNode]] = {}
        zk.ensure_path(self.path)
        zk.ChildrenWatch(self.path, self._on_members)

    def _on_members(self, children: list[str]) -> None:
        for name in set(self.names) - set(children):
            known = self._clients.pop(name, None)
            if known is not None:  # NB: a paused node would hold a RegionSizes for 60 s,
                known[1].abort()  # and with it the failover of its own regions
        self.names = sorted(children)

    def live(self) -> list[str]:
        return self.names

    def connect(self, name: str) -> RemoteNode:
        """A client for the node as registered now (a restarted node has a new address)."""
        data, _stat = self.zk.get(f"{self.path}/{name}")
        facts = json.loads(data)
        addr = (facts["host"], int(facts["port"]))
        known = self._clients.get(name)
        if known is not None and known[0] == addr:
            return known[1]
        client = RemoteNode(*addr)
        self._clients[name] = (addr, client)
        return client


EXPORT_CHUNK = 4096  # keys per `ExportChunk` (the source node's loop is busy one chunk)


def export(node: Any, space: int, lo: bytes) -> RegionData:
    """Copies the region of `space` starting at `lo` from `node`, chunk by chunk
    (`routing.ExportChunk`: the node keeps serving between chunks)."""
    keys: list[bytes] = []
    chains: list[Any] = []
    after = None
    while True:
        part = node.handle(ExportChunk(space, lo, after, EXPORT_CHUNK))
        keys += part.keys
        chains += part.chains
        if len(part.keys) < EXPORT_CHUNK:
            return RegionData(space, lo, part.hi, keys, chains, part.checkpoint_ts)
        after = part.keys[-1]


class Stamped:
    """A KiVi node client that wraps each request in `Fenced(epoch, ...)`."""

    def __init__(self, node: Any, epoch: int) -> None:
        self.node, self.epoch = node, epoch

    def handle(self, req: Any) -> Any:
        return self.node.handle(Fenced(self.epoch, req))


class Placer:
    """Makes placement changes one at a time (see the module docstring).

    `connect(name)` returns a client (`handle(request)`) for a KiVi node; `live()` the
    names of the registered nodes.
    """

    def __init__(self, zk: Any, connect: Callable[[str], Any], live: Callable[[], list[str]],
                 split_bytes: int = 64 << 20, interval: float = 5.0, balance: bool = True) -> None:
        self.zk = zk
        self._connect = connect
        self.live = live
        self.split_bytes = split_bytes
        self.interval = interval
        self.balance = balance
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._seen: set[str] = set()  # nodes seen live: one gone from it died
        # NB: a MasterMind leader's term (`cluster.leader`): every map write checks its
        # epoch, and the loop acts only while `may_act()` (its lease holds)
        self.fence: tuple[str, int] | None = None
        self.may_act: Callable[[], bool] = lambda: True
        # NB: the MasterMind's snapshot: with it, a move copies while the region serves and
        # freezes it only to catch up the tail (module docstring)
        self.snapshot: Callable[[], int] | None = None
        # NB: the leader's term number: every command to a node carries it (`routing.Fenced`),
        # and a node that has seen a newer term refuses it
        self.epoch: int | None = None
        self._started = time.monotonic()
        rs.bootstrap(zk)

    @classmethod
    def for_cluster(cls, zk: Any, **options: Any) -> Placer:
        """A placer over the KiVi nodes registered in ZooKeeper."""
        members = KiviMembers(zk)
        return cls(zk, members.connect, members.live, **options)

    def connect(self, name: str) -> Any:
        """A client for KiVi node `name` whose commands carry this leader's term."""
        node = self._connect(name)
        return node if self.epoch is None else Stamped(node, self.epoch)

    @staticmethod
    def accepts(msg: Any) -> bool:
        return type(msg) in (SplitAt, MoveRegion)

    def handle(self, msg: Any) -> Any:
        if type(msg) is SplitAt:
            return list(self.split(msg.space, msg.key))
        return self.move(msg.region_id, msg.node)

    # --- split --------------------------------------------------------------------------------

    def split(self, space: int, key: bytes) -> tuple[int, int]:
        """Splits the region holding key at key; returns the halves' ids."""
        with self._lock:
            for _attempt in range(20):
                regions, version = self._read(space)
                (r,) = [r for r in regions if r.contains(key)]
                if key == r.lo:
                    raise InvalidParameterValue("the key is already where a region starts")
                # NB: idempotent on the node when it already holds the halves (a lost race)
                node = self.connect(r.owner)
                node.handle(OpenRegion(space, r.lo, r.hi))  # a region never written to yet
                if not self._node_holds(node, space, key):
                    node.handle(SplitRegion(space, key))
                lower = replace(r, id=0, hi=key, epoch=r.epoch + 1)
                upper = replace(r, id=0, lo=key, epoch=r.epoch + 1)
                made = rs.commit(self.zk, {space: (version, [x for x in regions if x != r]
                                                   + [lower, upper])}, self.fence)
                if made is not None:
                    ids = {x.lo: x.id for x in made[space]}
                    log.info("split region %d of space %d at %s", r.id, space, key.hex())
                    return ids[r.lo], ids[key]
            raise ObjectNotInPrerequisiteState("the region map kept changing during a split")

    @staticmethod
    def _node_holds(node: Any, space: int, key: bytes) -> bool:
        """Whether the node already has a region of space starting at key."""
        return any(s == space and lo == key for s, lo, _hi, _n, _b in node.handle(RegionSizes()))

    def _read(self, space: int) -> tuple[list[rs.Region], int]:
        got = rs.read_space(self.zk, space)
        if got is None:
            rs.ensure_space(self.zk, space, self.live())
            got = rs.read_space(self.zk, space)
            assert got is not None
        return got

    # --- move ---------------------------------------------------------------------------------

    def move(self, region_id: int, to: str) -> int:
        """Moves a region to node `to` (see the module docstring); returns its new epoch."""
        with self._lock:
            found = [(s, r) for s, regs in rs.read_all(self.zk).items() for r in regs
                     if r.id == region_id]
            if not found:
                raise InvalidParameterValue(f"region {region_id} does not exist")
            if to not in self.live():
                raise InvalidParameterValue(f'KiVi node "{to}" is not in the cluster')
            space, r = found[0]
            if r.owner == to:
                return r.epoch
            got = rs.read_space(self.zk, space)
            assert got is not None
            regions, version = got
            src, dst = self.connect(r.owner), self.connect(to)
            src.handle(OpenRegion(space, r.lo, r.hi))  # a region never written to yet
            snapshot = self.snapshot
            live_copy = snapshot is not None
            began = time.monotonic()
            if not live_copy:
                src.handle(FreezeRegion(space, r.lo, r.hi))
            try:
                s1 = snapshot() if snapshot is not None else 0
                data = export(src, space, r.lo)
                if data.hi != r.hi:
                    raise ObjectNotInPrerequisiteState(
                        f"node {r.owner} holds region {region_id} cut otherwise than the map")
                if not self.may_act():
                    raise ObjectNotInPrerequisiteState("this MasterMind no longer leads")
                if snapshot is not None:
                    # NB: B takes applies but answers no read until it has caught up
                    dst.handle(RecoverRegion(data))
                    caught, s2 = 0, s1
                    for _round in range(3):  # A's applies during the copy, then during that
                        s1, s2 = s2, snapshot()
                        n = self._catch_up(dst, space, r, s1)
                        caught += n
                        if n < 20:
                            break
                    frozen = time.monotonic()
                    if not self.may_act():
                        raise ObjectNotInPrerequisiteState("this MasterMind no longer leads")
                    # NB: A still answers reads (of any snapshot: no commit of R is readable
                    # on B yet), only applies wait
                    src.handle(FreezeRegion(space, r.lo, r.hi, READ_ANY))
                    tail = self._catch_up(dst, space, r, s2)  # the tail: frozen only for this
                    # from now on A answers only the snapshots it surely holds: a commit B
                    # takes after the switch below is not readable yet, so it lies above
                    src.handle(FreezeRegion(space, r.lo, r.hi, snapshot()))
                else:
                    dst.handle(ImportRegion(data))
                moved = replace(r, owner=to, epoch=r.epoch + 1)
                made = rs.commit(self.zk, {space: (version, [moved if x == r else x
                                                             for x in regions])}, self.fence)
                if made is None:
                    raise ObjectNotInPrerequisiteState("the region map changed during the move")
            except BaseException:
                # NB: by what the map says now: a deposed MasterMind's move that failed must
                # not undo one its successor made of the same region
                now = [x for regs in rs.read_all(self.zk).values() for x in regs
                       if x.id == region_id]
                if not now or now[0].owner == r.owner:
                    src.handle(UnfreezeRegion(space, r.lo))
                if not now or now[0].owner != to:
                    try:
                        dst.handle(DropRegion(space, r.lo))
                    except (SQLError, KeyError):
                        pass  # it never got there
                raise
            if live_copy:
                dst.handle(UnfreezeRegion(space, r.lo))
                log.info("region %d copied while serving, %d + %d records caught up; moved in "
                         "%.1f ms, frozen for the last %.1f ms", region_id, caught, tail,
                         1000 * (time.monotonic() - began), 1000 * (time.monotonic() - frozen))
            src.handle(DropRegion(space, r.lo))
            log.info("moved region %d of space %d from %s to %s", region_id, space, r.owner, to)
            return moved.epoch

    def _catch_up(self, dst: Any, space: int, r: rs.Region, after: int) -> int:
        """Applies to `dst` the loggers' records of region r above `after` (idempotent);
        returns how many."""
        addresses = [a for _n, a in zk_mod.discover(self.zk).addresses("logger")]
        loggers = RemoteLogGroup(addresses)
        try:
            applies = region_applies(loggers.read(after), space, r.lo, r.hi, after)
        finally:
            loggers.close()
        for host, port in addresses:  # NB: a checkpoint meanwhile may have trimmed the log
            lg = RemoteNode(host, port, timeout=30.0)
            try:
                if lg.handle(LogStatus()).trimmed > after:
                    raise ObjectNotInPrerequisiteState(
                        f"the log was trimmed above {after} during the move of a region of "
                        f"space {space}: try again")
            finally:
                lg.close()
        for a in applies:
            dst.handle(a)
        return len(applies)

    # --- the loop -----------------------------------------------------------------------------

    def start(self) -> Placer:
        self._thread = threading.Thread(target=self.run, name="placer", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10)

    def run(self) -> None:
        while not self._stop.wait(self.interval):
            if not self.may_act():
                continue
            try:
                self.step()
            except Exception:  # noqa: BLE001 - a node or ZooKeeper hiccup: try next time
                log.warning("placement step failed", exc_info=True)

    def step(self) -> None:
        """One round: reopen a dead node's regions elsewhere (`cluster.failover`), split
        what grew too big, then move one region to balance the nodes."""
        live = self.live()
        self._seen.update(live)
        # NB: a node this MasterMind never saw may just be starting (cluster up starts
        # everything at once): it is given STARTUP_GRACE seconds before it counts as dead
        young = time.monotonic() - self._started < STARTUP_GRACE
        with self._lock:
            recover_dead(self.zk, self.connect, live,
                         (lambda n: n in self._seen) if young else (lambda n: True), self.fence)
        sizes: dict[tuple[str, int, bytes], int] = {}
        split = False
        for name in live:
            for space, lo, _hi, _keys, size in self.connect(name).handle(RegionSizes()):
                sizes[(name, space, lo)] = size
                if size > self.split_bytes:
                    mid = self.connect(name).handle(MiddleKey(space, lo))
                    if mid is not None:
                        self.split(space, mid)
                        split = True
        if not self.balance or len(live) < 2 or split:  # NB: sizes of the halves next round
            return
        regions = [r for regs in rs.read_all(self.zk).values() for r in regs]
        # NB: by bytes, then by count (`cluster.balance`); the oldest region first: one
        # just split or moved (by hand, say) stays put
        move = pick_move([(r.id, r.owner, sizes.get((r.owner, r.space, r.lo), 0))
                          for r in regions], live, max(1, self.split_bytes // 8))
        if move is not None:
            self.move(*move)


__all__ = ["MoveRegion", "Placer", "SplitAt"]
