"""The versioned columnar copy of one region: packs of typed arrays, stamped at apply time.

Every version of a row is one row of the copy, with `begin` (its commit ts)
and `end` (the commit ts of the version that replaced or deleted it, `INF`
while it is the newest). Visibility at snapshot `s` is then a vector compare,
`begin <= s < end`, with no key merge (the positional scheme of Kudu, HyPer
and DuckDB; see docs/architecture.md):

    tail  (Python lists, appended by apply)  --freeze-->  packs (numpy, frozen)
                                                          ^ end stamped in place
                                                          `collect` rewrites a pack
                                                          without its dead rows

- Apply (inside the node lock, before the ts becomes readable): an insert
  appends to the tail; an update or delete finds the key's newest version by
  `latest` (key -> position) and stamps its `end`; an update appends too.
- A stamp for ts c lands before any snapshot >= c exists, so a reader at s
  never needs a stamp it did not see (those have c > s): readers take no lock
  after copying the pack list and the tail (`snapshot`).
- A pack whose `max_begin <= s` and `min_end > s` is *clean* at s: no mask.
- Memory: a pack keeps no `end` array until its first stamp (None: every row's
  end is INF), and none for `begin` once every row began at or below the copy's
  `low_water` (None: no snapshot the copy serves is older). Snapshots below
  the store's GC watermark never read the copy, so neither is ever needed.
- `collect(low_water)` drops rows with `end <= low_water` from packs that are
  a quarter dead, as new packs (readers may hold the old ones).
- Packs built from the store's sorted base (`build`) are found by bisection
  (`sorted`, `firsts`); packs frozen from the tail through `latest`. A tail pack
  whose keys ascend above every sorted one (a load after the build) becomes a
  sorted pack too, encoded by a reader outside the lock (`adopt`).
- Sorted packs are *compact* (`kivi.columnar.compact`): keys in one blob, rows
  decoded from the pack's own columns, so they pin none of the row store's objects.
- An apply the copy cannot place (a replay of an old ts, or a version at a ts
  the key already has) marks it `broken`: the store rebuilds it from its chains.

Positions are `pack_id << 24 | offset` for packs and `-(i + 1)` for tail row i.

    >>> c = ColumnarCopy()
    >>> c.apply(5, [b"a", b"b"], [(1, "x"), (2, "y")])
    >>> c.apply(7, [b"a"], [(10, "x")])
    >>> c.apply(8, [b"b"], [None])
    >>> [sorted(v.rows()) for v in (c.snapshot(6), c.snapshot(7), c.snapshot(9))]
    [[(1, 'x'), (2, 'y')], [(2, 'y'), (10, 'x')], [(10, 'x')]]
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from itertools import compress, count, islice
from operator import and_, itemgetter, lt
from typing import Any

import numpy as np

from .compact import KeyBlob, RowView
from .encode import Column, encode
from .pace import pace

INF = np.iinfo(np.int64).max
PACK_ROWS = 65536  # a tail this long is frozen into a pack
SCAN_FREEZE = 2048  # a scan freezes a tail this long instead of converting it
_SHIFT = 24
_OFF = (1 << _SHIFT) - 1

Row = tuple[Any, ...]


def _flatten(keys: Sequence[bytes], chains: Sequence[Sequence[tuple[int, Row | None]]]
             ) -> tuple[list[bytes], list[Row], list[int], list[int]]:
    """Every live version of the chains as parallel lists: keys, rows, begin and end ts."""
    if all(map((1).__eq__, map(len, chains))):  # the common case: one version a key, in C
        heads = list(map(itemgetter(0), chains))
        rows = list(map(itemgetter(1), heads))
        ks = list(keys)
        if None in rows:
            live = [i for i, r in enumerate(rows) if r is not None]
            ks = [ks[i] for i in live]
            heads = [heads[i] for i in live]
            rows = [rows[i] for i in live]
        return ks, rows, list(map(itemgetter(0), heads)), [INF] * len(ks)
    ks, rs, bs, es = [], [], [], []
    for k, chain in zip(keys, chains, strict=True):
        newer = INF
        for ts, row in chain:
            if row is not None:
                ks.append(k)
                rs.append(row)
                bs.append(ts)
                es.append(newer)
            newer = ts
    return ks, rs, bs, es


Keys = list[bytes] | KeyBlob
Rows = list[Row] | RowView


def _as_list(seq: Sequence[Any]) -> list[Any]:
    """A pack's keys or rows as a list (decoded, for a compact pack's)."""
    if isinstance(seq, list):
        return seq
    return seq.tolist() if isinstance(seq, (KeyBlob, RowView)) else list(seq)


def _take(seq: Sequence[Any], idx: np.ndarray) -> list[Any]:
    """The items of a pack's keys or rows at positions idx, as a list."""
    if isinstance(seq, RowView):
        return seq.take(idx)
    if isinstance(seq, KeyBlob):
        return seq.take(idx).tolist()
    return [seq[i] for i in idx.tolist()]


