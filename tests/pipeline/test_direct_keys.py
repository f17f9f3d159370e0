"""Keys the direct API builds from Arrow columns are the keys SQL builds, and repeats resolve as before.

`colkeys` encodes a one-integer primary key a column at a time with numpy;
a key that differed by one byte from `encode_key`'s would make the row
invisible to `WHERE id = ...` and let a later INSERT duplicate it, so the
bytes are compared with the codec's, and the rows written through the
short upsert path are found through SQL by key, in order, once each.
"""

from __future__ import annotations

import random

import psycopg
import pyarrow as pa
import pytest

import cumulo.driver as cd
from cumulo.server.kivi.keycodec import encode_key
from cumulo.server.sql.direct.colkeys import has_duplicates, int_column_keys

EDGES = [-(1 << 63), -(1 << 31), -256, -1, 0, 1, 255, 256, (1 << 31) - 1, (1 << 63) - 1]


def test_column_keys_equal_the_codec_for_every_integer_width():
    rnd = random.Random(7)
    values = EDGES + [rnd.randrange(-(1 << 63), 1 << 63) for _ in range(2000)]
    assert int_column_keys(pa.chunked_array([values], pa.int64())) == [
        encode_key((v,)) for v in values]
    for typ, bits in ((pa.int8(), 8), (pa.int16(), 16), (pa.int32(), 32)):
        vals = [v for v in values if -(1 << (bits - 1)) <= v < 1 << (bits - 1)]
        assert int_column_keys(pa.chunked_array([vals], typ)) == [encode_key((v,)) for v in vals]
    assert int_column_keys(pa.chunked_array([[1, None]])) is None
    assert int_column_keys(pa.chunked_array([[1.0]])) is None


def test_duplicates_are_found_in_any_order():
    assert not has_duplicates(pa.chunked_array([[1, 2, 3]]))
    assert not has_duplicates(pa.chunked_array([[3, -1, 2]]))
    assert has_duplicates(pa.chunked_array([[3, -1, 3]]))
    assert has_duplicates(pa.chunked_array([[1], [2, 1]]))  # across chunks
    assert has_duplicates(pa.chunked_array([[1, None]]))  # cannot tell: the general path


def test_upsert_short_path_rows_are_found_by_sql(cumulo_server):
    dsn = cumulo_server.dsn()
    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute("DROP TABLE IF EXISTS d_keys")
        c.execute("CREATE TABLE d_keys (id bigint PRIMARY KEY, v integer)")
    conn = cd.connect(dsn)
    t = conn.table("d_keys")
    ids = [5, -7, 3, 5, 1 << 40, -7, 0]
    assert t.upsert(pa.table({"id": ids, "v": list(range(len(ids)))})) == 5  # last row wins
    assert t.upsert(pa.table({"id": list(range(100, 200)), "v": [1] * 100})) == 100  # ascending
    conn.commit()
    for dup in ([300, 301, 300], [150], list(range(400, 500)) + [199]):  # in batch, stored, range
        with pytest.raises(cd.IntegrityError) as e:
            t.insert(pa.table({"id": dup, "v": [0] * len(dup)}))
        assert e.value.sqlstate == "23505"
        conn.rollback()
    assert t.insert(pa.table({"id": [-(1 << 62)] + list(range(1000, 1100))})) == 101
    conn.commit()
    conn.close()
    with psycopg.connect(dsn, autocommit=True) as c:
        assert c.execute("SELECT id, v FROM d_keys WHERE id < 100 ORDER BY id").fetchall() == [
            (-(1 << 62), None), (-7, 5), (0, 6), (3, 2), (5, 3)]
        assert c.execute("SELECT v FROM d_keys WHERE id = %s", (1 << 40,)).fetchall() == [(4,)]
        assert c.execute("SELECT id, v FROM d_keys WHERE id < -7").fetchall() == [(-(1 << 62), None)]
        assert c.execute("SELECT count(*), count(DISTINCT id) FROM d_keys").fetchone() == (206, 206)
        try:
            c.execute("INSERT INTO d_keys VALUES (-7, 0)")
            raise AssertionError("a duplicate key was accepted")
        except psycopg.errors.UniqueViolation:
            pass
