"""Which results read a table by columns (`CompiledPlan.execute_columns`), on a real engine.

Why: a bare scan of a table (or of a key range of it) whose rows went cold hands its segments' columns to the
encoders (`Result.column_batches`), a pushed filter as a mask per batch; everything else
must keep reading rows: a FOR UPDATE, a transaction with its own writes in the table (merged by rows), SERIALIZABLE
(its reads are recorded). Whichever way, `fetch` gives the same rows.
"""

from __future__ import annotations

import pytest

from cumulo.server.kivi import mvcc


@pytest.fixture(autouse=True)
def _cold_rows_on(monkeypatch):
    monkeypatch.setattr(mvcc, "FREEZE_ROWS", True)  # as `cumulo serve` runs


def _run(session, sql: str) -> tuple[bool, list | None, str]:
    """(read by columns, the rows, the tag) of one statement's result."""
    for res in session.simple_query(sql):
        by_columns = res.column_batches is not None
        rows = res.fetch() if res.columns is not None else None
    return by_columns, rows, res.tag


def test_bare_scans_of_cold_rows_read_by_columns(session):
    _run(session, "CREATE TABLE t (id int PRIMARY KEY, n numeric(10,2), ts timestamp, s text)")
    _run(session, "INSERT INTO t SELECT i, i / 4.0, timestamp '2024-01-01' + i * interval '1 s',"
                  " 'x' || i FROM generate_series(1, 5000) i")
    _run(session, "VACUUM")
    _, rows, _ = _run(session, "SELECT * FROM t ORDER BY id")
    assert _run(session, "SELECT * FROM t") == (True, rows, "SELECT 5000")
    assert _run(session, "SELECT s, id FROM t")[0]
    assert _run(session, "SELECT * FROM t WHERE id > 3") == (True, rows[3:], "SELECT 4997")
    want = [r for r in rows if r[3] > "x3"]
    assert _run(session, "SELECT * FROM t WHERE s > 'x3'") == (True, want, "SELECT 2777")
    want = [r for r in rows if r[1] > 1000 and r[3].startswith("x4")]
    assert _run(session, "SELECT * FROM t WHERE n > 1000 AND s LIKE 'x4%'") == (
        False, want, f"SELECT {len(want)}")
    for sql in ("SELECT * FROM t FOR UPDATE",
                "SELECT id + 1 FROM t", "SELECT * FROM t LIMIT 5"):
        assert not _run(session, sql)[0], sql
    _run(session, "BEGIN")
    _run(session, "UPDATE t SET s = 'own' WHERE id = 7")
    by_columns, own, _ = _run(session, "SELECT * FROM t")
    assert not by_columns and own[6] == (7, rows[6][1], rows[6][2], "own")
    _run(session, "ROLLBACK")
    _run(session, "BEGIN ISOLATION LEVEL SERIALIZABLE")
    assert not _run(session, "SELECT * FROM t")[0]
    _run(session, "COMMIT")
