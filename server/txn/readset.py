"""The read set of a SERIALIZABLE update transaction: what write-snapshot isolation validates.

Write-snapshot isolation (see `validate`) aborts an update transaction if a key
or key range it *read* was written by a transaction that committed between its
snapshot and its commit. So the LTM records, for SERIALIZABLE transactions that
are not READ ONLY, and below the SQL layer (in `Transaction.get/scan`):

- point reads `(space, key)`, *including misses*, so that a later insert of a
  key this transaction looked for and did not find conflicts;
- the key ranges `(space, lo, hi)` a scan actually fetched, batch by batch. A
  pushed-down filter is ignored (the whole scanned range counts, as
  PostgreSQL's relation lock does for a sequential scan); a scan stopped by a
  LIMIT, or abandoned by its consumer, covers only the batches it fetched.

Keys in the transaction's own write set are not recorded: the write-write check
already covers them, nor are reads of `skip` spaces (the catalog's system spaces,
named by the SQL layer through `LocalTxnManager.untracked_spaces`: catalog
consistency rests on write-write conflicts, and tracking the catalog scan of
every DDL transaction would fail concurrent DDL for nothing). Rolling back to a
savepoint drops writes, never reads.

Memory is bounded by a budget of entries. Over it, each space's reads
(largest first) collapse into one span `[min, max]` until half the budget is
left: a coarse read set conflicts with a superset of what the exact one does,
so coarsening only adds false positives (counted in `coarsenings`).

Reads not yet *probed* are kept apart (`fresh_points`, `fresh_ranges`): eager
detection (`LocalTxnManager.probe`) checks only what is new since the last probe.
"""

from __future__ import annotations

Key = tuple[int, bytes]
Range = tuple[int, bytes | None, bytes | None]  # (space, lo inclusive, hi exclusive); None: open

DEFAULT_BUDGET = 4096


def _succ(key: bytes) -> bytes:
    """The smallest key greater than key (an exclusive bound just above it)."""
    return key + b"\x00"


def _lo_min(a: bytes | None, b: bytes | None) -> bytes | None:
    return None if a is None or b is None else min(a, b)


def _hi_max(a: bytes | None, b: bytes | None) -> bytes | None:
    return None if a is None or b is None else max(a, b)


class ReadSet:
    """Point and range reads of one transaction, with a budget and coarsening."""

    __slots__ = ("points", "ranges", "fresh_points", "fresh_ranges", "budget", "coarsenings",
                 "skip")

    def __init__(self, budget: int = DEFAULT_BUDGET, skip: frozenset[int] = frozenset()) -> None:
        self.skip = skip
        self.points: set[Key] = set()
        self.ranges: list[Range] = []
        self.fresh_points: list[Key] = []
        self.fresh_ranges: list[Range] = []
        self.budget = budget
        self.coarsenings = 0

    def __len__(self) -> int:
        return len(self.points) + len(self.ranges)

    def add_points(self, space: int, keys: list[bytes]) -> None:
        """Records point reads (hits and misses alike)."""
        if space in self.skip:
            return
        pts = self.points
        fresh = self.fresh_points
        for k in keys:
            key = (space, k)
            if key not in pts:
                pts.add(key)
                fresh.append(key)
        if len(pts) + len(self.ranges) > self.budget:
            self.coarsen()

    def add_range(self, space: int, lo: bytes | None, hi: bytes | None) -> None:
        """Records that [lo, hi) of space was scanned."""
        if (lo is not None and hi is not None and lo >= hi) or space in self.skip:
            return
        r = (space, lo, hi)
        self.ranges.append(r)
        self.fresh_ranges.append(r)
        if len(self.points) + len(self.ranges) > self.budget:
            self.coarsen()

    def take_fresh(self) -> tuple[list[Key], list[Range]]:
        """Returns the reads recorded since the last call (for eager probing) and forgets them."""
        p, r = self.fresh_points, self.fresh_ranges
        self.fresh_points, self.fresh_ranges = [], []
        return p, r

    def covers(self, space: int, key: bytes) -> bool:
        """Tells whether a read of this transaction covered (space, key)."""
        if (space, key) in self.points:
            return True
        for s, lo, hi in self.ranges:
            if s == space and (lo is None or lo <= key) and (hi is None or key < hi):
                return True
        return False

    def coarsen(self) -> None:
        """Collapses the largest spaces' reads into one span each, down to half the budget."""
        self.coarsenings += 1
        per: dict[int, list] = {}
        for s, k in self.points:
            per.setdefault(s, []).append((k, _succ(k)))
        for s, lo, hi in self.ranges:
            per.setdefault(s, []).append((lo, hi))
        total = len(self)
        target = self.budget // 2
        spans: dict[int, tuple[bytes | None, bytes | None]] = {}
        for space in sorted(per, key=lambda s: -len(per[s])):
            if total <= target:
                break
            items = per[space]
            lo, hi = items[0]
            for a, b in items[1:]:
                lo, hi = _lo_min(lo, a), _hi_max(hi, b)
            spans[space] = (lo, hi)
            total -= len(items) - 1
        if total > target:  # more spaces than half the budget: whole spaces, the floor
            spans = {s: (None, None) for s in per}
        self.points = {p for p in self.points if p[0] not in spans}
        self.ranges = [r for r in self.ranges if r[0] not in spans]
        self.ranges.extend((s, lo, hi) for s, (lo, hi) in spans.items())
        # everything collapsed must be probed again as the span
        self.fresh_points = [p for p in self.fresh_points if p[0] not in spans]
        self.fresh_ranges = [r for r in self.fresh_ranges if r[0] not in spans]
        self.fresh_ranges.extend((s, lo, hi) for s, (lo, hi) in spans.items())
