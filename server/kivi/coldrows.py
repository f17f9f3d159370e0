"""Cold rows: a region's settled rows kept as compact immutable segments, no object per row.

Why. A row in the version store's base costs ~300 bytes of Python objects (the key's
bytes, the row tuple and its ints, the version and chain tuples, two list slots): a
10M-row table took 3.4 GB. Most rows of a big table are *cold*: one committed version,
older than every snapshot (<= the garbage-collection watermark), so no reader ever
needs its commit ts. `VersionStore.collect` freezes such rows into segments here
(~31 bytes a row for three integer columns); the store keeps them out of its hot
base and reads them back on demand (`kivi.freeze` decides what goes cold). `cumulo
serve` freezes by default (`--no-cold-rows`, `mvcc.FREEZE_ROWS`, turns it off).
Decoding a row costs 5-10x reading one kept as objects, and TPC-C's stock-level
transaction scans a whole stock table: segments scanned again and again stay decoded
(`DecodedRows`), which brought TPC-C back to its rate without cold rows.

Scans decode outside the node lock: `ColdRows.spans` (under it) notes the segment
ranges and copies their part of the alive mask; `decode` reads them after.

A `Segment` holds up to a few thousand sorted keys and their rows:
- keys as one bytes blob (fixed width when all keys are: no offsets), searched by a
  bisection probing the blob (no key objects kept);
- rows as one blob of per-row `marshal` records (exact ints, floats, str, bytes,
  bools, None, and lists/tuples of those). When some value is not one of those
  (Decimal, uuid, datetimes, subclasses: marshal would refuse them or hand back a
  different type, a bytearray as bytes), `kivi.colcodec` converts those columns to
  values marshal keeps, a C-level pass a column (`conv` says how to convert back);
  only rows of several arities are still pickled one by one. Marshal records are
  of format version 2, which has no back-references, so any run of them read behind a
  tuple header is one `marshal.loads` (a scan decodes a whole range in one C call);
  when all rows have the same arity the records are the rows' values without their
  tuple headers (3 integer columns: 15 bytes a row);
- an `alive` mask: a write to a cold key *kills* it here and the store keeps it hot;
- only the greatest commit ts: every snapshot that may read the store is at or above it.

`ColdRows` is a region's sorted list of disjoint segments. Hot keys may lie inside a
segment's range (killed keys, or keys inserted after the freeze); the store keeps hot
and cold disjoint as sets of live keys.

>>> seg = Segment.encode([b"a1", b"a2", b"b7"], [(1, "x"), (2, None), (7, [1.5])], 40)
>>> seg.find(b"a2"), seg.find(b"a3"), seg.row(2)
(1, -1, (7, [1.5]))
>>> cold = ColdRows()
>>> cold.add(seg)
>>> cold.take(b"a2", None, 10, False)
([b'a2', b'b7'], [(2, None), (7, [1.5])])
>>> cold.kill(b"a2")
(40, (2, None))
>>> len(cold), cold.get(b"a2")
(2, None)
"""

from __future__ import annotations

import marshal
import pickle
import struct
import threading
from array import array
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache, partial
from itertools import accumulate, chain, compress, repeat
from operator import itemgetter
from typing import Any, overload

import numpy as np

from ..pgtypes.coded import Coded, values
from .colcodec import Conv, columns_of, from_columns, from_row, to_marshal

Row = tuple[Any, ...]

_MARSHAL_SAFE = frozenset({type(None), bool, int, float, str, bytes})
_NUMBERS = frozenset({type(None), bool, int, float, bytes})


def _marshal_safe(rows: Sequence[Row]) -> bool:
    """Tells whether marshal gives every row back equal and of the same types."""
    if set(map(type, rows)) != {tuple}:
        return False
    types = set(map(type, chain.from_iterable(rows)))
    if types <= _MARSHAL_SAFE:
        return True
    if not types <= _MARSHAL_SAFE | {list, tuple}:
        return False
    return all(_safe_value(v) for r in rows for v in r)


def _safe_value(v: Any) -> bool:
    t = type(v)
    if t is list or t is tuple:
        return all(map(_safe_value, v))
    return t in _MARSHAL_SAFE


