"""Hash joins, ON-clause pushdown and shared views against PostgreSQL 15.

The hash join probes a left batch at a time with one list comprehension and
runs its right side only once the left side has a row; a LEFT join's ON
conjuncts over the nullable side filter that side's scan; a view named twice
in a statement is computed once when it aggregates (and never when it calls
something volatile). Each case must give PostgreSQL's rows, on data with
NULL keys, duplicates and a many-to-many key (fan-out above the probe's
slicing threshold), and EXPLAIN must show the plan choice. One server pair
per module.
"""

from __future__ import annotations

import psycopg
import pytest

from tests import pg15 as pg15_mod

SETUP = [
    "CREATE TABLE l (id int PRIMARY KEY, k int, k2 int, v int)",
    "CREATE TABLE r (id int PRIMARY KEY, k int, k2 int, w int)",
    "CREATE TABLE m (id int PRIMARY KEY, k int)",
    "CREATE TABLE z (id int PRIMARY KEY, k int)",
    "INSERT INTO l SELECT i, CASE WHEN i % 7 = 0 THEN NULL ELSE i % 5 END, i % 3, i"
    " FROM generate_series(1, 40) i",
    "INSERT INTO r SELECT i, CASE WHEN i % 11 = 0 THEN NULL ELSE i % 6 END,"
    " CASE WHEN i % 4 = 0 THEN NULL ELSE i % 3 END, i * 2 FROM generate_series(1, 60) i",
    # one key with 30 rows: more than 4 matches per key slices the probe
    "INSERT INTO m SELECT i, CASE WHEN i <= 30 THEN 1 ELSE i END FROM generate_series(1, 50) i",
    "CREATE VIEW agg_v AS SELECT k, sum(w) AS total, count(*) AS n FROM r GROUP BY k",
    "CREATE VIEW plain_v AS SELECT id, k FROM r WHERE w > 10",
    "CREATE VIEW rand_v AS SELECT count(*) AS n, sum(random()) AS s FROM generate_series(1, 10)",
]

