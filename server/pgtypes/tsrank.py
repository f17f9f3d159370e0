"""ts_rank and ts_rank_cd: PostgreSQL's calc_rank and calc_rank_cd over the tsearch values.

Both follow tsrank.c step by step, in its arithmetic: the weights are float4s
({0.1, 0.2, 0.4, 1.0} for D, C, B, A) and calc_rank's sums are C floats, so the
float4 results agree with PostgreSQL's to the last digit. ts_rank scores an OR
query by each operand's occurrences (weights over squared ranks) and an AND or
phrase query by the proximity of every pair of operands' positions; ts_rank_cd
walks the query's covers (the shortest extents satisfying it) as Cover() does.

>>> rank("'cat':2,6 'mat':7 'sat':3", "'cat'")
0.07599088549613953
>>> rank_cd("'cat':2,6 'mat':7 'sat':3", "'cat' & 'mat'")
0.10000000149011612
"""

from __future__ import annotations

import math
import struct
from typing import Any

from .tsearch import MAXPOS, Query, Vector, query, vector


def operands(tree: Query) -> list[tuple[Any, ...]]:
    """The query's operands, sorted and each once (PostgreSQL's SortAndUniqItems)."""
    out: dict[tuple[str, bool], tuple[Any, ...]] = {}

    def walk(q: Any) -> None:
        if q is None:
            return
        if q[0] == "v":
            out.setdefault((q[1], q[3]), q)
        else:
            for c in q[1:3] if q[0] != "!" else q[1:2]:
                walk(c)

    walk(tree)
    return [out[k] for k in sorted(out, key=lambda k: (k[0].encode(), k[1]))]


_DEFAULT_WEIGHTS = (0.1, 0.2, 0.4, 1.0)


