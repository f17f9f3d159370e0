"""Unordered direct scans read the columnar copy: the same rows as the ordered row scan.

`cumulo_scan` with `"ordered": false` (what the Spark source asks) may answer
from the table's columnar copy (`server/sql/direct/colscan.py`). Whatever
path answers, the rows must be the row scan's: every type (NULLs, infinite
timestamps, numerics, text-carried types), at the reader's snapshot while
others commit, with the reader's own writes, after ADD/DROP COLUMN, for key
ranges and pushed filters. In process (an embedded engine), so the test can
also see which path answered.
"""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from cumulo.server.kivi.keycodec import encode_key
from cumulo.server.sql.ddl.names import get_relation
from cumulo.server.sql.direct.arrowcols import table_schema
from cumulo.server.sql.direct.colscan import column_batches
from cumulo.server.sql.engine import SQLEngine
from cumulo.server.txn.embedded import open_embedded


@pytest.fixture
def engine():  # type: ignore[no-untyped-def]
    eng = SQLEngine(open_embedded(None, gc_interval=None))
    yield eng
    eng.close()


def run(s, sql):  # type: ignore[no-untyped-def]
    out = []
    for res in s.simple_query(sql):
        out.append(res.fetch() if res.columns is not None else res.tag)
    return out


def scan(s, table: str, **req) -> pa.Table:  # type: ignore[no-untyped-def]
    text = json.dumps(req).replace("'", "''")
    rows = run(s, f"SELECT cumulo_scan('{table}', '{text}')")[0]
    return pa.concat_tables(pa.ipc.open_stream(pa.py_buffer(bytes(r[0]))).read_all()
                            for r in rows)


def same(s, table: str, key: str = "k", **req) -> int:  # type: ignore[no-untyped-def]
    """Asserts the unordered scan gives the ordered one's rows; returns how many."""
    want = scan(s, table, **req)
    got = scan(s, table, ordered=False, **req)
    assert got.schema == want.schema
    assert got.sort_by(key).to_pylist() == want.to_pylist(), (table, req)
    return want.num_rows


def columnar_answers(s, table: str, lo=None, hi=None) -> bool:  # type: ignore[no-untyped-def]
    t = get_relation(s.catalog(), None, table, s.search_path())
    positions = [c.attnum - 1 for c in t.live_columns]
    got = column_batches(s, t, positions, [], lo, hi, table_schema(t))
    run(s, "COMMIT")
    return got is not None


TYPES = ("k bigint PRIMARY KEY, i2 smallint, i4 integer, f4 real, f8 double precision, "
         "b boolean, t text, vc varchar(10), by bytea, d date, ts timestamp, tz timestamptz, "
         "n numeric(12,3), nu numeric, u uuid, j jsonb, iv interval")
ROWS = """INSERT INTO ct SELECT i, (i % 300)::smallint, i * 7, i / 4.0, i * 1.5, i % 2 = 0,
  'txt' || i, 'v' || (i % 50), ('b' || i)::bytea,
  DATE '2024-01-01' + i, TIMESTAMP '2024-01-01' + i * INTERVAL '1 minute',
  TIMESTAMPTZ '2024-01-01 00:00:00+00' + i * INTERVAL '1 second', i / 8.0, i / 3.0,
  md5(i::text)::uuid, jsonb_build_object('i', i), i * INTERVAL '1 hour'
  FROM generate_series(1, 1000) i"""


def test_unordered_scans_match_the_row_scan(engine):  # type: ignore[no-untyped-def]
    s = engine.open_session("cumulo", "cumulo", {})
    other = engine.open_session("cumulo", "cumulo", {})
    run(s, f"CREATE TABLE ct ({TYPES})")
    run(s, ROWS)
    run(s, "UPDATE ct SET i2 = NULL, i4 = NULL, f4 = NULL, f8 = NULL, b = NULL, t = NULL, "
           "vc = NULL, by = NULL, d = NULL, ts = NULL, tz = NULL, n = NULL, nu = NULL, u = NULL, "
           "j = NULL, iv = NULL WHERE k % 7 = 0")
    run(s, "UPDATE ct SET ts = 'infinity', tz = '-infinity', d = 'infinity' WHERE k % 11 = 0")
    run(s, "DELETE FROM ct WHERE k % 13 = 0")
    assert columnar_answers(s, "ct")
    assert same(s, "ct") == 1000 - 1000 // 13
    cuts = [bytes(r[0]).hex() for r in run(s, "SELECT cumulo_splits('ct', 4)")[0]]
    assert len(cuts) == 3 and columnar_answers(s, "ct", bytes.fromhex(cuts[0]),
                                               bytes.fromhex(cuts[1]))
    bounds = [None, *cuts, None]
    parts = [same(s, "ct", lo=lo, hi=hi) for lo, hi in zip(bounds, bounds[1:], strict=False)]
    assert sum(parts) == 1000 - 1000 // 13 and all(parts)
    same(s, "ct", columns=["tz", "k", "t"], filters=[["cmp", ">", "i4", 700],
                                                     ["notnull", "t"]])
    same(s, "ct", filters=[["prefix", "t", "txt1"]])  # LIKE: the packs cannot; the rows do
    same(s, "ct", start=[100], end=[2500], filters=[["in", "vc", ["v3", "v4"]]])

    # the reader's snapshot holds while another session commits; its own writes show
    run(s, "BEGIN ISOLATION LEVEL REPEATABLE READ")
    before = scan(s, "ct", ordered=False).sort_by("k")
    run(other, "UPDATE ct SET t = 'changed' WHERE k < 500")
    run(other, "DELETE FROM ct WHERE k > 900")
    run(other, "INSERT INTO ct (k, t) VALUES (5000, 'new')")
    assert scan(s, "ct", ordered=False).sort_by("k").to_pylist() == before.to_pylist()
    run(s, "INSERT INTO ct (k, t) VALUES (6000, 'mine')")
    assert same(s, "ct") == before.num_rows + 1
    run(s, "COMMIT")
    assert same(s, "ct") == run(s, "SELECT count(*) FROM ct")[0][0][0] == before.num_rows + 2 - 93
    assert scan(s, "ct", ordered=False, filters=[["cmp", "=", "t", "changed"]]).num_rows > 400

    run(s, "ALTER TABLE ct DROP COLUMN i2")
    run(s, "ALTER TABLE ct ADD COLUMN extra text")
    run(s, "UPDATE ct SET extra = 'x' WHERE k % 5 = 0")
    same(s, "ct")

    # a text key's ranges and the session's switch take the row path
    run(s, "CREATE TABLE cs (name text PRIMARY KEY, v int)")
    run(s, "INSERT INTO cs SELECT 'n' || i, i FROM generate_series(1, 100) i")
    assert not columnar_answers(s, "cs", encode_key(("n5",)), None)
    same(s, "cs", key="name", lo=encode_key(("n5",)).hex())
    run(s, "SET cumulo.columnar = off")
    assert not columnar_answers(s, "ct")
    same(s, "ct")
