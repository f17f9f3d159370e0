"""A region: one key range [lo, hi) of one space, with the version store that holds its keys.

Regions are the unit of placement (a node holds some regions), of splitting
and moving, and of checkpointing. `lo=b""` is the start of the space (no key
is smaller than the empty byte string) and `hi=None` its end, so the first
region of a new space is `(space, b"", None)`. A node keeps the regions of a
space sorted by `lo`; they never overlap.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from operator import itemgetter
from typing import Any

from .api import RegionData
from .mvcc import VersionStore


def clip_range(
    rlo: bytes, rhi: bytes | None, lo: bytes | None, hi: bytes | None
) -> tuple[bytes, bytes | None] | None:
    """Intersects [lo, hi) (None: unbounded) with [rlo, rhi); None when they do not overlap."""
    a = rlo if lo is None or lo < rlo else lo
    if hi is None:
        b = rhi
    elif rhi is None:
        b = hi
    else:
        b = min(hi, rhi)
    if b is not None and a >= b:
        return None
    return a, b


class Region:
    """The key range [lo, hi) of a space and its versions."""

    __slots__ = ("space", "lo", "hi", "store", "checkpoint_ts")

    def __init__(
        self,
        space: int,
        lo: bytes = b"",
        hi: bytes | None = None,
        store: VersionStore | None = None,
        checkpoint_ts: int = 0,
    ) -> None:
        self.space = space
        self.lo = lo
        self.hi = hi
        self.store = store if store is not None else VersionStore()
        self.checkpoint_ts = checkpoint_ts

    def __repr__(self) -> str:
        return f"Region({self.space}, {self.lo!r}, {self.hi!r}, keys={len(self.store)})"

    def contains(self, key: bytes) -> bool:
        """Tells whether key falls in [lo, hi)."""
        return self.lo <= key and (self.hi is None or key < self.hi)

    def clip(self, lo: bytes | None, hi: bytes | None) -> tuple[bytes, bytes | None] | None:
        """Intersects [lo, hi) with the region's range; None when they do not overlap."""
        return clip_range(self.lo, self.hi, lo, hi)

    def split(self, key: bytes) -> Region:
        """Cuts the region at key: it keeps [lo, key) and returns the new region [key, hi)."""
        if not self.contains(key) or key == self.lo:
            raise ValueError(f"split key {key!r} is not inside {self!r}")
        upper = Region(self.space, key, self.hi, self.store.split_off(key), self.checkpoint_ts)
        self.hi = key
        return upper

    def export(self, ts: int | None = None) -> RegionData:
        """Copies the region's range and its versions (those <= ts when given).

        Chains come out as the store's tuples (a checkpoint of a large region then
        copies two lists in C instead of building a list per key).
        """
        keys, chains = self.store.export(ts)
        return RegionData(self.space, self.lo, self.hi, keys, chains, self.checkpoint_ts)

    @classmethod
    def from_data(cls, data: RegionData) -> Region:
        """Builds a region from exported or checkpointed data."""
        store = VersionStore()
        store.load(list(data.keys), _tuple_chains(data.chains))
        return cls(data.space, data.lo, data.hi, store, data.checkpoint_ts)


def _tuple_chains(chains: Sequence[Any]) -> list[Any]:
    """Returns chains as tuples of (ts, row) tuples, copying only when some are not."""
    if set(map(type, chains)) <= {tuple} and all(
        type(v) is tuple for c in chains if len(c) > 1 for v in c
    ) and set(map(type, map(itemgetter(0), chains))) <= {tuple}:
        return list(chains)
    return [tuple((v[0], v[1]) for v in c) for c in chains]


class SpaceRegions:
    """The regions of one space held by one node, sorted by lo, for bisection.

    `store` is the store of the space's only region while that region holds every key
    (`whole`'s), else None: an OLTP commit's apply and a point read test one attribute per
    space. `add` and `remove` set it again; a `Region.split` narrows its region in place,
    so the node adds the upper half (`add`) at once, under the same hold of its lock."""

    __slots__ = ("los", "regions", "store")

    def __init__(self) -> None:
        self.los: list[bytes] = []
        self.regions: list[Region] = []
        self.store: VersionStore | None = None

    def add(self, region: Region) -> None:
        """Inserts a region, which must not overlap the others."""
        i = bisect_right(self.los, region.lo)
        prev = self.regions[i - 1] if i else None
        nxt = self.regions[i] if i < len(self.regions) else None
        if (prev is not None and (prev.hi is None or prev.hi > region.lo)) or (
            nxt is not None and (region.hi is None or region.hi > nxt.lo)
        ):
            raise ValueError(f"{region!r} overlaps a region already on this node")
        self.los.insert(i, region.lo)
        self.regions.insert(i, region)
        self._whole()

    def remove(self, lo: bytes) -> Region:
        """Removes and returns the region starting at lo."""
        i = bisect_right(self.los, lo) - 1
        if i < 0 or self.los[i] != lo:
            raise KeyError(lo)
        del self.los[i]
        r = self.regions.pop(i)
        self._whole()
        return r

    def _whole(self) -> None:
        r = self.whole()
        self.store = None if r is None else r.store

    def whole(self) -> Region | None:
        """The space's only region when it holds every key (no lookup per key), else None."""
        regions = self.regions
        if len(regions) == 1:
            r = regions[0]
            if r.lo == b"" and r.hi is None:
                return r
        return None

    def find(self, key: bytes) -> Region | None:
        """Returns the region holding key, or None."""
        i = bisect_right(self.los, key) - 1
        if i < 0:
            return None
        r = self.regions[i]
        return r if r.hi is None or key < r.hi else None

    def overlapping(self, lo: bytes | None, hi: bytes | None) -> list[Region]:
        """Returns the regions that overlap [lo, hi), in key order."""
        i = 0 if lo is None else max(bisect_right(self.los, lo) - 1, 0)
        out = []
        for r in self.regions[i:]:
            if hi is not None and r.lo >= hi:
                break
            if r.clip(lo, hi) is not None:
                out.append(r)
        return out
