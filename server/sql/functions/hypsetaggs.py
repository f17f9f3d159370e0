"""PostgreSQL's hypothetical-set aggregates: rank, dense_rank, percent_rank and cume_dist
written `f(direct args) WITHIN GROUP (ORDER BY keys)`.

Each places a hypothetical row, made of the direct arguments, among the group's rows in
the WITHIN GROUP order and answers what the window function of that name would for it
(orderedsetaggs.c's hypothetical_*_final). PostgreSQL sorts the hypothetical row before
its peers for rank, dense_rank and percent_rank and after them for cume_dist, so:

- rank = 1 + the rows ordered strictly before it;
- dense_rank = 1 + the distinct keys ordered strictly before it;
- percent_rank = (rank - 1) / the number of rows (0 for none);
- cume_dist = (the rows before it or its peers, + 1) / (the number of rows + 1).

Rows (sorted) and the hypothetical row come as sort keys (`codegen.sort_key_function`, NULLs and
NaN placed as the ORDER BY says), compared key by key in each key's direction.

>>> finish_hypothetical("rank", [(1,), (2,), (2,), (3,)], (2,), [False])
2
>>> finish_hypothetical("cume_dist", [(1,), (2,), (2,), (3,)], (2,), [False])
0.8
>>> finish_hypothetical("dense_rank", [(3, 1), (2, 4), (2, 4), (2, 5), (1, 0)], (2, 9), [True, False])
4
"""

from __future__ import annotations

from typing import Any

HYPOTHETICAL_AGGS = frozenset(("rank", "dense_rank", "percent_rank", "cume_dist"))


def _before(row: tuple, hyp: tuple, desc: list[bool]) -> int:
    """-1 when `row` sorts before the hypothetical row, 0 for a peer, 1 after."""
    for r, h, d in zip(row, hyp, desc, strict=True):
        if r != h:
            return -1 if (r < h) != d else 1
    return 0


def finish_hypothetical(func: str, rows: list[tuple], hyp: tuple, desc: list[bool]) -> Any:
    """One hypothetical-set aggregate over its group's (filtered) rows' sort keys."""
    n = len(rows)
    if func == "cume_dist":
        not_after = sum(1 for r in rows if _before(r, hyp, desc) <= 0)
        return (not_after + 1) / (n + 1)
    earlier = [r for r in rows if _before(r, hyp, desc) < 0]
    if func == "dense_rank":  # NB: the rows come sorted, so peers are neighbours
        return sum(1 for i, r in enumerate(earlier) if i == 0 or r != earlier[i - 1]) + 1
    if func == "percent_rank":
        return len(earlier) / n if n else 0.0
    return len(earlier) + 1