def _records(rows: Sequence[Row]) -> tuple[list[bytes], bool, int, Conv]:
    """Each row's record, whether they are pickles, the rows' arity (-1: marshal records
    with their tuple header) and the columns `colcodec` converted."""
    arities = set(map(len, rows)) if set(map(type, rows)) == {tuple} else ()
    if len(arities) != 1:  # rows of several arities: whole marshal records, or pickles
        if _marshal_safe(rows):
            return list(map(marshal.dumps, rows, repeat(2))), False, -1, ()
        return [pickle.dumps(r, 5) for r in rows], True, -1, ()
    arity = arities.pop()
    conv: Conv = ()
    recs: Iterable[Row] = rows
    if not (set(map(type, chain.from_iterable(rows[:1]))) <= _NUMBERS
            and set(map(type, chain.from_iterable(rows))) <= _NUMBERS):  # else nothing to do
        cols, conv = to_marshal(rows, arity)  # by columns: no pickle call per row
        if conv:
            recs = zip(*cols, strict=True)
    # NB: a version 2 tuple header is "(" and a 4-byte count
    blobs = list(map(bytes.__getitem__, map(marshal.dumps, recs, repeat(2)),
                     repeat(slice(5, None))))
    return blobs, False, arity, conv


@lru_cache(maxsize=128)
def _keys_struct(width: int, n: int) -> struct.Struct:
    return struct.Struct(f"{width}s" * n)


def _fixed_keys(blob: bytes, width: int, i: int, j: int) -> list[bytes]:
    """Keys i..j-1 of a fixed-width blob: a few `struct` unpacks of power-of-two runs
    (10x quicker than a slice per key)."""
    out: list[bytes] = []
    at, n = i * width, j - i
    while n > 0:
        k = min(4096, 1 << (n.bit_length() - 1))
        out += _keys_struct(width, k).unpack_from(blob, at)
        at += k * width
        n -= k
    return out


