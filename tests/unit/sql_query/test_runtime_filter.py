"""Runtime filters (`exec/runtime_filter.py`): a hash join's build keys reach the probe side's
KiVi scan as `IN`, and the rows stay exactly those of the join without the filter.

The harness records every `ScanSpec`; a query whose probe side is a table scan must send
that scan a filter naming the build side's keys, and one that does not qualify (a LEFT
join, an expression key, a LIMIT on the probe side) must not."""

from __future__ import annotations

import pytest

from cumulo.server.sql.exec import runtime_filter
from cumulo.server.sql.plan import nodes as N

from .harness import ACC, DB


def _in_filters(ir) -> list:
    if not isinstance(ir, tuple):
        return []
    if ir[0] == "in":
        return [ir]
    if ir[0] == "and":
        return [x for p in ir[1] for x in _in_filters(p)]
    return []


def _hash_joins(plan) -> list[N.Join]:
    return [n for n in N.walk(plan.root) if isinstance(n, N.Join) and n.algo == "hash"]


def _run(db: DB, sql: str) -> tuple[list, list]:
    """The rows, and the IN filters the scans received."""
    db.txn.scans.clear()
    rows = sorted(db.rows(sql), key=repr)
    return rows, [f for s in db.txn.scans for f in _in_filters(s.filter)]


def _without(db: DB, sql: str, monkeypatch) -> list:
    monkeypatch.setattr(runtime_filter, "target", lambda node: False)
    try:
        plan, _ = db.plan(sql)  # a fresh plan: `target` is cached on the join node
        out: list = []
        for b in plan.execute(db.ctx()):
            out.extend(b)
        return sorted(out, key=repr)
    finally:
        monkeypatch.undo()


@pytest.mark.parametrize("sql", [
    # the probe side (accounts) is the left input: abalance IN (u's x * 10 values)
    "SELECT p.aid, u.y FROM pgbench_accounts p JOIN u ON p.abalance = u.x * 10",
    # a semi join: IN (SELECT ...) decorrelated
    "SELECT aid FROM pgbench_accounts WHERE abalance IN (SELECT x * 10 FROM u WHERE y <> 'c')",
    # with the probe side's own pushed filter kept
    "SELECT p.aid FROM pgbench_accounts p JOIN t ON p.abalance = t.a * 10 WHERE p.aid > 1",
])
def test_probe_scan_gets_the_build_keys(sql, monkeypatch):
    db = DB(use_real=False)
    plan, _ = db.plan(sql)
    assert _hash_joins(plan), "\n".join(plan.explain())
    rows, filters = _run(db, sql)
    assert filters, "no IN filter reached a scan"
    assert rows == _without(db, sql, monkeypatch)
    assert rows  # the cases match rows: the filter kept them


@pytest.mark.parametrize("sql", [
    # LEFT join: unmatched probe rows must come out padded
    "SELECT p.aid, u.y FROM pgbench_accounts p LEFT JOIN u ON p.abalance = u.x * 10",
    # an expression key on the probe side cannot be filtered in the scan
    "SELECT p.aid FROM pgbench_accounts p JOIN u ON p.abalance / 10 = u.x",
    # char(n): the build side's values are padded to its own length, which may differ
    "SELECT p.aid FROM pgbench_accounts p WHERE p.filler IN "
    "(SELECT q.filler FROM pgbench_accounts q WHERE q.aid < 3)",
])
def test_no_filter_where_it_would_be_wrong(sql, monkeypatch):
    db = DB(use_real=False)
    rows, filters = _run(db, sql)
    assert filters == []
    assert rows == _without(db, sql, monkeypatch)


def test_empty_build_side_skips_the_probe_scan():
    db = DB(use_real=False)
    rows, _ = _run(db, "SELECT p.aid FROM pgbench_accounts p JOIN u ON p.abalance = u.x "
                       "WHERE u.y = 'none'")
    assert rows == []
    assert all(s.space != ACC.space for s in db.txn.scans)


def test_too_many_keys_are_not_sent(monkeypatch):
    monkeypatch.setattr(runtime_filter, "MAX_KEYS", 2)
    db = DB(use_real=False)
    sql = "SELECT p.aid FROM pgbench_accounts p JOIN t ON p.abalance = t.a * 10"
    plan, _ = db.plan(sql)
    assert _hash_joins(plan)
    rows, filters = _run(db, sql)
    assert filters == [] and len(rows) == 4


def test_statistics_skip_a_filter_that_keeps_every_row(monkeypatch):
    """bid is 1 in every account: with statistics (one distinct value) `bid IN (1, 2, 3, 4)`
    would test all 50 rows for nothing and is not sent; without them it is."""
    from cumulo.server.sql.optimizer import stats

    sql = "SELECT p.aid FROM pgbench_accounts p JOIN t ON p.bid = t.a"
    db = DB(use_real=False)
    plan, _ = db.plan(sql)
    assert _hash_joins(plan), "\n".join(plan.explain())
    rows, filters = _run(db, sql)
    assert filters and len(rows) == 50
    stats.analyze(db.txn, ACC)
    try:
        rows2, filters2 = _run(db, sql)
    finally:
        stats.STATS.clear()
    assert filters2 == [] and rows2 == rows
