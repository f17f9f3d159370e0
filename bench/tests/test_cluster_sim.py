"""The scale-out simulator (`bench/workloads/cluster_sim.py`): deterministic, and it behaves
like the queueing model it claims to be. No timing: fixed service times go in, and the
assertions are about the simulated numbers only."""

from __future__ import annotations

import pytest

from bench.workloads.cluster_sim import (
    Costs,
    Result,
    TxnShape,
    efficiency,
    knee,
    report,
    scale_out,
    simulate,
)

# Round numbers of the size measured on this machine (µs): the engine is the bottleneck.
COSTS = Costs(qe_cpu=250e-6, rpc_client=35e-6, rpc_server=50e-6, kivi_read=8e-6,
              kivi_apply=22e-6, cm_op=6e-6, fsync=1.2e-3, log_record=1e-6, mm_op=6e-6)


def test_same_seed_same_numbers_other_seed_other_numbers():
    a = simulate(COSTS, 3, seconds=0.5, seed=11)
    b = simulate(COSTS, 3, seconds=0.5, seed=11)
    assert a == b and a.utilization == b.utilization
    c = simulate(COSTS, 3, seconds=0.5, seed=12)
    assert c.tps != a.tps
    assert abs(c.tps - a.tps) < 0.1 * a.tps  # the seed moves the noise, not the level


def test_throughput_grows_with_nodes_while_nothing_shared_saturates():
    shape = TxnShape(mm_batch=16)  # the MasterMind's share made small
    results = scale_out(COSTS, [1, 2, 3, 4, 6, 8], seconds=0.5, shape=shape)
    tps = [r.tps for r in results]
    assert tps == sorted(tps)
    assert all(r.bottleneck == "engine" for r in results)
    assert min(efficiency(results)) >= 0.75
    assert knee(results) == (None, None)


def test_a_shared_mastermind_caps_throughput_where_the_model_says():
    slow = Costs(**{**vars(COSTS), "mm_op": 100e-6})
    shape = TxnShape(mm_msgs=3)
    results = scale_out(slow, [1, 2, 4, 8, 16], seconds=0.5, shape=shape)
    cap = 1.0 / (shape.mm_msgs * (slow.rpc_server + slow.mm_op))  # its one core, fully busy
    assert results[-1].bottleneck == "mastermind"
    assert results[-1].utilization["mastermind"] > 0.95
    assert results[-1].tps == pytest.approx(cap, rel=0.1)
    below, flat = knee(results)
    assert below is not None and flat is not None and below <= flat
    text = "\n".join(report(slow, results))
    assert f"N = {flat}" in text and "mastermind" in text


def test_group_commit_shares_one_fsync():
    slow_disk = Costs(**{**vars(COSTS), "fsync": 20e-3})
    r = simulate(slow_disk, 1, clients_per_node=16, seconds=1.0)
    assert r.bottleneck == "logger"
    assert r.tps > 4 / slow_disk.fsync  # one record per fsync would give 50 tx/s


def test_efficiency_and_knee_of_given_results():
    rs = [Result(n, 8 * n, t, 1.0, "engine") for n, t in ((1, 100), (2, 190), (3, 250), (4, 255))]
    assert efficiency(rs) == pytest.approx([1.0, 0.95, 250 / 300, 255 / 400])
    assert knee(rs) == (4, 4)
