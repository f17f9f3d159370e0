"""The MasterMind's balancing choice (`cluster.balance.pick_move`): by bytes, then by
count, and never a move that the next round would undo. (Live: the placement loop of
`cumulo cluster up --placement-interval N`, tests/integration/test_cluster_placement.py.)"""

from __future__ import annotations

import doctest

from cumulo.server.cluster import balance
from cumulo.server.cluster.balance import pick_move


def test_doctests() -> None:
    assert doctest.testmod(balance).failed == 0


def test_rounds_settle_without_trading_regions_back_and_forth() -> None:
    # Two big regions on a, small ones and empty ones on b; apply each round's move.
    regions = {1: ["a", 1000], 2: ["a", 1000], 3: ["b", 300], 4: ["b", 0], 5: ["b", 0],
               6: ["b", 0], 7: ["b", 0]}
    moves = []
    for _round in range(10):
        move = pick_move([(i, o, s) for i, (o, s) in regions.items()], ["a", "b"], min_gain=100)
        if move is None:
            break
        moves.append(move)
        regions[move[0]][0] = move[1]
    assert moves[0] == (1, "b")  # bytes first: a holds 2000, b 300
    assert len(moves) == len(set(moves)) < 10  # it settles, and no region goes back
    load = {n: sum(s for o, s in regions.values() if o == n) for n in "ab"}
    count = {n: sum(o == n for o, _s in regions.values()) for n in "ab"}
    assert abs(load["a"] - load["b"]) <= 300 and abs(count["a"] - count["b"]) <= 1