# (query, text EXPLAIN must contain on Cumulo, text it must not contain)
CASES = [
    ("SELECT l.id, r.id FROM l JOIN r ON l.k = r.k", "Hash Cond", None),
    ("SELECT l.id, r.id FROM l JOIN r ON l.k = r.k AND l.k2 = r.k2", "Hash Cond", None),
    ("SELECT l.id, r.id FROM l JOIN r ON l.k = r.k AND r.w > l.v", "Hash Cond", None),
    ("SELECT l.id, r.id FROM l LEFT JOIN r ON l.k = r.k AND l.k2 = r.k2", "Hash Left Join", None),
    ("SELECT l.id, r.id FROM l LEFT JOIN r ON l.k = r.k AND r.w > l.v", "Hash Left Join", None),
    # the ON conjunct over r alone filters r's scan (CH-benCHmark Q13's shape)
    ("SELECT l.id, r.id FROM l LEFT JOIN r ON l.k = r.k AND r.w > 60", "Seq Scan on r", "Join Filter"),
    ("SELECT l.id, count(r.id) FROM l LEFT JOIN r ON l.k = r.k AND r.k2 IS NOT NULL "
     "GROUP BY l.id", "Seq Scan on r", "Join Filter"),
    # an ON conjunct over the preserved side stays (it pads, it does not remove rows)
    ("SELECT l.id, r.id FROM l LEFT JOIN r ON l.k = r.k AND l.v > 30", "Join Filter", None),
    ("SELECT l.id, r.id FROM l RIGHT JOIN r ON l.k = r.k AND l.v > 30", "Hash Cond", None),
    ("SELECT l.id, r.id FROM l FULL JOIN r ON l.k = r.k", "Hash Cond", None),
    ("SELECT l.id, m.id FROM l JOIN m ON l.k = m.k", "Hash Cond", None),
    ("SELECT l.id, m.id FROM l LEFT JOIN m ON l.k = m.k AND m.id > l.id", "Hash Cond", None),
    ("SELECT id FROM l WHERE EXISTS (SELECT 1 FROM r WHERE r.k = l.k AND r.w > l.v)",
     "Hash Semi Join", None),
    ("SELECT id FROM l WHERE NOT EXISTS (SELECT 1 FROM r WHERE r.k = l.k AND r.k2 = l.k2)",
     "Hash Anti Join", None),
    ("SELECT id FROM l WHERE NOT EXISTS (SELECT 1 FROM m WHERE m.k = l.k AND m.id < l.id)",
     "Hash Anti Join", None),
    # an empty left side: the right side never runs, the answer is still empty
    ("SELECT l.id, r.id FROM l JOIN r ON l.k = r.k WHERE l.v > 1000", "Hash Cond", None),
    ("SELECT id FROM l WHERE v > 1000 AND NOT EXISTS (SELECT 1 FROM r WHERE r.k = l.k)",
     "Anti Join", None),
    ("SELECT z.id FROM z LEFT JOIN r ON z.k = r.k", None, None),
    # runtime filters: the build keys reach the probe scan as IN, across int4/int8/numeric
    ("SELECT l.id, r.id FROM l JOIN r ON l.v = r.w::bigint WHERE r.k = 1", "Hash Cond", None),
    ("SELECT l.id, r.id FROM l JOIN r ON l.v = r.w::numeric / 2 WHERE r.k2 = 2", None, None),
    ("SELECT id FROM l WHERE v IN (SELECT w FROM r WHERE k = 1)", "Semi Join", None),
    ("SELECT l.id FROM l JOIN r ON l.k = r.k AND l.k2 = r.k2 WHERE r.w < 20", None, None),
    # a view that aggregates, named twice (CH-benCHmark Q15's shape): computed once
    ("SELECT a.k, a.total FROM agg_v a WHERE a.total = (SELECT max(total) FROM agg_v)",
     "CTE Scan on agg_v", None),
    ("SELECT a.k, b.n FROM agg_v a JOIN agg_v b ON a.k = b.k + 1", "CTE Scan", None),
    # named once, or not aggregating: inlined as before
    ("SELECT k, total FROM agg_v WHERE n > 9", None, "CTE Scan"),
    ("SELECT a.id FROM plain_v a JOIN plain_v b ON a.id = b.k", None, "CTE Scan"),
]


@pytest.fixture(scope="module")
def dsns(cumulo_server, pg15):
    return pg15_mod.same_schema(pg15, cumulo_server, "joinexec", SETUP)


def _rows(dsn: str, sql: str) -> list:
    with psycopg.connect(dsn, autocommit=True) as conn:
        return sorted(conn.execute(sql).fetchall(), key=repr)


def _plan(dsn: str, sql: str) -> str:
    """The EXPLAIN text of `sql`, one line per plan line."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        return "\n".join(r[0] for r in conn.execute("EXPLAIN " + sql).fetchall())


def _same_rows_and_plan(pg: str, cu: str, setup: list[str], cases: list) -> None:
    """Runs `setup` on both systems, then each (sql, plan) case: PostgreSQL's rows, and
    Cumulo's EXPLAIN naming `plan`."""
    for dsn in (pg, cu):
        with psycopg.connect(dsn, autocommit=True) as conn:
            for s in setup:
                conn.execute(s)
    for sql, plan in cases:
        assert _rows(cu, sql) == _rows(pg, sql), sql
        text = _plan(cu, sql)
        assert plan in text, text


@pytest.mark.parametrize("sql,has,lacks", CASES, ids=[f"{i}" for i in range(len(CASES))])
def test_same_rows_as_pg15(dsns, sql, has, lacks):
    pg, cu = dsns
    assert _rows(cu, sql) == _rows(pg, sql)
    text = _plan(cu, sql)
    if has is not None:
        assert has in text, text
    if lacks is not None:
        assert lacks not in text, text


