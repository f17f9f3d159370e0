"""A memory cap for vectorized joins: a join whose result would not fit runs on the row path.

A vector join materializes its result: one int64 position array per joined
input (`frame.Frame`), then the columns the operators above read. The row
path's hash join instead streams its output into the operator above (an
aggregate holds only its groups), so a many-to-many join that the row path
answers in constant memory could take the server down here. Before pairing
two large inputs, `check` counts the pairs the keys will produce (a count per
distinct key on each side, then the sum of the products: the work of a hash
aggregate, not of the join) and raises `Fallback` when their positions would
take more than a `SHARE` of the memory `memguard` still allows. The statement
then runs the row plan from the start (no row was emitted yet), where
`memguard` raises 53200 only if the row plan itself cannot fit, as before.

    >>> lk, rk = [np.array([1, 1, 2, 3])], [np.array([1, 1, 1, 3, 4])]
    >>> pair_count(lk, None, rk, None)
    7
    >>> pair_count(lk, np.array([False, True, True, True]), rk, None)
    4
    >>> too_big(7, 2, room=1000), too_big(7, 2, room=10)
    (False, True)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from ...expr.vectorize import Fallback
from .. import memguard

SHARE = 0.5  # of the memory still allowed, a join result may take
BYTES_PER_INPUT = 8  # an int64 position per joined input per row
OVERHEAD = 4  # positions of the columns gathered above, and temporaries, per row


def pair_count(lk: list[np.ndarray], lv: np.ndarray | None, rk: list[np.ndarray],
               rv: np.ndarray | None) -> int:
    """How many (left, right) pairs have equal keys; rows with a NULL key (valid False) match
    nothing, as in `join.match`."""
    def counts(keys: list[np.ndarray], valid: np.ndarray | None) -> pa.Table:
        cols = [pa.array(k if valid is None else k[valid]) for k in keys]
        names = [f"k{i}" for i in range(len(keys))]
        return pa.table(cols, names=names).group_by(names).aggregate([([], "count_all")])

    lc, rc = counts(lk, lv), counts(rk, rv)
    names = [f"k{i}" for i in range(len(lk))]
    both = lc.join(rc.rename_columns([*names, "r"]), names, join_type="inner",
                   use_threads=False)
    if not both.num_rows:
        return 0
    a = both.column("count_all").to_numpy().astype(np.int64)
    b = both.column("r").to_numpy().astype(np.int64)
    return int(np.dot(a, b))


def most_alike(keys: list[np.ndarray], valid: np.ndarray | None) -> int:
    """The largest number of rows sharing one key (NULL keys left out): every row of the
    other side matches at most that many rows of this one.

    >>> most_alike([np.array([4, 1, 4, 4])], None), most_alike([np.array([1, 2])], None)
    (3, 1)
    >>> most_alike([np.array([1, 1]), np.array([1, 2])], np.array([True, True]))
    1
    """
    if len(keys) == 1:
        k = keys[0] if valid is None else keys[0][valid]
        if not len(k):
            return 0
        return int(np.unique(k, return_counts=True)[1].max())
    cols = [pa.array(k if valid is None else k[valid]) for k in keys]
    names = [f"k{i}" for i in range(len(keys))]
    counts = pa.table(cols, names=names).group_by(names).aggregate([([], "count_all")])
    return int(counts.column("count_all").to_numpy().max()) if counts.num_rows else 0


def too_big(pairs: int, inputs: int, room: int | None) -> bool:
    """Whether `pairs` rows of `inputs` joined inputs take more than SHARE of `room` bytes."""
    if room is None:
        return False
    return pairs * BYTES_PER_INPUT * (inputs + OVERHEAD) > room * SHARE


def check(lk: list[np.ndarray], lv: np.ndarray | None, rk: list[np.ndarray],
          rv: np.ndarray | None, inputs: int, ctx: Any, bound: int | None = None) -> None:
    """Raises Fallback when the join of these keys would not fit (see the module doc). The
    pairs are counted only when the worst case would not fit: every row matching every row,
    or `bound` when the keys say more (a key covering one side's primary key)."""
    room = memguard.headroom()
    nl, nr = len(lk[0]), len(rk[0])
    if not too_big(nl * nr if bound is None else bound, inputs, room):
        return
    ctx.check_cancel()
    # a bound from the smaller side alone (its keys' largest multiplicity times the larger
    # side's rows): a hash aggregate of the few rows, where counting pairs reads both sides
    small, valid, big = (lk, lv, nr) if nl <= nr else (rk, rv, nl)
    if not too_big(big * most_alike(small, valid), inputs, room):
        return
    pairs = pair_count(lk, lv, rk, rv)
    if too_big(pairs, inputs, room):
        raise Fallback(f"a join result of {pairs} rows would not fit in memory")


__all__ = ["check", "most_alike", "pair_count", "too_big"]
