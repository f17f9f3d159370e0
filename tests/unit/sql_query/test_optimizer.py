"""The optimizer changes plans, never results: every query gives the same rows with and
without the rules, and the access paths it picks make the calls they promise."""

from __future__ import annotations

import sys

import pytest

from cumulo.server.sql.optimizer import rules

from .harness import DB
from .test_golden import FILES, parse
from .test_select import CASES

QUERIES = [c[0] for c in CASES] + [c["sql"] for f in FILES for c in parse(f.read_text())] + [
    "select * from t join u on a = x where a = 2",
    "select * from u where y = 'c' or y is null",
    "select count(*), min(a), max(b) from t where a > 1",
    "select y, avg(x) from u where x > 1 group by y",
    "select t1.a, t2.b from t t1 left join t t2 on t1.a = t2.a + 1 order by 1",
    "select aid, abalance from pgbench_accounts where aid in (3, 5, 99) order by 1",
    "select aid from pgbench_accounts where aid > 45 order by aid desc limit 2",
    "select max(aid) from pgbench_accounts where aid < 40",
    "select min(aid), 1 from pgbench_accounts where aid > 40",
    "select s.a, abalance from (values (1), (7), (null)) s(a) left join pgbench_accounts on aid = s.a",
]


def _rows(db: DB, sql: str, params: list) -> list:
    return sorted(db.rows(sql, params), key=repr)


@pytest.mark.parametrize("sql", QUERIES, ids=[q[:60] for q in QUERIES])
def test_rules_preserve_results(sql: str, monkeypatch: pytest.MonkeyPatch) -> None:
    db = DB()
    params = [5] if "$1" in sql else []
    with_rules = _rows(db, sql, params)
    monkeypatch.setattr(rules, "RULES", ())
    monkeypatch.setattr(rules, "PRE_RULES", ())
    assert _rows(db, sql, params) == with_rules


def test_point_get_is_one_get_and_no_scan() -> None:
    db = DB()
    plan, params = db.plan("SELECT abalance FROM pgbench_accounts WHERE aid = $1")
    assert params.oids == [23]
    gets, scans = db.txn.gets, len(db.txn.scans)
    rows = [r for b in plan.execute(db.ctx([7])) for r in b]
    assert rows == [(70,)]
    assert (db.txn.gets - gets, len(db.txn.scans) - scans) == (1, 0)
    assert [r for b in plan.execute(db.ctx([999])) for r in b] == []


@pytest.mark.parametrize(("sql", "param", "rows", "path"), [
    ("select abalance from pgbench_accounts where aid = $1 % 50 + 1", 56, [(70,)], "PointGet"),
    ("select abalance from pgbench_accounts where aid = $1::bigint * 2", 3, [(60,)], "PointGet"),
    ("select abalance from pgbench_accounts where aid = abs($1::int) - 1", -8, [(70,)], "PointGet"),
    ("select abalance from pgbench_accounts where aid in ($1 + 1, $1 * 3)", 2, [(30,), (60,)],
     "PointGet"),
    ("select aid from pgbench_accounts where aid > $1 + 40 order by aid", 7, [(48,), (49,), (50,)],
     "Scan"),
    ("select abalance from pgbench_accounts where aid = $1 + 1", None, [], "PointGet"),
])
def test_key_from_an_expression_of_parameters(sql: str, param: int | None, rows: list,
                                              path: str) -> None:
    """`pk = <expression over parameters>` (a PL/pgSQL variable is a parameter) is a key
    lookup evaluated once per execution, not a scan with a per-row filter; NULL finds none."""
    db = DB()
    plan, _ = db.plan(sql)
    text = "\n".join(plan.explain())
    assert path in text and "Filter" not in text, text
    assert sorted(r for b in plan.execute(db.ctx([param])) for r in b) == rows


def test_volatile_or_row_dependent_values_stay_filters() -> None:
    db = DB()
    for sql in ("select aid from pgbench_accounts where aid = (random() * 0)::int + 1",
                "select aid from pgbench_accounts where aid = bid + 1"):
        plan, _ = db.plan(sql)
        assert any("Filter" in ln for ln in plan.explain()), sql


def test_key_range_and_filter_reach_the_scan() -> None:
    db = DB()
    before = len(db.txn.scans)
    assert db.rows("select aid from pgbench_accounts where aid between 10 and 12 and bid = 1") == [
        (10,), (11,), (12,)]
    spec = db.txn.scans[before]
    assert spec.lo is not None and spec.hi is not None
    assert spec.filter == ("cmp", "=", ("col", 1, 23), ("const", 1, 23))  # typed leaves


def test_max_of_the_key_reads_one_row_backwards() -> None:
    db = DB()
    before = len(db.txn.scans)
    assert db.rows("select max(aid) from pgbench_accounts where aid < 40") == [(39,)]
    spec = db.txn.scans[before]
    assert spec.reverse and spec.limit == 1 and spec.aggregate is None


def test_bind_join_batches_gets() -> None:
    db = DB()
    sql = ("select s.a, abalance from (values (1), (2), (3)) s(a) "
           "join pgbench_accounts on aid = s.a")
    plan, _ = db.plan(sql)
    assert any("algo=bind" in ln for ln in plan.explain())
    gets = db.txn.gets
    assert sorted(r for b in plan.execute(db.ctx()) for r in b) == [(1, 10), (2, 20), (3, 30)]
    assert db.txn.gets - gets == 1


def test_explain_analyze_counts_rows() -> None:
    db = DB()
    plan, _ = db.plan("select a from t where a > 1")
    lines = plan.explain(db.ctx(), analyze=True)
    assert lines[0].startswith("Project a (rows=")
    assert "(actual rows=3 loops=1 time=" in lines[0]


def test_cancel_stops_a_scan() -> None:
    from cumulo.server.errors import QueryCanceled

    db = DB()
    plan, _ = db.plan("select aid from pgbench_accounts where abalance > 0")
    ctx = db.ctx()
    ctx.cancel_event.set()
    with pytest.raises(QueryCanceled):
        for _ in plan.execute(ctx):
            pass


def _calls_per_execution(db: DB, sql: str, n: int = 50) -> float:
    """Python and C calls made per execution of a planned query: a count, not a timing, so
    it says the same on a loaded machine as on a quiet one."""
    plan, _ = db.plan(sql)
    for _ in plan.execute(db.ctx([1])):  # warm: first-use caches are not the steady state
        pass
    calls = 0

    def count(frame: object, event: str, arg: object) -> None:
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    sys.setprofile(count)
    try:
        for i in range(n):
            for _b in plan.execute(db.ctx([i % 50 + 1])):
                pass
    finally:
        sys.setprofile(None)
    return calls / n


def test_point_lookup_costs_little_python() -> None:
    """A primary-key lookup makes a few dozen calls (about 46 today), where reading the
    50-row table to find the same row makes hundreds: the access path is a point get."""
    db = DB(use_real=False)
    point = _calls_per_execution(db, "SELECT abalance FROM pgbench_accounts WHERE aid = $1")
    scan = _calls_per_execution(db, "SELECT abalance FROM pgbench_accounts WHERE aid + 0 = $1")
    assert point < 120, f"{point:.0f} calls per lookup"
    assert scan > 3 * point, (point, scan)
