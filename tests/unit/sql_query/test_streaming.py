"""Set-returning functions stream, aggregates fold batch by batch, and one huge query fails
with 53200 instead of taking the server down."""

from __future__ import annotations

import threading

import pytest

from cumulo.server.errors import OutOfMemory, QueryCanceled
from cumulo.server.sql.exec import aggregate, memguard

from .harness import DB

HUGE = 10**12


@pytest.fixture(scope="module")
def db():
    return DB()


def test_generate_series_in_from_streams(db):
    assert db.rows(f"select g from generate_series(1, {HUGE}) g limit 3") == [(1,), (2,), (3,)]


def test_generate_series_in_select_list_streams(db):
    rows = db.rows(f"select generate_series(1, {HUGE}), 'x' limit 2")
    assert rows == [(1, "x"), (2, "x")]


def test_select_list_srfs_run_in_lockstep(db):
    rows = db.rows("select generate_series(1, 3), generate_series(1, 2), unnest(array['a'])")
    assert rows == [(1, 1, "a"), (2, 2, None), (3, None, None)]


def test_cancel_interrupts_an_aggregate_over_a_huge_series(db):
    plan, _ = db.plan(f"select count(*) from generate_series(1, {HUGE}) g")
    ctx = db.ctx()
    timer = threading.Timer(0.2, ctx.cancel_event.set)
    timer.start()
    try:
        with pytest.raises(QueryCanceled):
            for _ in plan.execute(ctx):
                pass
    finally:
        timer.cancel()


AGG_QUERIES = [
    "select count(*), count(b), sum(c), avg(c), min(b), max(c), bool_and(a > 1) from t",
    "select b is null, count(*), sum(a), avg(a), min(c), max(b) from t group by 1",
    "select y, count(x), sum(x), avg(x) filter (where x > 1), bool_or(x = 5) from u group by y",
    "select sum(x), avg(x), min(y) from u where x > 100",
    "select g % 7, count(*), sum(g), avg(g::float8), max(g) from generate_series(1, 5000) g "
    "group by 1",
    "select array[x], count(*) from u group by 1",
]


@pytest.mark.parametrize("sql", AGG_QUERIES)
def test_folded_aggregates_equal_materialised_ones(db, sql, monkeypatch):
    folded = sorted(db.rows(sql), key=repr)
    monkeypatch.setattr(aggregate, "foldable", lambda node: False)
    assert sorted(db.rows(sql), key=repr) == folded


def test_memory_guard_fails_the_query_with_53200(db, monkeypatch):
    monkeypatch.setattr(memguard, "EVERY", 1)
    monkeypatch.setattr(memguard, "_VM_LIMIT", 1)  # any process is over one byte
    with pytest.raises(OutOfMemory) as err:
        db.rows("select g from generate_series(1, 5000) g order by g desc")
    assert err.value.sqlstate == "53200"
    monkeypatch.setattr(memguard, "_VM_LIMIT", None)
    monkeypatch.setattr(memguard, "_RSS_LIMIT", None)
    assert db.rows("select g from generate_series(1, 5000) g order by g desc limit 1") == [(5000,)]