class Segment:
    """Sorted keys and their one live row each, encoded; immutable but for `alive`."""

    __slots__ = ("n", "width", "kblob", "koffs", "rblob", "roffs", "pickled",
                 "arity", "conv", "alive", "dead", "max_ts", "first", "last", "decoded", "reads",
                 "_fixed", "_span")

    def __init__(self, n: int, width: int, kblob: bytes, koffs: array | None, rblob: bytes,
                 roffs: array, pickled: bool, arity: int, alive: bytearray, max_ts: int,
                 conv: Conv = ()) -> None:
        self.n = n
        self.width = width  # 0: keys of several widths, cut by koffs
        self.kblob = kblob
        self.koffs = koffs
        self.rblob = rblob
        self.roffs = roffs
        self.pickled = pickled
        self.arity = arity  # marshal records without their tuple header, or -1: with it
        self.conv = conv  # the columns `colcodec` converted to marshal-safe values, and how
        self.alive = alive
        self.dead = alive.count(0)
        self.max_ts = max_ts
        self.first = self.key(0)
        self.last = self.key(n - 1)
        self.decoded: list[Row] | None = None  # every row, while `DECODED` keeps them
        self.reads = 0  # rows decoded by scans so far (`DecodedRows.note`)
        self._fixed: np.ndarray | None = None  # fixed-width keys as numpy strings, for `find`
        # fixed-width keys as integers: (the first, the last less the first), for `find`'s guess
        self._span: tuple[int, int] | None = None

    @classmethod
    def encode(cls, keys: Sequence[bytes], rows: Sequence[Row], max_ts: int) -> Segment:
        """Encodes sorted distinct keys and their rows (no None: tombstones never go cold)."""
        n = len(keys)
        if not n:
            raise ValueError("an empty cold segment")
        widths = set(map(len, keys))
        width = widths.pop() if len(widths) == 1 else 0
        koffs = None if width else array("I", accumulate(map(len, keys), initial=0))
        blobs, pickled, arity, conv = _records(rows)
        roffs = array("I", accumulate(map(len, blobs), initial=0))
        return cls(n, width, b"".join(keys), koffs, b"".join(blobs), roffs, pickled, arity,
                   bytearray(b"\x01") * n, max_ts, conv)

    # --- reading ------------------------------------------------------------------------------

    def key(self, i: int) -> bytes:
        w = self.width
        if w:
            return self.kblob[i * w:i * w + w]
        offs = self.koffs
        assert offs is not None
        return self.kblob[offs[i]:offs[i + 1]]

    def keys(self, i: int, j: int) -> list[bytes]:
        """Keys i..j-1, dead ones too."""
        w, blob = self.width, self.kblob
        if w:
            return _fixed_keys(blob, w, i, j)
        offs = self.koffs
        assert offs is not None
        return list(map(blob.__getitem__, map(slice, offs[i:j], offs[i + 1:j + 1])))

    def row(self, i: int) -> Row:
        d = self.decoded
        if d is not None:
            return d[i]
        o = self.roffs
        blob = self.rblob[o[i]:o[i + 1]]
        if self.pickled:
            return pickle.loads(blob)
        if self.arity < 0:
            return marshal.loads(blob)
        rec = marshal.loads(b"(" + self.arity.to_bytes(4, "little") + blob)
        return from_row(rec, self.conv) if self.conv else rec

    def rows(self, i: int, j: int) -> list[Row]:
        """Rows i..j-1, dead ones too, decoded by C-level passes."""
        d = self.decoded
        if d is not None:
            return d[i:j]
        o = self.roffs
        if self.pickled:
            mv = memoryview(self.rblob)
            return list(map(pickle.loads, map(mv.__getitem__, map(slice, o[i:j], o[i + 1:j + 1]))))
        if i >= j:
            return []
        a = self.arity
        blob = self.rblob[o[i]:o[j]]
        if a < 0:
            return list(marshal.loads(b"(" + (j - i).to_bytes(4, "little") + blob))
        if a == 0:
            return [()] * (j - i)
        flat = marshal.loads(b"(" + (a * (j - i)).to_bytes(4, "little") + blob)
        if self.conv:
            return from_columns([flat[c::a] for c in range(a)], self.conv)
        return list(zip(*[iter(flat)] * a, strict=True))

    def rows_at(self, at: list[int]) -> list[Row]:
        """The rows at positions `at` (dead ones too): their records joined and decoded by
        one C call, as `rows` decodes a range (ANALYZE's sample, `kivi.storesample`)."""
        d = self.decoded
        if d is not None:
            return [d[i] for i in at]
        if self.pickled or self.arity <= 0 or not at:
            return list(map(self.row, at))
        o, blob, a = self.roffs, self.rblob, self.arity
        recs = b"".join([blob[o[i]:o[i + 1]] for i in at])
        flat = marshal.loads(b"(" + (a * len(at)).to_bytes(4, "little") + recs)
        if self.conv:
            return from_columns([flat[c::a] for c in range(a)], self.conv)
        return list(zip(*[iter(flat)] * a, strict=True))

    def columns(self, i: int, j: int, sel: bytes | bytearray | None) -> list[Any]:
        """The columns of the rows among i..j-1 that `sel` selects (None: all), without a
        tuple per row; timestamps, numerics and dates stay in their stored form
        (`colcodec.columns_of`), which is why the records are read even when the segment is
        kept decoded. Segments of pickled or headed records are cut from their rows."""
        a = self.arity
        if self.pickled or a <= 0 or i >= j:  # NB: kept decoded rows would cost a transpose
            rows = self.span(i, j, sel)[1]
            width = a if a >= 0 else len(rows[0]) if rows else 0
            return [list(map(itemgetter(c), rows)) for c in range(width)]
        o = self.roffs
        flat = marshal.loads(b"(" + (a * (j - i)).to_bytes(4, "little") + self.rblob[o[i]:o[j]])
        if sel is not None and sel.count(0):
            cols: list[Sequence[Any]] = [list(compress(flat[c::a], sel)) for c in range(a)]
        else:
            cols = [flat[c::a] for c in range(a)]
        return columns_of(cols, self.conv) if self.conv else cols

    def bisect(self, key: bytes) -> int:
        """The index of the first key >= key: a bisection probing the blob itself.

        NB: no key objects are kept for it: small objects made while the row store still
        holds its rows land in that store's allocator pools and keep them (and their
        arenas) from being returned to the system once it frees its rows."""
        lo, hi = 0, self.n
        w, blob = self.width, self.kblob
        if w:
            while lo < hi:
                mid = (lo + hi) >> 1
                if blob[mid * w:mid * w + w] < key:
                    lo = mid + 1
                else:
                    hi = mid
            return lo
        offs = self.koffs
        assert offs is not None
        while lo < hi:
            mid = (lo + hi) >> 1
            if blob[offs[mid]:offs[mid + 1]] < key:
                lo = mid + 1
            else:
                hi = mid
        return lo

    def find(self, key: bytes) -> int:
        """The index of key if the segment holds it alive, else -1.

        Fixed-width keys (integer keys) are found by numpy's `searchsorted` over a view of
        the blob: 1.3 us against 8 for `bisect`'s Python loop at a million keys (a point
        read of a cold row, pgbench's select-only). Byte strings of one width compare in
        numpy as `bytes` do (byte by byte over the whole width, NULs included), and a key
        of another width is not in the segment.

        Before that, a fixed-width key is looked for where it would sit if the keys were
        spread evenly over their range (big-endian bytes order as the integers they spell):
        keys of a serial column are, and then one comparison finds it.

            >>> seg = Segment.encode([b"k%03d" % i for i in range(0, 200, 2)], [(1,)] * 100, 5)
            >>> seg.find(b"k100"), seg.find(b"k101"), seg.find(b"k198"), seg.find(b"k000")
            (50, -1, 99, 0)
        """
        if key < self.first or key > self.last:
            return -1
        w = self.width
        if w:
            if len(key) != w:
                return -1
            span = self._span
            if span is None:
                lo = int.from_bytes(self.first, "big")
                span = self._span = (lo, int.from_bytes(self.last, "big") - lo)
            if span[1]:
                g = (int.from_bytes(key, "big") - span[0]) * (self.n - 1) // span[1]
                if self.kblob[g * w:g * w + w] == key:
                    return g if self.alive[g] else -1
            fixed = self._fixed
            if fixed is None:
                fixed = self._fixed = np.frombuffer(self.kblob, dtype=f"S{w}", count=self.n)
            i = int(fixed.searchsorted(key))
        else:
            i = self.bisect(key)
        if i < self.n and self.alive[i] and self.key(i) == key:
            return i
        return -1

    def live(self, i: int, j: int, alive: bytes | bytearray | None = None
             ) -> tuple[list[bytes], list[Row]]:
        """The alive keys and rows among i..j-1 (by `alive`, a snapshot of the mask, if given)."""
        mask = self.alive if alive is None else alive
        return self.span(i, j, mask[i:j] if self.dead else None)

    def span(self, i: int, j: int, sel: bytes | bytearray | None) -> tuple[list[bytes], list[Row]]:
        """The keys and rows among i..j-1 that `sel` (the alive mask's i..j-1, None: all
        alive) selects."""
        ks, rs = self.keys(i, j), self.rows(i, j)
        if sel is not None and sel.count(0):
            return list(compress(ks, sel)), list(compress(rs, sel))
        return ks, rs

    # --- changing -----------------------------------------------------------------------------

    def cut(self, i: int, j: int) -> Segment:
        """A new segment of entries i..j-1 (0 < j - i), alive ones and dead ones."""
        w = self.width
        if w:
            kblob, koffs = self.kblob[i * w:j * w], None
        else:
            o = self.koffs
            assert o is not None
            kblob = self.kblob[o[i]:o[j]]
            koffs = array("I", [x - o[i] for x in o[i:j + 1]])
        ro = self.roffs
        roffs = array("I", [x - ro[i] for x in ro[i:j + 1]])
        return Segment(j - i, w, kblob, koffs, self.rblob[ro[i]:ro[j]], roffs, self.pickled,
                       self.arity, self.alive[i:j], self.max_ts, self.conv)

    @property
    def nbytes(self) -> int:
        """Bytes of the encoded data (not counting the few objects around it)."""
        return (len(self.kblob) + len(self.rblob) + len(self.alive) + 4 * len(self.roffs)
                + (4 * len(self.koffs) if self.koffs is not None else 0))