def test_cases_are_not_trivial(dsns):
    """The data makes the join cases meaningful: matches, NULL keys and padded rows occur."""
    pg, _ = dsns
    assert len(_rows(pg, CASES[0][0])) > 100
    assert (None,) in [r[1:] for r in _rows(pg, CASES[5][0])]
    assert len(_rows(pg, CASES[10][0])) >= 30 * 7  # the 30-row key meets the 7 l rows with k 1


def test_volatile_view_is_not_shared(dsns):
    """A view calling random() is computed once per mention, as on PostgreSQL: two mentions
    give two different sums (sharing it would make them equal)."""
    pg, cu = dsns
    sql = "SELECT a.s = b.s, a.n FROM rand_v a, rand_v b"
    assert _rows(cu, sql) == _rows(pg, sql) == [(False, 10)]
    text = _plan(cu, sql)
    assert "CTE Scan" not in text, text


def test_shared_view_sees_writes_of_the_transaction(dsns):
    """A shared view is computed per execution: a cached plan sees rows inserted since."""
    pg, cu = dsns
    sql = "SELECT a.k, a.n FROM agg_v a WHERE a.n = (SELECT max(n) FROM agg_v)"
    results = []
    for dsn in (pg, cu):
        with psycopg.connect(dsn) as conn:
            got = [sorted(conn.execute(sql).fetchall(), key=repr)]
            conn.execute("INSERT INTO r SELECT i, 3, 0, 1 FROM generate_series(100, 120) i")
            got.append(sorted(conn.execute(sql).fetchall(), key=repr))
            conn.rollback()
        results.append(got)
    assert results[0] == results[1]
    assert results[1][0] != results[1][1]


RIGHT_CASES = [
    ("SELECT id FROM sm WHERE EXISTS (SELECT 1 FROM bg WHERE bg.k = sm.k)", "Right Semi Join"),
    ("SELECT id FROM sm WHERE NOT EXISTS (SELECT 1 FROM bg WHERE bg.k = sm.k)",
     "Right Anti Join"),
    # a residual: each left row matches on its own (CH-benCHmark Q4's shape)
    ("SELECT id FROM sm WHERE EXISTS (SELECT 1 FROM bg WHERE bg.k = sm.k AND bg.w >= sm.v)",
     "Right Semi Join"),
    ("SELECT id FROM sm WHERE NOT EXISTS (SELECT 1 FROM bg WHERE bg.k = sm.k AND bg.w > sm.v)",
     "Right Anti Join"),
    ("SELECT id FROM sm WHERE k IN (SELECT k FROM bg WHERE w % 3 = 0)", "Right Semi Join"),
    ("SELECT sm.v, count(*) FROM sm WHERE EXISTS (SELECT 1 FROM bg WHERE bg.k = sm.k "
     "AND bg.k2 = sm.k2) GROUP BY sm.v", "Right Semi Join"),
]


def test_semi_and_anti_joins_hashing_the_smaller_left_side(dsns):
    """With statistics saying the right side is much larger, semi and anti joins hash their
    left rows and stream the right side (stopping early once all matched); the rows are
    PostgreSQL's, NULL keys and duplicates included."""
    pg, cu = dsns
    setup = [
        "CREATE TABLE sm (id int PRIMARY KEY, k int, k2 int, v int)",
        "CREATE TABLE bg (id int PRIMARY KEY, k int, k2 int, w int)",
        "INSERT INTO sm SELECT i, CASE WHEN i % 6 = 0 THEN NULL ELSE i % 9 END, i % 2, i * 3"
        " FROM generate_series(1, 20) i",
        "INSERT INTO bg SELECT i, CASE WHEN i % 13 = 0 THEN NULL ELSE i % 7 END, i % 2, i"
        " FROM generate_series(1, 400) i",
        "ANALYZE sm",
        "ANALYZE bg",
    ]
    _same_rows_and_plan(pg, cu, setup, RIGHT_CASES)
    assert _rows(pg, RIGHT_CASES[0][0]) and _rows(pg, RIGHT_CASES[1][0])  # both non-empty


