"""Which UPDATE/DELETE statements take the by-primary-key path (sql/dml/keyed.py).

The answers themselves are compared with PostgreSQL 15 in
tests/integration/test_point_reads_pg15.py (test_keyed_update_delete_match_pg15);
here: the path is taken where it should be (so that test exercises it) and not
where the plan is another shape.
"""

from __future__ import annotations

from cumulo.server.sql.dml.keyed import KeyedRows

from .helpers import run


def _keyed(session, sql: str, oids: list[int]) -> bool:
    stmt = session.prepare(sql, oids).handle
    return KeyedRows.of(stmt.plan.root) is not None


def test_keyed_path_taken_only_for_full_primary_keys(session):
    run(session, "CREATE TABLE kt (a int, b text, v int, PRIMARY KEY (a, b))")
    run(session, "CREATE TABLE ks (id int PRIMARY KEY, v int)")
    run(session, "INSERT INTO kt VALUES (1, 'x', 1), (1, 'y', 2)")
    assert _keyed(session, "UPDATE ks SET v = v + $1 WHERE id = $2", [23, 23])
    assert _keyed(session, "DELETE FROM ks WHERE id = $1 RETURNING *", [23])
    assert _keyed(session, "UPDATE kt SET v = $1 WHERE a = $2 AND b = $3", [23, 23, 25])
    assert _keyed(session, "UPDATE ks SET v = 0 WHERE id = 7", [])
    assert not _keyed(session, "UPDATE kt SET v = $1 WHERE a = $2", [23, 23])  # part of the key
    assert not _keyed(session, "UPDATE ks SET v = 1 WHERE id > $1", [23])
    assert not _keyed(session, "UPDATE ks SET v = 1 WHERE id = $1 AND v = 3", [23])
    assert not _keyed(session, "UPDATE ks SET v = 1 WHERE id = abs($1)", [23])
    # the path's rows: the transaction's own writes, a NULL key, a missing key
    ins = session.prepare("INSERT INTO ks VALUES ($1, $2)", [23, 23])
    upd = session.prepare("UPDATE ks SET v = v + $1 WHERE id = $2 RETURNING v", [23, 23])
    run(session, "BEGIN")
    session.execute(ins, [5, 50])
    assert list(session.execute(upd, [1, 5]).rows) == [(51,)]
    assert list(session.execute(upd, [1, None]).rows) == []
    assert session.execute(upd, [1, 6]).tag == "UPDATE 0"
    run(session, "COMMIT")
    assert list(session.execute(upd, [1, 5]).rows) == [(52,)]