READ_MEMO = 64  # keys a `ColdRows` remembers from its last reads (`ColdRows.version`)


class ColdRows:
    """A region's cold segments: sorted, disjoint key ranges; `len` counts live rows."""

    __slots__ = ("segs", "firsts", "live_rows", "_read")

    def __init__(self) -> None:
        self.segs: list[Segment] = []
        self.firsts: list[bytes] = []
        self.live_rows = 0
        # The last keys `version` found, with their segment, position and version (at most
        # READ_MEMO): a key read and then written (an UPDATE's read, its commit's `kill`) is
        # found and decoded once. An entry is only a hint, used while its segment is still
        # the key's and the key alive in it: a stale one costs a lookup, never a wrong row.
        self._read: dict[bytes, tuple[Segment, int, tuple[int, Row]]] = {}

    def __len__(self) -> int:
        return self.live_rows

    def __bool__(self) -> bool:
        return self.live_rows > 0

    def _seg_of(self, key: bytes) -> Segment | None:
        s = bisect_right(self.firsts, key) - 1
        if s < 0:
            return None
        seg = self.segs[s]
        return seg if key <= seg.last else None

    def get(self, key: bytes) -> Row | None:
        """The row of a live cold key, else None."""
        seg = self._seg_of(key)
        if seg is None:
            return None
        i = seg.find(key)
        return None if i < 0 else seg.row(i)

    def version(self, key: bytes) -> tuple[int, Row] | None:
        """(ts, row) of a live cold key, its ts its segment's greatest; None if not cold."""
        s = bisect_right(self.firsts, key) - 1
        if s < 0:
            return None
        seg = self.segs[s]
        i = seg.find(key)
        if i < 0:
            return None
        version = seg.max_ts, seg.row(i)
        read = self._read
        if len(read) >= READ_MEMO:
            read.clear()
        read[key] = seg, i, version
        return version

    def kill(self, key: bytes) -> tuple[int, Row] | None:
        """Marks a live cold key dead (it goes hot) and returns its `version`; None if not cold."""
        s = bisect_right(self.firsts, key) - 1  # NB: `_seg_of`, inline (a call fewer per warm-up)
        if s < 0:
            return None
        seg = self.segs[s]
        if key > seg.last:
            return None
        hint = self._read.pop(key, None)
        if hint is not None and hint[0] is seg and seg.alive[hint[1]]:
            _, i, row = hint
        else:
            i = seg.find(key)
            if i < 0:
                return None
            row = seg.max_ts, seg.row(i)
        seg.alive[i] = 0
        seg.dead += 1
        self.live_rows -= 1
        if seg.dead == seg.n:
            s = self.segs.index(seg)
            del self.segs[s]
            del self.firsts[s]
            DECODED.forget(seg)
        return row

    @property
    def top(self) -> bytes | None:
        """The greatest key of the last segment (it may be dead): None when empty."""
        return self.segs[-1].last if self.segs else None

    def overlaps(self, lo: bytes, hi: bytes) -> bool:
        """Tells whether [lo, hi] (both inclusive) meets a segment's range."""
        s = bisect_right(self.firsts, hi) - 1
        return s >= 0 and self.segs[s].last >= lo

    def add(self, seg: Segment) -> None:
        """Inserts a segment whose range meets no other's."""
        if self.overlaps(seg.first, seg.last):
            raise ValueError("cold segments overlap")
        s = bisect_left(self.firsts, seg.first)
        self.segs.insert(s, seg)
        self.firsts.insert(s, seg.first)
        self.live_rows += seg.n - seg.dead

    def take(self, lo: bytes | None, hi: bytes | None, limit: int, reverse: bool
             ) -> tuple[list[bytes], list[Row]]:
        """Up to `limit` live keys of [lo, hi) and their rows, in ascending key order:
        the first ones forward, the last ones in reverse."""
        return decode(self.spans(lo, hi, limit, reverse))

    def spans(self, lo: bytes | None, hi: bytes | None, limit: int, reverse: bool
              ) -> list[Span]:
        """`take` without decoding: where its keys and rows are, for `decode` to read later
        (outside the node lock: a segment's entries never change, and each span carries
        a copy of its part of the alive mask)."""
        segs = self.segs
        s0 = 0 if lo is None else max(0, bisect_right(self.firsts, lo) - 1)
        s1 = len(segs) if hi is None else bisect_left(self.firsts, hi)
        order = range(s1 - 1, s0 - 1, -1) if reverse else range(s0, s1)
        parts: list[Span] = []
        got = 0
        for s in order:
            seg = segs[s]
            i = 0 if lo is None or lo <= seg.first else seg.bisect(lo)
            j = seg.n if hi is None or hi > seg.last else seg.bisect(hi)
            if i >= j:
                continue
            mask = seg.alive
            alive = mask.count(1, i, j) if seg.dead else j - i
            if not alive:
                continue
            if got + alive > limit:  # only part of this segment: find where to cut
                need = limit - got
                if seg.dead:  # widen the cut by the dead entries it holds, until it has `need`
                    if reverse:
                        c = j - need
                        while (have := mask.count(1, c, j)) < need:
                            c -= need - have
                        i = c
                    else:
                        c = i + need
                        while (have := mask.count(1, i, c)) < need:
                            c += need - have
                        j = c
                elif reverse:
                    i = j - need
                else:
                    j = i + need
            if seg.dead and (sel := mask[i:j]).count(0):
                parts.append((seg, i, j, bytes(sel)))
                got += sel.count(1)
            else:
                parts.append((seg, i, j, None))
                got += j - i
            if got >= limit:
                break
        if reverse:
            parts.reverse()
        return parts

    def replace(self, s: int, seg: Segment) -> None:
        """Puts seg in the place of segment s, whose range holds seg's (a rewrite)."""
        old = self.segs[s]
        self.segs[s], self.firsts[s] = seg, seg.first
        self.live_rows += (seg.n - seg.dead) - (old.n - old.dead)
        DECODED.forget(old)

    def split_off(self, key: bytes) -> ColdRows:
        """Moves the keys >= key into a new ColdRows and returns it."""
        other = ColdRows()
        s = bisect_left(self.firsts, key)
        if s > 0 and self.segs[s - 1].last >= key:  # the segment that key cuts
            seg = self.segs[s - 1]
            i = seg.bisect(key)
            lower, upper = seg.cut(0, i), seg.cut(i, seg.n)
            self.segs[s - 1], self.firsts[s - 1] = lower, lower.first
            self.segs.insert(s, upper)
            self.firsts.insert(s, upper.first)
        for seg in self.segs[s:]:
            if seg.dead < seg.n:
                other.add(seg)
        del self.segs[s:]
        del self.firsts[s:]
        self.segs_cleanup()
        other.segs_cleanup()
        self.live_rows -= other.live_rows
        return other

    def segs_cleanup(self) -> None:
        """Drops segments with no live row (a cut may leave one)."""
        keep = [s for s in self.segs if s.dead < s.n]
        if len(keep) != len(self.segs):
            self.segs = keep
            self.firsts = [s.first for s in keep]

    def snapshot(self) -> list[tuple[Segment, bytes]]:
        """Each segment with a copy of its alive mask: what the rows are now, for a reader
        outside the lock (segments are immutable but for the mask)."""
        return [(s, bytes(s.alive)) for s in self.segs]

    @property
    def nbytes(self) -> int:
        return sum(s.nbytes for s in self.segs)