def _first_key(p: Pack) -> bytes:
    return p.keys[0]


class Pack:
    """Frozen rows: one `Column` per stored column, begin/end stamps, keys, summaries.

    A pack's keys and rows are lists of the row store's own objects, or, once
    `compact` (the sorted packs of `build` and what `collect` keeps of them), a
    `KeyBlob` and a `RowView` decoding its columns: no Python object per row, so the
    row store can let its own go (`kivi.columnar.compact`).
    """

    __slots__ = ("pid", "n", "width", "rows", "cols", "keys", "begin", "end",
                 "max_begin", "min_end", "ended", "memo")

    def __init__(self, pid: int, keys: Keys, rows: Rows, begin: np.ndarray | None,
                 end: np.ndarray | None, low_water: int = 0,
                 bounds: tuple[int, int] | None = None,
                 cols: list[Column] | None = None) -> None:
        self.pid = pid
        self.n = len(keys)
        self.keys: Keys = keys
        # What readers derived from the columns, which never change (`aggregate._by_runs`)
        self.memo: dict[Any, np.ndarray] | None = None
        if bounds is not None:  # (max begin, min end), known to the caller
            self.max_begin, self.min_end = bounds
        else:
            self.max_begin = int(begin.max()) if self.n and begin is not None else 0
            self.min_end = int(end.min()) if self.n and end is not None else INF
        # None: every row began at or below low_water / no row was ended (see module doc)
        self.begin = begin if self.max_begin > low_water else None
        self.end = end if self.min_end < INF else None
        # Rows with an end (an upper bound on the rows `collect` may drop: it skips a pack
        # where they cannot reach a quarter with no numpy pass under the node lock).
        self.ended = 0 if self.end is None else self.n
        if cols is not None:  # compact: `rows` decodes these columns
            self.width = len(cols)
            self.cols: list[Column | None] = list(cols)
            self.rows: Rows = RowView(cols, self.n)
            return
        widths = set(map(len, rows))
        self.width = max(widths, default=0)
        if len(widths) > 1:  # rows from before an ADD COLUMN: missing slots read as NULL
            w = self.width
            rows = [r + (None,) * (w - len(r)) for r in rows]
        # Columns are encoded when first asked for (a pack only pays for what queries read).
        # The rows stay (pointers to the row store's own tuples, 8 bytes each): top-N and
        # projections hand a few of them to the row operators without rebuilding tuples.
        self.rows = rows
        self.cols = [None] * self.width

    @property
    def compact(self) -> bool:
        """Whether the keys and rows are a `KeyBlob` and a `RowView` (no object per row)."""
        return isinstance(self.rows, RowView)

    def compacted(self) -> Pack:
        """This pack with its keys in one blob and its rows decoded from its columns, every
        column encoded now (`encode` is lossless: the `RowView` gives back the same values).

        Why: the lists pinned every row's key, tuple and values, so the row store's
        objects stayed alive as long as the copy did (issue 11's memory bar), and a list
        is a container the cyclic GC walks item by item (a region's first build made a
        million-row list that every young collection then visited: 27-58 ms with the GIL).
        Done outside the node lock (`build`): about the cost of encoding the columns.
        """
        if self.compact:
            return self
        # NB: not `column` (its `pace` may sleep, and `build` may run under the node lock)
        rows = _as_list(self.rows)
        cols = [c if c is not None else encode(list(map(itemgetter(j), rows)))
                for j, c in enumerate(self.cols)]
        p = Pack(self.pid, KeyBlob.of(_as_list(self.keys)), [], None, None, cols=cols)
        p.begin, p.end, p.max_begin, p.min_end, p.ended = (
            self.begin, self.end, self.max_begin, self.min_end, self.ended)
        return p

    def ascending_compacted(self) -> Pack | None:
        """`compacted`, for a tracked pack whose keys are strictly ascending (None if not):
        the candidate `ColumnarCopy.adopt` takes. Outside the node lock: a tracked pack's
        keys and rows lists never change (only its stamps do, which `adopt` checks)."""
        keys = self.keys
        if not isinstance(keys, list) or not all(map(lt, keys, islice(keys, 1, None))):
            return None
        return self.compacted()

    def rows_at(self, idx: np.ndarray) -> list[Row]:
        """The rows at positions idx as tuples (decoded a column at a time when compact)."""
        rows = self.rows
        if isinstance(rows, RowView):
            return rows.take(idx)
        il = idx.tolist()
        if len(il) > 1:
            return list(itemgetter(*il)(rows))
        return [rows[i] for i in il]

    def taken(self, pid: int, idx: np.ndarray, low_water: int) -> Pack:
        """A compact pack of the rows at positions idx (ascending) of this compact one."""
        cols = [c.take(idx) for c in self.cols if c is not None]
        assert isinstance(self.keys, KeyBlob) and len(cols) == self.width
        return Pack(pid, self.keys.take(idx), [], self.begins()[idx], self.ends()[idx],
                    low_water, cols=cols)

    def column(self, j: int) -> Column:
        """Returns column j, encoding it on first use (NULLs past a row's width).

        Readers call this outside the node lock: two may encode the same column (both
        results are equal).
        """
        pace()  # one pack's column: while OLTP runs, a scan keeps to its share of the CPU
        if j >= self.width:
            return encode([None] * self.n)
        c = self.cols[j]
        if c is None:
            c = self.cols[j] = encode(list(map(itemgetter(j), _as_list(self.rows))))
        return c

    def visible(self, ts: int) -> np.ndarray | None:
        """The rows visible at ts as a bool mask; None when all are. One compare when every
        row began by ts or none ended by ts (a merged pack's begins, beside stamps).

        >>> p = Pack(1, [b"a", b"b", b"c"], [(1,), (2,), (3,)], np.array([1, 5, 9]),
        ...          np.array([INF, 7, INF]))
        >>> [None if m is None else m.tolist() for m in map(p.visible, (4, 6, 8, 10))]
        [[True, False, False], [True, True, False], [True, False, False], [True, False, True]]
        """
        if self.max_begin <= ts < self.min_end:
            return None
        if self.end is None or ts < self.min_end:
            assert self.begin is not None  # else max_begin <= low_water <= ts: clean
            return self.begin <= ts
        if self.begin is None or self.max_begin <= ts:
            return self.end > ts
        return (self.begin <= ts) & (self.end > ts)

    def begins(self) -> np.ndarray:
        """The begin ts of every row (0 for rows that began at or below the low water)."""
        return np.zeros(self.n, np.int64) if self.begin is None else self.begin

    def ends(self) -> np.ndarray:
        """The end ts of every row (INF while it is the newest version)."""
        return np.full(self.n, INF, np.int64) if self.end is None else self.end

    def began_at_or_after(self, off: int, ts: int) -> bool:
        """Tells whether row off began at ts or later (an apply the copy cannot place)."""
        return self.begin is not None and bool(self.begin[off] >= ts)

    def live(self, off: int) -> bool:
        return self.end is None or bool(self.end[off] == INF)

    def stamp(self, off: int, ts: int) -> None:
        if self.end is None:
            self.end = np.full(self.n, INF, np.int64)
        self.end[off] = ts
        self.ended += 1
        if ts < self.min_end:
            self.min_end = ts

    def forget_begins(self, low_water: int) -> None:
        """Drops the begin array once no snapshot the copy serves can precede a row."""
        if self.begin is not None and self.max_begin <= low_water:
            self.begin = None

    @property
    def nbytes(self) -> int:
        # the keys' blob, or the keys and rows lists' pointers
        n = self.keys.nbytes if isinstance(self.keys, KeyBlob) else 16 * self.n
        n += sum(a.nbytes for a in (self.begin, self.end) if a is not None)
        n += sum(c.nbytes for c in self.cols if c is not None)
        return n


