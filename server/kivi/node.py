"""A KiVi storage node: the regions it holds, and the batched requests of `kivi.api` on them.

Life of a scan inside the node:

1. find the node's regions of the space that overlap [lo, hi) (bisection);
2. per region, read a chunk of keys under the node lock
   (`VersionStore.chunk`: one slice of the base, merged with the write cache,
   and the visible version of each key);
3. outside the lock, run the compiled filter over the whole chunk
   (`filters.rows`: the SQL layer's row code), then the projection
   (`operator.itemgetter` mapped over the chunk), or fold the chunk into partial aggregates (`agg`);
4. stop when `batch_size` rows (or `limit`) are collected; `resume_key` says
   where the next batch starts. An aggregate scan covers the whole range.

Snapshot reads need no lock between chunks: versions <= ts never change (only
GC could drop them, and the transaction layer keeps `low_water` below every
active snapshot). A node holds no region of a space until it is first written
(or a region is imported); then it creates one covering the whole space. The
node is thread-safe and knows nothing of other nodes: `KiviClient` routes.
NB: a scan holds on to the regions it found at its start. A region moved away
meanwhile is still read whole (its versions <= ts were all applied before the
scan began, and a move freezes the region first); a split cuts the store the
scan is reading, so every split bumps a generation the scan checks after each
chunk: it then ends its batch early with a resume key (or starts again).

In *placement mode* (cluster mode with ZooKeeper, `kivi.routing`) a node serves
only the regions it was given: a request for keys it does not hold gets
`WrongRegion`, one for a frozen (moving) region `RegionMoving`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from functools import partial
from itertools import groupby, repeat
from operator import attrgetter, itemgetter
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InternalError
from . import checkpoint as ckpt
from . import filters
from .agg import PartialAgg, merge_partials
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
    LatestCommit,
    LatestCommitReply,
    NodeStatus,
    NodeStatusReply,
    RegionData,
    Row,
    Scan,
    ScanReply,
    SplitRegion,
)
from .bulkgc import paused
from .columnar import Snapshot
from .columnar.aggregate import Unsafe, partial_aggregate, visible
from .columnar.build import snapshots as build_snapshots
from .columnar.pace import begin, pace, touch
from .columnar.warm import Warmup
from .keycodec import successor
from .mvcc import VersionStore
from .region import Region, SpaceRegions
from .routing import (
    ExportChunk,
    Fenced,
    FreezeRegion,
    MiddleKey,
    OpenRegion,
    RecoverRegion,
    RegionMoving,
    RegionSizes,
    StaleEpoch,
    UnfreezeRegion,
    WrongRegion,
)
from .storesample import take
from .wire import packb

MIN_CHUNK = 512
FEW_SLACK = 8  # keys read beyond what an unfiltered scan wants, for tombstones in its way
MAX_CHUNK = 8192
BULK_APPLY = 4096  # bulk-written keys of a commit that make its apply a bulk batch (bulkgc)
_space_of = attrgetter("space")
_key_of = attrgetter("key")
_row_of = attrgetter("row")
_ACK = Ack()  # a commit's apply answers this one (frozen) Ack, not a new one each time


SMALL_APPLY = 256  # writes of a commit `_apply_whole` takes without routing them
SAMPLE_TRIES = 3  # cuts of a space's regions a sampler takes before it reads rows instead
COLUMN_CHUNK = 8192  # rows per column batch: Arrow's fixed cost per kernel call fades by then


def projector(projection: tuple[int, ...] | None) -> Callable[[Row], Row] | None:
    """Returns a function picking the projected columns of a row as a tuple (None: all)."""
    if projection is None:
        return None
    if len(projection) == 1:
        j = projection[0]
        return lambda r: (r[j],)
    if not projection:
        return lambda r: ()
    return itemgetter(*projection)


class KiviNode:
    """One storage node: regions of spaces, MVCC versions, pushed-down scans."""

    def __init__(
        self, data_dir: str | Path | None = None, node_id: str = "n0", placement: bool = False
    ) -> None:
        self.node_id = node_id
        # Placement mode: no region is made on demand; other keys get WrongRegion.
        self.placement = placement
        self._frozen: dict[tuple[int, bytes], bytes | None] = {}  # (space, lo) -> hi, moving
        self._reads_upto: dict[tuple[int, bytes], int] = {}  # frozen, but reads <= ts served
        self._recovering: set[tuple[int, bytes]] = set()  # (space, lo): applies only, no reads
        self._gen = 0  # bumped by every split (see the module docstring)
        self.mm_epoch = 0  # the newest MasterMind term seen: older ones' commands are refused
        self._lock = threading.RLock()
        # Serialises checkpoints with the changes of placement (split, import, drop) so that
        # a checkpoint never writes the file of a region that was just dropped.
        self._ckpt_lock = threading.Lock()
        self._spaces: dict[int, SpaceRegions] = {}
        self._dir = ckpt.kivi_dir(data_dir) if data_dir is not None else None
        # the spaces that had a columnar copy before a restart, built again in the
        # background after recovery (`warm_columnar`, `kivi.columnar.warm`)
        self._warm = Warmup(self._dir)
        if self._dir is not None:
            datas = ckpt.load_all(self._dir)
            complete = ckpt.read_manifest(self._dir)
            if complete is None and not datas:
                ckpt.write_manifest(self._dir, 0)  # a new node: nothing is checkpointed yet
            for data in datas:
                region = Region.from_data(data)
                # NB: a file may be newer than the last complete checkpoint (a crash in the
                # middle of one), and regions created since have no file: the manifest says
                # where the redo log must be replayed from. (No manifest and files: a data
                # dir from before manifests; its files are all there is to go by.)
                if complete is not None:
                    region.checkpoint_ts = min(region.checkpoint_ts, complete)
                self._regions_of(data.space).add(region)

    # --- bookkeeping --------------------------------------------------------------------------

    @property
    def checkpoint_ts(self) -> int:
        """The ts up to which every region is in a checkpoint: replay redo records after it."""
        with self._lock:
            tss = [r.checkpoint_ts for s in self._spaces.values() for r in s.regions]
        return min(tss, default=0)

    def close(self) -> None:
        """Nothing to let go of: the node writes its files whole, at checkpoints, and
        holds no connection or thread (`KiviNodeAPI.close`)."""

    def status(self) -> NodeStatusReply:
        """Describes the node: id, checkpoint ts and regions."""
        regions = self.regions()
        return NodeStatusReply(
            self.node_id,
            self.checkpoint_ts,
            [(r.space, r.lo, r.hi, len(r.store)) for r in regions],
        )

    def regions(self) -> list[Region]:
        """Returns the regions this node holds, by space and key."""
        with self._lock:
            return [r for s in sorted(self._spaces) for r in self._spaces[s].regions]

    def _regions_of(self, space: int) -> SpaceRegions:
        sr = self._spaces.get(space)
        if sr is None:
            sr = self._spaces[space] = SpaceRegions()
        return sr

    def _not_here(self, space: int) -> Exception:
        if self.placement:
            return WrongRegion(f"KiVi node {self.node_id} does not hold that part of space {space}")
        return InternalError(f"KiVi node {self.node_id} holds no region of space {space} for key")

    def _check_frozen(self, r: Region, read: bool = False, ts: int | None = None) -> None:
        if self._frozen and (r.space, r.lo) in self._frozen and (
                ts is None or ts > self._reads_upto.get((r.space, r.lo), 0)):
            raise RegionMoving(f"region of space {r.space} on {self.node_id} is moving")
        if read and self._recovering and (r.space, r.lo) in self._recovering:
            raise RegionMoving(f"region of space {r.space} on {self.node_id} is moving "
                               "(recovering)")

    def _region_for_write(self, space: int, key: bytes) -> Region:
        sr = self._spaces.get(space)
        if sr is None or not sr.regions:
            if self.placement:
                raise self._not_here(space)
            sr = self._regions_of(space)
            sr.add(Region(space))
        r = sr.find(key)
        if r is None:
            raise self._not_here(space)
        self._check_frozen(r)
        return r

    def _region_for_read(self, space: int, key: bytes, ts: int | None = None) -> Region | None:
        sr = self._spaces.get(space)
        if sr is None or not sr.regions:
            if self.placement:
                raise self._not_here(space)
            return None  # a space never written: every key reads as missing
        r = sr.find(key)
        if r is None:
            raise self._not_here(space)
        self._check_frozen(r, read=True, ts=ts)
        return r

    def _covering(self, space: int, lo: bytes | None, hi: bytes | None,
                  ts: int | None = None) -> list[Region]:
        """The regions overlapping [lo, hi); in placement mode they must tile it, unfrozen."""
        sr = self._spaces.get(space)
        regions = sr.overlapping(lo, hi) if sr is not None else []
        if not self.placement:
            return regions
        at = b"" if lo is None else lo
        for r in regions:
            if r.lo > at:
                break
            self._check_frozen(r, read=True, ts=ts)
            if r.hi is None:
                return regions
            at = r.hi
        else:
            if hi is not None and at >= hi:
                return regions
        raise self._not_here(space)

    # --- dispatcher ---------------------------------------------------------------------------

    def handle(self, request: Any) -> Any:
        """Runs one request and returns its reply."""
        match request:
            case Fenced():
                self.fence_epoch(request.epoch, request.msg)
                return self.handle(request.msg)
            case Scan():
                return self.scan(request)
            case Get():
                return self.get(request)
            case Apply():
                return self.apply(request)
            case LatestCommit():
                return self.latest_commit(request)
            case DropSpace():
                return self.drop_space(request)
            case Collect():
                return self.collect(request)
            case Checkpoint():
                return self.checkpoint(request)
            case SplitRegion():
                return self.split_region(request)
            case ExportRegion():
                return self.export_region(request)
            case ExportChunk():
                return self.export_chunk(request)
            case ImportRegion():
                return self.import_region(request)
            case DropRegion():
                return self.drop_region(request)
            case NodeStatus():
                return self.status()
            case OpenRegion():
                return self.open_region(request)
            case FreezeRegion():
                return self.freeze_region(request)
            case UnfreezeRegion():
                with self._lock:
                    self._frozen.pop((request.space, request.lo), None)
                    self._reads_upto.pop((request.space, request.lo), None)
                    self._recovering.discard((request.space, request.lo))
                return Ack()
            case RecoverRegion():
                self.import_region(ImportRegion(request.region), recovering=True)
                return Ack()
            case RegionSizes():
                return self.region_sizes()
            case MiddleKey():
                return self.middle_key(request)
        raise InternalError(f"KiVi node cannot handle {type(request).__name__}")

    def fence_epoch(self, epoch: int, command: Any = None) -> None:
        """Learns MasterMind term `epoch`; refuses `command` (StaleEpoch) if a newer term
        is known (`routing.Fenced`). Without a command (ZooKeeper's epoch znode), only learns."""
        with self._lock:
            if epoch < self.mm_epoch:
                if command is None:
                    return
                raise StaleEpoch(
                    f"KiVi node {self.node_id} refuses {type(command).__name__} from MasterMind "
                    f"term {epoch}: term {self.mm_epoch} has begun",
                    hint="The MasterMind that sent it no longer leads.")
            self.mm_epoch = epoch

    # --- reads --------------------------------------------------------------------------------

    def get(self, req: Get) -> GetReply:
        """Reads the visible row of each key at req.ts."""
        return GetReply(self.get_rows(req.space, req.ts, req.keys))

    def get_rows(self, space: int, ts: int, keys: list[bytes]) -> list[Row | None]:
        """`get` without the request and reply objects (a point read's hot path)."""
        touch()  # OLTP runs: analytic scans keep to their share (`columnar.pace`)
        out: list[Row | None] = []
        with self._lock:
            sr = self._spaces.get(space)
            if sr is not None and not self._frozen and not self._recovering:
                only = sr.store  # NB: `whole`'s store (`SpaceRegions.store`), no call
                if only is not None:
                    # NB: nothing frozen or recovering: what `_region_for_read` would find
                    # and let through, without its calls per key
                    if len(keys) == 1:  # a point read (an UPDATE's by primary key)
                        return [only.read(keys[0], ts)]
                    return list(map(only.read, keys, repeat(ts)))
            for key in keys:
                r = self._region_for_read(space, key, ts)
                out.append(None if r is None else r.store.read(key, ts))
        return out

    def latest_commit(self, req: LatestCommit) -> LatestCommitReply:
        """Returns the newest commit ts of each key (with `req.ts`: of the version seen at it)."""
        out: list[int | None] = []
        ts = req.ts
        with self._lock:
            for key in req.keys:
                if ts is None:
                    r = self._region_for_read(req.space, key)
                    out.append(None if r is None else r.store.latest_commit(key))
                else:
                    r = self._region_for_read(req.space, key, ts)
                    out.append(None if r is None else r.store.commit_at(key, ts))
        return LatestCommitReply(out)

    def scan(self, req: Scan) -> ScanReply:
        """Scans [lo, hi) at req.ts with the pushed-down filter, projection, limit or aggregate."""
        with self._lock:
            regions = self._covering(req.space, req.lo, req.hi, req.ts)
            gen = self._gen
        if req.reverse:
            regions.reverse()
        if req.aggregate is not None:
            reply = self._aggregate(req, regions)
            return reply if self._gen == gen else self.scan(req)  # a split cut a region read
        want = req.batch_size if req.limit is None else min(req.batch_size, req.limit)
        if want <= 0 or not regions:
            return ScanReply([], None)
        reverse = req.reverse
        chunk_n = min(max(want, MIN_CHUNK), MAX_CHUNK)
        select = filters.positions(req.filter) if req.filter is not None else None
        # Without keys to return, the plain filter is cheaper than selecting positions.
        keep = filters.rows(req.filter) if req.filter is not None and not req.with_keys else None
        params = req.params
        proj = projector(req.projection)
        # NB: without a filter every visible key counts: a scan that wants a few rows (MIN
        # of a key, ORDER BY key LIMIT 1) reads a few keys first, more only past tombstones
        first = min(want + FEW_SLACK, chunk_n) if select is None else chunk_n
        out: list[Row] = []
        last = len(regions) - 1
        covered: bytes | None = None  # the scan has read every key up to this one
        for idx, region in enumerate(regions):
            for keys, rows, has_more in self._chunks(region, req, reverse, first, chunk_n):
                if self._gen != gen:  # a split may have cut this chunk short: stop before it
                    if not out:
                        return self.scan(req)
                    assert covered is not None
                    return ScanReply(out, covered if reverse else successor(covered))
                raw_rows = rows
                if keep is not None:
                    rows = keep(rows, params)
                elif select is not None:
                    pos = select(rows, params)
                    if len(pos) != len(rows):
                        keys = [keys[i] for i in pos]
                        rows = [rows[i] for i in pos]
                room = want - len(out)
                full = len(rows) >= room
                more = len(rows) > room or has_more or idx < last
                if full:
                    rows = rows[:room]
                if proj is not None:
                    rows = list(map(proj, rows))
                if req.with_keys:
                    out.extend([(k, *r) for k, r in zip(keys, rows, strict=False)])
                else:
                    out.extend(rows)
                if keys:
                    covered = keys[-1]
                if full:
                    if not more or (req.limit is not None and len(out) >= req.limit):
                        return ScanReply(out, None)
                    if keep is not None:
                        assert select is not None
                        last_key = keys[select(raw_rows, params)[room - 1]]
                    else:
                        last_key = keys[room - 1]
                    return ScanReply(out, last_key if reverse else successor(last_key))
        return ScanReply(out, None)

    def scan_columns(self, space: int, lo: bytes | None, hi: bytes | None, ts: int,
                     width: int, n: int = COLUMN_CHUNK) -> Iterator[tuple[list[Any], int]]:
        """A forward scan of [lo, hi) at ts as column batches of `width` columns: (columns,
        row count), in key order (`VersionStore.column_chunks`), for COPY TO and results
        that encode whole columns. A region split during the scan restarts it after the
        last key a yielded batch covered, as `scan` resumes."""
        while True:
            with self._lock:
                regions = self._covering(space, lo, hi, ts)
                gen = self._gen
            for region in regions:
                clipped = region.clip(lo, hi)
                if clipped is None:
                    continue
                for cols, count, last in region.store.column_chunks(*clipped, ts, width, n,
                                                                    self._lock):
                    if self._gen != gen:
                        break
                    if count:
                        yield cols, count
                    if last is not None:
                        lo = successor(last)
                else:
                    continue
                break  # a split cut the region: cover again from lo
            else:
                return

    def sample(self, space: int, ts: int, size: int, seed: int
               ) -> tuple[int, list[Row]] | None:
        """(the space's visible rows at ts, a uniform sample of `size` of them), read by
        position (`kivi.storesample`: the count exact, only the sample decoded), for
        ANALYZE. None when `size` covers them all (the caller reads them whole, in key
        order) or when the regions kept changing under the sampler (splits, freezes)."""
        for _ in range(SAMPLE_TRIES):
            with self._lock:
                regions = self._covering(space, None, None, ts)
                gen = self._gen
            cuts = [region.store.sample_cut(ts, self._lock) for region in regions]
            live = [c for c in cuts if c is not None]
            if len(live) < len(cuts) or self._gen != gen:
                continue
            n = sum(c.n for c in live)
            if n <= size:
                return None
            picks = np.sort(np.random.default_rng(seed).choice(n, size, replace=False))
            out = take(live, picks, self._lock)
            if out is not None and self._gen == gen:
                return n, out
        return None

    def _chunks(
        self, region: Region, req: Scan, reverse: bool, n: int, grow_to: int
    ) -> Iterator[tuple[list[bytes], list[Row], bool]]:
        """Yields a region's visible (keys, rows) within the request's range, chunk by chunk:
        n keys first, growing to `grow_to` (`VersionStore.chunks`).

        The flag says whether more chunks follow. The lock is held per chunk only.
        """
        clipped = region.clip(req.lo, req.hi)
        if clipped is not None:
            yield from region.store.chunks(*clipped, req.ts, reverse, n, self._lock,
                                           grow_to=grow_to)

    def _aggregate(self, req: Scan, regions: list[Region]) -> ScanReply:
        assert req.aggregate is not None
        spec = req.aggregate
        agg = PartialAgg(spec)
        begin()  # NB: its share is counted from here, not from an earlier statement's work
        keep = filters.rows(req.filter) if req.filter is not None else None
        vector = filters.mask(req.filter) if req.filter is not None else None
        partials: list[Row] = []
        for region in regions:
            clipped = region.clip(req.lo, req.hi)
            if clipped is None:
                continue
            if clipped == (region.lo, region.hi) and (keep is None or vector is not None) \
                    and not self._building(region.space, region.store):
                # A whole region: its columnar copy, the filter as numpy masks (the kernels read
                # the packs unlocked: versions <= ts never change; a first build runs unlocked;
                # one being built, or waiting to be after a restart, is not waited for).
                snap = build_snapshots(self._lock, partial(list, (region.store,)), req.ts)[0]
                try:
                    if snap is not None:
                        sel = visible(snap) if vector is None else \
                            filters.selected(snap, vector, req.params)
                        partials += partial_aggregate(sel, spec.group_by, spec.aggs)
                        continue
                except Unsafe:
                    pass  # NaN keys, overflow risk, object columns: fold the rows instead
            for _, rows, _ in region.store.chunks(
                *clipped, req.ts, False, MAX_CHUNK, self._lock, rows_only=True
            ):
                # NB: folding rows is the slow way (a copy being built, a filter with no
                # vector form): it keeps to the analytic share as the kernels do, between
                # chunks, outside the lock (it held the loop's thread a whole region long)
                pace()
                agg.add(keep(rows, req.params) if keep is not None else rows)
        if not partials:
            return ScanReply(agg.rows(), None)
        return ScanReply(merge_partials(spec, partials + (agg.rows() if agg.groups else [])),
                         None)

    def columnar(self, space: int, ts: int, wait: bool = True) -> list[Snapshot] | None:
        """The rows of a whole space visible at ts, as one columnar snapshot per region
        (None: a snapshot below the GC watermark, which only the row path answers).

        Only the copying of pack lists and the tail happens under the lock; the SQL
        layer's vectorized operators read the packs afterwards (see `kivi.columnar`). A
        region's first read builds its copy outside the lock (`kivi.columnar.build`).
        Without `wait`, None too while a copy of the space is being built or waits for
        its build after a restart (`warm_columnar`): the caller would rather read rows.
        """

        def stores() -> list[Any]:
            sr = self._spaces.get(space)
            return [r.store for r in sr.regions] if sr is not None else []

        if not wait:
            with self._lock:
                if any(self._building(space, s) for s in stores()) or space in self._warm.waiting:
                    self._warm.asked(space)
                    return None
        snaps = build_snapshots(self._lock, stores, ts)
        if None in snaps:
            return None
        if snaps:
            self._warm.built(space)  # the marker names it: a restart builds its copy again
        return snaps  # type: ignore[return-value]  # no None

    def _building(self, space: int, store: Any) -> bool:
        """Whether a region's copy is being built, or waits for its build after a restart."""
        return space in self._warm.waiting or store.columnar_building

    def warm_columnar(self, ts: Callable[[], int], stop: Callable[[], bool]) -> int:
        """Builds the copies of the spaces that had one before the restart, one space at a
        time (`kivi.columnar.warm`), at the snapshot `ts()` gives; stops early once
        `stop()`. Returns how many spaces it built."""
        done = 0
        try:
            while (space := self._warm.next()) is not None and not stop():
                if self.columnar(space, ts()) is not None:
                    done += 1
                self._warm.waiting.discard(space)  # `auto` reads its copy from now on
        except BaseException:
            self._warm.waiting.clear()  # not built: a first query builds them, as before
            raise
        return done

    # --- writes -------------------------------------------------------------------------------

    def apply(self, req: Apply) -> Ack:
        """Applies a committed write set at req.ts (idempotent).

        A commit's few writes (an OLTP commit's) go to `_apply_whole` from here, under one
        hold of the lock, else to `_route_writes`. A bulk batch's (a COPY's) two version
        tuples per row are made with the cyclic collector paused, and frozen, not walked
        (`bulkgc`)."""
        if req.spaces:
            if sum(len(sw.keys) for sw in req.spaces) >= BULK_APPLY:
                with paused():
                    return self._apply(req)
        elif len(req.writes) <= SMALL_APPLY:
            touch()  # as `get_rows`: once a commit, not once per region
            with self._lock:
                if not self._frozen and self._apply_whole(req):
                    return _ACK
                return self._route_writes(req)
        return self._apply(req)

    def _apply(self, req: Apply) -> Ack:
        touch()  # as `get_rows`: once a commit, not once per region
        with self._lock:
            return self._route_writes(req)

    def _route_writes(self, req: Apply) -> Ack:
        """Applies req's writes region by region (`_route`). Holds the lock."""
        per_region: dict[int, tuple[Region, list[bytes], list[Row | None]]] = {}
        for space, group in groupby(req.writes, _space_of):
            ws = list(group)
            self._route(space, list(map(_key_of, ws)), list(map(_row_of, ws)), per_region)
        for sw in req.spaces:
            self._route(sw.space, sw.keys, sw.rows, per_region)
        for r, keys, rows in per_region.values():
            store = r.store
            if len(keys) > store.cache_limit:
                store.apply_lists(req.ts, keys, rows)
            else:  # NB: what `apply_lists` does with so few keys, without its call
                store.apply(req.ts, list(zip(keys, rows, strict=True)))
        return Ack()

    def _apply_whole(self, req: Apply) -> bool:
        """A commit's few writes, when each of their spaces is held whole by one region (an
        OLTP commit, pgbench's four rows): one `VersionStore.apply` per run of a space's
        writes, with no routing lists. False, with nothing applied, when some space needs
        `_route` (several regions, none yet).

        The runs are cut in one pass over the writes, each (key, row) pair appended to its
        run's list: for a row or a few per space that is about half the time of `groupby`
        and a `list(map(...))` per run (their objects cost more than the pairs)."""
        spaces = self._spaces
        todo: list[tuple[VersionStore, list[tuple[bytes, Row | None]]]] = []
        last = None
        pairs: list[tuple[bytes, Row | None]] = []
        for space, key, row in req.writes:
            if space != last:
                sr = spaces.get(space)
                if sr is None or (store := sr.store) is None:  # NB: `whole`'s store, no call
                    return False
                pairs = [(key, row)]
                todo.append((store, pairs))
                last = space
            else:
                pairs.append((key, row))
        ts = req.ts
        for store, pairs in todo:
            store.apply(ts, pairs)
        return True

    def _route(
        self,
        space: int,
        keys: list[bytes],
        rows: list[Row | None],
        per_region: dict[int, tuple[Region, list[bytes], list[Row | None]]],
    ) -> None:
        """Sorts one space's writes into per_region by the region holding each key."""
        sr = self._spaces.get(space)
        if sr is None or not sr.regions:  # a new space: its first region covers it all
            if self.placement:
                raise self._not_here(space)
            sr = self._regions_of(space)
            sr.add(Region(space))
        r = sr.whole()
        if r is not None:  # the space's only region: no lookup per key
            if self._frozen:  # NB: `_check_frozen`'s first test, without its call
                self._check_frozen(r)
            entry = per_region.get(id(r))
            if entry is None:
                per_region[id(r)] = (r, keys, rows)
            else:  # NB: new lists: `keys` and `rows` may be a caller's SpaceWrites lists
                per_region[id(r)] = (r, entry[1] + keys, entry[2] + rows)
            return
        for key, row in zip(keys, rows, strict=True):
            r = self._region_for_write(space, key)
            entry = per_region.get(id(r))
            if entry is None:
                per_region[id(r)] = (r, [key], [row])
            else:
                entry[1].append(key)
                entry[2].append(row)

    def drop_space(self, req: DropSpace) -> Ack:
        """Forgets every region of a space, in memory and on disk."""
        with self._ckpt_lock:
            with self._lock:
                self._spaces.pop(req.space, None)
            if self._dir is not None:
                ckpt.remove_space(self._dir, req.space)
        return Ack()

    def collect(self, req: Collect) -> Ack:
        """Garbage-collects old versions in every region; replies with how many were dropped."""
        dropped = 0
        for region in self.regions():
            # the store takes the lock a chunk at a time (`VersionStore.collect`)
            dropped += region.store.collect(req.low_water, self._lock)
        return Ack(dropped)

    def checkpoint(self, req: Checkpoint) -> Ack:
        """Writes every region as of req.ts to the data dir (a no-op without one)."""
        if self._dir is None:
            return Ack(None)
        with self._ckpt_lock:
            self._checkpoint(self._dir, req.ts)
        return Ack(req.ts)

    def _checkpoint(self, directory: Path, ts: int) -> None:
        regions = self.regions()

        def each() -> Iterator[ckpt.Windows]:  # one region at a time, a window at a time
            for region in regions:
                with self._lock:
                    space, lo, hi = region.space, region.lo, region.hi
                    same = 0 < region.checkpoint_ts <= ts and region.store.newest_ts <= region.checkpoint_ts
                    windows = None if same else region.store.export_windows(ts)  # decoded later
                if windows is None and not ckpt.windowed(ckpt.region_file(directory, space, lo)):
                    with self._lock:
                        windows = region.store.export_windows(ts)
                yield ckpt.Windows(space, lo, hi, ts, windows() if windows else None)
        ckpt.write_all(directory, each())
        ckpt.write_manifest(directory, ts)
        self._warm.checkpoint({r.space for r in regions if r.store.has_copy})
        # Only once the files are durable may the redo log before ts be skipped.
        with self._lock:
            for region in regions:
                region.checkpoint_ts = ts  # NB: not max(): the files now hold the state as of ts

    # --- placement ----------------------------------------------------------------------------

    def split_region(self, req: SplitRegion) -> Ack:
        """Splits the region holding req.key at that key."""
        with self._ckpt_lock:
            with self._lock:
                r = self._region_for_write(req.space, req.key)
                upper = r.split(req.key)
                self._spaces[req.space].add(upper)
                self._gen += 1
                halves = [r.export(), upper.export()] if r.checkpoint_ts else []
            # NB: the parent's checkpoint file still covers both halves; rewrite it as two files
            # (with every version held now: versions newer than checkpoint_ts are harmless, as
            # replay is idempotent), or a restart would resurrect a half that moved away.
            if halves and self._dir is not None:
                for d in halves:
                    ckpt.write_region(self._dir, d)
                ckpt.fsync_dir(self._dir)
        return Ack()

    def export_region(self, req: ExportRegion) -> RegionData:
        """Returns a copy of one region's versions."""
        with self._lock:
            return self._export_source(req.space, req.lo).export()

    def export_chunk(self, req: ExportChunk) -> RegionData:
        """Returns the next `req.limit` keys of a region after `req.after`, with their versions
        (`routing.ExportChunk`). The lock is held only to cut the chunk out of the store
        (`VersionStore.export_range`); a move's live copy catches up what changed between
        chunks from the log."""
        with self._lock:
            r = self._export_source(req.space, req.lo)
            keys, chains = r.store.export_range(req.after, req.limit)
            hi, checkpoint_ts = r.hi, r.checkpoint_ts
        return RegionData(req.space, req.lo, hi, keys, chains, checkpoint_ts)

    def _export_source(self, space: int, lo: bytes) -> Region:
        """The region of `space` starting at `lo`, frozen or not (holds the lock)."""
        sr = self._spaces.get(space)
        r = sr.find(lo) if sr is not None else None  # NB: frozen ones too (a move)
        if r is None and not self.placement:
            r = self._region_for_write(space, lo)  # never written: made empty
        if r is None or r.lo != lo:
            raise InternalError(f"KiVi node {self.node_id} has no region of {space} there")
        return r

    def import_region(self, req: ImportRegion, recovering: bool = False) -> Ack:
        """Installs a region moved from another node (again: replaces the copy it holds).

        With a data dir, the region's file is written at once: the sender drops its own
        file, and the loggers may be trimmed below the sender's checkpoint, so until this
        node's next checkpoint the file is the only durable copy of the older versions.
        """
        region = Region.from_data(req.region)
        if self._dir is None:
            region.checkpoint_ts = 0  # not in this node's checkpoints
        with self._ckpt_lock:
            with self._lock:
                sr = self._regions_of(region.space)
                held = sr.find(region.lo)
                if held is not None and held.lo == region.lo and held.hi == region.hi:
                    sr.remove(region.lo)  # a retried import
                sr.add(region)
                self._frozen.pop((region.space, region.lo), None)
                if recovering:
                    self._recovering.add((region.space, region.lo))
            if self._dir is not None:
                ckpt.write_region(self._dir, req.region)
                ckpt.fsync_dir(self._dir)
        return Ack()

    def open_region(self, req: OpenRegion) -> Ack:
        """Serves [lo, hi) of a space: empty regions fill the parts of it not held yet."""
        with self._ckpt_lock, self._lock:
            sr = self._regions_of(req.space)
            at: bytes | None = req.lo
            for r in sr.overlapping(req.lo, req.hi):
                assert at is not None
                if r.lo > at:
                    sr.add(Region(req.space, at, r.lo))
                at = r.hi
                if at is None:
                    break
            if at is not None and (req.hi is None or at < req.hi):
                sr.add(Region(req.space, at, req.hi))
        return Ack()

    def freeze_region(self, req: FreezeRegion) -> Ack:
        """Freezes exactly [lo, hi) (see `routing.FreezeRegion`); WrongRegion if not held so."""
        with self._lock:
            sr = self._spaces.get(req.space)
            r = sr.find(req.lo) if sr is not None else None
            if r is None or r.lo != req.lo or r.hi != req.hi:
                raise WrongRegion(f"KiVi node {self.node_id} holds no such region of space "
                                  f"{req.space}")
            self._frozen[(req.space, req.lo)] = req.hi
            self._reads_upto[(req.space, req.lo)] = req.reads_upto
        return Ack()

    def region_sizes(self) -> list[tuple[int, bytes, bytes | None, int, int]]:
        """(space, lo, hi, keys, estimated bytes) of every region held.

        Bytes are the keys times the average size of up to 64 sampled rows, packed.
        """
        out = []
        for r in self.regions():
            with self._lock:
                n = len(r.store)
                keys, rows, _ = r.store.chunk(r.lo, r.hi, 1 << 62, False, 64)
            sample = sum(len(k) + len(packb(row)) for k, row in zip(keys, rows, strict=True))
            out.append((r.space, r.lo, r.hi, n, n * sample // len(keys) if keys else 0))
        return out

    def middle_key(self, req: MiddleKey) -> bytes | None:
        """A key near the middle of a region (where an automatic split cuts it)."""
        with self._lock:
            sr = self._spaces.get(req.space)
            r = sr.find(req.lo) if sr is not None else None
            if r is None:
                raise self._not_here(req.space)
            mid = r.store.middle_key() if len(r.store) >= 2 else None
        return mid if mid != r.lo else None

    def drop_region(self, req: DropRegion) -> Ack:
        """Forgets one region (it moved to another node)."""
        with self._ckpt_lock:
            with self._lock:
                sr = self._spaces.get(req.space)
                if sr is not None:
                    sr.remove(req.lo)
                self._frozen.pop((req.space, req.lo), None)
                self._reads_upto.pop((req.space, req.lo), None)
                self._recovering.discard((req.space, req.lo))
            if self._dir is not None:
                ckpt.remove_region(self._dir, req.space, req.lo)
        return Ack()


__all__ = ["KiviNode", "projector"]
