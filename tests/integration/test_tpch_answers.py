"""TPC-H at scale 0.01 on a real server: the 22 queries give TPC-H's reference answers.

DuckDB's tpch extension (the `duckdb-extension-tpch` wheel, loaded from its
file, so offline) generates the data and ships the queries and the official
answers; the data goes in by COPY as in `python -m bench tpch`. Q2, Q17 and
Q20 are the correlated subqueries that `scalar_subquery` decorrelates; Q17's
answer at this scale is a single NULL (no part qualifies), an empty aggregate.
Skipped, with the reason, where DuckDB or the extension is not installed.
"""

from __future__ import annotations

import psycopg
import pytest

from bench.tpch import answers as A
from bench.tpch import data

SF = 0.01


def _prepare():
    try:
        return data.queries(), data.answers(SF)
    except data.Unavailable as exc:
        pytest.skip(f"cannot generate TPC-H data offline: {exc}")


QUERIES = [f"Q{i}" for i in range(1, 23)]


@pytest.fixture(scope="module")
def tpch(cumulo_server, tmp_path_factory):
    queries, reference = _prepare()
    directory = data.generate(str(tmp_path_factory.mktemp("tpch")), SF)
    with psycopg.connect(cumulo_server.dsn(), autocommit=True) as c:
        c.execute("DROP DATABASE IF EXISTS tpch")
        c.execute("CREATE DATABASE tpch")
    dsn = cumulo_server.dsn(dbname="tpch")
    with psycopg.connect(dsn, autocommit=True) as conn:
        counts = data.load(conn, directory)
    assert counts["lineitem"] > 50_000 and counts["region"] == 5
    return dsn, dict(queries), reference


@pytest.mark.parametrize("q", QUERIES)
def test_reference_answer(tpch, q):
    dsn, queries, reference = tpch
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(queries[q]).fetchall()
    assert A.mismatch(rows, reference[q]) is None, (A.mismatch(rows, reference[q]), rows[:5])


def test_correlated_queries_are_joins(tpch):
    """Q2, Q17 and Q20 run their correlated aggregates as left joins, not per-row SubPlans."""
    dsn, queries, _ = tpch
    with psycopg.connect(dsn, autocommit=True) as conn:
        for q in ("Q2", "Q17", "Q20"):
            text = "\n".join(r[0] for r in conn.execute("EXPLAIN " + queries[q]).fetchall())
            assert "SubPlan" not in text and "Left Join" in text, (q, text)


def test_mismatch_catches_wrong_answers():
    """The checker is no rubber stamp: a changed value, a missing row, reordered rows."""
    want = [("A", "1.50", "1995-01-02"), ("B", "2", "1996-01-01")]
    import datetime
    from decimal import Decimal

    good = [("A", Decimal("1.5"), datetime.date(1995, 1, 2)), ("B", 2, datetime.date(1996, 1, 1))]
    assert A.mismatch(good, want) is None
    assert A.mismatch(list(reversed(good)), want) is None  # ties may come in another order
    assert A.mismatch(good[:1], want) == "1 rows, want 2"
    bad = [("A", Decimal("1.6"), datetime.date(1995, 1, 2)), good[1]]
    assert A.mismatch(bad, want) is not None
    assert A.mismatch([("A", None, None)], [("A", "", "")]) is None  # NULLs print as empty
