"""A transaction's private write set, with savepoints.

Writes stay here until commit, per space in one of two places, never both:

- a dict from key to row (None is a delete, a tombstone): point writes, and
  bulk batches whose keys do not ascend, so that a read finds its own writes
  in O(1);
- sorted runs (`runs`): bulk batches whose keys ascend (a COPY, a direct-API
  upsert), each kept as its key list and row list, with no dict entry per key
  (a million-key dict cost a bulk load a fifth of its server CPU). A point
  write to a key of a run replaces its row there.

A scan merges both in key order: the sorted key list of the dict is rebuilt
only when a scan needs it after new keys arrived, which keeps the single-row
write path to two dict operations. Runs are sorted already.

Savepoints are positions in an undo log of `(space, key, existed, old_row)`: a
bulk batch put into the dict is `(space, None, False, keys)`, one put into a run
`(space, None, True, (run, start))`. Rolling back pops the log down to the
token and restores each key's previous state (a run is cut back to `start`).
The keys that disappear from the write set are returned so that the caller can
release their write locks in the conflict managers.

>>> ws = WriteSet()
>>> ws.put_new(7, AscendingKeys([b"a", b"b"]), [(1,), (2,)])
>>> ws.put_new(7, AscendingKeys([b"c"]), [(3,)]); ws.put(7, b"b", None); ws.put(7, b"0", (0,))
>>> ws.runs[7], ws.spaces[7]
([<Run 3 keys b'a'..b'c'>], {b'0': (0,)})
>>> ws.range(7, b"0", b"c")
[(b'0', (0,)), (b'a', (1,)), (b'b', None)]
>>> ws.rollback_to(1); ws.lookup(7, [b"a", b"b", b"c", b"0"])
[(7, b'0'), (7, b'c')]
[(1,), (2,), <absent>, <absent>]
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Collection, Iterable
from heapq import merge
from itertools import chain, repeat
from operator import itemgetter
from typing import Any

from ..kivi.api import Row, SpaceWrites, Write
from ..kivi.ascending import AscendingKeys, ascends
from ..kivi.wirecols import joined
from .runs import INDEX_FROM, Held, Run, locate, runs_disjoint

_new = tuple.__new__  # a `Write` (a NamedTuple) from its three fields, built in C
BULK_MIN = 64  # writes to one space from which a commit sends them as one SpaceWrites
# Cells of a space's batches kept as columns for the redo record (8 bytes a cell: at most
# 64 MiB). Past it the redo record transposes and encodes the rows again at commit, which
# cost a 1M-row COPY of bigint, int, numeric, text, timestamp and boolean (6M cells) 1.5x
# its server CPU when the cap was 2^20 (3.6 against 2.4 us a row); lineitem at SF 0.1 (9.6M
# cells) and above still drops them, as the load's peak memory needs.
COLS_MAX = 1 << 23


class _Absent:
    """`WriteSet.lookup`'s answer for a key the transaction has not written."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<absent>"


ABSENT: Any = _Absent()
_NONE: dict[bytes, Any] = {}  # `unwritten`'s stand-in for a space with no writes (never changed)


