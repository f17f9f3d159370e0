"""Cost-based join order: cardinalities from ANALYZE statistics, then dynamic programming over
subsets of relations (up to `DP_LIMIT`), greedy from every start beyond.

Why: `join_order`'s heuristic (most-restricted relation first, then any
connected one) cannot tell a 10-row nation from a 300,000-row order_line. With
statistics, each relation's rows after its own filters (`stats.pred_selectivity`)
and each join predicate's selectivity (an equality `a = b` keeps 1 / max of
their distinct counts; several equalities between the same two relations keep
at least 1 / the larger relation's rows, as a foreign-key join does) give the
rows of every subset of relations independent of the order. The DP then picks
the left-deep order that minimises the total work:

    hash join:  left rows (probe) + 2 x right rows (build) + output rows
    bind join:  3 x left rows + output rows  (the right side is a table whose whole
                primary key the join fixes, unfiltered, and 10x larger than the left)
    no join predicate (cross product): left rows x right rows + output rows

The executor's hash join builds on its right input, and a left-deep tree keeps
every build side a single relation. Only used when every relation's tables
have statistics; otherwise `join_order` keeps its heuristic.

Example:
    >>> from cumulo.server.sql.optimizer.cost import dp_order
    >>> # the large relation (2) probes; the small ones are the hash tables it probes
    >>> dp_order([100.0, 10.0, 1000.0], [({0, 1}, 0.01, None), ({1, 2}, 0.001, None)], [None] * 3)
    [2, 1, 0]
"""

from __future__ import annotations

from typing import Any

from ..expr.bound import E
from ..plan import nodes as N
from .push_projection import renumber
from .stats import DEFAULT_SEL, estimate, expr_ndistinct, pred_selectivity, table_stats

DP_LIMIT = 9  # 2^9 subsets x 9: a few milliseconds, once per cached plan

# A join predicate: (the relations it reads, its selectivity, the bind-join key it offers:
# (relation, its column) for `col = other relation's expression`, else None)
Pred = tuple[set[int], float, Any]


def has_stats(node: N.Node) -> bool:
    """True if every base table under `node` has ANALYZE statistics."""
    tables = [n for n in N.walk(node) if isinstance(n, N.Scan | N.IndexLookup | N.PointGet)]
    return bool(tables) and all(table_stats(n.table) is not None for n in tables)


def leaf_rows(leaf: N.Node, local_preds: list[E]) -> float:
    """A relation's estimated rows after its own conjuncts (over its local columns)."""
    rows = estimate(leaf)
    for p in local_preds:
        rows *= pred_selectivity(p, leaf)
    return max(rows, 1.0)


def join_selectivity(p: E, locate: Any, leaves: list[N.Node],
                     rows: list[float]) -> tuple[float, Any]:
    """The selectivity of a predicate over several relations, and the bind key it offers.

    `locate(i)` maps a column of the concatenated row to (relation, local column). An
    equality keeps 1 / the larger distinct count of its sides (a column's statistics, else
    at most 200, as PostgreSQL guesses); its key is ((relation, local column or None), ...)
    for both sides."""
    if not (p.kind == "op" and p.data == "=" and len(p.args) == 2):
        return DEFAULT_SEL, None
    nds, key = [], []
    for x in p.args:
        where = {locate(c.data) for c in x.walk() if c.kind == "col"}
        ks = {k for k, _ in where}
        if len(ks) != 1:
            return DEFAULT_SEL, None
        k = ks.pop()
        local = renumber(x, dict((c.data, locate(c.data)[1]) for c in x.walk() if c.kind == "col"))
        nds.append(expr_ndistinct(local, leaves[k], rows[k]))
        key.append((k, local.data if local.kind == "col" else None))
    return 1.0 / max(max(nds), 1.0), tuple(key)


def subset_rows(s: frozenset[int], rows: list[float], preds: list[Pred]) -> float:
    """Rows of the join of the relations in `s` (order-independent)."""
    out = 1.0
    for k in s:
        out *= rows[k]
    pairs: dict[frozenset[int], float] = {}
    for refs, sel, _ in preds:
        if refs <= s:
            key = frozenset(refs)
            pairs[key] = pairs.get(key, 1.0) * sel
    for key, sel in pairs.items():
        if len(key) == 2:
            # several equalities between two relations: at least a foreign-key join's rows
            sel = max(sel, 1.0 / max(rows[k] for k in key))
        out *= sel
    return max(out, 1.0)


def _step(left: frozenset[int], k: int, rows: list[float], preds: list[Pred],
          bind_ok: list[Any], size: dict[frozenset[int], float]) -> float:
    lr, rr, out = size[left], rows[k], size[left | {k}]
    linked = [p for p in preds if k in p[0] and len(p[0]) > 1 and p[0] - {k} <= left]
    if not linked:
        return lr * rr + out
    pk = bind_ok[k]
    if pk is not None and lr * 10 <= rr:
        fixed = {side[1] for p in linked if p[2] is not None for side in p[2]
                 if side[0] == k and side[1] is not None}
        if set(pk) <= fixed:
            return 3 * lr + out
    return lr + 2 * rr + out


