"""The multi-version store of one region: every key keeps its committed versions by commit ts.

A version is `(ts, row)`; `row=None` is a tombstone (a delete). A read at
snapshot `ts` sees, for each key, the newest version with commit ts <= ts.
Take three keys written at ts 2..9 (`x` a tombstone, `.` nothing):

    ts
    9              c9
    7    a7   x
    5         b5
    2    a2        c2
        ---- ---- ----
          a    b    c

- a read at 6 sees a=a2, b=b5, c=c2; at 8 it sees a=a7, c=c2 (b is deleted);
- `latest_commit(b)` is 7 (the tombstone counts: it is a write);
- `collect(low_water=8)` keeps, for each key, the newest version <= 8 and
  everything newer: a7, c9 and c2 stay; a2 goes (hidden from every snapshot
  >= 8 by a7); b5 goes, and so does b's tombstone, since a missing key reads as
  a deleted one; b disappears from the store.

Applying the same (ts, key) twice stores one version: replaying the redo log
after a checkpoint is harmless.

Layout. Version chains are tuples of `(ts, row)`, newest first: immutable,
so the cyclic GC soon stops tracking them (a million list chains would make
every full collection walk a million lists). Keys live in
an ordered *base* (a sorted list of keys and a parallel list of chains: scans
are slices found by bisection) and a small *write cache* (a SortedDict) for
keys the base does not have yet. A new version of a base key is added to its
chain (a new tuple in the same slot); a new key goes to the cache, which is merged into the base
once it outgrows both `cache_limit` and 1/64 of the base (or on `compact`,
which checkpoints call), unless it lies above every stored key while the cache is
empty: then it is appended to the base (a table's row ids, a serial key). Reads
merge both, touching only the part of the cache a chunk covers. The store is
not thread-safe: its owner (the node) holds a lock around each call.

Bulk paths. A large commit (a COPY batch) skips the cache: keys above every
stored key extend the base in place (`apply_lists` takes a bulk write set's
key and row lists as they are, with no pair per write), others are merged
into it in one pass (`_apply_bulk`). Aggregates read a chunk's visible rows
with C-level passes when no version in it is newer than the snapshot
(`_visible_rows`), or, for a whole region, the versioned columnar copy
(`columnar`, `kivi.columnar`), which every write keeps fresh once a read has
built it. A checkpoint copies the base's two lists (`export`).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from functools import partial
from itertools import compress, islice, repeat
from operator import is_, is_not, itemgetter, not_
from typing import Any

from sortedcontainers import SortedDict

from .ascending import ascends
from .coldrows import ColdRows, Merged, Span, decode, decode_columns
from .coldrows import merge as _merge
from .columnar import ColumnarCopy, Snapshot
from .columnar.build import PendingBuild
from .columnar.pace import background
from .freeze import Chain, Freezing, Row
from .storesample import Sampling
from .storesample import visible as _visible

ChunkOut = tuple[list[bytes], list[Row], bytes | None]  # `chunk`: keys, rows, where to go on

CACHE_LIMIT = 4096
# Point reads bisect the base's sorted keys: ~20 steps at a million keys, each a cache miss
# on a key object elsewhere in memory (~7 % of pgbench select-only's server CPU at scale
# 10). A base read by key often gets a hash index beside it (`_chain`): key -> position,
# begun once its point reads since it was laid out pass 1/64 of its size, and filled
# POINT_INDEX_STEP keys per read (a few ms each, no long stall) while the base stays the
# same list object (a merge, a freeze or a removal lays out a new one, which drops the index;
# appends extend it). A position is only a hint, used when the key is still there: a stale
# index is slower, never wrong. Cost: ~70 bytes per indexed key (~70 MB per million).
POINT_INDEX_MIN = 1 << 14  # smaller bases bisect within the CPU cache
POINT_INDEX_STEP = 1 << 15
COLLECT_CHUNK = 256  # keys per hold of the node lock in `collect` (1-2 ms of CPU)
# `collect` moves settled base rows into cold segments (`kivi.coldrows`, `kivi.freeze`): a
# 10M-row table's row store 3.4 GB -> 1.4 GB RSS. `cumulo serve` turns it on (cli; off with
# `--no-cold-rows`); off here, for stores used in process (tests, tools).
FREEZE_ROWS = False


def _add_version(chain: Chain, ts: int, row: Row | None) -> Chain:
    """Returns the chain with (ts, row) inserted newest first, replacing a version at ts."""
    if chain[0][0] < ts:
        return ((ts, row), *chain)
    for i, (vts, _) in enumerate(chain):
        if vts == ts:
            return (*chain[:i], (ts, row), *chain[i + 1 :])
        if vts < ts:
            return (*chain[:i], (ts, row), *chain[i:])
    return (*chain, (ts, row))


class VersionStore(Freezing, Sampling):
    """Committed versions of the keys of one region, with a write cache over a sorted base."""

    __slots__ = ("_gc", "_collecting", "cache_limit", "_max_ts", "_col", "_pos", "_pos_keys",
                 "_pos_n", "_pos_reads")  # and `Freezing`'s

    def __init__(self, cache_limit: int = CACHE_LIMIT) -> None:
        self._keys: list[bytes] = []
        self._chains: list[Chain] = []
        self._cache: SortedDict = SortedDict()
        # Keys with more than one version or a tombstone: the only ones `collect` can shrink.
        self._gc: set[bytes] = set()
        self._collecting: list[bytes] = []  # `_gc`'s keys a running `collect` took from it
        self.cache_limit = cache_limit
        self._max_ts = 0  # bounds every commit ts the store holds
        # The versioned columnar copy (`kivi.columnar`), built by the first `columnar` read
        # and kept up to date by every write from then on.
        self._col: ColumnarCopy | PendingBuild | None = None  # pending: being built unlocked
        self._low_water = 0  # the highest `collect` watermark: no snapshot below it is valid
        # Cold rows (`kivi.coldrows`): keys with one live version <= the watermark, encoded;
        # disjoint from the base and the cache (a write to a cold key moves it to the cache)
        self._cold = ColdRows()
        self._epoch = 0  # bumped when base positions move in place (a split): see `freeze`
        self._dirty: list[int] | None = None  # while a freeze runs: base positions written
        self._aged = 0
        # the point-read index (see POINT_INDEX_MIN): key -> base position, for the base list
        # `_pos_keys` (None: no index), its first `_pos_n` positions; point reads since
        self._pos: dict[bytes, int] = {}
        self._pos_keys: list[bytes] | None = None
        self._pos_n = 0
        self._pos_reads = 0

    def __len__(self) -> int:
        """Returns the number of keys that have any version (tombstones included)."""
        return len(self._keys) + len(self._cache) + len(self._cold)

    # --- writes -------------------------------------------------------------------------------

    def apply(self, ts: int, writes: Sequence[tuple[bytes, Row | None]]) -> None:
        """Adds one version per (key, row) at commit ts; reapplying the same writes is a no-op.

        A new key above every stored one (a row id of a table without a primary key, a
        serial key) is appended to the base while the write cache is empty: no SortedDict
        insert and no cold-row lookup (it lies above the cold rows too), and the cache,
        never filled, is never merged. (The node, not the store, tells `columnar.pace`
        that OLTP runs: once per request.)"""
        if ts > self._max_ts:
            self._max_ts = ts
        if self._col is not None:
            writes = writes if isinstance(writes, list) else list(writes)
            self._col.apply(ts, list(map(_head, writes)), list(map(_row_of, writes)))
        if len(writes) > self.cache_limit and isinstance(writes, list):
            writes = self._apply_bulk(ts, writes)
        keys, chains, gc = self._keys, self._chains, self._gc
        pos = self._pos if self._pos_keys is keys else None  # the point index (`_chain`)
        cached = False  # some key went to the write cache (which may then need a merge)
        for key, row in writes:
            if pos is None:
                i = bisect_left(keys, key)
            else:
                i = pos.get(key, -1)
                if i < 0 or i >= len(keys) or keys[i] != key:
                    if i < 0 and self._pos_n == len(keys):
                        # NB: missed by an index of every base position: not in the base
                        # (above it: its end; else past it, so that neither test below holds)
                        i = len(keys) if not keys or key > keys[-1] else len(keys) + 1
                    else:
                        i = bisect_left(keys, key)
            if i < len(keys) and keys[i] == key:
                chain = chains[i]  # NB: `_add_version`'s usual case (a newer ts) inline
                chains[i] = ((ts, row), *chain) if chain[0][0] < ts else _add_version(chain, ts, row)
                if self._dirty is not None:
                    self._dirty.append(i)
                gc.add(key)
                continue
            cache, cold = self._cache, self._cold
            if i == len(keys) and not cache and (not (segs := cold.segs) or key > segs[-1].last):
                # NB: above `cold.top` (inline: no property call). A freeze running meanwhile
                # copies appended positions at its install
                keys.append(key)
                chains.append(((ts, row),))
                if row is None:
                    gc.add(key)
                continue
            cached = True
            chain = cache.get(key)
            if chain is None:
                # NB: `_warm`, inline (a cold key's first write: once per pgbench
                # TPC-B commit once its accounts were frozen)
                version = cold.kill(key) if cold.live_rows else None
                if version is None:
                    cache[key] = ((ts, row),)
                    if row is None:
                        gc.add(key)
                    continue
                chain = (version,)
            cache[key] = ((ts, row), *chain) if chain[0][0] < ts else _add_version(chain, ts, row)
            gc.add(key)
        # A merge copies the base, so let the cache grow with it: amortised O(1) per key.
        if cached and len(self._cache) > self.cache_limit and len(self._cache) > len(keys) >> 6:
            self.compact()

    def _apply_bulk(
        self, ts: int, writes: list[tuple[bytes, Row | None]]
    ) -> list[tuple[bytes, Row | None]]:
        """Applies a large write set straight into the base; returns what is left for `apply`.

        Bulk loads mostly append keys above every stored one: the base is then
        extended in place, with no per-key bisection or cache insert. A large set
        that lands among stored keys is merged into the base in one pass when it
        is big enough to pay for copying the base (the rule `compact` follows).
        """
        ws = sorted(writes, key=_head)
        new_k = list(map(_head, ws))
        if len(set(new_k)) != len(new_k):
            return writes  # the same key twice in one commit: apply them in order, one by one
        return [] if self._apply_sorted(ts, new_k, list(map(_row_of, ws))) else writes

    def _apply_sorted(self, ts: int, new_k: list[bytes], rows: list[Row | None]) -> bool:
        """`_apply_bulk` of keys that strictly ascend; False (nothing done) when the set is
        too small for the base it lands in, and `apply` must place it key by key.

        Keys above every stored one extend the base. Otherwise the set is merged into a
        copy of the base, run by run: the keys between two neighbouring stored keys go
        over with one slice when no cold segment meets them (a Spark task's slice is one
        such run), and only a key that is stored, or may be cold, takes a step of its own.
        """
        keys, cache = self._keys, self._cache
        top = keys[-1] if keys else None
        if cache:
            ctop = cache.peekitem(-1)[0]
            top = ctop if top is None or ctop > top else top
        ctop = self._cold.top
        if ctop is not None and (top is None or ctop > top):
            top = ctop
        if top is None or new_k[0] > top:
            self._append(ts, new_k, rows)
            return True
        if len(new_k) <= len(keys) >> 6:
            return False
        self.compact()
        keys, chains, gc = self._keys, self._chains, self._gc
        cold = self._cold
        n, m = len(keys), len(new_k)
        i = j = 0
        add_k: list[bytes] = []
        add_c: list[Chain] = []
        while j < m:
            k, row = new_k[j], rows[j]
            i = bisect_left(keys, k, i)
            if i < n and keys[i] == k:
                chains[i] = _add_version(chains[i], ts, row)
                gc.add(k)
                if self._dirty is not None:
                    self._dirty.append(i)
                j += 1
                continue
            end = m if i == n else bisect_left(new_k, keys[i], j)  # new keys below keys[i]
            if end - j > 1 and not (cold and cold.overlaps(k, new_k[end - 1])):
                run = rows[j:end]
                add_k.extend(new_k[j:end])
                add_c.extend(zip(zip(repeat(ts), run)))  # ((ts, row),) each, built in C
                if None in run:
                    gc.update(compress(new_k[j:end], map(is_, run, repeat(None))))
                j = end
                continue
            warm = self._warm(k)
            add_k.append(k)
            if warm is not None:
                add_c.append(_add_version(warm, ts, row))
                gc.add(k)
            else:
                add_c.append(((ts, row),))
                if row is None:
                    gc.add(k)
            j += 1
        if add_k:
            self._keys, self._chains = _merge(keys, chains, add_k, add_c)
        return True

    def apply_lists(self, ts: int, keys: list[bytes], rows: list[Row | None]) -> None:
        """Applies parallel lists of keys and rows at commit ts (a bulk write set's share).

        Keys that ascend (a COPY in key order, a Spark task's slice; `AscendingKeys` say
        so without a pass over them) go into the base with no (key, row) pair built per
        write: appended when they lie above every stored key, else merged run by run
        (`_apply_sorted`); anything else is `apply`.
        """
        if len(keys) > self.cache_limit and ascends(keys):
            above = self._above_all(keys[0])
            if above or len(keys) > len(self._keys) >> 6:  # NB: `_apply_sorted` takes it
                if ts > self._max_ts:
                    self._max_ts = ts
                if self._col is not None:
                    self._col.apply(ts, keys, rows)
                if above:
                    self._append(ts, keys, rows)
                else:
                    self._apply_sorted(ts, keys, rows)
                return
        self.apply(ts, list(zip(keys, rows, strict=True)))

    def _above_all(self, key: bytes) -> bool:
        """Tells whether key is above every key of the base, the cache and the cold rows."""
        if self._keys and key <= self._keys[-1]:
            return False
        ctop = self._cold.top
        if ctop is not None and key <= ctop:
            return False
        return not self._cache or key > self._cache.peekitem(-1)[0]

    def _warm(self, key: bytes) -> Chain | None:
        """Moves a cold key out of the cold rows; returns its chain (None: it is not cold)."""
        cold = self._cold
        version = cold.kill(key) if cold.live_rows else None  # NB: not `if cold`: its __bool__
        return None if version is None else (version,)

    def _append(self, ts: int, keys: list[bytes], rows: list[Row | None]) -> None:
        """Appends distinct ascending keys, above every stored one, with their rows at ts."""
        if self._cache:
            self.compact()
        self._keys.extend(keys)
        self._chains.extend(zip(zip(repeat(ts), rows)))  # ((ts, row),) each, built in C
        if None in rows:
            self._gc.update([k for k, row in zip(keys, rows, strict=True) if row is None])

    def compact(self) -> None:
        """Merges the write cache into the sorted base."""
        if not self._cache:
            return
        ck, cc = list(self._cache.keys()), list(self._cache.values())
        self._cache = SortedDict()
        if not self._keys or ck[0] > self._keys[-1]:
            self._keys.extend(ck)
            self._chains.extend(cc)
            return
        keys, chains = self._keys, self._chains
        out_k: list[bytes] = []
        out_c: list[Chain] = []
        i = j = 0
        nk, nc = len(keys), len(ck)
        while i < nk and j < nc:
            # Copy whole runs of base keys with one slice per run.
            stop = bisect_left(keys, ck[j], i)
            out_k.extend(keys[i:stop])
            out_c.extend(chains[i:stop])
            i = stop
            out_k.append(ck[j])
            out_c.append(cc[j])
            j += 1
        out_k.extend(keys[i:])
        out_c.extend(chains[i:])
        out_k.extend(ck[j:])
        out_c.extend(cc[j:])
        self._keys, self._chains = out_k, out_c

    def drop_all(self) -> None:
        """Removes every version of every key."""
        self._col = None
        self._keys, self._chains = [], []
        self._cache = SortedDict()
        self._gc = set()
        self._cold = ColdRows()
        self._epoch += 1

    # --- reads --------------------------------------------------------------------------------

    def _chain(self, key: bytes) -> Chain | None:
        keys = self._keys
        if self._pos_keys is keys:
            i = self._pos.get(key, -1)
            if 0 <= i < len(keys) and keys[i] == key:
                return self._chains[i]
            if self._pos_n != len(keys):
                self._index_more(keys)
                i = 0
        elif len(keys) >= POINT_INDEX_MIN:
            if self._pos_keys is not None:  # NB: the base was laid out anew: a new count
                self._pos, self._pos_keys, self._pos_n, self._pos_reads = {}, None, 0, 0
            self._pos_reads += 1
            if self._pos_reads > len(keys) >> 6:
                self._index_more(keys)
            i = 0
        else:
            i = 0
        # NB: i < 0: an index of every base position missed the key, which is then not in the
        # base (the index's list only grows in place, by appends: a split resets the index)
        if i >= 0:
            i = bisect_left(keys, key)
            if i < len(keys) and keys[i] == key:
                return self._chains[i]
        chain = self._cache.get(key)
        if chain is None and self._cold.live_rows:
            version = self._cold.version(key)
            if version is not None:
                return (version,)
        return chain

    def _index_more(self, keys: list[bytes]) -> None:
        """Indexes the next POINT_INDEX_STEP positions of the base `keys` (from the start
        when the index is of another list, or the base shrank in place: a split)."""
        n = len(keys)
        if self._pos_keys is not keys or self._pos_n > n:
            self._pos, self._pos_keys, self._pos_n = {}, keys, 0
        a = self._pos_n
        b = min(n, a + POINT_INDEX_STEP)
        self._pos.update(zip(islice(keys, a, b), range(a, b), strict=True))
        self._pos_n = b

    def read(self, key: bytes, ts: int) -> Row | None:
        """Returns the row visible at ts, or None."""
        chain = self._chain(key)
        if chain is None:
            return None
        head = chain[0]  # NB: `_visible`'s first step, inline: the newest version is seen
        return head[1] if head[0] <= ts else _visible(chain, ts)

    def read_many(self, keys: Iterable[bytes], ts: int) -> list[Row | None]:
        """Returns the row visible at ts for each key."""
        out: list[Row | None] = []
        for key in keys:
            chain = self._chain(key)
            out.append(None if chain is None else _visible(chain, ts))
        return out

    def latest_commit(self, key: bytes) -> int | None:
        """Returns the newest commit ts of key, tombstones included; None if it has no version."""
        chain = self._chain(key)
        return None if chain is None else chain[0][0]

    def commit_at(self, key: bytes, ts: int) -> int | None:
        """Returns the commit ts of the version of key a read at ts sees (None: none)."""
        for vts, _ in self._chain(key) or ():
            if vts <= ts:
                return vts
        return None

    def chunk(
        self,
        lo: bytes | None,
        hi: bytes | None,
        ts: int,
        reverse: bool,
        max_keys: int,
        rows_only: bool = False,
    ) -> tuple[list[bytes], list[Row], bytes | None]:
        """Reads up to max_keys keys of [lo, hi) in order; returns visible keys, rows, and the rest.

        The third value is None when the range is exhausted; otherwise it is the
        next `lo` (forward) or the next `hi` (reverse) of the remaining range.
        With `rows_only` (aggregates) the keys list stays empty and visibility is
        decided a chunk at a time (see `_visible_rows`).
        """
        return self._chunk_cut(lo, hi, ts, reverse, max_keys, rows_only)()

    def _chunk_cut(self, lo: bytes | None, hi: bytes | None, ts: int, reverse: bool,
                   max_keys: int, rows_only: bool, finish: Callable[..., Any] | None = None
                   ) -> Callable[[], Any]:
        """`chunk` in two steps: the call (under the lock) cuts the hot keys and chains out
        of the store and notes where the cold rows of the range are; what it returns
        decodes them and decides visibility, which `chunks` does after releasing the lock
        (chains are immutable tuples, segment entries never change, and the spans carry
        their part of the alive mask: the answer is the store's state during the hold)."""
        keys = self._keys
        i = 0 if lo is None else bisect_left(keys, lo)
        j = len(keys) if hi is None else bisect_left(keys, hi, i)
        cache = self._cache
        nxt: bytes | None = None
        # cold keys and rows of the range the hot chunk covers, one more than a chunk's worth
        # (the cut below knows then that more follow)
        spans: list[Span] = []
        # NB: the cache is read only as far as this chunk reaches (islice), so a scan costs
        # O(max_keys) per chunk however large the cache is.
        if not reverse:
            if j - i > max_keys:
                j = i + max_keys
                nxt = keys[j]
            bk, bc = keys[i:j], self._chains[i:j]
            if cache:
                it = cache.irange(lo, nxt if nxt is not None else hi, inclusive=(True, False))
                ckeys = list(islice(it, max_keys + 1))
                if len(ckeys) > max_keys:
                    # Cache keys alone overflow the chunk: continue after the last one taken.
                    ckeys = ckeys[:max_keys]
                    nxt = ckeys[-1] + b"\x00"
                    bk_end = bisect_left(bk, nxt)
                    bk, bc = bk[:bk_end], bc[:bk_end]
                bk, bc = _merge(bk, bc, ckeys, [cache[k] for k in ckeys])
            if self._cold:
                spans = self._cold.spans(lo, nxt if nxt is not None else hi, max_keys + 1, False)
        else:
            if j - i > max_keys:
                i = j - max_keys
                nxt = keys[i]
            bk, bc = keys[i:j], self._chains[i:j]
            if cache:
                it = cache.irange(
                    nxt if nxt is not None else lo, hi, inclusive=(True, False), reverse=True
                )
                ckeys = list(islice(it, max_keys + 1))
                if len(ckeys) > max_keys:
                    ckeys = ckeys[:max_keys]
                    nxt = ckeys[-1]
                    bk_start = bisect_left(bk, nxt)
                    bk, bc = bk[bk_start:], bc[bk_start:]
                ckeys.reverse()
                bk, bc = _merge(bk, bc, ckeys, [cache[k] for k in ckeys])
            if self._cold:
                spans = self._cold.spans(nxt if nxt is not None else lo, hi, max_keys + 1, True)
            bk.reverse()
            bc.reverse()
        return partial(finish or _chunk_finish, bk, bc, spans, ts, reverse, max_keys, nxt,
                       rows_only)

    @staticmethod
    def _with_cold(bk: list[bytes], bc: list[Chain], ck: list[bytes], cr: list[Row], ts: int,
                   reverse: bool, max_keys: int, nxt: bytes | None, rows_only: bool
                   ) -> tuple[list[bytes], list[Row], bytes | None]:
        """`chunk`'s answer from its hot keys and chains (in scan order) and the cold keys and
        rows (ascending) of the same range, cut again to max_keys."""
        if reverse:
            bk, bc = bk[::-1], bc[::-1]
        if len(ck) > max_keys:  # the cold keys alone fill the chunk: hot keys past them wait
            if reverse:
                a = bisect_left(bk, ck[-max_keys - 1])
                bk, bc = bk[a:], bc[a:]
            else:
                b = bisect_left(bk, ck[max_keys])
                bk, bc = bk[:b], bc[:b]
        hk: list[bytes] = []
        hr: list[Row] = []
        for k, chain in zip(bk, bc, strict=True):
            row = _visible(chain, ts)
            if row is not None:
                hk.append(k)
                hr.append(row)
        mk, mr = _merge(ck, cr, hk, hr)
        if len(mk) > max_keys:
            if reverse:
                mk, mr = mk[-max_keys:], mr[-max_keys:]
                nxt = mk[0]
            else:
                nxt = mk[max_keys]
                mk, mr = mk[:max_keys], mr[:max_keys]
        if reverse:
            mk.reverse()
            mr.reverse()
        return ([] if rows_only else mk), mr, nxt

    def chunks(
        self,
        lo: bytes | None,
        hi: bytes | None,
        ts: int,
        reverse: bool,
        max_keys: int,
        lock: AbstractContextManager[Any] | None = None,
        rows_only: bool = False,
        grow_to: int | None = None,
    ) -> Iterator[tuple[list[bytes], list[Row], bool]]:
        """Yields `chunk` after `chunk` over [lo, hi), with a flag telling whether more follow.

        `lock`, when given, is held while each chunk is read and released in between.
        With `grow_to`, each chunk after the first is 8 times the one before, up to that
        size: a scan that wants one row reads a few keys first, not a whole chunk's.
        """
        guard = lock if lock is not None else nullcontext()
        while True:
            with guard:
                finish = self._chunk_cut(lo, hi, ts, reverse, max_keys, rows_only)
            keys, rows, nxt = finish()  # NB: unlocked: decoding cold rows takes milliseconds
            yield keys, rows, nxt is not None
            if nxt is None:
                return
            if reverse:
                hi = nxt
            else:
                lo = nxt
            if grow_to is not None and max_keys < grow_to:
                max_keys = min(max_keys * 8, grow_to)

    def column_chunks(self, lo: bytes | None, hi: bytes | None, ts: int, width: int,
                      max_keys: int, lock: AbstractContextManager[Any] | None = None
                      ) -> Iterator[tuple[list[Any], int, bytes | None]]:
        """`chunks` forward as columns: (the `width` columns, the row count, the last key
        read or None). A chunk of cold rows alone is cut from its segments' columns
        (`coldrows.decode_columns`: no tuple per row); a chunk with hot keys in it merges
        rows by key under MVCC visibility as `chunks` does, then turns them into columns."""
        guard = lock if lock is not None else nullcontext()
        while True:
            with guard:
                finish = self._chunk_cut(lo, hi, ts, False, max_keys, False,
                                         partial(_column_finish, width))
            cols, n, last, nxt = finish()
            yield cols, n, last
            if nxt is None:
                return
            lo = nxt

    def scan(
        self, lo: bytes | None, hi: bytes | None, ts: int, reverse: bool = False
    ) -> Iterator[tuple[bytes, Row]]:
        """Yields the visible (key, row) pairs of [lo, hi) at ts in key order."""
        for keys, rows, _ in self.chunks(lo, hi, ts, reverse, 1024):
            yield from zip(keys, rows, strict=True)

    def items(self, ts: int | None = None) -> Iterator[tuple[bytes, Chain]]:
        """Yields (key, chain) in key order, chains cut to versions <= ts (all when ts is None)."""
        self.compact()
        keys, chains = self._merged().all() if self._cold else (self._keys, self._chains)
        for k, chain in zip(keys, chains, strict=True):
            if ts is not None and chain[-1][0] > ts:
                continue
            if ts is not None and chain[0][0] > ts:
                chain = tuple(v for v in chain if v[0] <= ts)
            yield k, chain

    def export(self, ts: int | None = None) -> tuple[list[bytes], list[Chain]]:
        """Returns the keys and chains of `items(ts)` as two lists (copies of the base's when
        no version is newer than ts: a checkpoint of a quiet region costs two C-level copies)."""
        self.compact()
        if ts is None or self._max_ts <= ts:
            if self._cold:  # NB: every cold row decoded: a transient copy of the region
                return self._merged().all()
            return list(self._keys), list(self._chains)
        keys, chains = self._merged().all() if self._cold else (self._keys, self._chains)
        return _cut_to(keys, chains, ts)

    def export_later(self, ts: int | None = None, packed: bool = False
                     ) -> Callable[[], tuple[list[bytes], Any]]:
        """`export(ts)` in two steps: the call (under the lock) copies the base's lists and
        notes the cold segments; what it returns builds the lists outside the lock, where
        decoding a large region's cold rows (seconds at 10M rows) stalls no one.

        `packed` (a checkpoint): when every key has one live version of one arity, the
        chains come as the wire's column map ({"ts": [...], "cols": [...]}, `wire`),
        built a segment at a time: a tuple per row and per version for 10M cold rows
        would be ~3 GB at once (429 B/row at peak, 129 with the map)."""
        if not self._cold:
            keys, chains = self.export(ts)
            return lambda: (keys, chains)
        merged, newest = self._merged(copy=True), self._max_ts

        def finish() -> tuple[list[bytes], Any]:
            if packed and (ts is None or newest <= ts):
                out = _column_map(merged)
                if out is not None:
                    return out
            keys, chains = merged.all()
            if ts is None or newest <= ts:
                return keys, chains
            return _cut_to(keys, chains, ts)
        return finish

    @property
    def newest_ts(self) -> int:
        """The greatest commit ts the store was ever given (a checkpoint of a region with none
        newer than its file's ts skips it, `kivi.checkpoint.restamp`)."""
        return self._max_ts

    def export_windows(self, ts: int | None = None, rows: int = 1 << 16
                       ) -> Callable[[], Iterator[tuple[list[bytes], list[Chain]]]]:
        """`export_later`, a window of `rows` keys at a time (a checkpoint writes each one
        before it decodes the next, `kivi.checkpoint.write_windows`): a whole region's
        decoded rows at once took TPC-H SF 0.3's checkpoint from 3.0 to 4.5 GB RSS."""
        if not self._cold:
            keys, chains = self.export(ts)
            return lambda: ((keys[i:i + rows], chains[i:i + rows])
                            for i in range(0, len(keys), rows))
        merged, newest = self._merged(copy=True), self._max_ts

        def windows() -> Iterator[tuple[list[bytes], list[Chain]]]:
            for i in range(0, len(merged), rows):
                ks, cs = merged.window(i, i + rows)
                yield (ks, cs) if ts is None or newest <= ts else _cut_to(ks, cs, ts)
        return windows

    def _merged(self, copy: bool = False) -> Merged:
        """The base and the cold rows as one sorted sequence (`coldrows.Merged`); `copy`: of
        copies of the base's lists, for a reader outside the lock."""
        self.compact()
        keys, chains = (list(self._keys), list(self._chains)) if copy else (self._keys, self._chains)
        return Merged(keys, chains, self._cold.snapshot())

    def export_range(self, after: bytes | None, limit: int) -> tuple[list[bytes], list[Chain]]:
        """The keys after `after` (all when None), up to `limit` of them, with their chains:
        `export`'s lists cut there, without copying or decoding the rest."""
        m = self._merged()
        i = 0 if after is None else m.bisect_right(after)
        return m.window(i, i + limit)

    def middle_key(self) -> bytes | None:
        """The key in the middle of the key order (None when empty)."""
        m = self._merged()
        return m.window(len(m) // 2, len(m) // 2 + 1)[0][0] if len(m) else None

    def load(self, keys: list[bytes], chains: list[Chain]) -> None:
        """Replaces the content with sorted keys and their chains (from a checkpoint)."""
        self.drop_all()
        self._keys, self._chains = keys, chains
        self._max_ts = max(map(_head, map(_head, chains)), default=0)
        self._gc = {k for k, c in zip(keys, chains, strict=True) if len(c) > 1 or c[0][1] is None}

    def split_off(self, key: bytes) -> VersionStore:
        """Moves the keys >= key into a new store and returns it."""
        self.compact()
        i = bisect_left(self._keys, key)
        other = VersionStore(self.cache_limit)
        other.load(self._keys[i:], self._chains[i:])
        other._low_water = self._low_water  # NB: its chains were collected as these were
        other._cold = self._cold.split_off(key)
        self._col = None
        self._epoch += 1  # NB: before the lists shrink in place (a freeze pass checks it)
        self._pos, self._pos_keys, self._pos_n = {}, None, 0  # NB: and the point index
        del self._keys[i:]
        del self._chains[i:]
        self._gc = {k for k in self._gc if k < key}
        return other

    # --- garbage collection -------------------------------------------------------------------

    def collect(self, low_water: int, lock: AbstractContextManager[Any] | None = None) -> int:
        """Drops versions hidden from every snapshot >= low_water; returns how many it dropped.

        With `lock` (the node lock: the caller must not hold it), the work is done in
        chunks of COLLECT_CHUNK keys, each under the lock, which is released in between:
        a pass over the keys of a busy region (every key TPC-B updated since the last
        pass) held the lock 12-21 ms of CPU, 40-170 ms of wall time beside analytics,
        and every OLTP statement on the node waited for it. Each chunk looks its keys
        up afresh, so writes, merges and splits between chunks do no harm: a key a
        split moved away is simply not found, and a write re-marks its key itself.
        """
        guard = lock if lock is not None else nullcontext()
        with guard:
            # NB: raised first: the chains are cut to low_water chunk by chunk, and the
            # columnar copy must not serve a snapshot below it meanwhile
            self._low_water = max(self._low_water, low_water)
            todo = self._collecting = list(self._gc)
            self._gc = set()
        dropped = 0
        gone: dict[bytes, Chain] = {}
        for lo in range(0, len(todo), COLLECT_CHUNK):
            if lo and lock is not None:
                background()  # gives way to OLTP (and a thread waiting for the lock gets it)
            with guard:
                try:
                    dropped += self._collect_keys(todo[lo:lo + COLLECT_CHUNK], low_water, gone)
                except BaseException:
                    self._gc.update(todo[lo:])  # the keys not collected stay marked
                    raise
        with guard:
            self._collecting = []
            if gone:
                dropped += self._remove_gone(gone)
            if self._col is not None:
                self._col.collect(low_water)
        if FREEZE_ROWS:
            self.freeze(low_water, lock)
        return dropped

    def _collect_keys(self, todo: list[bytes], low_water: int, gone: dict[bytes, Chain]) -> int:
        """Cuts the chains of some keys to what snapshots >= low_water can see.

        Keys left with several versions or a tombstone go back to `_gc`. A base key
        whose whole chain can go keeps its newest version, a tombstone <= low_water,
        and is listed in `gone` with that chain, to be removed with the others at the end
        (`_remove_gone`: removing from the base copies it, once per pass, not per chunk);
        a key of the write cache goes at once.
        """
        dropped = 0
        keep = self._gc
        keys, chains, cache = self._keys, self._chains, self._cache
        for key in todo:
            i = bisect_left(keys, key)
            in_base = i < len(keys) and keys[i] == key
            chain = chains[i] if in_base else cache.get(key)
            if chain is None:
                continue  # removed, or moved away by a split, since the pass began
            for n, (vts, row) in enumerate(chain):
                if vts <= low_water:
                    cut = n + 1 if row is not None else n
                    if not cut:  # nothing left: the newest version is an old tombstone
                        dropped += len(chain) - 1
                        if in_base:
                            chains[i] = gone[key] = chain[:1]
                            if self._dirty is not None:
                                self._dirty.append(i)
                        else:
                            del cache[key]
                            dropped += 1
                        chain = ()
                    elif cut < len(chain):
                        dropped += len(chain) - cut
                        chain = chain[:cut]
                        if in_base:
                            chains[i] = chain
                            if self._dirty is not None:
                                self._dirty.append(i)
                        else:
                            cache[key] = chain
                    break
            if chain and (len(chain) > 1 or chain[0][1] is None):
                keep.add(key)
        return dropped

    def _remove_gone(self, gone: dict[bytes, Chain]) -> int:
        """Removes the base keys `_collect_keys` left as a lone tombstone, those whose chain
        is still the very tuple it left (a write since then replaced it: the key stays);
        returns how many. A few are found by bisection; many (a mass DELETE) by one C-level
        identity pass over the base, with no lookup per key."""
        keys, chains = self._keys, self._chains
        if len(gone) * 64 <= len(keys):
            sure: list[bytes] = []
            for key, left in gone.items():
                i = bisect_left(keys, key)
                if i < len(keys) and keys[i] == key and chains[i] is left:
                    sure.append(key)
            if sure:
                self._remove(sure)
            return len(sure)
        hit = list(map(is_, chains, map(gone.get, keys)))
        n = hit.count(True)
        if n:  # new lists, as `_remove` makes
            sel = list(map(not_, hit))
            self._keys = list(compress(keys, sel))
            self._chains = list(compress(chains, sel))
        return n

    # --- the columnar copy --------------------------------------------------------------------

    def columnar(self, ts: int) -> Snapshot | None:
        """Returns the rows visible at ts as packs of columns (`kivi.columnar`); None below
        the garbage-collection watermark (the copy and the chains drop different versions
        there, and no transaction reads there: only the row path answers such a read).

        The copy is built on first use (a region no analytic query reads pays nothing),
        rebuilt from the chains after a restart or when an apply could not be placed in
        it (a replay), and maintained by every write in between.
        """
        if ts < self._low_water:
            return None
        col = self._col
        if not isinstance(col, ColumnarCopy) or col.broken:
            self.compact()
            if self._cold:
                m = self._merged()
                col = self._col = ColumnarCopy.build(m.keys, m.chains, self._low_water)
            else:
                col = self._col = ColumnarCopy.build(self._keys, self._chains, self._low_water)
        return col.snapshot(ts)

    def columnar_begin(self, ts: int) -> Snapshot | PendingBuild | None:
        """`columnar` without building under the caller's lock (`columnar.build.snapshots`):
        a copy still to build comes back as a `PendingBuild` of the chains as they are now,
        which logs every later write until `columnar_install`."""
        if ts < self._low_water:
            return None
        col = self._col
        if isinstance(col, ColumnarCopy) and not col.broken:
            return col.snapshot(ts)
        if isinstance(col, PendingBuild):
            return col  # another reader builds it: wait for that one
        self.compact()
        if self._cold:  # cold rows are decoded a pack at a time by the builder, unlocked
            m = self._merged(copy=True)
            pending = PendingBuild(m.keys, m.chains, self._low_water)  # type: ignore[arg-type]
        else:
            pending = PendingBuild(list(self._keys), list(self._chains), self._low_water)
        self._col = pending
        return pending

    def columnar_pending(self, pending: PendingBuild) -> bool:
        """Tells whether `pending` is still this store's copy to be (nothing replaced it)."""
        return self._col is pending

    def columnar_install(self, pending: PendingBuild, copy: ColumnarCopy) -> None:
        """Installs the copy built from `pending` (still in place), with the writes logged since."""
        self._col = pending.catch_up(copy)

    def columnar_abandon(self, pending: PendingBuild) -> None:
        """Forgets a pending build that failed (the next read starts again)."""
        if self._col is pending:
            self._col = None

    @property
    def has_copy(self) -> bool:
        """Tells whether the columnar copy is built or being built (`kivi.columnar.warm`)."""
        return self._col is not None

    @property
    def columnar_building(self) -> bool:
        """Tells whether a reader is building the copy now (outside the node lock)."""
        return isinstance(self._col, PendingBuild)

    @property
    def columnar_bytes(self) -> int:
        """Bytes held by the columnar copy's frozen packs (0 when it is not built)."""
        return 0 if self._col is None else self._col.nbytes

    def _remove(self, gone: list[bytes]) -> None:
        cache = self._cache
        base_gone = set()
        for k in gone:
            if cache.pop(k, None) is None:
                base_gone.add(k)
        if not base_gone:
            return
        keys, chains = self._keys, self._chains
        if len(base_gone) <= 256:
            # NB: a trickle of deletes in a big base (GC runs every few hundred commits):
            # new lists from C-level slices around the gone keys, not a Python pass over
            # the whole base. New lists, not `del`: readers may hold the old ones.
            at = sorted(i for i in (bisect_left(keys, k) for k in base_gone)
                        if i < len(keys) and keys[i] in base_gone)
            new_k: list[bytes] = []
            new_c: list[Chain] = []
            prev = 0
            for i in at:
                new_k += keys[prev:i]
                new_c += chains[prev:i]
                prev = i + 1
            new_k += keys[prev:]
            new_c += chains[prev:]
            self._keys, self._chains = new_k, new_c
            return
        # Many: one selector over the base and two filters, all C-level passes (a mass
        # DELETE's collection runs this under the node lock).
        sel = list(map(not_, map(base_gone.__contains__, keys)))
        self._keys = list(compress(keys, sel))
        self._chains = list(compress(chains, sel))


_head = itemgetter(0)
_row_of = itemgetter(1)


def _column_map(merged: Merged) -> tuple[list[bytes], dict[str, Any]] | None:
    """The keys and the wire's column map of one live version per key (`export_later`);
    None when some key has several versions or a tombstone, or rows differ in arity."""
    keys: list[bytes] = []
    tss: list[int] = []
    cols: list[list[Any]] | None = None
    for p in range(len(merged.parts)):
        ks, cs = merged.window(merged.starts[p], merged.starts[p + 1])
        if not cs:
            continue
        if set(map(len, cs)) != {1}:
            return None
        versions = list(map(_head, cs))
        rows = list(map(_row_of, versions))
        if None in rows or len(set(map(len, rows))) != 1 or not rows[0]:
            return None
        if cols is None:
            cols = [[] for _ in rows[0]]
        elif len(cols) != len(rows[0]):
            return None
        keys += ks
        tss += map(_head, versions)
        for col, values in zip(cols, zip(*rows, strict=True), strict=True):
            col += values
        del ks, cs, versions, rows
    if cols is None:
        return None
    return keys, {"ts": tss, "cols": cols}


def _cut_to(keys: list[bytes], chains: list[Chain], ts: int) -> tuple[list[bytes], list[Chain]]:
    """The keys with a version <= ts, their chains cut to those versions (`items(ts)`)."""
    out_k: list[bytes] = []
    out_c: list[Chain] = []
    for k, chain in zip(keys, chains, strict=True):
        if chain[-1][0] > ts:
            continue
        if chain[0][0] > ts:
            chain = tuple(v for v in chain if v[0] <= ts)
        out_k.append(k)
        out_c.append(chain)
    return out_k, out_c


def _chunk_finish(bk: list[bytes], bc: list[Chain], spans: list[Span], ts: int, reverse: bool,
                  max_keys: int, nxt: bytes | None, rows_only: bool) -> ChunkOut:
    """`chunk`'s answer from what `_chunk_cut` took under the lock."""
    if spans:
        ck, cr = decode(spans)
        if ck:
            return VersionStore._with_cold(bk, bc, ck, cr, ts, reverse, max_keys, nxt, rows_only)
    if rows_only:
        return [], _visible_rows(bc, ts), nxt
    heads = list(map(_head, bc))
    if heads and max(map(_head, heads)) <= ts:
        # NB: no commit after the snapshot in the chunk (the common case): each visible row
        # is its chain's head, in C-level passes; tombstones (None) are dropped by a mask
        rows = list(map(_row_of, heads))
        if not any(map(is_, rows, repeat(None))):
            return bk, rows, nxt
        live = list(map(is_not, rows, repeat(None)))
        return list(compress(bk, live)), list(compress(rows, live)), nxt
    out_k: list[bytes] = []
    out_r: list[Row] = []
    for k, chain in zip(bk, bc, strict=True):
        vts, row = chain[0]
        if vts > ts:
            row = _visible(chain, ts)
        if row is not None:
            out_k.append(k)
            out_r.append(row)
    return out_k, out_r, nxt


def _column_finish(width: int, bk: list[bytes], bc: list[Chain], spans: list[Span], ts: int,
                   reverse: bool, max_keys: int, nxt: bytes | None, rows_only: bool
                   ) -> tuple[list[Any], int, bytes | None, bytes | None]:
    """`_chunk_finish` as columns (`column_chunks`): the columns, the row count, the last
    key the chunk covers and where the next chunk starts."""
    if spans and not bk:  # cold rows only: columns straight from the segments
        total = sum(j - i if sel is None else sel.count(1) for _, i, j, sel in spans)
        if total > max_keys:  # `spans` took one live key more: the next chunk starts there
            seg, i, j, sel = spans[-1]
            k = j - 1
            while sel is not None and not sel[k - i]:
                k -= 1
            nxt = seg.key(k)
            spans = [*spans[:-1], (seg, i, k, None if sel is None else sel[:k - i])]
            total -= 1
        spans = [s for s in spans if s[2] > s[1]]
        seg, i, j, sel = spans[-1]
        cols = decode_columns(spans, width)
        if len(cols) != width:
            raise ValueError("stored rows of another width than the scan's")
        return cols, total, seg.key(j - 1), nxt
    if spans:  # NB: hot keys among cold rows: merged by key
        keys, rows, nxt = _chunk_finish(bk, bc, spans, ts, reverse, max_keys, nxt, False)
        last = keys[-1] if keys else None
    else:  # hot keys alone: the visible rows in C-level passes, no key list per row
        rows, last = _visible_rows(bc, ts), bk[-1] if bk else None
    if rows and set(map(len, rows)) != {width}:
        raise ValueError("stored rows of another width than the scan's")
    cols = [list(map(itemgetter(c), rows)) for c in range(width)] if rows else []
    return cols, len(rows), last, nxt


def _visible_rows(chains: list[Chain], ts: int) -> list[Row]:
    """Returns the rows visible at ts of some chains, a whole chunk at a time.

    When every chain's newest version is <= ts (the common case: the chunk saw
    no commit after the snapshot), each visible row is its chain's head and the
    chunk costs three C-level passes; tombstones are dropped after.
    """
    heads = list(map(_head, chains))
    if not heads:
        return []
    if max(map(_head, heads)) <= ts:
        rows = list(map(_row_of, heads))
    else:
        rows = [_visible(c, ts) for c in chains]
    if None in rows:
        rows = [r for r in rows if r is not None]
    return rows


__all__ = ["VersionStore"]
