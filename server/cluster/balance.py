"""Which region the MasterMind moves to balance the KiVi nodes: by bytes, then by count.

Why bytes: regions split at a size threshold, so most are alike, but a node with one
large region and one with five small tables hold the same load only by count. Moving
a region by count alone would send a small region onto the node that already holds
the most data. So the balancer (`cluster.placer.Placer.step`) first looks at bytes:
the node holding the most data gives the region whose move narrows the gap between it
and the node holding the least the most, if that gain is at least `min_gain` bytes
(below it, a move costs more than it gives, and two nodes would trade regions back and
forth). Only when no such move exists does it look at counts, and then moves only a
region smaller than `min_gain` (a table just created, say): such a move cannot undo a
balance by bytes. Each call picks at most one move; the next round sees its effect.

>>> regions = [(1, "a", 900), (2, "b", 100), (3, "b", 100), (4, "b", 100), (5, "b", 100)]
>>> pick_move(regions, ["a", "b"], min_gain=50)   # by count, 2 would go to a: not by bytes
>>> pick_move(regions + [(6, "a", 300)], ["a", "b"], min_gain=50)  # a: 1200, b: 400
(6, 'b')
>>> pick_move([(1, "a", 10), (2, "a", 0), (3, "a", 0)], ["a", "b"], min_gain=50)
(1, 'b')
>>> pick_move([(1, "a", 10), (2, "b", 0)], ["a", "b"], min_gain=50) is None
True
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["pick_move"]


def pick_move(regions: Sequence[tuple[int, str, int]], live: Sequence[str], min_gain: int
              ) -> tuple[int, str] | None:
    """(region id, node to move it to), or None. `regions` are (id, owner, bytes) of
    every region; only those of `live` nodes count (a dead node's are recovered first).

    Ties go to the oldest region (the smallest id: one just split or moved stays) and
    to node names in order, so the choice is the same every round.
    """
    if len(live) < 2:
        return None
    mine = [(rid, owner, size) for rid, owner, size in regions if owner in live]
    load = {n: 0 for n in sorted(live)}
    count = dict.fromkeys(load, 0)
    for _rid, owner, size in mine:
        load[owner] += size
        count[owner] += 1
    full = max(load, key=load.__getitem__)
    empty = min(load, key=load.__getitem__)
    gap = load[full] - load[empty]
    best: tuple[int, int] | None = None  # (gain, -id)
    for rid, owner, size in mine:
        if owner == full and size > 0:
            gain = gap - abs(gap - 2 * size)
            if gain >= min_gain and (best is None or (gain, -rid) > best):
                best = (gain, -rid)
    if best is not None:
        return -best[1], empty
    many = max(count, key=count.__getitem__)
    few = min(count, key=count.__getitem__)
    if count[many] - count[few] < 2:
        return None
    small = [rid for rid, owner, size in mine if owner == many and size < min_gain]
    return (min(small), few) if small else None
