"""The region map in ZooKeeper: one znode per space, changed only by versioned multi-ops.

Layout (CLUSTER.md §1.2):

    /cumulo/regionmap        {"version": n, "next_id": m, "changed": [space, ...]}
    /cumulo/regions/<space>  [{"id", "lo", "hi", "owner", "epoch"}, ...]   (sorted by lo)

Why one znode per space: a read of it is atomic, so a query engine never sees half
of a split (a gap or an overlap). Why a multi for every change: the space's znode
is set with the version it was read at *and* `/cumulo/regionmap` with its own, in
one ZooKeeper transaction, so two writers (two MasterMinds, a MasterMind and a
query engine creating a table's first region) cannot both win; the loser re-reads
and tries again. `/cumulo/regionmap` is what query engines watch: `changed` names
the spaces the last change touched, and a skipped version (watches coalesce)
means "re-read all of them". Region ids come from its `next_id`, in the same
multi. Keys are stored as hex; `hi` null is the end of the space. `epoch` goes
up with every split or move of a region (a move keeps the id; a split's halves
get new ids). The MasterMind is the only one that splits or moves regions
(`cluster.placer`); query engines create a new space's first region on the
least-loaded node, and give a region whose owner is gone to a live node.

kazoo's failed `transaction().commit()` does not raise: it returns exceptions,
which `commit` checks one by one (CLUSTER.md §1.1).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from kazoo.exceptions import NodeExistsError, NoNodeError

from ..kivi.regionmap import RegionInfo

REGIONMAP = "/cumulo/regionmap"
REGIONS = "/cumulo/regions"


@dataclass(frozen=True)
class Region:
    """One region as the map in ZooKeeper records it (id 0: not given one yet)."""

    id: int
    space: int
    lo: bytes
    hi: bytes | None
    owner: str
    epoch: int = 1

    def info(self) -> RegionInfo:
        return RegionInfo(self.space, self.lo, self.hi, self.owner, self.id, self.epoch)

    def contains(self, key: bytes) -> bool:
        return self.lo <= key and (self.hi is None or key < self.hi)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "lo": self.lo.hex(), "hi": None if self.hi is None else self.hi.hex(),
                "owner": self.owner, "epoch": self.epoch}

    @classmethod
    def from_json(cls, space: int, d: dict[str, Any]) -> Region:
        hi = d["hi"]
        return cls(int(d["id"]), space, bytes.fromhex(d["lo"]),
                   None if hi is None else bytes.fromhex(hi), d["owner"], int(d["epoch"]))


def space_path(space: int) -> str:
    return f"{REGIONS}/{space}"


def bootstrap(zk: Any) -> None:
    """Creates the map's znodes if this is the cluster's first use of them."""
    zk.ensure_path(REGIONS)
    try:
        zk.create(REGIONMAP, json.dumps({"version": 0, "next_id": 1, "changed": []}).encode())
    except NodeExistsError:
        pass


def read_space(zk: Any, space: int) -> tuple[list[Region], int] | None:
    """The regions of a space and the znode's version; None when the space has none yet."""
    try:
        data, stat = zk.get(space_path(space))
    except NoNodeError:
        return None
    return [Region.from_json(space, d) for d in json.loads(data)], stat.version


def read_all(zk: Any) -> dict[int, list[Region]]:
    """Every space's regions (spaces dropped meanwhile are left out)."""
    out = {}
    for child in zk.get_children(REGIONS):
        got = read_space(zk, int(child))
        if got is not None:
            out[int(child)] = got[0]
    return out


def least_loaded(zk: Any, nodes: list[str], extra: Counter[str] | None = None) -> str:
    """The node holding the fewest regions (ties: the first by name)."""
    if not nodes:
        raise RuntimeError("no KiVi node is registered in ZooKeeper")
    counts: Counter[str] = Counter(r.owner for rs in read_all(zk).values() for r in rs)
    if extra:
        counts.update(extra)
    return min(sorted(nodes), key=lambda n: counts[n])


def commit(zk: Any, changes: dict[int, tuple[int | None, list[Region] | None]],
           fence: tuple[str, int] | None = None) -> dict[int, list[Region]] | None:
    """Writes new region lists for spaces, atomically; None if someone changed one first.

    `changes[space] = (version read, regions)`: version None creates the znode, regions
    None deletes it. Regions with id 0 get fresh ids. `fence = (path, version)` makes the
    write fail unless that znode is still at that version (a MasterMind's epoch,
    `cluster.leader`: a deposed leader changes nothing).
    """
    try:
        raw, stat = zk.get(REGIONMAP)
    except NoNodeError:
        bootstrap(zk)
        return None
    meta = json.loads(raw)
    next_id = int(meta["next_id"])
    out: dict[int, list[Region]] = {}
    tx = zk.transaction()
    if fence is not None:
        tx.check(*fence)
    for space, (version, regions) in sorted(changes.items()):
        if regions is None:
            tx.delete(space_path(space), version=-1 if version is None else version)
            continue
        fixed = []
        for r in sorted(regions, key=lambda r: r.lo):
            if r.id == 0:
                r = replace(r, id=next_id)
                next_id += 1
            fixed.append(r)
        out[space] = fixed
        body = json.dumps([r.to_json() for r in fixed]).encode()
        if version is None:
            tx.create(space_path(space), body)
        else:
            tx.set_data(space_path(space), body, version=version)
    meta = {"version": int(meta["version"]) + 1, "next_id": next_id,
            "changed": sorted(s for s, (v, regs) in changes.items()
                              if v is not None or regs is None)}  # not the new spaces
    tx.set_data(REGIONMAP, json.dumps(meta).encode(), version=stat.version)
    results = tx.commit()
    if any(isinstance(r, Exception) for r in results):
        return None
    return out


def ensure_space(zk: Any, space: int, nodes: list[str]) -> list[Region]:
    """The regions of a space, creating its first one on the least-loaded node if needed."""
    while True:
        got = read_space(zk, space)
        if got is not None:
            return got[0]
        owner = least_loaded(zk, nodes)
        made = commit(zk, {space: (None, [Region(0, space, b"", None, owner)])})
        if made is not None:
            return made[space]


def adopt_orphans(zk: Any, space: int, live: set[str]) -> list[Region]:
    """The regions of a space, those whose owner is not a live node given to live ones.

    Why: a node that left (a crash, or a cluster that now runs other nodes) can serve
    nothing; routing to it would fail forever. The new owner opens the region empty
    and the redo log replayed by a starting query engine fills it (recovering a dead
    node's regions from its checkpoint is issue 14 item 5).
    """
    while True:
        got = read_space(zk, space)
        if got is None:
            return ensure_space(zk, space, sorted(live))
        regions, version = got
        if not live or all(r.owner in live for r in regions):
            return regions
        extra: Counter[str] = Counter()
        fixed = []
        for r in regions:
            if r.owner not in live:
                owner = least_loaded(zk, sorted(live), extra)
                extra[owner] += 1
                r = replace(r, owner=owner, epoch=r.epoch + 1)
            fixed.append(r)
        made = commit(zk, {space: (version, fixed)})
        if made is not None:
            return made[space]


__all__ = ["REGIONMAP", "REGIONS", "Region", "adopt_orphans", "bootstrap", "commit",
           "ensure_space", "least_loaded", "read_all", "read_space", "space_path"]
