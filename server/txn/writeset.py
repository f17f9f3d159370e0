"""A transaction's private write set, with savepoints.

Writes stay here until commit: a dict per space from key to row (None is a
delete, a tombstone), so that a read finds its own writes in O(1) and a scan
can merge them in key order. The sorted key list of a space is rebuilt only
when a scan needs it after new keys arrived, which keeps the single-row write
path to two dict operations.

Savepoints are positions in an undo log of `(space, key, existed, old_row)`:
rolling back pops the log down to the token and restores each key's previous
state. The keys that disappear from the write set are returned so that the
caller can release their write locks in the conflict managers.
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import chain, repeat
from typing import Any

from ..kivi.api import Row, SpaceWrites, Write
from ..kivi.ascending import AscendingKeys
from ..kivi.wirecols import joined
from .keyspan import Bounds, KeySpan, bounds_of

BULK_MIN = 64  # writes to one space from which a commit sends them as one SpaceWrites


class WriteSet:
    """Private writes per space, plus an undo log for savepoints."""

    __slots__ = ("spaces", "_sorted", "undo", "_cols", "_span", "_probe", "_asc")

    def __init__(self) -> None:
        self.spaces: dict[int, dict[bytes, Row | None]] = {}
        self._sorted: dict[int, list[bytes]] = {}
        # (space, key, existed, old_row); a bulk put of new keys is one (space, None, False, keys)
        self.undo: list[tuple[int, bytes | None, bool, Any]] = []
        # space -> the columns of each `put_new` batch, while those batches are all the
        # space's writes, in order (the redo record then needs no transpose of the rows)
        self._cols: dict[int, list[list[list[Any]]]] = {}
        # space -> the key range of its `put_new` batches, while those are all its writes
        # (a superset after a rollback): `fresh` skips the per-key test when a batch lies
        # outside it, as bulk loads' batches do
        self._span: dict[int, KeySpan] = {}
        self._probe: tuple[list[bytes], Bounds] | None = None  # `fresh`'s last batch bounds
        # space -> its greatest key, while its writes are `put_new` batches of `AscendingKeys`
        # each above the one before: the dict's order is then key order, and the commit
        # hands KiVi `AscendingKeys` (`for_commit`), which apply them with no sort or check
        self._asc: dict[int, bytes] = {}

    def __bool__(self) -> bool:
        return any(self.spaces.values())

    def put(self, space: int, key: bytes, row: Row | None) -> None:
        """Records a write (row None: a delete)."""
        w = self.spaces.get(space)
        if w is None:
            w = self.spaces[space] = {}
        if self._cols:
            self._cols.pop(space, None)
        if self._span:
            self._span.pop(space, None)
        if self._asc:
            self._asc.pop(space, None)
        if key in w:
            self.undo.append((space, key, True, w[key]))
        else:
            self.undo.append((space, key, False, None))
            self._append_sorted(space, [key])
        w[key] = row

    def put_many(self, space: int, items: list[tuple[bytes, Row | None]],
                 new_keys: bool = False) -> None:
        """Records many writes; keys new to the write set cost one undo entry in all (bulk loads).

        `new_keys`: the caller checked already that no key of items is in the write set.
        """
        w = self.spaces.get(space)
        if w is None:
            w = self.spaces[space] = {}
        if self._cols:
            self._cols.pop(space, None)
        if self._span:
            self._span.pop(space, None)
        if self._asc:
            self._asc.pop(space, None)
        new = dict(items)
        if len(new) != len(items) or (not new_keys and w and not w.keys().isdisjoint(new)):
            for k, r in items:
                self.put(space, k, r)
            return
        w.update(new)
        self.undo.append((space, None, False, tuple(new)))
        if space in self._sorted:  # else a later scan sorts everything once anyway
            self._append_sorted(space, sorted(new))

    def space_dict(self, space: int) -> dict[bytes, Row | None]:
        """The dict of the space's writes (created empty): a bulk hold shares it whole
        (`ConflictManager.acquire_bulk`), so it is never replaced by another dict."""
        w = self.spaces.get(space)
        if w is None:
            w = self.spaces[space] = {}
        return w

    def fresh(self, space: int, keys: list[bytes]) -> bool:
        """Tells whether no key of `keys` is written in the space yet: at once when the
        space has no writes, or when the batch's key range lies outside the range of the
        space's `put_new` batches (`keyspan`), else one lookup per key."""
        w = self.spaces.get(space)
        if not w:
            return True
        span = self._span.get(space)
        if span is not None:
            b = bounds_of(keys)
            if b is None:
                return True
            self._probe = (keys, b)  # NB: the `put_new` that follows needs them too
            if span.apart(*b):
                return True
        return w.keys().isdisjoint(keys)

    def put_new(self, space: int, keys: list[bytes], rows: list[Row],
                cols: list[list[Any]] | None = None) -> None:
        """Records a batch of keys new to the write set, given as two lists (no pair per
        write; a repeated key keeps its last row); the caller checked that no key is
        written already. One undo entry, which keeps `keys` (the caller does not change
        it afterwards). `cols`: the same rows as columns (`columns`)."""
        w = self.space_dict(space)
        n = len(w)
        w.update(zip(keys, rows, strict=True))
        distinct = len(w) == n + len(keys)
        self.undo.append((space, None, False, keys if distinct else list(dict.fromkeys(keys))))
        if cols is not None and distinct and n == 0:
            self._cols[space] = [cols]
        elif cols is not None and distinct and space in self._cols:
            self._cols[space].append(cols)
        else:
            self._cols.pop(space, None)
        last = self._asc.get(space) if n else None
        if distinct and keys and type(keys) is AscendingKeys and (n == 0 or (
                last is not None and keys[0] > last)):
            self._asc[space] = keys[-1]
        elif self._asc:
            self._asc.pop(space, None)
        if space in self._sorted:
            self._append_sorted(space, keys if type(keys) is AscendingKeys else sorted(keys))
        span = KeySpan() if n == 0 else self._span.get(space)
        if span is not None:
            probe, self._probe = self._probe, None
            span.add(keys, probe[1] if probe is not None and probe[0] is keys else None)
            self._span[space] = span

    def _append_sorted(self, space: int, added: list[bytes]) -> None:
        """Keeps the sorted key list when new keys (sorted) all follow it, else drops it.

        Bulk loads add ascending keys statement after statement and check each
        batch's key range with a scan; re-sorting the whole write set for every
        batch made a long load transaction quadratic.
        """
        keys = self._sorted.get(space)
        if keys is not None and added and (not keys or added[0] > keys[-1]):
            keys.extend(added)
        else:
            self._sorted.pop(space, None)

    def contains(self, space: int, key: bytes) -> bool:
        """Tells whether the transaction has written this key."""
        w = self.spaces.get(space)
        return w is not None and key in w

    def range(
        self, space: int, lo: bytes | None, hi: bytes | None, reverse: bool = False
    ) -> list[tuple[bytes, Row | None]]:
        """Returns the own writes with lo <= key < hi, in key order (or reversed)."""
        w = self.spaces.get(space)
        if not w:
            return []
        keys = self._sorted.get(space)
        if keys is None:
            keys = self._sorted[space] = sorted(w)
        i = 0 if lo is None else bisect_left(keys, lo)
        j = len(keys) if hi is None else bisect_left(keys, hi)
        picked = keys[i:j]
        if reverse:
            picked.reverse()
        return [(k, w[k]) for k in picked]

    def savepoint(self) -> int:
        """Returns a token for the current state."""
        return len(self.undo)

    def rollback_to(self, token: int) -> list[tuple[int, bytes]]:
        """Undoes the writes after `token`; returns the keys no longer written."""
        gone = []
        undo = self.undo
        while len(undo) > token:
            space, key, existed, old = undo.pop()
            w = self.spaces[space]
            if self._cols:
                self._cols.pop(space, None)
            if self._asc:
                self._asc.pop(space, None)
            if key is None:  # a bulk put: its keys were all new
                for k in old:
                    del w[k]
                    gone.append((space, k))
                self._sorted.pop(space, None)
            elif existed:
                w[key] = old
            else:
                del w[key]
                self._sorted.pop(space, None)
                gone.append((space, key))
        return gone

    def keys(self, skip: set[int] | None = None) -> tuple[tuple[int, bytes], ...]:
        """Returns every written (space, key), leaving out the spaces in `skip`."""
        # NB: zip/repeat build the pairs in C: a bulk load's write set has millions
        return tuple(chain.from_iterable(
            zip(repeat(s), w) for s, w in self.spaces.items() if skip is None or s not in skip))

    def for_commit(self, bulk: int = BULK_MIN) -> tuple[list[Write], list[SpaceWrites]]:
        """Returns the writes to log and apply: a space with `bulk` writes or more as one
        `SpaceWrites` (two lists, no object per write: a COPY's million rows), the rest as
        `Write`s."""
        writes: list[Write] = []
        spaces: list[SpaceWrites] = []
        for s, w in self.spaces.items():
            if len(w) >= bulk:
                keys = AscendingKeys(w) if s in self._asc else list(w)
                spaces.append(SpaceWrites(s, keys, list(w.values())))
            elif w:
                writes += [Write(s, k, r) for k, r in w.items()]
        return writes, spaces

    def columns(self) -> dict[int, list[list[Any]]]:
        """The rows of each space written by `put_new` batches alone, as columns in the
        write order (`list(spaces[s].values())` transposed), for the redo record."""
        out: dict[int, list[list[Any]]] = {}
        for space, batches in self._cols.items():
            if len(batches) == 1:
                cols = batches[0]
            else:
                cols = [joined([b[i] for b in batches]) for i in range(len(batches[0]))]
            if cols and len(cols[0]) == len(self.spaces[space]):
                out[space] = cols
        return out

    def items(self) -> list[tuple[int, bytes, Any]]:
        """Returns every write as (space, key, row_or_None)."""
        return list(chain.from_iterable(
            zip(repeat(s), w.keys(), w.values()) for s, w in self.spaces.items()))
