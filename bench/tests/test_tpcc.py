"""TPC-C pieces: the generator's guarantees, and the same seeded mix on PostgreSQL 15 and Cumulo.

The seeded single-terminal mix is deterministic, so after it both systems must
hold identical tables; comparing per-table checksums is a differential test of
every statement TPC-C sends (UPDATE ... RETURNING, DELETE, INSERT, aggregates).
"""

from __future__ import annotations

import psycopg
import pytest

from bench.tpcc import data
from bench.tpcc.txns import consistency, run_seeded
from bench.workloads.ch import queries
from tests.pg15 import PG15, available
from tests.server_process import CumuloServer

TINY = data.Scale.tiny()
CHECKSUMS = {
    "warehouse": "SELECT count(*), sum(w_ytd) FROM warehouse",
    "district": "SELECT count(*), sum(d_ytd), sum(d_next_o_id) FROM district",
    "customer": "SELECT count(*), sum(c_balance), sum(c_payment_cnt), sum(c_delivery_cnt),"
    " sum(length(c_data)) FROM customer",
    "history": "SELECT count(*), sum(h_amount) FROM history",
    "oorder": "SELECT count(*), sum(o_id), count(o_carrier_id), sum(o_carrier_id) FROM oorder",
    "new_order": "SELECT count(*), sum(no_o_id) FROM new_order",
    "order_line": "SELECT count(*), sum(ol_amount), count(ol_delivery_d), sum(ol_quantity)"
    " FROM order_line",
    "stock": "SELECT count(*), sum(s_quantity), sum(s_ytd), sum(s_order_cnt), sum(s_remote_cnt)"
    " FROM stock",
}


def test_generator_is_deterministic_and_shaped_like_the_spec():
    assert list(data.rows("customer", TINY)) == list(data.rows("customer", TINY))
    orders = list(data.rows("oorder", TINY))
    lines = list(data.rows("order_line", TINY))
    new = list(data.rows("new_order", TINY))
    per_district = TINY.orders
    assert len(orders) == TINY.warehouses * TINY.districts * per_district
    assert sum(int(o[5]) for o in orders) == len(lines)  # o_ol_cnt matches the lines
    undelivered = {(o[0], o[1], o[2]) for o in orders if o[4] is None}
    assert undelivered == {tuple(n) for n in new}
    assert all((ln[5] is None) == ((ln[0], ln[1], ln[2]) in undelivered) for ln in lines)
    assert data.last_name(371) == "PRICALLYOUGHT"  # clause 4.3.2.3's example


def test_ch_queries_parse_into_22():
    qs = queries()
    assert [q for q, _ in qs] == [f"Q{i}" for i in range(1, 23)]
    assert len(dict(qs)["Q15"]) == 3 and all(len(st) == 1 for q, st in qs if q != "Q15")


@pytest.fixture(scope="module")
def systems():
    if not available():
        pytest.skip("PostgreSQL 15 binaries are not installed")
    pg = PG15().start()
    cumulo = CumuloServer().start()
    yield {"postgres": pg.dsn(), "cumulo": cumulo.dsn()}
    cumulo.stop()
    pg.stop()


def _seeded(dsn: str) -> tuple[dict[str, tuple], list[str], object]:
    with psycopg.connect(dsn, autocommit=True) as admin:
        admin.execute("DROP DATABASE IF EXISTS tpcc_t")
        admin.execute("CREATE DATABASE tpcc_t")
    dsn = dsn.rsplit("/", 1)[0] + "/tpcc_t"
    with psycopg.connect(dsn) as conn:
        data.load(conn, TINY)
        counts = run_seeded(conn, TINY, 300)
        sums = {t: conn.execute(sql).fetchone() for t, sql in CHECKSUMS.items()}
        return sums, consistency(conn), counts


def test_seeded_mix_leaves_identical_consistent_data(systems):
    pg_sums, pg_bad, pg_counts = _seeded(systems["postgres"])
    cu_sums, cu_bad, cu_counts = _seeded(systems["cumulo"])
    assert pg_bad == [] and cu_bad == []
    assert pg_counts.committed["new_order"] > 100 and pg_counts.rollbacks > 0
    assert cu_counts == pg_counts
    assert cu_sums == pg_sums
