"""The key range a set of bulk-written keys spans, to skip membership checks that cannot hit.

A bulk load writes batch after batch of keys that follow each other (a COPY,
a direct-API upsert, four Spark tasks each loading its own slice of a key
range). Telling that a new batch shares no key with the write set, another
transaction's bulk hold or a committed key set costs a hash lookup per key
(`dict.keys().isdisjoint`): a cache miss each in a million-key dict, and on
a loaded machine the largest share of a bulk write's CPU. When the batch's
smallest and largest keys lie outside the range the other set spans, no key
can be shared, and two `min`/`max` passes (C-level comparisons over the
batch's list, no lookup) answer instead.

A `KeySpan` covers every key of the batches added to it (a superset after
keys are removed: a savepoint rollback), and is folded lazily: a batch costs
its `min`/`max` only when some later check needs the span. Callers check
`apart` first and fall back to the exact test when it says no.

>>> s = KeySpan()
>>> s.add([b"b", b"d"]); s.add([b"c"])
>>> s.apart(b"e", b"f"), s.apart(b"a", b"a"), s.apart(b"a", b"b"), s.apart(b"c", b"z")
(True, True, False, False)
>>> KeySpan().apart(b"a", b"z")  # nothing added: nothing to share
True
>>> s.bounds()
(b'b', b'd')
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from ..kivi.ascending import AscendingKeys

Bounds = tuple[bytes, bytes]


def bounds_of(keys: Iterable[bytes]) -> Bounds | None:
    """The smallest and largest key (two C-level passes; the ends of `AscendingKeys`),
    or None for no keys.

    >>> bounds_of(AscendingKeys([b"a", b"b", b"c"])), bounds_of([b"b", b"c", b"a"])
    ((b'a', b'c'), (b'a', b'c'))
    """
    if type(keys) is AscendingKeys:
        return (keys[0], keys[-1]) if keys else None
    if type(keys) is not list and not isinstance(keys, Collection):  # NB: a commit's: a list
        keys = list(keys)
    if not keys:
        return None
    return min(keys), max(keys)


class KeySpan:
    """The [lo, hi] range covering some batches of keys, computed when first asked."""

    __slots__ = ("lo", "hi", "_pending")

    def __init__(self) -> None:
        # the range of the batches folded so far (None: none yet): a key inside it is
        # covered already, whatever is pending (a commit's release reads them to skip `add`)
        self.lo: bytes | None = None
        self.hi: bytes | None = None
        self._pending: list[Collection[bytes]] = []  # batches not folded into lo/hi yet

    def add(self, keys: Collection[bytes], bounds: Bounds | None = None) -> None:
        """Covers keys too (`bounds`: theirs, when the caller has them already)."""
        if bounds is None:
            self._pending.append(keys)
            return
        lo, hi = bounds  # NB: `_widen` inline: a commit's release adds each space's keys
        if self.lo is None or lo < self.lo:
            self.lo = lo
        if self.hi is None or hi > self.hi:
            self.hi = hi

    def merge(self, other: KeySpan) -> None:
        """Covers every key `other` covers."""
        b = other.bounds()
        if b is not None:
            self._widen(b)

    def bounds(self) -> Bounds | None:
        """(lo, hi) of every key added, or None when none was."""
        if self._pending:
            pending, self._pending = self._pending, []
            for keys in pending:
                b = bounds_of(keys)
                if b is not None:
                    self._widen(b)
        if self.lo is None or self.hi is None:
            return None
        return self.lo, self.hi

    def apart(self, lo: bytes, hi: bytes) -> bool:
        """True when no key in [lo, hi] can be one of the keys added (False: maybe)."""
        b = self.bounds()
        return b is None or hi < b[0] or lo > b[1]

    def _widen(self, b: Bounds) -> None:
        lo, hi = b
        if self.lo is None or lo < self.lo:
            self.lo = lo
        if self.hi is None or hi > self.hi:
            self.hi = hi
