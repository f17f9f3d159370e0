"""A write set's bulk batches kept as sorted lists (runs) instead of a dict entry per key.

A COPY or a direct-API upsert hands the write set batches of keys new to the
transaction, nearly always in key order (`kivi.ascending`). Putting each key
into the write set's dict cost the largest share of a bulk load's server CPU:
building a dict of a million keys takes about 0.2 s, more than the commit's
apply. So a batch whose keys ascend becomes a `Run`: its key list and its row
list, kept as they came. A later batch whose keys all follow the run's last
one extends it (the run copies its lists once, then appends), so a load of
many batches stays one run:

    batches:  [1 2 3] [4 5] [9 10]   [6 7]
    runs:     [1 2 3 4 5 9 10]       [6 7]     (the last batch lies below: a run of its own)

Lookups bisect (read-your-writes, a later UPDATE of a just-copied row, ON
CONFLICT), or, once many keys are asked at once, use an index (key ->
position) built then and kept until the run changes length. A point write to
a key of a run replaces its row in place, so a key is in one place only: the
write set's dict or one run. A savepoint rollback cuts a run back to where the
batch began. The commit hands a single run's lists to the log and to KiVi as
they are (`AscendingKeys`: no sort, no pass over them).

`Held` is what the conflict manager keeps of a transaction's bulk writes in a
space (`ConflictManager.acquire_bulk`): a read-only view of the space's dict and
runs, asked `in`, `isdisjoint` and iterated as a dict's keys would be.

>>> r = Run(AscendingKeys([b"b", b"d"]), [1, 2])
>>> r.find(b"d"), r.find(b"c"), r.find(b"a")
(1, -1, -1)
>>> r.extend(AscendingKeys([b"f"]), [3]); r.set(0, 9); r.keys, r.rows
([b'b', b'd', b'f'], [9, 2, 3])
>>> h = Held({b"z": 0}, [r])
>>> b"f" in h, b"c" in h, h.isdisjoint([b"a", b"c"]), h.isdisjoint([b"c", b"z"]), len(h)
(True, False, True, False, 4)
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator
from itertools import chain
from typing import Any

from ..kivi.ascending import AscendingKeys
from .keyspan import Bounds, bounds_of

INDEX_FROM = 32  # keys asked at once from which a run builds its index (key -> position)


class Run:
    """One sorted run: distinct ascending keys and their rows (None: a delete)."""

    __slots__ = ("keys", "rows", "owned", "_pos")

    def __init__(self, keys: list[bytes], rows: list[Any], owned: bool = False) -> None:
        self.keys = keys
        self.rows = rows
        self.owned = owned  # False: the lists are the caller's (not to be changed in place)
        self._pos: dict[bytes, int] | None = None

    def __repr__(self) -> str:
        return f"<Run {len(self.keys)} keys {self.keys[0]!r}..{self.keys[-1]!r}>"

    def find(self, key: bytes) -> int:
        """The key's position, or -1."""
        keys = self.keys
        if not keys or key < keys[0] or key > keys[-1]:
            return -1
        pos = self._pos
        if pos is not None:
            return pos.get(key, -1)
        i = bisect_left(keys, key)
        return i if i < len(keys) and keys[i] == key else -1

    def index(self) -> dict[bytes, int]:
        """key -> position, built when first asked, dropped when the run grows or shrinks."""
        pos = self._pos
        if pos is None:
            pos = self._pos = dict(zip(self.keys, range(len(self.keys)), strict=True))
        return pos

    def _own(self) -> None:
        if not self.owned:
            self.keys, self.rows, self.owned = AscendingKeys(self.keys), list(self.rows), True

    def extend(self, keys: list[bytes], rows: list[Any]) -> None:
        """Appends keys that all follow the last one."""
        self._own()
        self.keys.extend(keys)
        self.rows.extend(rows)
        self._pos = None

    def cut(self, n: int) -> None:
        """Keeps the first n keys (n > 0: the run was extended, so it owns its lists)."""
        self._pos = None
        del self.keys[n:], self.rows[n:]

    def set(self, i: int, row: Any) -> None:
        """Replaces the row at position i."""
        if not self.owned:
            self.rows, self.owned = list(self.rows), True
            self.keys = AscendingKeys(self.keys)  # NB: owned covers both lists
        self.rows[i] = row

    def apart(self, b: Bounds) -> bool:
        """True when no key in [lo, hi] can be in the run."""
        keys = self.keys
        return not keys or b[1] < keys[0] or b[0] > keys[-1]

    def disjoint(self, keys: Iterable[bytes], b: Bounds) -> bool:
        """True when no key of keys (bounds b) is in the run."""
        if self.apart(b):
            return True
        if not isinstance(keys, (list, tuple)) or len(keys) >= INDEX_FROM:
            return self.index().keys().isdisjoint(keys)
        find = self.find
        return all(find(k) < 0 for k in keys)


def locate(runs: list[Run], key: bytes) -> tuple[Run, int] | None:
    """The run holding key and its position there, or None."""
    for r in runs:
        i = r.find(key)
        if i >= 0:
            return r, i
    return None


def runs_disjoint(runs: list[Run], keys: Iterable[bytes], b: Bounds | None = None) -> bool:
    """True when no key of keys is in any of runs."""
    if not runs:
        return True
    if b is None:
        b = bounds_of(keys)
        if b is None:
            return True
    return all(r.disjoint(keys, b) for r in runs)


class Held:
    """The keys a transaction has written in one space (its dict and its runs), as the
    conflict manager's bulk holds and sealed key sets see them: `in`, `isdisjoint`,
    iteration and `len`, as a dict's keys view offers (`keys()` is the view itself)."""

    __slots__ = ("d", "runs")

    def __init__(self, d: dict[bytes, Any], runs: list[Run]) -> None:
        self.d = d  # NB: the write set's own dict and run list, shared, never replaced
        self.runs = runs

    def __contains__(self, key: object) -> bool:
        return key in self.d or (bool(self.runs) and isinstance(key, bytes)
                                 and locate(self.runs, key) is not None)

    def __iter__(self) -> Iterator[bytes]:
        return chain(self.d, *(r.keys for r in self.runs))

    def __len__(self) -> int:
        return len(self.d) + sum(len(r.keys) for r in self.runs)

    def __bool__(self) -> bool:
        return bool(self.d) or any(r.keys for r in self.runs)

    def keys(self) -> Held:
        """The view itself (the manager asks `keys().isdisjoint` of dicts and views alike)."""
        return self

    def isdisjoint(self, keys: Iterable[bytes]) -> bool:
        """True when no key of keys is held here."""
        if not isinstance(keys, (list, tuple)):
            keys = list(keys)
        return (not self.d or self.d.keys().isdisjoint(keys)) and runs_disjoint(self.runs, keys)