Span = tuple[Segment, int, int, bytes | None]  # entries i..j-1, and which are alive (None: all)


def decode(spans: list[Span]) -> tuple[list[bytes], list[Row]]:
    """The live keys and rows of some `ColdRows.spans`, in order. Segments that scans
    decode again and again keep their rows decoded (`DECODED`)."""
    if len(spans) == 1:
        seg, i, j, sel = spans[0]
        DECODED.note(seg, j - i)
        return seg.span(i, j, sel)
    out_k: list[bytes] = []
    out_r: list[Row] = []
    for seg, i, j, sel in spans:
        DECODED.note(seg, j - i)
        ks, rs = seg.span(i, j, sel)
        out_k += ks
        out_r += rs
    return out_k, out_r


def decode_columns(spans: list[Span], arity: int) -> list[Any]:
    """`decode`'s rows as columns (`Segment.columns`), the spans' columns joined; not
    noted in `DECODED` (a column scan never wants the rows kept)."""
    if len(spans) == 1:
        seg, i, j, sel = spans[0]
        return seg.columns(i, j, sel)
    parts = [seg.columns(i, j, sel) for seg, i, j, sel in spans]
    return [joined_column([p[c] for p in parts]) for c in range(arity)]


def joined_column(parts: list[Any]) -> Any:
    """Pieces of one column as one: `Coded` pieces of one kind stay coded."""
    if len(parts) == 1:
        return parts[0]
    if all(type(p) is Coded for p in parts) and len({p.kind for p in parts}) == 1:
        return Coded(parts[0].kind, list(chain.from_iterable(p.wire for p in parts)),
                     partial(_decode_parts, parts))
    return list(chain.from_iterable(map(values, parts)))