def _f4(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def _entries(vec: Vector, op: tuple[Any, ...]) -> list[tuple[tuple[int, int], ...]]:
    lex, prefix = op[1], op[3]
    return [poss for word, poss in vec if word == lex or (prefix and word.startswith(lex))]


def _rank_or(w: tuple[float, ...], vec: Vector, ops: list[tuple[Any, ...]]) -> float:
    res = 0.0
    for op in ops:
        for poss in _entries(vec, op):
            post = poss or ((0, 0),)
            resj, wjm, jm = 0.0, -1.0, 0
            for j, (_, weight) in enumerate(post):
                resj = _f4(resj + _f4(w[weight] / ((j + 1) * (j + 1))))
                if w[weight] > wjm:
                    wjm, jm = w[weight], j
            inner = _f4(_f4(wjm + resj) - _f4(wjm / ((jm + 1) * (jm + 1))))  # float arithmetic
            res = _f4(res + inner / 1.64493406685)
    return _f4(res / len(ops)) if ops else res


def _word_distance(d: int) -> float:
    return _f4(1e-30 if d > 100 else 1.0 / (1.005 + 0.05 * math.exp(d / 1.5 - 2)))


def _rank_and(w: tuple[float, ...], vec: Vector, ops: list[tuple[Any, ...]]) -> float:
    if len(ops) < 2:
        return _rank_or(w, vec, ops)
    null = ((MAXPOS, 0),)
    seen: list[tuple[tuple[int, int], ...] | None] = [None] * len(ops)
    res = -1.0
    for i, op in enumerate(ops):
        for poss in _entries(vec, op):
            seen[i] = poss or null
            mine = seen[i] or null
            for k in range(i):
                other = seen[k]
                if other is None:
                    continue
                for pl, wl in mine:
                    for pk, wk in other:
                        dist = abs(pl - pk)
                        if dist or mine is null or other is null:  # NB: C floats, as PG's
                            prod = _f4(_f4(_f4(w[wl]) * _f4(w[wk])) * _word_distance(dist or MAXPOS + 1))
                            curw = _f4(math.sqrt(prod))
                            res = curw if res < 0 else _f4(1.0 - (1.0 - res) * (1.0 - curw))
    return res


def rank(v: str, q: str, weights: tuple[float, ...] = _DEFAULT_WEIGHTS, norm: int = 0) -> float:
    """ts_rank(vector, query[, normalization]) with PostgreSQL's calc_rank."""
    vec, tree = vector(v), query(q)
    if not vec or tree is None:
        return 0.0
    weights = tuple(_f4(x) for x in weights)  # NB: float4s in PostgreSQL
    ops = operands(tree)
    res = _rank_and(weights, vec, ops) if tree[0] in ("&", "<>") else _rank_or(weights, vec, ops)
    if res < 0:
        res = 1e-20
    if norm & 1:
        res /= math.log(sum(max(len(p), 1) for _, p in vec) + 1) / math.log(2.0)
    if norm & 2:
        res /= sum(max(len(p), 1) for _, p in vec)
    if norm & 8:
        res /= len(vec)
    if norm & 16:
        res /= math.log(len(vec) + 1) / math.log(2.0)
    if norm & 32:
        res /= res + 1
    return _f4(res)


def _holds(q: Any, seen: set[tuple[str, bool]]) -> bool:
    """The query over the set of operands seen so far (phrases as AND): Cover's test."""
    kind = q[0]
    if kind == "v":
        return (q[1], q[3]) in seen
    if kind == "!":
        return not _holds(q[1], seen)
    if kind == "|":
        return _holds(q[1], seen) or _holds(q[2], seen)
    return _holds(q[1], seen) and _holds(q[2], seen)


def _first_cover_edge(tree: Any, doc: list[Any], indices: range) -> int | None:
    """The first index, walking `indices`, where the operands met so far satisfy the query."""
    seen: set[tuple[str, bool]] = set()
    for i in indices:
        seen |= doc[i][1][1]
        if _holds(tree, seen):
            return i
    return None


def rank_cd(v: str, q: str, weights: tuple[float, ...] = _DEFAULT_WEIGHTS, norm: int = 0) -> float:
    """ts_rank_cd: PostgreSQL's cover density ranking (calc_rank_cd, its Cover() walk)."""
    vec, tree = vector(v), query(q)
    if not vec or tree is None:
        return 0.0
    inv = [1.0 / _f4(w) for w in weights]
    at: dict[int, tuple[int, set[tuple[str, bool]]]] = {}  # position -> (weight, operands)
    for op in operands(tree):
        mask = op[2]
        for word, poss in vec:
            if word == op[1] or (op[3] and word.startswith(op[1])):
                for p, w in poss or ((0, 0),):
                    if mask and not mask & (1 << w):
                        continue
                    weight, items = at.setdefault(p, (w, set()))
                    items.add((op[1], op[3]))
    doc = sorted(at.items())
    n, start = len(doc), 0
    wdoc, sum_dist, prev, extents = 0.0, 0.0, 0.0, 0
    while start < n:
        end = _first_cover_edge(tree, doc, range(start, n))
        if end is None or doc[end][0] == 0:  # NB: a position-less entry ends no cover (PG)
            break
        begin = _first_cover_edge(tree, doc, range(end, start - 1, -1))
        if begin is None:
            start += 1
            continue
        p, qpos = doc[begin][0], doc[end][0]
        inv_sum = sum(inv[doc[i][1][0]] for i in range(begin, end + 1))
        cpos = (end - begin + 1) / inv_sum
        noise = (qpos - p) - (end - begin)
        if noise < 0:
            noise = (end - begin) // 2
        wdoc += cpos / (1 + noise)
        cur = (qpos + p) / 2.0
        if extents > 0 and cur > prev:
            sum_dist += 1.0 / (cur - prev)
        prev = cur
        extents += 1
        start = begin + 1
    total = sum(max(len(poss), 1) for _, poss in vec)
    if norm & 1:
        wdoc /= math.log(total + 1)
    if norm & 2 and total > 0:
        wdoc /= total
    if norm & 4 and extents > 0 and sum_dist > 0:
        wdoc /= extents / sum_dist
    if norm & 8:
        wdoc /= len(vec)
    if norm & 16:
        wdoc /= math.log(len(vec) + 1) / math.log(2.0)
    if norm & 32:
        wdoc /= wdoc + 1
    return _f4(wdoc)
