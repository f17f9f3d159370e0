"""A dead KiVi node's regions reopened on live nodes: its checkpoint plus the loggers' records.

Why this way (CLUSTER.md §3.1): there are no replicas; what makes a commit durable
is its redo record on a logger, and what bounds the redo is a node's checkpoint.
So a region of a dead node is rebuilt anywhere from two things that outlive it:

1. its checkpoint file, in the dead node's data directory (its path is kept in the
   persistent znode `/cumulo/nodes/<name>`, written by the node at start; on one
   machine the directory is simply readable, in production it must be shared
   storage), as of `min(file ts, the node's manifest ts)`;
2. every logger's records above that ts, kept to the region's space and key range.

The MasterMind notices the death through ZooKeeper: the node's ephemeral member
znode goes when its session expires, and `Placer.step` finds regions whose owner is
not a live node. For each: the least-loaded live node gets the checkpoint
(`RecoverRegion`: it takes applies at once, since applies commute with the replay,
but answers reads with `RegionMoving`); one multi makes it the owner (epoch + 1);
the records are replayed into it (idempotent); `UnfreezeRegion` opens it for reads.
Meanwhile query engines get "connection refused" from the dead node and wait, then
`RegionMoving` from the new owner and wait again: a statement is delayed, or fails
with 40001 after `kivi.client.RETRY_SECONDS`, and never reads a region that is not
complete. A commit whose apply failed is retried by its LTM and lands on the new
owner; the loggers are not trimmed while a node that owns regions is unreachable
(`KiviClient.checkpoint`), so the replay has every record it needs.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from kazoo.exceptions import NoNodeError

from ..kivi import checkpoint as ckpt
from ..kivi.api import Apply, DropRegion, RegionData, SpaceWrites
from ..kivi.routing import OpenRegion, RecoverRegion, UnfreezeRegion
from ..txn.codec import unpack_bulk
from ..txn.recovery import record_ts
from . import regionstore as rs
from . import zk as zk_mod
from .proxies import RemoteLogGroup

log = logging.getLogger("cumulo.failover")
NODES = "/cumulo/nodes"
LOG_DIRS = "/cumulo/logdirs"  # logger name -> {"data_dir"}: read when it is down (leader)


def record_node(zk: Any, name: str, data_dir: str | None, root: str = NODES) -> None:
    """Remembers where a KiVi node (or, root=LOG_DIRS, a logger) keeps its files
    (persistent: read after it died)."""
    body = json.dumps({"data_dir": None if data_dir is None else str(Path(data_dir).resolve())})
    path = f"{root}/{name}"
    if zk.exists(path):
        zk.set(path, body.encode())
    else:
        zk.create(path, body.encode(), makepath=True)


def checkpoint_of(zk: Any, name: str, space: int, lo: bytes, hi: bytes | None) -> RegionData:
    """The region's versions from node `name`'s checkpoint (empty, ts 0, if it has none)."""
    empty = RegionData(space, lo, hi, [], [], 0)
    try:
        facts = json.loads(zk.get(f"{NODES}/{name}")[0])
    except NoNodeError:
        return empty
    if not facts.get("data_dir"):
        return empty
    directory = Path(facts["data_dir"]) / "kivi"
    path = ckpt.region_file(directory, space, lo)
    if not path.exists():
        return empty
    try:
        data = ckpt.read_region(path)
    except ValueError:
        return empty
    if data.hi != hi:
        return empty  # NB: cut otherwise: its redo from 0 rebuilds it (the log is kept)
    complete = ckpt.read_manifest(directory) or 0
    return replace(data, checkpoint_ts=min(data.checkpoint_ts, complete))


def region_applies(payloads: Iterable[bytes], space: int, lo: bytes, hi: bytes | None,
                   after: int) -> list[Apply]:
    """The redo records above `after`, kept to one region's writes, in ts order."""

    def inside(key: bytes) -> bool:
        return lo <= key and (hi is None or key < hi)

    out = []
    for payload in payloads:
        peek = record_ts(payload)
        if peek is not None and peek <= after:
            continue
        ts, writes, _drops, spaces = unpack_bulk(payload)
        if ts <= after:
            continue
        ws = [w for w in writes if w.space == space and inside(w.key)]
        sws = []
        for sw in spaces:
            if sw.space == space:
                kept = [(k, r) for k, r in zip(sw.keys, sw.rows, strict=True) if inside(k)]
                if kept:
                    sws.append(SpaceWrites(space, [k for k, _r in kept], [r for _k, r in kept]))
        if ws or sws:
            out.append(Apply(ts, ws, sws))
    out.sort(key=lambda a: a.ts)
    return out