class PackView:
    """One pack as a snapshot sees it: the pack and its visibility mask (None: every row)."""

    __slots__ = ("pack", "mask")

    def __init__(self, pack: Pack, mask: np.ndarray | None) -> None:
        self.pack = pack
        self.mask = mask

    @property
    def n(self) -> int:
        """Visible rows."""
        return self.pack.n if self.mask is None else int(np.count_nonzero(self.mask))

    def column(self, j: int) -> Column:
        return self.pack.column(j)


class Snapshot:
    """The packs of a region as one snapshot sees them.

    Taken under the node lock, it only copies the list of packs (and the tail's
    visible rows); the visibility masks are computed on the first read of `views`,
    by the reader, outside the lock. That is safe because a pack's stamps that
    land later are for commits after ts, which `visible(ts)` reads the same
    either way (see the module doc). Why: numpy releases the GIL in every
    comparison over a pack, and a thread that gives the GIL away while holding
    the node lock waits to get it back (a switch interval, and more when the
    machine is loaded) while every OLTP session waits for the lock: measured
    under `bench htap`, 1-4 ms of CPU took 15-120 ms under the lock.
    """

    __slots__ = ("_views", "_packs", "_ts", "_tail", "source")

    def __init__(self, packs: list[Pack], ts: int, tail: Pack | None = None,
                 source: ColumnarCopy | None = None) -> None:
        self._packs = packs
        self._ts = ts
        self._tail = tail
        self.source = source  # the copy it was taken from (`ColumnarCopy.adoptable`)
        self._views: list[PackView] | None = None

    @property
    def views(self) -> list[PackView]:
        """The packs with a visible row, each with its mask (None: every row visible)."""
        views = self._views
        if views is None:
            ts = self._ts
            views = []
            for p in self._packs:
                m = p.visible(ts)
                if m is None or m.any():
                    views.append(PackView(p, m))
            if self._tail is not None:
                views.append(PackView(self._tail, None))
            self._views = views
            self._packs = []
        return views

    def views_where(self, keep: Callable[[Pack], bool]) -> Iterator[PackView]:
        """The `views` of the packs `keep` accepts, their masks computed only for those: a
        scan whose zone maps rule out most packs (a key range: the freshness probe's
        `id > n`) skips a full-length visibility compare per pack (10M rows, 1% updated:
        every pack has stamps)."""
        if self._views is not None:
            yield from (v for v in self._views if keep(v.pack))
            return
        ts = self._ts
        for p in self._packs:
            if keep(p):
                m = p.visible(ts)
                if m is None or m.any():
                    yield PackView(p, m)
        if self._tail is not None and keep(self._tail):
            yield PackView(self._tail, None)

    def rows(self) -> list[Row]:
        """The visible rows as tuples (for tests and fallbacks; analytic paths read columns)."""
        out: list[Row] = []
        for v in self.views:
            p = v.pack
            if v.mask is None:
                out.extend(_as_list(p.rows))
            else:
                out.extend(p.rows_at(np.flatnonzero(v.mask)))
        return out