RANGE_CASES = [
    # the outer rows fix (w, d, o) of ol's primary key (w, d, o, n): one range scan each
    ("SELECT od.id, ol.n, ol.amt FROM od JOIN ol ON ol.w = od.w AND ol.d = od.d AND ol.o = od.o",
     "Join Strategy: Range Bind"),
    ("SELECT od.id, ol.n FROM od JOIN ol ON ol.w = od.w AND ol.d = od.d AND ol.o = od.o "
     "AND ol.amt > od.id", "Join Strategy: Range Bind"),
    # a prefix of two columns, the third key checked after the range scan
    ("SELECT od.id, ol.n FROM od JOIN ol ON ol.w = od.w AND ol.d = od.d AND ol.amt = od.id",
     "Join Strategy: Range Bind"),
    ("SELECT od.id, ol.n FROM od LEFT JOIN ol ON ol.w = od.w AND ol.d = od.d AND ol.o = od.o",
     "Join Strategy: Range Bind"),
    ("SELECT od.id, count(ol.n) FROM od LEFT JOIN ol ON ol.w = od.w AND ol.d = od.d "
     "AND ol.o = od.o AND ol.amt > 50 GROUP BY od.id", "Join Strategy: Range Bind"),
    ("SELECT id FROM od WHERE EXISTS (SELECT 1 FROM ol WHERE ol.w = od.w AND ol.d = od.d "
     "AND ol.o = od.o AND ol.amt > od.id)", "Join Strategy: Range Bind"),
    ("SELECT id FROM od WHERE NOT EXISTS (SELECT 1 FROM ol WHERE ol.w = od.w AND ol.d = od.d "
     "AND ol.o = od.o AND ol.amt > 90)", "Anti Join"),  # the sub-plan's Project: a hash
]


def test_range_bind_join_over_a_primary_key_prefix(dsns):
    """A few outer rows fixing a prefix of a large table's primary key read it by key-range
    scans (an index nested loop, as PostgreSQL's order_line_pkey scans in CH-benCHmark Q7),
    NULL prefixes and unmatched rows included; the rows are PostgreSQL's."""
    pg, cu = dsns
    setup = [
        "CREATE TABLE ol (w int, d int, o int, n int, amt int, PRIMARY KEY (w, d, o, n))",
        "CREATE TABLE od (id int PRIMARY KEY, w int, d int, o int)",
        "INSERT INTO ol SELECT 1, i % 10, i / 10 % 100, i / 1000, (i * 7) % 101"
        " FROM generate_series(0, 9999) i",
        "INSERT INTO od VALUES (1, 1, 1, 1), (2, 1, 2, 5), (3, 1, NULL, 3), (4, 2, 1, 1),"
        " (5, 1, 9, 99), (6, 1, 1, 1), (7, 1, 3, 150)",
        "ANALYZE ol",
        "ANALYZE od",
    ]
    _same_rows_and_plan(pg, cu, setup, RANGE_CASES)
    assert len(_rows(pg, RANGE_CASES[0][0])) >= 30  # 4 matching orders x 10 lines