def replay_own(zk: Any, node: Any, name: str, wait: float = 30.0) -> int:
    """Brings a restarted node's regions up to date before it registers; returns how
    many records it applied.

    Why: its files hold its regions as of its last checkpoint; the commits applied since
    then lived in its memory only. If it comes back before the MasterMind gave its
    regions away (a quick restart: the supervisor's, or an operator's), nobody else
    would replay them, and its regions would read as of the checkpoint (or be empty, for
    a region it had no file for). Applies that arrive after the read below are the
    query engines' (they retry until the node is registered), and replaying a record
    twice is a no-op.
    """
    rs.bootstrap(zk)
    held = {(r.space, r.lo, r.hi) for r in node.regions()}
    owned = [(space, r) for space, regs in rs.read_all(zk).items() for r in regs
             if r.owner == name]
    opened = set()
    for space, r in owned:
        if (space, r.lo, r.hi) not in held:
            node.handle(OpenRegion(space, r.lo, r.hi))  # NB: no file: rebuilt from the log
            opened.add((space, r.lo, r.hi))
    keys = {(space, r.lo, r.hi) for space, r in owned}
    regions = [r for r in node.regions() if (r.space, r.lo, r.hi) in keys]
    if not regions:
        return 0
    base = min(r.checkpoint_ts for r in regions)
    deadline = time.monotonic() + wait
    addresses = [a for _n, a in zk_mod.discover(zk).addresses("logger")]
    while not addresses and time.monotonic() < deadline:  # NB: loggers may be starting too
        time.sleep(0.2)
        addresses = [a for _n, a in zk_mod.discover(zk).addresses("logger")]
    if not addresses:
        raise RuntimeError("no logger is registered: this node cannot replay the commits "
                           "made after its checkpoint")
    loggers = RemoteLogGroup(addresses)
    try:
        payloads = loggers.read(base)
    finally:
        loggers.close()
    done, top = 0, max(r.checkpoint_ts for r in regions)
    for r in regions:
        for a in region_applies(payloads, r.space, r.lo, r.hi, r.checkpoint_ts):
            node.handle(a)
            done += 1
            top = max(top, a.ts)
    for r in regions:
        # NB: a region opened here now holds every logged record of its range, as a file
        # at `top` would: a checkpoint ts of 0 would tell a query engine's recovery that
        # nothing was ever committed (the snapshot would restart at 0)
        if (r.space, r.lo, r.hi) in opened:
            r.checkpoint_ts = top
    log.info("replayed %d records above the checkpoint at %d into %d regions", done, base,
             len(regions))
    return done


def recover_dead(zk: Any, connect: Any, live: list[str],
                 dead: Callable[[str], bool] = lambda _n: True,
                 fence: tuple[str, int] | None = None) -> int:
    """Reopens every region whose owner is not live and is `dead` (see the module
    docstring); returns how many. Called by the MasterMind's placement loop, one change
    at a time."""
    if not live:
        return 0
    done = 0
    for space, regions in rs.read_all(zk).items():
        for r in regions:
            if r.owner not in live and dead(r.owner) and _recover(zk, connect, live, space, r,
                                                                  fence):
                done += 1
    return done


def _recover(zk: Any, connect: Any, live: list[str], space: int, r: rs.Region,
             fence: tuple[str, int] | None = None) -> bool:
    data = checkpoint_of(zk, r.owner, space, r.lo, r.hi)
    to = rs.least_loaded(zk, live)
    node = connect(to)
    node.handle(RecoverRegion(data))
    got = rs.read_space(zk, space)
    if got is None or r not in got[0]:
        node.handle(DropRegion(space, r.lo))
        return False
    regions, version = got
    moved = replace(r, owner=to, epoch=r.epoch + 1)
    if rs.commit(zk, {space: (version, [moved if x == r else x for x in regions])},
                 fence) is None:
        node.handle(DropRegion(space, r.lo))
        return False
    loggers = RemoteLogGroup([a for _n, a in zk_mod.discover(zk).addresses("logger")])
    try:
        applies = region_applies(loggers.read(data.checkpoint_ts), space, r.lo, r.hi,
                                 data.checkpoint_ts)
    finally:
        loggers.close()
    for a in applies:
        node.handle(a)
    node.handle(UnfreezeRegion(space, r.lo))
    log.info("recovered region %d of space %d from dead node %s on %s: checkpoint at %d, "
             "%d records replayed", r.id, space, r.owner, to, data.checkpoint_ts, len(applies))
    return True


def recorded_dirs(zk: Any, root: str = LOG_DIRS) -> dict[str, str]:
    """name -> data dir of every role recorded under `root` (`record_node`)."""
    out: dict[str, str] = {}
    for name in zk.get_children(root) if zk.exists(root) else ():
        try:
            d = json.loads(zk.get(f"{root}/{name}")[0]).get("data_dir")
        except NoNodeError:
            continue
        if d:
            out[name] = d
    return out


__all__ = ["LOG_DIRS", "NODES", "checkpoint_of", "record_node", "recorded_dirs", "recover_dead", "region_applies",
           "replay_own"]