class WriteSet:
    """Private writes per space (a dict and sorted runs), plus an undo log for savepoints."""

    __slots__ = ("spaces", "runs", "_sorted", "undo", "_cols", "_held")

    def __init__(self) -> None:
        self.spaces: dict[int, dict[bytes, Row | None]] = {}
        # space -> its runs (`runs.Run`), each non-empty; the list is never replaced, since
        # a bulk hold shares it (`held`)
        self.runs: dict[int, list[Run]] = {}
        self._sorted: dict[int, list[bytes]] = {}  # space -> its dict's keys, sorted
        # (space, key, existed, old_row); a bulk put is (space, None, False, keys) into the
        # dict, (space, None, True, (run, start)) into a run
        self.undo: list[tuple[int, bytes | None, bool, Any]] = []
        # space -> the columns of each `put_new` batch, while those batches are all the
        # space's writes, in order (the redo record then needs no transpose of the rows)
        self._cols: dict[int, list[list[list[Any]]]] = {}
        self._held: dict[int, Held] = {}  # space -> its `held` view (one per space)

    def __bool__(self) -> bool:
        return any(self.spaces.values()) or any(self.runs.values())

    def put(self, space: int, key: bytes, row: Row | None) -> None:
        """Records a write (row None: a delete)."""
        w = self.spaces.get(space)
        if w is None:
            w = self.spaces[space] = {}
        if self._cols:
            self._cols.pop(space, None)
        if key in w:
            self.undo.append((space, key, True, w[key]))
        else:
            runs = self.runs.get(space)
            if runs:
                at = locate(runs, key)
                if at is not None:
                    run, i = at
                    self.undo.append((space, key, True, run.rows[i]))
                    run.set(i, row)
                    return
            self.undo.append((space, key, False, None))
            if self._sorted:  # NB: else `_append_sorted` has nothing to keep
                self._append_sorted(space, [key])
        w[key] = row

    def put_many(self, space: int, items: list[tuple[bytes, Row | None]],
                 new_keys: bool = False) -> None:
        """Records many writes; keys new to the write set cost one undo entry in all (bulk loads).

        `new_keys`: the caller checked already that no key of items is in the write set.
        """
        w = self.space_dict(space)
        if self._cols:
            self._cols.pop(space, None)
        new = dict(items)
        if len(new) != len(items) or (not new_keys and not self.fresh(space, list(new))):
            for k, r in items:
                self.put(space, k, r)
            return
        w.update(new)
        self.undo.append((space, None, False, tuple(new)))
        if space in self._sorted:  # else a later scan sorts everything once anyway
            self._append_sorted(space, sorted(new))

    def space_dict(self, space: int) -> dict[bytes, Row | None]:
        """The dict of the space's writes (created empty; never replaced by another)."""
        w = self.spaces.get(space)
        if w is None:
            w = self.spaces[space] = {}
        return w

    def held(self, space: int) -> Held:
        """Every key written in the space, now and later, as one view: what a bulk hold
        keeps (`ConflictManager.acquire_bulk`; the same object each time)."""
        h = self._held.get(space)
        if h is None:
            runs = self.runs.get(space)
            if runs is None:
                runs = self.runs[space] = []
            h = self._held[space] = Held(self.space_dict(space), runs)
        return h

    def fresh(self, space: int, keys: list[bytes]) -> bool:
        """Tells whether no key of `keys` is written in the space yet: C-level against the
        dict, by the key range against each run (a bulk load's next batch lies apart)."""
        w = self.spaces.get(space)
        runs = self.runs.get(space)
        return (not w or w.keys().isdisjoint(keys)) and (not runs or runs_disjoint(runs, keys))

    def put_new(self, space: int, keys: list[bytes], rows: list[Row],
                cols: list[list[Any]] | None = None) -> None:
        """Records a batch of keys new to the write set, given as two lists; the caller
        checked that no key is written already, and changes neither list afterwards.

        Keys that ascend (`AscendingKeys`, or found so by one C-level pass) become a run,
        or extend the last one when they follow it; others go into the dict (a repeated
        key keeps its last row). One undo entry. `cols`: the same rows as columns
        (`columns`)."""
        if len(keys) != len(rows):
            raise ValueError(f"put_new: {len(keys)} keys but {len(rows)} rows")
        w = self.space_dict(space)
        runs = self.runs.get(space)
        first = not w and not runs
        if keys and (type(keys) is AscendingKeys or ascends(keys)):
            if runs is None:
                runs = self.runs[space] = []
            last = runs[-1] if runs else None
            if last is not None and keys[0] > last.keys[-1]:
                start = len(last.keys)
                last.extend(keys, rows)
                run = last
            else:
                start, run = 0, Run(keys, rows)
                runs.append(run)
            self.undo.append((space, None, True, (run, start)))
            if cols is not None and first:
                self._keep_cols(space, [cols])
            elif cols is not None and start and space in self._cols and not w and len(runs) == 1:
                self._keep_cols(space, self._cols[space] + [cols])
            else:
                self._cols.pop(space, None)
            return
        n = len(w)
        w.update(zip(keys, rows, strict=True))
        distinct = len(w) == n + len(keys)
        self.undo.append((space, None, False, keys if distinct else list(dict.fromkeys(keys))))
        if cols is not None and distinct and first:
            self._keep_cols(space, [cols])
        elif cols is not None and distinct and space in self._cols and not runs:
            self._keep_cols(space, self._cols[space] + [cols])
        else:
            self._cols.pop(space, None)
        if space in self._sorted:
            self._append_sorted(space, sorted(keys))

    def _keep_cols(self, space: int, batches: list[list[list[Any]]]) -> None:
        """Keeps a space's batches as columns while they hold at most `COLS_MAX` cells: a
        wide COPY's columns cost 8 bytes a cell beside its rows (lineitem at SF 1: ~1 GB
        until its commit), more than the transpose they spare the redo record (the codec
        transposes one column at a time)."""
        if sum(len(b[0]) if b else 0 for b in batches) * len(batches[0]) > COLS_MAX:
            self._cols.pop(space, None)
        else:
            self._cols[space] = batches

    def _append_sorted(self, space: int, added: list[bytes]) -> None:
        """Keeps the dict's sorted key list when new keys (sorted) all follow it, else drops it.

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
        if w is not None and key in w:
            return True
        runs = self.runs.get(space)
        return bool(runs) and locate(runs, key) is not None  # type: ignore[arg-type]

    def unwritten(self, keys: Iterable[tuple[int, bytes]]) -> tuple[tuple[int, bytes], ...]:
        """The (space, key) pairs of `keys` the transaction has not written (a commit's row
        locks on rows it left unchanged): one call, not `contains` per key."""
        if self.runs:
            return tuple([k for k in keys if not self.contains(*k)])
        spaces = self.spaces
        return tuple([k for k in keys if k[1] not in spaces.get(k[0], _NONE)])

    def written(self, space: int) -> bool:
        """Tells whether the transaction has written anything in the space."""
        return bool(self.spaces.get(space)) or bool(self.runs.get(space))

    def count(self, space: int) -> int:
        """How many keys the transaction has written in the space."""
        w = self.spaces.get(space)
        return (0 if w is None else len(w)) + sum(len(r.keys) for r in self.runs.get(space, ()))

    def counts(self) -> dict[int, int]:
        """Keys written per space (spaces with none left out)."""
        if not self.runs:  # NB: the usual OLTP write set: C-level only (a commit asks), no
            spaces = self.spaces  # comprehension (a call in this Python) unless one is empty
            out = dict(zip(spaces, map(len, spaces.values()), strict=True))
            return {s: n for s, n in out.items() if n} if 0 in out.values() else out
        out = {s: self.count(s) for s in set(self.spaces) | set(self.runs)}
        return {s: n for s, n in out.items() if n}

    def lookup(self, space: int, keys: list[bytes]) -> list[Any]:
        """Each key's own row (None: deleted), or `ABSENT` where the transaction has not
        written it."""
        w = self.spaces.get(space)
        out = list(map(w.get, keys, repeat(ABSENT))) if w else [ABSENT] * len(keys)
        runs = self.runs.get(space)
        if not runs:
            return out
        miss = [i for i, r in enumerate(out) if r is ABSENT]
        for run in runs:
            if not miss:
                break
            rows = run.rows
            left = []
            if len(miss) >= INDEX_FROM:
                pos = run.index()
                for i in miss:
                    j = pos.get(keys[i])
                    if j is None:
                        left.append(i)
                    else:
                        out[i] = rows[j]
            else:
                for i in miss:
                    j = run.find(keys[i])
                    if j < 0:
                        left.append(i)
                    else:
                        out[i] = rows[j]
            miss = left
        return out

    def range(
        self, space: int, lo: bytes | None, hi: bytes | None, reverse: bool = False
    ) -> list[tuple[bytes, Row | None]]:
        """Returns the own writes with lo <= key < hi, in key order (or reversed)."""
        parts: list[list[tuple[bytes, Row | None]]] = []
        w = self.spaces.get(space)
        if w:
            keys = self._sorted.get(space)
            if keys is None:
                keys = self._sorted[space] = sorted(w)
            i = 0 if lo is None else bisect_left(keys, lo)
            j = len(keys) if hi is None else bisect_left(keys, hi)
            if i < j:
                parts.append([(k, w[k]) for k in keys[i:j]])
        for run in self.runs.get(space, ()):
            keys = run.keys
            i = 0 if lo is None else bisect_left(keys, lo)
            j = len(keys) if hi is None else bisect_left(keys, hi)
            if i < j:
                parts.append(list(zip(keys[i:j], run.rows[i:j], strict=True)))
        if not parts:
            return []
        # NB: no key is in two parts
        out = parts[0] if len(parts) == 1 else list(merge(*parts, key=itemgetter(0)))
        if reverse:
            out.reverse()
        return out

    def savepoint(self) -> int:
        """Returns a token for the current state."""
        return len(self.undo)

    def rollback_to(self, token: int) -> list[tuple[int, bytes]]:
        """Undoes the writes after `token`; returns the keys no longer written."""
        gone: list[tuple[int, bytes]] = []
        undo = self.undo
        while len(undo) > token:
            space, key, existed, old = undo.pop()
            if self._cols:
                self._cols.pop(space, None)
            if key is None and existed:  # a batch put into a run: cut the run back
                run, start = old
                gone += zip(repeat(space), run.keys[start:])
                if start:
                    run.cut(start)
                else:
                    runs = self.runs[space]
                    runs[:] = [r for r in runs if r is not run]
            elif key is None:  # a bulk put into the dict: its keys were all new
                w = self.spaces[space]
                for k in old:
                    del w[k]
                    gone.append((space, k))
                self._sorted.pop(space, None)
            elif existed:
                w = self.spaces[space]
                if key in w:
                    w[key] = old
                else:
                    run, i = locate(self.runs[space], key)  # type: ignore[misc]
                    run.set(i, old)
            else:
                del self.spaces[space][key]
                self._sorted.pop(space, None)
                gone.append((space, key))
        return gone

    def since(self, token: int) -> list[tuple[int, bytes, Row | None]]:
        """The keys written after `token` (each once, in order) with their rows now."""
        touched: dict[tuple[int, bytes], None] = {}
        for space, key, existed, old in self.undo[token:]:
            if key is not None:
                touched[(space, key)] = None
            else:
                added = old[0].keys[old[1]:] if existed else old
                touched.update(dict.fromkeys(zip(repeat(space), added)))
        return [(s, k, self.lookup(s, [k])[0]) for s, k in touched]

    def space_keys(self) -> dict[int, Collection[bytes]]:
        """Every space written -> its written keys (the dict's keys view when it has no
        runs: a bulk load's commit then seals the holders' dict whole)."""
        out: dict[int, Collection[bytes]] = {}
        for s, w in self.spaces.items():
            if self.runs.get(s):
                out[s] = self.held(s)
            elif w:
                out[s] = w.keys()
        return out

    def keys(self, skip: set[int] | None = None) -> tuple[tuple[int, bytes], ...]:
        """Returns every written (space, key), leaving out the spaces in `skip`."""
        # NB: zip/repeat build the pairs in C: a bulk load's write set has millions
        return tuple(chain.from_iterable(
            zip(repeat(s), ks) for s, ks in self.space_keys().items()
            if skip is None or s not in skip))

    def for_commit(self, bulk: int = BULK_MIN) -> tuple[list[Write], list[SpaceWrites]]:
        """Returns the writes to log and apply: a space with `bulk` writes or more as one
        `SpaceWrites` (two lists, no object per write: a COPY's million rows; a single
        run's lists as they are, as `AscendingKeys`), the rest as `Write`s."""
        writes: list[Write] = []
        spaces: list[SpaceWrites] = []
        if not self.runs:  # NB: dicts alone (OLTP): a loop, no map per space (a few writes
            for s, w in self.spaces.items():  # each: the map's setup cost more than it saved)
                if len(w) >= bulk:
                    spaces.append(SpaceWrites(s, *_lists(w, [])))
                else:  # NB: `Write`'s own __new__ is a Python call: a C one here
                    for k, r in w.items():
                        writes.append(_new(Write, (s, k, r)))
            return writes, spaces
        for s, w in self.spaces.items():
            runs = self.runs.get(s)
            n = len(w) + (sum(len(r.keys) for r in runs) if runs else 0)
            if n >= bulk:
                spaces.append(SpaceWrites(s, *_lists(w, runs or [])))
            elif runs:
                writes += [Write(s, k, r) for k, r in chain(
                    w.items(), *(zip(run.keys, run.rows, strict=True) for run in runs))]
            elif w:
                writes += map(Write, repeat(s), w.keys(), w.values())  # NB: no frame of its own
        return writes, spaces

    def columns(self) -> dict[int, list[list[Any]]]:
        """The rows of each space written by `put_new` batches alone, as columns in the
        write order (`for_commit`'s rows transposed), for the redo record."""
        out: dict[int, list[list[Any]]] = {}
        for space, batches in self._cols.items():
            if len(batches) == 1:
                cols = batches[0]
            else:
                cols = [joined([b[i] for b in batches]) for i in range(len(batches[0]))]
            if cols and len(cols[0]) == self.count(space):
                out[space] = cols
        return out

    def items(self) -> list[tuple[int, bytes, Any]]:
        """Returns every write as (space, key, row_or_None)."""
        return list(chain.from_iterable(chain(
            (zip(repeat(s), w.keys(), w.values()) for s, w in self.spaces.items()),
            (zip(repeat(s), r.keys, r.rows) for s, runs in self.runs.items() for r in runs))))


def _lists(w: dict[bytes, Row | None], runs: list[Run]) -> tuple[list[bytes], list[Row | None]]:
    """A space's writes as a key list and a row list: ascending (`AscendingKeys`) when they
    are runs alone whose ranges do not overlap; a single run's lists as they are."""
    if not w and len(runs) == 1:
        one = runs[0]
        return (one.keys if type(one.keys) is AscendingKeys else AscendingKeys(one.keys)), one.rows
    order = sorted(runs, key=lambda r: r.keys[0])
    keys = list(chain(*(r.keys for r in order), w))
    rows = list(chain(*(r.rows for r in order), w.values()))
    if not w and all(a.keys[-1] < b.keys[0] for a, b in zip(order, order[1:], strict=False)):
        return AscendingKeys(keys), rows
    return keys, rows