def _decode_parts(parts: list[Coded], wire: list[Any]) -> list[Any]:
    """The values of joined `Coded` pieces, each piece by its own decoder (one piece may
    hold NULLs, another not)."""
    out: list[Any] = []
    at = 0
    for p in parts:
        out += p.decode(wire[at:at + len(p)])
        at += len(p)
    return out


class DecodedRows:
    """The segments whose rows stay decoded: those scans read the most, up to `budget` rows
    in all, the least recently read dropped first.

    Why: decoding is ~5-10x the cost of reading rows kept as objects (a 17-column TPC-C
    stock row ~5 us), and TPC-C's stock-level transaction scans a warehouse's whole stock
    table. A segment is kept decoded once scans have decoded as many rows as it holds
    (point reads and short ranges take long to qualify), so a table scanned over and over
    costs what a hot one does, within a bounded amount of memory, and a big table read
    once keeps at most the budget decoded. Called outside the node lock: its own lock guards the order."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.rows = 0
        self._lock = threading.Lock()
        self._segs: OrderedDict[int, Segment] = OrderedDict()

    def note(self, seg: Segment, n: int) -> None:
        """Notes that a scan reads n entries of seg (before it reads them)."""
        if seg.decoded is not None:
            with self._lock:
                if id(seg) in self._segs:
                    self._segs.move_to_end(id(seg))
            return
        seg.reads += n
        if seg.reads < seg.n or seg.n > self.budget:
            return
        rows = seg.rows(0, seg.n)  # NB: outside this lock: decoding takes milliseconds
        with self._lock:
            if seg.decoded is not None:
                return
            seg.decoded = rows
            self._segs[id(seg)] = seg
            self.rows += seg.n
            while self.rows > self.budget:
                _, old = self._segs.popitem(last=False)
                old.decoded = None
                old.reads = 0
                self.rows -= old.n

    def forget(self, seg: Segment) -> None:
        """Drops seg's decoded rows (it left its store)."""
        if seg.decoded is None:
            return
        with self._lock:
            if self._segs.pop(id(seg), None) is not None:
                self.rows -= seg.n
            seg.decoded = None

    def clear(self) -> None:
        with self._lock:
            for seg in self._segs.values():
                seg.decoded = None
                seg.reads = 0
            self._segs.clear()
            self.rows = 0