class _Model:
    """The cost model over bitmasks of relations, precomputed for speed: planning a 10-way
    join visits 2^10 x 10 steps, so each step must be a few dictionary lookups.
    (`subset_rows` and `_step` above are the same model written plainly; the tests check
    the two against each other.)"""

    def __init__(self, rows: list[float], preds: list[Pred], bind_ok: list[Any]) -> None:
        n = self.n = len(rows)
        self.rows = rows
        groups: dict[int, float] = {}
        self.links = [0] * n  # relations sharing a predicate with k
        self.multi: list[tuple[int, float]] = []  # predicates over 3+ relations
        # per relation: (the other relation's bit, the local column of k it fixes)
        self.fixes: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        for refs, sel, key in preds:
            m = 0
            for k in refs:
                m |= 1 << k
            if len(refs) == 2:
                groups[m] = groups.get(m, 1.0) * sel
                a, b = sorted(refs)
                self.links[a] |= 1 << b
                self.links[b] |= 1 << a
                if key is not None:
                    for (k, c), (j, _) in ((key[0], key[1]), (key[1], key[0])):
                        if c is not None and k != j:
                            self.fixes[k].append((1 << j, c))
            elif len(refs) > 2:
                self.multi.append((m, sel))
        self.pair = [[1.0] * n for _ in range(n)]
        for m, sel in groups.items():
            a, b = (k for k in range(n) if m >> k & 1)
            sel = max(sel, 1.0 / max(rows[a], rows[b]))
            self.pair[a][b] = self.pair[b][a] = sel
        self.bind_ok = [set(b) if b is not None else None for b in bind_ok]
        self.raw: dict[int, float] = {1 << k: rows[k] for k in range(n)}

    def size(self, mask: int) -> float:
        raw = self.raw.get(mask)
        if raw is None:
            low = (mask & -mask).bit_length() - 1
            rest = mask ^ (1 << low)
            raw = self.rows[low] * (self.raw.get(rest) or self._raw(rest))
            pl = self.pair[low]
            for j in range(self.n):
                if rest >> j & 1 and pl[j] != 1.0:
                    raw *= pl[j]
            for m, sel in self.multi:
                if m >> low & 1 and m & mask == m:
                    raw *= sel
            self.raw[mask] = raw
        return max(raw, 1.0)

    def _raw(self, mask: int) -> float:
        self.size(mask)
        return self.raw[mask]

    def step(self, left: int, k: int) -> float:
        lr, rr, out = self.size(left), self.rows[k], self.size(left | 1 << k)
        linked = self.links[k] & left or any(
            m >> k & 1 and (m & ~(1 << k)) & ~left == 0 for m, _ in self.multi)
        if not linked:
            return lr * rr + out
        pk = self.bind_ok[k]
        if pk is not None and lr * 10 <= rr:
            if pk <= {c for bit, c in self.fixes[k] if left & bit}:
                return 3 * lr + out
        return lr + 2 * rr + out


def dp_order(rows: list[float], preds: list[Pred], bind_ok: list[Any]) -> list[int]:
    """The cheapest left-deep order of the relations (DP up to DP_LIMIT, greedy beyond).

    `bind_ok[k]`: the local primary-key columns of relation k if it may be a bind join's
    inner side, else None."""
    model = _Model(rows, preds, bind_ok)
    n = len(rows)
    if n > DP_LIMIT:
        return _greedy(model)
    best: dict[int, tuple[float, int]] = {1 << k: (0.0, k) for k in range(n)}  # cost, last
    for mask in range(1, 1 << n):
        if mask & (mask - 1) == 0:
            continue
        choice: tuple[float, int] | None = None
        m = mask
        while m:
            bit = m & -m
            m ^= bit
            rest = mask ^ bit
            c = best[rest][0] + model.step(rest, bit.bit_length() - 1)
            if choice is None or c < choice[0]:
                choice = (c, bit.bit_length() - 1)
        assert choice is not None
        best[mask] = choice
    order = []
    mask = (1 << n) - 1
    while mask:
        k = best[mask][1]
        order.append(k)
        mask ^= 1 << k
    return order[::-1]


def _greedy(model: _Model) -> list[int]:
    """From each relation in turn, add the relation of cheapest next step; keep the cheapest
    whole order (a single start is too myopic: a 1-row relation invites cross products)."""
    n = model.n
    best: tuple[float, list[int]] | None = None
    for start in range(n):
        order, chosen, total = [start], 1 << start, 0.0
        while len(order) < n:
            costs = {k: model.step(chosen, k) for k in range(n) if not chosen >> k & 1}
            k = min(costs, key=lambda j: (costs[j], j))
            total += costs[k]
            order.append(k)
            chosen |= 1 << k
        if best is None or total < best[0]:
            best = (total, order)
    assert best is not None
    return best[1]
