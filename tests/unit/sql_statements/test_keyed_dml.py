"""Which UPDATE/DELETE statements take the by-primary-key path (sql/dml/keyed.py).

The answers themselves are compared with PostgreSQL 15 in
tests/integration/test_point_reads_pg15.py (test_keyed_update_delete_match_pg15);
here: the path is taken where it should be (so that test exercises it) and not
where the plan is another shape.
"""

from __future__ import annotations

from cumulo.server.kivi.keycodec import encode_key
from cumulo.server.sql.ddl.names import get_relation
from cumulo.server.sql.dml.keyed import KeyedRows
from cumulo.server.sql.dml.writer import TableWriter

from .helpers import rows, run


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


def test_one_row_inserts_key_their_row_ids_as_batches_do(session):
    # a one-row INSERT encodes its row id in `TableWriter.new_keys` without the codec's
    # call; its keys must sort with a batch's (`int_keys`) and be the codec's own
    run(session, "CREATE TABLE h (tid int, delta int, filler char(3))")
    one = session.prepare("INSERT INTO h (tid, delta) VALUES ($1, $2)", [23, 23])
    session.execute(one, [1, 10])
    run(session, "INSERT INTO h VALUES (2, 20, 'a'), (3, 30, 'b')")
    session.execute(one, [4, 40])
    run(session, "BEGIN")
    session.execute(one, [5, 50])
    run(session, "INSERT INTO h SELECT g, g * 10 FROM generate_series(6, 7) g")
    session.execute(one, [8, 80])
    assert [r[0] for r in rows(session, "SELECT tid FROM h")] == list(range(1, 9))
    run(session, "COMMIT")
    assert rows(session, "SELECT tid, delta, filler FROM h") == [
        (1, 10, None), (2, 20, "a  "), (3, 30, "b  "), (4, 40, None), (5, 50, None),
        (6, 60, None), (7, 70, None), (8, 80, None)]
    table = get_relation(session.catalog(), None, "h", session.search_path())
    writer = TableWriter(session, table)
    start = session.store.allocate_rowids(table.oid, 0)
    assert writer.new_keys(session, [(9, 90, None)]) == [encode_key((start,))]
    assert writer.new_keys(session, [(9, 90, None)] * 2) == [encode_key((start + 1,)),
                                                            encode_key((start + 2,))]
