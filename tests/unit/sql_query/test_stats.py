"""ANALYZE statistics: what `optimizer.stats.analyze` collects, and the estimates built on it."""

from __future__ import annotations

import pytest

from cumulo.server.sql.optimizer import stats

from .harness import ACC, DB, T, U


@pytest.fixture
def db():
    d = DB()
    yield d
    stats.STATS.clear()


def test_analyze_collects_counts_distinct_min_max_histogram(db):
    ts = stats.analyze(db.txn, ACC)
    assert ts.rows == 50
    aid, bid, bal = ts.columns[0], ts.columns[1], ts.columns[2]
    assert (aid.ndistinct, aid.min, aid.max, aid.null_frac) == (50, 1, 50, 0.0)
    assert (bid.ndistinct, bid.min, bid.max) == (1, 1, 1)
    assert bal.histogram[0] == 10 and bal.histogram[-1] == 500
    # one bound per sampled value at most (50 here), BUCKETS + 1 on larger tables
    assert len(bal.histogram) == min(stats.BUCKETS, 49) + 1
    assert bal.histogram == sorted(bal.histogram)
    u = stats.analyze(db.txn, U)
    assert u.rows == 4 and u.columns[1].null_frac == 0.25 and u.columns[1].ndistinct == 3


def test_estimates_follow_the_statistics(db):
    plan, _ = db.plan("select aid from pgbench_accounts where abalance > 100")
    before = plan.explain()
    assert "(rows=333)" in before[-1]  # no statistics: 1000 rows, a third pass the filter
    stats.analyze(db.txn, ACC)
    plan, _ = db.plan("select aid from pgbench_accounts where abalance > 100")
    est = stats.estimate(plan.root)
    assert 35 <= est <= 45, est  # 40 of 50 balances exceed 100
    plan, _ = db.plan("select aid from pgbench_accounts where bid = 1")
    assert stats.estimate(plan.root) == 50  # one distinct bid: equality keeps everything


def test_bind_join_chosen_by_statistics_gives_the_same_rows(db):
    sql = "select u.y, abalance from u join pgbench_accounts on aid = u.x where u.y = 'a'"
    plan, _ = db.plan(sql)
    assert not any("algo=bind" in ln for ln in plan.explain())
    without = sorted(r for b in plan.execute(db.ctx()) for r in b)
    stats.analyze(db.txn, U)
    stats.analyze(db.txn, ACC)
    stats.analyze(db.txn, T)
    plan, _ = db.plan(sql)
    assert any("algo=bind" in ln for ln in plan.explain())
    assert sorted(r for b in plan.execute(db.ctx()) for r in b) == without == [("a", 10)]
