"""A query engine's copy of the region map in ZooKeeper, kept fresh by a watch.

Why a subclass of `kivi.regionmap.RegionMap`: `KiviClient` routes by bisection over
an in-memory map, whoever fills it. Here a space's regions are read from its znode
(`cluster.regionstore`) the first time the space is used, and created there (one
region on the least-loaded node) if the space is new. Two watches keep the copy
fresh; their callbacks only drop cached entries (a kazoo callback must never call
ZooKeeper: it would block kazoo's one callback thread):

- a DataWatch on `/cumulo/regionmap` forgets the spaces the last change named, or
  every space when a version was skipped (watches coalesce);
- a ChildrenWatch on the KiVi members keeps the set of live nodes.

Watches are hints: correctness comes from the nodes, which answer `WrongRegion` to
stale routing, and `refresh` (called by `KiviClient` then) re-reads the spaces after
a `sync`, so it sees every change committed before the node answered.

At a query engine's start-up (`adopt`, before it replays the loggers), regions
whose owner is not a live node are given to live ones (see
`regionstore.adopt_orphans`); afterwards a request for such a region waits (as for
a move, `RegionMoving`) and fails with a retryable error if the node stays away.

Placement changes go to the MasterMind (`SplitAt`, `MoveRegion`), or, in a cluster
without one, to a `Placer` run here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from kazoo.exceptions import NoNodeError

from ..kivi.regionmap import RegionInfo, RegionMap
from ..kivi.remote import RemoteNode
from ..kivi.routing import RegionMoving
from . import regionstore as rs
from . import zk as zk_mod
from .leaderclient import LeaderClient
from .placer import MoveRegion, Placer, SplitAt

KIVI_MEMBERS = f"{zk_mod.ROOT}/kivi"


class ZkRegionMap(RegionMap):
    """The region map of a cluster, read from ZooKeeper (see the module docstring)."""

    def __init__(self, zk: Any, nodes: list[str], connect: Callable[[str], Any] | None = None,
                 adopt: bool = True) -> None:
        super().__init__(nodes or ["-"])
        self.zk = zk
        self.adopt = adopt
        self._connect = connect if connect is not None else self._member_node
        self.live: set[str] = set(nodes)
        self._seen = -1
        self._placement: Any = None
        # called (kazoo's thread) with each KiVi node that leaves (`KiviClient.node_left`)
        self.on_leave: Callable[[str], None] | None = None
        rs.bootstrap(zk)
        zk.ensure_path(KIVI_MEMBERS)
        zk.ChildrenWatch(KIVI_MEMBERS, self._on_members)
        zk.DataWatch(rs.REGIONMAP, self._on_map)
        if adopt and self.live:
            for space, regions in rs.read_all(zk).items():
                if any(r.owner not in self.live for r in regions):
                    rs.adopt_orphans(zk, space, set(self.live))

    # --- watches (kazoo's thread: no ZooKeeper calls here) -----------------------------------

    def _on_members(self, children: list[str]) -> None:
        gone = self.live - set(children)
        self.live = set(children)
        if self.on_leave is not None:
            for name in gone:
                self.on_leave(name)
        self.nodes = sorted(children) or self.nodes

    def _on_map(self, data: bytes | None, _stat: Any) -> None:
        if not data:
            return
        meta = json.loads(data)
        version = int(meta["version"])
        if version == self._seen + 1:
            for space in meta["changed"]:
                self._spaces.pop(int(space), None)
        elif version > self._seen and self._seen >= 0:
            self._spaces.clear()  # a change was missed: re-read every space when next used
        self._seen = max(self._seen, version)

    # --- RegionMap ----------------------------------------------------------------------------

    def _load(self, space: int) -> list[RegionInfo]:
        if self.adopt:
            regions = rs.adopt_orphans(self.zk, space, set(self.live))
        else:
            regions = rs.ensure_space(self.zk, space, sorted(self.live))
        return [r.info() for r in regions]

    def refresh(self, spaces: set[int]) -> bool:
        self.zk.sync(rs.REGIONS)
        for space in spaces:
            self._install(space, self._load(space))
        return True

    def connect(self, node: str) -> Any:
        return self._connect(node)

    def _member_node(self, name: str) -> RemoteNode:
        """A client for a registered KiVi node; `RegionMoving` (retry) while it is away."""
        try:
            data, _stat = self.zk.get(f"{KIVI_MEMBERS}/{name}")
        except NoNodeError:
            raise RegionMoving(f'KiVi node "{name}" is not available') from None
        facts = json.loads(data)
        return RemoteNode(facts["host"], int(facts["port"]))

    def drop_space(self, space: int) -> None:
        rs.commit(self.zk, {space: (None, None)})  # NB: fails harmlessly if it had no znode
        super().drop_space(space)

    def all_regions(self) -> list[RegionInfo]:
        return [r.info() for _s, regs in sorted(rs.read_all(self.zk).items()) for r in regs]

    # --- placement changes --------------------------------------------------------------------

    def _placer(self) -> Any:
        if self._placement is None:
            masterminds = zk_mod.discover(self.zk).addresses("mastermind")
            if masterminds:  # NB: whichever leads (`cluster.leader`), now and after a failover
                self._placement = LeaderClient(self.zk)
            else:
                self._placement = Placer(self.zk, self.connect, lambda: sorted(self.live))
        return self._placement

    def request_split(self, space: int, key: bytes) -> bool:
        self._placer().handle(SplitAt(space, key))
        self.refresh({space})
        return True

    def request_move(self, region_id: int, node: str) -> bool:
        self._placer().handle(MoveRegion(region_id, node))
        self._spaces.clear()
        return True


__all__ = ["ZkRegionMap"]