# NB: ~1 KB a row for TPC-C's stock rows: 256 MB at most, and nothing for tables no scan
# reads twice (a bulk-loaded table queried through its columnar copy)
DECODED = DecodedRows(1 << 18)


class Merged:
    """Hot keys and chains (lists the caller copied) and a `ColdRows.snapshot`, read as one
    sorted sequence of (key, chain) a window at a time, decoding cold rows only there.

    A columnar build or an export reads it outside the node lock: a cold row reads as
    the chain `((segment max ts, row),)`, right for every snapshot at or above the
    garbage-collection watermark (the only ones that read the store).
    """

    __slots__ = ("hot_keys", "hot_chains", "parts", "starts", "n", "_last")

    def __init__(self, hot_keys: list[bytes], hot_chains: list[Any],
                 cold: list[tuple[Segment, bytes]]) -> None:
        self.hot_keys, self.hot_chains = hot_keys, hot_chains
        # (hot lo, hot hi, segment or None, its mask): a hot run, or a segment with the
        # hot keys inside its range
        parts: list[tuple[int, int, Segment | None, bytes | None]] = []
        h = 0
        for seg, mask in cold:
            a = bisect_left(hot_keys, seg.first, h)
            if a > h:
                parts.append((h, a, None, None))
            b = bisect_right(hot_keys, seg.last, a)
            parts.append((a, b, seg, mask))
            h = b
        if h < len(hot_keys):
            parts.append((h, len(hot_keys), None, None))
        sizes = [b - a + (0 if m is None else m.count(1)) for a, b, _, m in parts]
        self.parts = parts
        self.starts = list(accumulate(sizes, initial=0))
        self.n = self.starts[-1]
        self._last: tuple[int, list[bytes], list[Any]] | None = None

    def __len__(self) -> int:
        return self.n

    def _part(self, p: int) -> tuple[list[bytes], list[Any]]:
        last = self._last
        if last is not None and last[0] == p:
            return last[1], last[2]
        a, b, seg, mask = self.parts[p]
        hk, hc = self.hot_keys[a:b], self.hot_chains[a:b]
        if seg is not None:
            ks, rs = seg.live(0, seg.n, mask)
            hk, hc = merge(ks, list(zip(zip(repeat(seg.max_ts), rs))), hk, hc)
        self._last = (p, hk, hc)
        return hk, hc

    def window(self, i: int, j: int) -> tuple[list[bytes], list[Any]]:
        """Keys and chains i..j-1."""
        i, j = max(0, i), min(self.n, j)
        out_k: list[bytes] = []
        out_c: list[Any] = []
        if i >= j:
            return out_k, out_c
        p = bisect_right(self.starts, i) - 1
        while i < j:
            start = self.starts[p]
            ks, cs = self._part(p)
            a, b = i - start, min(j, self.starts[p + 1]) - start
            out_k += ks[a:b]
            out_c += cs[a:b]
            i = start + b
            p += 1
        return out_k, out_c

    def bisect_right(self, key: bytes) -> int:
        """The index of the first key > key."""
        parts, hk = self.parts, self.hot_keys
        lo, hi = 0, len(parts)
        while lo < hi:  # the last part whose first key is <= key
            mid = (lo + hi) >> 1
            a, b, seg, _ = parts[mid]
            first = hk[a] if seg is None else seg.first if a == b else min(seg.first, hk[a])
            if first <= key:
                lo = mid + 1
            else:
                hi = mid
        p = lo - 1
        if p < 0:
            return 0
        ks, _ = self._part(p)
        return self.starts[p] + bisect_right(ks, key)

    def all(self) -> tuple[list[bytes], list[Any]]:
        return self.window(0, self.n)

    @property
    def keys(self) -> Window:
        return Window(self, 0)

    @property
    def chains(self) -> Window:
        return Window(self, 1)


