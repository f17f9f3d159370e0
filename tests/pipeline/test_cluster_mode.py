"""The direct API and the `cumulo` Spark source/sink against a real cluster (`cumulo cluster up`).

Two query engines over two KiVi nodes, started the way a user starts them.
The direct API writes through one engine and SQL on the other sees the rows
once they commit (and not before); Spark then reads the table in key-range
partitions at one snapshot and writes part of it back through the source,
which psycopg checks on the other engine.
"""

from __future__ import annotations

import psycopg
import pyarrow as pa
import pytest

import cumulo.driver as cd
from tests.integration.test_cluster_launcher import cluster_dir, cumulo  # noqa: F401
from tests.server_process import engine_port


@pytest.fixture
def engines(cluster_dir):  # noqa: F811
    port = engine_port(2)  # NB: the second engine listens on port + 1
    r = cumulo("cluster", "up", "--nodes", "2", "--engines", "2", "--data-dir", cluster_dir,
               "--port", str(port), timeout=180)
    assert r.returncode == 0, r.stderr + r.stdout
    return [f"postgresql://cumulo@127.0.0.1:{p}/cumulo" for p in (port, port + 1)]


def _sql(dsn, query, params=None):
    with psycopg.connect(dsn, autocommit=True) as c:
        cur = c.execute(query, params)
        return cur.fetchall() if cur.description else None


def test_direct_api_and_spark_source_in_cluster_mode(engines, spark):
    e1, e2 = engines
    _sql(e1, "CREATE TABLE cl_ticks (sym text, n bigint, px double precision, "
             "note text DEFAULT 'd', PRIMARY KEY (sym, n))")
    conn = cd.connect(e1)
    t = conn.table("cl_ticks")
    n = 3000
    data = pa.table({"sym": [f"S{i % 3}" for i in range(n)], "n": list(range(n)),
                     "px": [i * 0.25 for i in range(n)]})
    assert t.upsert(data) == n
    assert _sql(e2, "SELECT count(*) FROM cl_ticks") == [(0,)]  # not committed yet
    conn.commit()
    assert _sql(e2, "SELECT count(*), sum(px), min(note), max(note) FROM cl_ticks") == [
        (n, sum(i * 0.25 for i in range(n)), "d", "d")]
    assert t.upsert(pa.table({"sym": ["S0"], "n": [0], "px": [-1.0], "note": ["x"]})) == 1
    assert t.delete([("S1", 1), ("S2", 2)]) == 2
    conn.commit()
    assert t.get(("S0", 0)) == {"sym": "S0", "n": 0, "px": -1.0, "note": "x"}
    scanned = t.read(where=[("sym", "=", "S1")], columns=["n"]).column("n").to_pylist()
    conn.commit()
    assert scanned == [m for (m,) in _sql(e2, "SELECT n FROM cl_ticks WHERE sym = 'S1' ORDER BY n")]
    conn.close()

    df = (spark.read.format("cumulo").option("url", e1).option("table", "cl_ticks")
          .option("numPartitions", "3").load())
    assert df.rdd.getNumPartitions() == 3
    got = sorted(tuple(r) for r in df.collect())  # one job: three key ranges, one snapshot
    assert got == sorted(_sql(e2, "SELECT sym, n, px, note FROM cl_ticks"))
    (df.where("sym = 'S1'").write.format("cumulo").option("url", e1).option("table", "cl_copy")
     .option("createTable", "true").option("primaryKey", "sym,n").option("upsert", "true")
     .mode("append").save())
    assert _sql(e2, "SELECT * FROM cl_copy ORDER BY n") == [r for r in got if r[0] == "S1"] \
        and len(got) == n - 2