# the inner table's primary key (w, i): w fixed by the query, i by the outer rows (TPC-C
# Stock-Level's `s_w_id = $5 AND s_i_id = ol_i_id`)
PREFIX_CASES = [
    ("SELECT count(DISTINCT st.i) FROM sl, st WHERE sl.o >= 2 AND st.w = 1 AND st.i = sl.i"
     " AND st.q < 50", "Join Strategy: Bind"),
    ("SELECT sl.id, st.q FROM sl JOIN st ON st.i = sl.i WHERE st.w = 2", "Join Strategy: Bind"),
    ("SELECT sl.id, st.q FROM sl LEFT JOIN st ON st.w = 1 AND st.i = sl.i AND st.q < 50",
     "Join Strategy: Bind"),
    ("SELECT id FROM sl WHERE EXISTS (SELECT 1 FROM st WHERE st.w = 2 AND st.i = sl.i"
     " AND st.q > 20)", "Semi Join"),  # (the semi join rule's plan: a hash, for now)
    ("SELECT id FROM sl WHERE NOT EXISTS (SELECT 1 FROM st WHERE st.w = 1 AND st.i = sl.i"
     " AND st.q < 50)", "Anti Join"),
    # the key's leading column from the outer row, the rest from the inner filter's
    # constants (TPC-C New-Order's customer, warehouse join): one get, not a scan
    ("SELECT st.q, wh.tax FROM st, wh WHERE wh.id = 2 AND st.w = wh.id AND st.i = 77",
     "Join Strategy: Bind"),
    ("SELECT st.q, wh.tax FROM wh LEFT JOIN st ON st.w = wh.id AND st.i = 3001 AND st.q > 0",
     "Join Strategy: Bind"),
    # a secondary index holding the key's fixed prefix and one more column beats the key
    # range (TPC-C Payment's customer by name: idx_customer_name, not the whole district)
    ("SELECT id, first FROM cu WHERE w = 1 AND d = 2 AND last = 'L3' ORDER BY first, id",
     "Index Scan using cu_name on cu"),
]


def test_bind_join_with_a_fixed_key_prefix(dsns):
    """An inner primary key whose leading column the query fixes (`st.w = 1`) and whose rest
    the outer rows give is read by primary-key gets of (1, sl.i), the scan's own filter
    applied to the rows got, as PostgreSQL's index scan with `w = 1 AND i = sl.i` (TPC-C
    Stock-Level; it was a hash join over the whole warehouse). NULL and unmatched outer keys
    included; with parameters too; the rows are PostgreSQL's."""
    pg, cu = dsns
    setup = [
        "CREATE TABLE st (w int, i int, q int, PRIMARY KEY (w, i))",
        "CREATE TABLE sl (id int PRIMARY KEY, o int, i int)",
        "CREATE TABLE wh (id int PRIMARY KEY, tax int)",
        "INSERT INTO wh VALUES (1, 10), (2, 20)",
        "CREATE TABLE cu (w int, d int, id int, last text, first text, PRIMARY KEY (w, d, id))",
        "CREATE INDEX cu_name ON cu (w, d, last, first)",
        "INSERT INTO cu SELECT 1 + j % 2, j % 3, j, 'L' || j % 7, 'F' || j % 5"
        " FROM generate_series(1, 300) j",
        "INSERT INTO st SELECT w, i, (i * 13 + w) % 91 + 10 FROM generate_series(1, 2) w,"
        " generate_series(1, 3000) i",
        "INSERT INTO sl SELECT j, j % 5, CASE WHEN j % 9 = 0 THEN NULL ELSE j * 97 % 3100 END"
        " FROM generate_series(1, 40) j",
        "ANALYZE st",
        "ANALYZE sl",
        "ANALYZE wh",
    ]
    _same_rows_and_plan(pg, cu, setup, PREFIX_CASES)
    assert _rows(pg, PREFIX_CASES[0][0])[0][0] > 3  # the filter keeps some, not all
    assert (None,) in [r[1:] for r in _rows(pg, PREFIX_CASES[2][0])]
    sql = ("SELECT count(DISTINCT st.i) FROM sl, st WHERE sl.o >= %s AND st.w = %s"
           " AND st.i = sl.i AND st.q < %s")
    for w in (1, 2, 3):
        got = []
        for dsn in (cu, pg):
            with psycopg.connect(dsn, autocommit=True) as conn:
                got.append([conn.execute(sql, (2, w, 40), prepare=True).fetchone()
                            for _ in range(2)])
        assert got[0] == got[1], w
