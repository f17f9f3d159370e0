"""pg_export_snapshot() and SET TRANSACTION SNAPSHOT, differential against PostgreSQL 15.

The same script runs on both servers: the outcomes (rows, or the SQLSTATE of
each failure) must match, with snapshot identifiers compared by validity
only, since their text differs by design.
"""

from __future__ import annotations

import psycopg
import pytest


def _outcome(conn, sql):
    try:
        cur = conn.execute(sql)
        return ("rows", cur.fetchall()) if cur.description else ("ok", cur.statusmessage)
    except psycopg.Error as e:
        return ("error", e.sqlstate)


def _script(dsn):
    """Runs the snapshot script on one server; returns the outcome of every step."""
    out = []
    with psycopg.connect(dsn, autocommit=True) as setup:
        setup.execute("DROP TABLE IF EXISTS snap_t")
        setup.execute("CREATE TABLE snap_t (id int PRIMARY KEY)")
        setup.execute("INSERT INTO snap_t SELECT g FROM generate_series(1, 10) g")
    exporter = psycopg.connect(dsn, autocommit=True)
    exporter.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
    ident = exporter.execute("SELECT pg_export_snapshot()").fetchone()[0]
    writer = psycopg.connect(dsn, autocommit=True)
    writer.execute("INSERT INTO snap_t SELECT g FROM generate_series(11, 15) g")
    c = psycopg.connect(dsn, autocommit=True)
    steps = [
        f"SET TRANSACTION SNAPSHOT '{ident}'",  # outside a block
        "BEGIN", f"SET TRANSACTION SNAPSHOT '{ident}'", "ROLLBACK",  # READ COMMITTED
        "BEGIN ISOLATION LEVEL REPEATABLE READ", "SELECT 1", f"SET TRANSACTION SNAPSHOT '{ident}'",
        "ROLLBACK",
        "BEGIN ISOLATION LEVEL REPEATABLE READ", "SET TRANSACTION SNAPSHOT 'bogus'", "ROLLBACK",
        "BEGIN ISOLATION LEVEL REPEATABLE READ", f"SET TRANSACTION SNAPSHOT '{ident}'",
        "SELECT count(*), max(id) FROM snap_t", "COMMIT",
        "BEGIN", "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE",
        f"SET TRANSACTION SNAPSHOT '{ident}'", "SELECT count(*) FROM snap_t", "COMMIT",
        "SELECT count(*) FROM snap_t",
    ]
    out += [(s, _outcome(c, s)) for s in steps]
    exporter.execute("COMMIT")
    for s in ["BEGIN ISOLATION LEVEL REPEATABLE READ", f"SET TRANSACTION SNAPSHOT '{ident}'",
              "ROLLBACK"]:
        out.append((s, _outcome(c, s)))
    for conn in (exporter, writer, c):
        conn.close()
    return [(s.replace(ident, "<id>"), o) for s, o in out]


def test_snapshot_export_and_import_match_postgres(cumulo_server, pg15):
    ours, theirs = _script(cumulo_server.dsn()), _script(pg15.dsn())
    assert ours == theirs
    assert ("SELECT count(*), max(id) FROM snap_t", ("rows", [(10, 10)])) in ours
    assert ours[-2][1] == ("error", "22023")  # the exporter has ended


@pytest.mark.parametrize("isolation", ["REPEATABLE READ", "SERIALIZABLE"])
def test_imported_snapshot_survives_gc_and_stays_put(cumulo_server, isolation):
    with psycopg.connect(cumulo_server.dsn(), autocommit=True) as setup:
        setup.execute("DROP TABLE IF EXISTS snap_gc")
        setup.execute("CREATE TABLE snap_gc (id int PRIMARY KEY, v int)")
        setup.execute("INSERT INTO snap_gc SELECT g, 0 FROM generate_series(1, 100) g")
    exporter = psycopg.connect(cumulo_server.dsn(), autocommit=True)
    exporter.execute(f"BEGIN ISOLATION LEVEL {isolation}")
    ident = exporter.execute("SELECT pg_export_snapshot()").fetchone()[0]
    reader = psycopg.connect(cumulo_server.dsn(), autocommit=True)
    reader.execute(f"BEGIN ISOLATION LEVEL {isolation}")
    reader.execute(f"SET TRANSACTION SNAPSHOT '{ident}'")
    exporter.execute("COMMIT")  # the importer keeps the snapshot registered by itself
    with psycopg.connect(cumulo_server.dsn(), autocommit=True) as w:
        for _ in range(5):
            w.execute("UPDATE snap_gc SET v = v + 1")
    assert reader.execute("SELECT sum(v), count(*) FROM snap_gc").fetchone() == (0, 100)
    reader.execute("COMMIT")
    assert reader.execute("SELECT sum(v) FROM snap_gc").fetchone() == (500,)
    reader.close()
    exporter.close()
