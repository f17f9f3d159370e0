"""A protocol Close of a statement name SQL PREPARE made drops it, as DEALLOCATE does:
PostgreSQL 15 keeps one namespace for both (Cumulo's Close dropped only Parse's). Through
libpq's PQclosePrepared (psycopg's pgconn), against PostgreSQL 15.
"""

from __future__ import annotations

import psycopg

from tests.integration.stmtdiff import fresh_databases


def _close(dsn: str) -> list:
    """PREPARE, then libpq's Close of that name (PQclosePrepared), through psycopg."""
    out: list = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("prepare p as select 1")
        conn.execute("prepare q as select 2")
        res = conn.pgconn.close_prepared(b"p")
        out.append((res.status, res.error_message))
        try:
            out.append(conn.execute("execute p").fetchall())
        except psycopg.Error as e:
            out.append((e.sqlstate, e.diag.message_primary))
        out.append(conn.execute("select name from pg_prepared_statements").fetchall())
        out.append(conn.execute("execute q").fetchall())
        res = conn.pgconn.close_prepared(b"nosuch")  # NB: no error, as for a Parse name
        out.append((res.status, res.error_message))
        conn.execute("prepare p as select 3")
        out.append(conn.execute("execute p").fetchall())
        res = conn.pgconn.prepare(b"q2", b"select 4")
        out.append(conn.pgconn.close_prepared(b"q2").status)
        try:
            conn.execute("deallocate q2")
            out.append("deallocated")
        except psycopg.Error as e:
            out.append((e.sqlstate, e.diag.message_primary))
    return out


def test_close_drops_sql_prepared_statement_as_pg15(pg15, cumulo_server):
    pg, cu = fresh_databases(pg15, cumulo_server, "close_prepared")
    expected = _close(pg)
    assert expected[1] == ("26000", 'prepared statement "p" does not exist')
    assert _close(cu) == expected