class Window(Sequence[Any]):
    """The keys (0) or the chains (1) of a `Merged`, read by slices (`ColumnarCopy.build`)."""

    __slots__ = ("merged", "which")

    def __init__(self, merged: Merged, which: int) -> None:
        self.merged, self.which = merged, which

    def __len__(self) -> int:
        return self.merged.n

    def __iter__(self) -> Iterator[Any]:
        m = self.merged
        for lo in range(0, m.n, 8192):
            yield from m.window(lo, lo + 8192)[self.which]

    @overload
    def __getitem__(self, i: int) -> Any: ...

    @overload
    def __getitem__(self, i: slice) -> list[Any]: ...

    def __getitem__(self, i: int | slice) -> Any:
        n = self.merged.n
        if isinstance(i, slice):
            lo, hi, step = i.indices(n)
            if step != 1:
                raise ValueError("a merged window is read by plain slices")
            return self.merged.window(lo, hi)[self.which]
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(i)
        return self.merged.window(i, i + 1)[self.which][0]


def merge(ak: list[bytes], ac: list[Any], bk: list[bytes], bc: list[Any]
          ) -> tuple[list[bytes], list[Any]]:
    """Merges two disjoint sorted key lists with their chains (or rows).

    It copies runs, not keys: every run of `bk` that falls between two neighbouring keys
    of `ak` goes over with one slice, found by two bisections. Four Spark tasks that
    load neighbouring slices of a key range commit one run each, so their merge costs
    a few C-level list copies instead of a Python step per key.

    >>> merge([b"b", b"f"], [2, 6], [b"a", b"c", b"d", b"g"], [1, 3, 4, 7])
    ([b'a', b'b', b'c', b'd', b'f', b'g'], [1, 2, 3, 4, 6, 7])
    """
    if not bk:
        return ak, ac
    if not ak:
        return list(bk), list(bc)
    if len(bc) != len(bk):
        raise ValueError("merge: keys and chains differ in length")
    out_k: list[bytes] = []
    out_c: list[Any] = []
    i = j = 0
    na, nb = len(ak), len(bk)
    while j < nb:
        stop = bisect_left(ak, bk[j], i)  # the a-keys before b's next run
        out_k.extend(ak[i:stop])
        out_c.extend(ac[i:stop])
        i = stop
        end = nb if i == na else bisect_left(bk, ak[i], j)  # the run: b-keys below ak[i]
        if end == j:  # NB: a key in both lists (not a caller's promise): b's goes first
            end = j + 1
        out_k.extend(bk[j:end])
        out_c.extend(bc[j:end])
        j = end
    out_k.extend(ak[i:])
    out_c.extend(ac[i:])
    return out_k, out_c


__all__ = ["DECODED", "ColdRows", "DecodedRows", "Merged", "Segment", "Span", "Window", "decode",
           "merge"]