class ColumnarCopy:
    """The columnar copy of one region's versions (not thread-safe: the node lock guards it)."""

    __slots__ = ("packs", "t_keys", "t_rows", "t_begin", "t_end", "latest", "broken", "_ids",
                 "sorted", "firsts", "low_water", "mixed", "__weakref__")

    def __init__(self) -> None:
        self.packs: dict[int, Pack] = {}
        self.t_keys: list[bytes] = []
        self.t_rows: list[Row] = []
        self.t_begin: list[int] = []
        self.t_end: list[int] = []
        self.latest: dict[bytes, int] = {}
        # Packs built from the store's sorted base: in key order, disjoint, a key's versions
        # never split between two. Their rows are found by bisection, with no `latest`
        # entry (a dict entry per row would cost about 100 bytes).
        self.sorted: list[Pack] = []
        self.firsts: list[bytes] = []
        self.broken = False
        self._ids = count(1)
        self.low_water = 0  # the store's GC watermark: no snapshot below it reads the copy
        self.mixed: set[int] = set()  # tracked packs whose keys do not ascend (`adopt`)

    def __len__(self) -> int:
        return sum(p.n for p in self.packs.values()) + len(self.t_keys)

    # --- building and writing -----------------------------------------------------------------

    @classmethod
    def build(cls, keys: Sequence[bytes], chains: Sequence[Sequence[tuple[int, Row | None]]],
              low_water: int = 0, unlocked: bool = False) -> ColumnarCopy:
        """Builds the copy of a store's keys and version chains (newest first).

        One pack per PACK_ROWS keys (a key's versions never split), so that every
        C-level pass covers one pack: the build may run beside writers, and a long
        pass would hold the GIL from them (`columnar.build`). `unlocked`: the caller holds
        no lock, so the build may pause for OLTP between packs (`pace`).
        """
        c = cls()
        c.low_water = low_water
        for lo in range(0, len(keys), PACK_ROWS):
            if unlocked:
                pace()
            ks, rs, bs, es = _flatten(keys[lo:lo + PACK_ROWS], chains[lo:lo + PACK_ROWS])
            if ks:
                p = c._add_pack(ks, rs, np.array(bs, np.int64), np.array(es, np.int64),
                                track=False)
                del ks, rs  # the pack's lists go with it: compact holds no row object
                p = c.packs[p.pid] = p.compacted()  # `Pack.compacted`
                c.sorted.append(p)
                c.firsts.append(p.keys[0])
        return c

    def _add_pack(self, keys: list[bytes], rows: Rows, begin: np.ndarray,
                  end: np.ndarray | None, track: bool = True,
                  bounds: tuple[int, int] | None = None, live: list[int] | None = None) -> Pack:
        """Adds a pack; `track`: its newest versions get `latest` entries (not sorted packs).

        `bounds` (max begin, min end) and `live` (the offsets of the newest versions), when
        the caller has them, spare numpy passes (see `freeze`)."""
        pid = next(self._ids)
        p = self.packs[pid] = Pack(pid, keys, rows, begin, end, self.low_water, bounds)
        if not track:
            return p
        if live is None:
            live = np.flatnonzero(p.ends() == INF).tolist()
        if p.end is not None:
            p.ended = len(keys) - len(live)
        base = pid << _SHIFT
        if len(live) == len(keys):
            self.latest.update(zip(keys, range(base, base + len(keys)), strict=True))
        elif live:
            self.latest.update(zip(itemgetter(*live)(keys) if len(live) > 1 else [keys[live[0]]],
                                   [base + i for i in live], strict=True))
        return p

    def apply(self, ts: int, keys: Sequence[bytes], rows: Sequence[Row | None]) -> None:
        """Applies one commit's writes to the region (the same lists the store applied)."""
        if self.broken:
            return
        latest, t_keys, t_rows, t_begin, t_end = (
            self.latest, self.t_keys, self.t_rows, self.t_begin, self.t_end)
        if (len(keys) > 64 and None not in rows and not any(map(latest.__contains__, keys))
                and not self._in_sorted(keys)):
            # a load of new keys only: no lookup per key
            n0 = len(t_keys)
            t_keys.extend(keys)
            t_rows.extend(rows)  # type: ignore[arg-type]  # no None
            t_begin.extend([ts] * len(keys))
            t_end.extend([INF] * len(keys))
            latest.update(zip(keys, range(-n0 - 1, -n0 - len(keys) - 1, -1), strict=True))
            if len(keys) != len(set(keys)):
                self.broken = True  # the same key twice in one commit: rebuild
            self._maybe_freeze()
            return
        packs = self.packs
        for k, r in zip(keys, rows, strict=True):
            p = latest.get(k)
            if p is not None:
                if p < 0:
                    i = -p - 1
                    if t_begin[i] >= ts:
                        self.broken = True
                        return
                    t_end[i] = ts
                else:
                    pack = packs[p >> _SHIFT]
                    off = p & _OFF
                    if pack.began_at_or_after(off, ts):
                        self.broken = True
                        return
                    pack.stamp(off, ts)
                if r is None:
                    del latest[k]
            elif self.sorted:
                hit = self._find_sorted(k)
                if hit is not None:
                    pack, off = hit
                    if pack.began_at_or_after(off, ts):
                        self.broken = True
                        return
                    pack.stamp(off, ts)
            if r is not None:
                t_keys.append(k)
                t_rows.append(r)
                t_begin.append(ts)
                t_end.append(INF)
                latest[k] = -len(t_keys)
        if len(t_keys) >= PACK_ROWS:  # NB: `_maybe_freeze`, inline (an OLTP commit's call)
            self.freeze()

    def _find_sorted(self, k: bytes) -> tuple[Pack, int] | None:
        """The newest version of k in the sorted packs, if it is live: (pack, offset)."""
        i = bisect_right(self.firsts, k) - 1
        if i < 0:
            return None
        p = self.sorted[i]
        keys = p.keys
        if isinstance(keys, KeyBlob):
            at = keys.find(k)
            return (p, at) if at is not None and p.live(at) else None
        off = bisect_left(keys, k)
        if off < p.n and keys[off] == k and p.live(off):
            return p, off
        return None

    def _in_sorted(self, keys: Sequence[bytes]) -> bool:
        """Tells whether any key has a live version in the sorted packs."""
        if not self.sorted or not keys:
            return False
        if min(keys) > self.sorted[-1].keys[-1] or max(keys) < self.firsts[0]:
            return False  # a load above (or below) every key: no lookup per key
        return any(self._find_sorted(k) is not None for k in keys)

    # --- tracked packs that can be sorted ones ---------------------------------------------------

    def adoptable(self) -> list[Pack]:
        """Tracked packs that may become compact sorted packs (`adopt`), lowest first.

        A table loaded after its copy was built (or written at its end ever since) has
        its rows in packs frozen from the tail: lists of the row store's objects and a
        `latest` entry (~100 bytes) a row. Such a pack, once its keys are ascending and
        above every sorted pack's, with no row ended, can be a sorted pack like a built
        one. Cheap (no pass over rows): it runs under the node lock.
        """
        if self.broken:
            return []
        top = self.sorted[-1].keys[-1] if self.sorted else None
        in_order = {q.pid for q in self.sorted}
        out = [p for p in self.packs.values() if p.pid not in in_order and not p.compact
               and p.end is None and p.n >= PACK_ROWS // 4 and p.pid not in self.mixed]
        # NB: a pack that cannot go above the sorted ones is never encoded in vain
        return sorted((p for p in out if top is None or p.keys[0] > top), key=_first_key)

    def adopt(self, old: Pack, new: Pack | None) -> bool:
        """Puts `new` (old's compacted form, `Pack.ascending_compacted`, made outside the
        lock) in old's place as a sorted pack, if nothing made that wrong meanwhile: old
        is still here and has no ended row, and its first key is above every sorted key.
        Its rows' `latest` entries go (they are found by bisection from now on).
        None: old's keys do not ascend; it is never tried again."""
        if new is None:
            self.mixed.add(old.pid)
            return False
        if (self.broken or self.packs.get(old.pid) is not old or old.end is not None
                or not isinstance(old.keys, list)):
            return False
        keys = old.keys
        if self.sorted and keys[0] <= self.sorted[-1].keys[-1]:
            return False
        base = old.pid << _SHIFT
        latest = self.latest
        # NB: every row is live (no end), so each is its key's newest version: a C-level check
        if list(map(latest.get, keys)) != list(range(base, base + old.n)):
            return False
        deque(map(latest.__delitem__, keys), 0)  # C-level: the node lock is held
        new.begin, new.end, new.ended = old.begin, None, 0
        del self.packs[old.pid]
        self.packs[new.pid] = new
        self.sorted.append(new)
        self.firsts.append(new.keys[0])
        return True

    def _maybe_freeze(self) -> None:
        if len(self.t_keys) >= PACK_ROWS:
            self.freeze()

    def freeze(self) -> None:
        """Turns the tail into a pack.

        It runs under the node lock (from a commit or a scan), so its passes are
        C-level list passes: numpy would release the GIL in every reduction and
        compare, and the lock holder would then wait to get it back (`Snapshot`)."""
        if not self.t_keys:
            return
        keys, rows, b, e = self.t_keys, self.t_rows, self.t_begin, self.t_end
        self.t_keys, self.t_rows, self.t_begin, self.t_end = [], [], [], []
        live = list(compress(range(len(e)), map(INF.__eq__, e)))
        self._add_pack(keys, rows, np.array(b, np.int64), np.array(e, np.int64),
                       bounds=(max(b), min(e)), live=live)

    def collect(self, low_water: int) -> int:
        """Drops rows no snapshot >= low_water sees from mostly dead packs; returns how many."""
        if self.broken:
            return 0
        self.low_water = low_water = max(self.low_water, low_water)
        dropped = 0
        for pid, p in list(self.packs.items()):
            p.forget_begins(low_water)
            if p.min_end > low_water or p.ended * 4 < p.n:
                continue  # nothing, or less than a quarter, can be dropped
            keep = p.ends() > low_water
            nkeep = int(np.count_nonzero(keep))
            if nkeep * 4 > p.n * 3:
                continue
            dropped += p.n - nkeep
            del self.packs[pid]
            at = next((i for i, q in enumerate(self.sorted) if q is p), None)
            if not nkeep:
                if at is not None:
                    del self.sorted[at]
                    del self.firsts[at]
                continue
            idx = np.flatnonzero(keep)
            if p.compact and at is not None:  # still sorted, still compact
                new = p.taken(next(self._ids), idx, self.low_water)
                self.packs[new.pid] = new
                self.sorted[at] = new
                self.firsts[at] = new.keys[0]
                continue
            # Columns already encoded are taken, not re-encoded; the rest come from the rows.
            cols = [None if c is None else c.take(idx) for c in p.cols]
            new = self._add_pack(_take(p.keys, idx), _take(p.rows, idx),
                                 p.begins()[idx], p.ends()[idx], track=at is None)
            if at is not None:  # still sorted: the kept rows keep their order
                self.sorted[at] = new
                self.firsts[at] = new.keys[0]
            new.width = p.width
            new.cols = cols
        # Keep the pack order of insertion: packs made by collect go last, which is harmless
        # (visibility, not order, decides what a scan returns).
        self._merge_small()
        return dropped

    def _merge_small(self) -> None:
        """Merges small packs frozen from the tail (a scan freezes whatever tail it meets)
        into packs of up to PACK_ROWS rows: fewer, larger packs for every later scan."""
        in_order = {q.pid for q in self.sorted}
        small = [p for p in self.packs.values()
                 if p.pid not in in_order and p.n < PACK_ROWS // 4]
        if len(small) < 4:
            return
        batch: list[Pack] = []
        for p in [*small, None]:
            if p is not None and sum(q.n for q in batch) + p.n <= PACK_ROWS:
                batch.append(p)
                continue
            if len(batch) > 1:
                for q in batch:
                    del self.packs[q.pid]
                n = sum(q.n for q in batch)
                low = min(q.min_end for q in batch)
                # NB: bounds and, when no row has ended, `live` from the packs' summaries:
                # no numpy pass (GIL released) under the node lock (`freeze`)
                self._add_pack([k for q in batch for k in _as_list(q.keys)],
                               [r for q in batch for r in _as_list(q.rows)],
                               np.concatenate([q.begins() for q in batch]),
                               np.concatenate([q.ends() for q in batch]),
                               bounds=(max(q.max_begin for q in batch), low),
                               live=list(range(n)) if low == INF else None)
            batch = [p] if p is not None else []

    # --- reading ------------------------------------------------------------------------------

    def snapshot(self, ts: int) -> Snapshot:
        """The rows visible at ts: frozen packs and a pack of the tail's visible rows."""
        if len(self.t_keys) >= SCAN_FREEZE:
            self.freeze()
        # NB: no numpy here (it would release the GIL under the node lock): `Snapshot` doc
        return Snapshot(list(self.packs.values()), ts,
                        self._tail_pack(ts) if self.t_keys else None, self)

    def _tail_pack(self, ts: int) -> Pack | None:
        b, e = self.t_begin, self.t_end
        # NB: max, not the last: concurrent commits are applied out of ts order, so a row
        # before the last may have begun after ts (it was seen next to the version it replaced)
        if max(b) <= ts and min(e) > ts:
            keys, rows = list(self.t_keys), list(self.t_rows)
        else:
            # NB: C-level passes: this runs under the node lock, on every scan
            keep = list(map(and_, map(ts.__ge__, b), map(ts.__lt__, e)))
            if not any(keep):
                return None
            keys = list(compress(self.t_keys, keep))
            rows = list(compress(self.t_rows, keep))
        return Pack(0, keys, rows, None, None)

    def iter_packs(self) -> Iterator[Pack]:
        yield from self.packs.values()

    @property
    def nbytes(self) -> int:
        """Bytes held by the frozen packs (arrays, validity, dictionaries, key pointers)."""
        return sum(p.nbytes for p in self.packs.values())


__all__ = ["INF", "ColumnarCopy", "Pack", "PackView", "Snapshot"]
