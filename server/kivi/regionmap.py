"""The region map: which node owns which key range of which space.

The configuration manager (MasterMind) owns the authoritative map; clients
keep a copy and route each request by bisection over it. Entries are sorted
by (space, lo) and, within a space, tile the whole key space without gaps:

    space 7:  [b"", k1) -> n0   [k1, k2) -> n1   [k2, None) -> n0

A space that is not in the map yet (a table created since the map was last
changed) gets one region covering everything, on the node chosen by
`space mod len(nodes)`: every client picks the same node without asking.
The map only records placement; moving the data is `KiviClient`'s job.

In cluster mode a subclass (`cluster.zkmap.ZkRegionMap`) fills the map from
ZooKeeper instead (`_load`), where the MasterMind keeps the authoritative one,
and `refresh` re-reads it when a node says the routing was stale.
"""

from __future__ import annotations

import threading
from bisect import bisect_right
from dataclasses import dataclass

from .region import clip_range


@dataclass(frozen=True)
class RegionInfo:
    """The key range [lo, hi) of one space and the node that owns it."""

    space: int
    lo: bytes
    hi: bytes | None
    node: str
    id: int = 0  # cluster mode: the region's id (`cumulo_regions`, `cumulo_move`)
    epoch: int = 0  # cluster mode: bumped by every split or move of the region

    def clip(self, lo: bytes | None, hi: bytes | None) -> tuple[bytes, bytes | None] | None:
        """Intersects [lo, hi) with the region's range; None when they do not overlap."""
        return clip_range(self.lo, self.hi, lo, hi)


class RegionMap:
    """Placement of every region; thread-safe."""

    def __init__(self, nodes: list[str]) -> None:
        if not nodes:
            raise ValueError("a region map needs at least one node")
        self.nodes = list(nodes)
        self._spaces: dict[int, tuple[list[bytes], list[RegionInfo]]] = {}
        self._lock = threading.Lock()
        self.version = 0

    def default_node(self, space: int) -> str:
        """Returns the node that gets the first region of a new space."""
        return self.nodes[space % len(self.nodes)]

    def _space(self, space: int) -> tuple[list[bytes], list[RegionInfo]]:
        entry = self._spaces.get(space)
        if entry is None:
            with self._lock:
                entry = self._spaces.get(space)
                if entry is None:
                    infos = self._load(space)
                    entry = ([r.lo for r in infos], infos)
                    self._spaces[space] = entry
        return entry

    def _load(self, space: int) -> list[RegionInfo]:
        """The regions of a space not in the map yet: one, on `default_node`."""
        return [RegionInfo(space, b"", None, self.default_node(space))]

    def _install(self, space: int, infos: list[RegionInfo]) -> None:
        """Replaces a space's regions (as a whole: readers bisect without the lock)."""
        with self._lock:
            self._spaces[space] = ([r.lo for r in infos], infos)
            self.version += 1

    def refresh(self, spaces: set[int]) -> bool:
        """Re-reads the placement of `spaces` from its source; False when there is none
        (this map is the only authority: a stale-routing error cannot be fixed here)."""
        return False

    def connect(self, node: str) -> object:
        """A client for a node the map names but the `KiviClient` was not given."""
        raise KeyError(f"unknown KiVi node {node!r}")

    def all_regions(self) -> list[RegionInfo]:
        """Every region of every space (in cluster mode, also spaces not used here yet)."""
        return self.regions()

    def request_split(self, space: int, key: bytes) -> bool:
        """Has the placement authority split a region; False: this map is it (the caller
        splits the node's region and records it with `split`)."""
        return False

    def request_move(self, region_id: int, node: str) -> bool:
        """Has the placement authority move a region; False: this map is it."""
        return False

    def locate(self, space: int, key: bytes) -> RegionInfo:
        """Returns the region that holds key."""
        los, infos = self._space(space)
        return infos[bisect_right(los, key) - 1]

    def overlapping(self, space: int, lo: bytes | None, hi: bytes | None) -> list[RegionInfo]:
        """Returns the regions overlapping [lo, hi), in key order."""
        los, infos = self._space(space)
        i = 0 if lo is None else bisect_right(los, lo) - 1
        j = len(los) if hi is None else bisect_right(los, hi)
        return [r for r in infos[i:j] if r.clip(lo, hi) is not None]

    def regions(self, space: int | None = None) -> list[RegionInfo]:
        """Returns every region (of one space, or of all spaces sorted by space)."""
        if space is not None:
            return list(self._space(space)[1])
        return [r for s in sorted(self._spaces) for r in self._spaces[s][1]]

    def split(self, region: RegionInfo, key: bytes) -> tuple[RegionInfo, RegionInfo]:
        """Records the split of a region at key; both halves stay on its node."""
        if key <= region.lo or (region.hi is not None and key >= region.hi):
            raise ValueError(f"split key {key!r} is not inside {region}")
        a = RegionInfo(region.space, region.lo, key, region.node)
        b = RegionInfo(region.space, key, region.hi, region.node)
        self._replace(region, [a, b])
        return a, b

    def move(self, region: RegionInfo, to_node: str) -> RegionInfo:
        """Records that a region now lives on another node."""
        if to_node not in self.nodes:
            raise ValueError(f"unknown node {to_node!r}")
        moved = RegionInfo(region.space, region.lo, region.hi, to_node)
        self._replace(region, [moved])
        return moved

    def _replace(self, region: RegionInfo, new: list[RegionInfo]) -> None:
        # NB: copy on write. Readers bisect the lists without the lock, so a space's
        # (los, infos) pair is replaced as a whole, never edited in place.
        with self._lock:
            entry = self._spaces.get(region.space)
            if entry is None:
                raise ValueError(f"{region} is not in the map")
            los, infos = entry
            i = bisect_right(los, region.lo) - 1
            if infos[i] != region:
                raise ValueError(f"{region} is not in the map")
            infos = infos[:i] + new + infos[i + 1 :]
            self._spaces[region.space] = ([r.lo for r in infos], infos)
            self.version += 1

    def drop_space(self, space: int) -> None:
        """Forgets a space's regions (a later use starts again with one region)."""
        with self._lock:
            self._spaces.pop(space, None)
            self.version += 1
