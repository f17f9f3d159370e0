"""The `cumulo` Spark data source against a real server: types, writes, pushdown, consistency.

Every check reads back through an independent client (psycopg) or compares with
the DataFrame that was written; the consistency tests commit from another
connection while Spark reads, and count those commits so that a read that
happened to see no concurrent commit cannot pass for a consistent one.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from decimal import Decimal

import psycopg
import pytest
from pyspark.sql import Row
from pyspark.sql import types as st

UTC = dt.UTC


def _sql(server, query, params=None):
    with psycopg.connect(server.dsn(), autocommit=True) as c:
        cur = c.execute(query, params)
        return cur.fetchall() if cur.description else None


def _reader(spark, server, table, **opts):
    r = spark.read.format("cumulo").option("url", server.dsn()).option("table", table)
    for k, v in opts.items():
        r = r.option(k, str(v))
    return r


def _writer(df, server, table, mode="append", **opts):
    w = df.write.format("cumulo").option("url", server.dsn()).option("table", table).mode(mode)
    for k, v in opts.items():
        w = w.option(k, str(v))
    return w


TYPE_MAP = st.StructType([
    st.StructField("k", st.LongType(), False), st.StructField("s", st.StringType()),
    st.StructField("ts", st.TimestampType()), st.StructField("ntz", st.TimestampNTZType()),
    st.StructField("d8", st.DoubleType()), st.StructField("f4", st.FloatType()),
    st.StructField("i4", st.IntegerType()), st.StructField("b", st.BooleanType()),
    st.StructField("dt", st.DateType()), st.StructField("bin", st.BinaryType()),
    st.StructField("dec", st.DecimalType(10, 2)),
])
PG_TYPES = ["bigint", "text", "timestamp with time zone", "timestamp without time zone",
            "double precision", "real", "integer", "boolean", "date", "bytea", "numeric"]


def test_every_type_of_the_map_round_trips_with_nulls(spark, cumulo_server):
    _sql(cumulo_server, "DROP TABLE IF EXISTS sp_types")
    rows = [
        Row(1, "héllo", dt.datetime(2024, 3, 1, 12, 30, 15, 123456, tzinfo=UTC),
            dt.datetime(2024, 3, 1, 1, 2, 3), 2.5, 1.25, -7, True, dt.date(2024, 2, 29),
            bytearray(b"\x00\x01\xff"), Decimal("12345678.91")),
        Row(2, *([None] * 10)),
    ]
    df = spark.createDataFrame(rows, TYPE_MAP)
    _writer(df, cumulo_server, "sp_types", createTable="true", primaryKey="k").save()
    types = _sql(cumulo_server, "SELECT data_type FROM information_schema.columns "
                                "WHERE table_name = 'sp_types' ORDER BY ordinal_position")
    assert [t for (t,) in types] == PG_TYPES
    got = _sql(cumulo_server, "SELECT * FROM sp_types ORDER BY k")
    assert got[0] == (1, "héllo", dt.datetime(2024, 3, 1, 12, 30, 15, 123456, tzinfo=UTC),
                      dt.datetime(2024, 3, 1, 1, 2, 3), 2.5, 1.25, -7, True,
                      dt.date(2024, 2, 29), b"\x00\x01\xff", Decimal("12345678.91"))
    assert got[1] == (2,) + (None,) * 10
    back = _reader(spark, cumulo_server, "sp_types").load()
    assert back.schema == TYPE_MAP or [f.dataType for f in back.schema] == [
        f.dataType for f in TYPE_MAP]
    assert sorted(back.collect()) == sorted(df.collect())


def test_upsert_overwrite_and_create_table(spark, cumulo_server):
    _sql(cumulo_server, "DROP TABLE IF EXISTS sp_up")
    df = spark.createDataFrame([(i, f"v{i}") for i in range(100)], "id long, v string")
    _writer(df, cumulo_server, "sp_up", createTable="true", primaryKey="id").save()
    with pytest.raises(Exception, match="23505|duplicate key"):  # append without upsert
        _writer(df.limit(1), cumulo_server, "sp_up").save()
    changed = spark.createDataFrame([(i, f"w{i}") for i in range(50, 150)], "id long, v string")
    _writer(changed, cumulo_server, "sp_up", upsert="true").save()
    assert _sql(cumulo_server, "SELECT count(*), count(*) FILTER (WHERE v LIKE 'w%') "
                               "FROM sp_up") == [(150, 100)]
    _writer(df.limit(3), cumulo_server, "sp_up", mode="overwrite", upsert="true").save()
    assert _sql(cumulo_server, "SELECT * FROM sp_up ORDER BY id") == [(0, "v0"), (1, "v1"),
                                                                       (2, "v2")]


def test_a_retried_task_leaves_no_duplicates(spark, cumulo_server):
    _sql(cumulo_server, "DROP TABLE IF EXISTS sp_retry")
    _sql(cumulo_server, "CREATE TABLE sp_retry (n bigint, p int)")  # no key: dups would show
    df = spark.range(0, 1000, numPartitions=4).selectExpr("id AS n", "spark_partition_id() AS p")
    _writer(df, cumulo_server, "sp_retry", **{"testing.failFirstAttempt": "true"}).save()
    assert _sql(cumulo_server, "SELECT count(*), count(DISTINCT n), count(DISTINCT p) "
                               "FROM sp_retry") == [(1000, 1000, 4)]
    assert _sql(cumulo_server, "SELECT count(*) FROM cumulo_sink_ledger "
                               "WHERE query_name LIKE 'write:%'") == [(0,)]


def test_partitions_projection_and_pushdown(spark, cumulo_server):
    _sql(cumulo_server, "DROP TABLE IF EXISTS sp_read")
    _sql(cumulo_server, "CREATE TABLE sp_read (sym text, n bigint, px double precision, "
                        "note text, PRIMARY KEY (sym, n))")
    _sql(cumulo_server, "INSERT INTO sp_read SELECT chr(65 + g % 4), g, g * 0.5, "
                        "CASE WHEN g % 5 = 0 THEN NULL ELSE 'x' || g END "
                        "FROM generate_series(1, 4000) g")
    df = _reader(spark, cumulo_server, "sp_read", numPartitions=4).load()
    assert df.rdd.getNumPartitions() == 4
    parts = df.rdd.mapPartitions(lambda it: [sum(1 for _ in it)]).collect()
    assert sum(parts) == 4000 and all(p > 0 for p in parts)
    pruned = _reader(spark, cumulo_server, "sp_read").schema("px double, sym string").load()
    assert pruned.columns == ["px", "sym"]
    assert pruned.agg({"px": "sum"}).collect()[0][0] == sum(g * 0.5 for g in range(1, 4001))

    # pyspark 4.3 keeps one planned reader per loaded DataFrame, replaced only by a query with
    # filters: by default nothing is pushed, so these share `df` and each count is right
    assert df.filter("sym = 'B'").count() == 1000
    assert df.count() == 4000
    assert df.filter("sym = 'B'").union(df).count() == 5000
    b, c = df.filter("sym = 'B'").alias("b"), df.filter("sym = 'C'").alias("c")
    assert b.join(c, "n").count() == 0 and b.join(b.select("n"), "n").count() == 1000

    query = "sym = 'B' AND n > 3000 AND note IS NOT NULL AND sym LIKE 'B%'"
    pushed = _reader(spark, cumulo_server, "sp_read", pushFilters="true").load().filter(query)
    plan = pushed._jdf.queryExecution().executedPlan().toString()
    assert "Filter" not in plan.split("BatchScan")[0]  # every conjunct went to KiVi
    want = _sql(cumulo_server, f"SELECT n FROM sp_read WHERE {query} ORDER BY n")
    assert sorted(r.n for r in pushed.collect()) == [n for (n,) in want]
    floats = _reader(spark, cumulo_server, "sp_read", pushFilters="true").load().filter(
        "px > 1999.0 AND NOT (sym IN ('A', 'C'))")  # floats stay in Spark (NaN order)
    assert sorted(r.n for r in floats.collect()) == [
        n for (n,) in _sql(cumulo_server, "SELECT n FROM sp_read WHERE px > 1999.0 AND "
                                          "sym NOT IN ('A', 'C') ORDER BY n")]


def test_a_dataframe_queried_again_sees_later_commits(spark, cumulo_server):
    _sql(cumulo_server, "DROP TABLE IF EXISTS sp_again")
    _sql(cumulo_server, "CREATE TABLE sp_again (n bigint PRIMARY KEY)")
    _sql(cumulo_server, "INSERT INTO sp_again SELECT g FROM generate_series(1, 100) g")
    df = _reader(spark, cumulo_server, "sp_again", numPartitions=2,
                 snapshotLeaseSeconds=4).load()
    assert df.count() == 100
    _sql(cumulo_server, "INSERT INTO sp_again SELECT g FROM generate_series(101, 150) g")
    assert df.count() == 150  # Spark reuses the planned read; its snapshot is not reused
    time.sleep(4.5)  # the planning snapshot's lease is over
    assert df.agg({"n": "sum"}).collect()[0][0] == 150 * 151 // 2


class _Committer:
    """Moves value between rows and appends rows, committing each step: an invariant per state."""

    def __init__(self, server, table):
        self.conn = psycopg.connect(server.dsn(), autocommit=True)
        self.table = table
        self.commits = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        i = 0
        while not self.stop.is_set():
            i += 1
            with self.conn.transaction():
                self.conn.execute(f"UPDATE {self.table} SET v = v - 1 WHERE id = %s", (i % 50,))
                self.conn.execute(f"UPDATE {self.table} SET v = v + 1 WHERE id = %s",
                                  (i % 50 + 1000,))
                self.conn.execute(f"INSERT INTO {self.table} VALUES (%s, 0)", (100000 + i,))
            self.commits += 1

    def __enter__(self):
        self.thread.start()
        deadline = time.monotonic() + 10
        while self.commits < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(10)
        self.conn.close()


def _consistent(rows, n0):
    """The rows of one snapshot: the values still sum to 0 and every appended id is gap-free."""
    total = sum(r[1] for r in rows)
    appended = sorted(r[0] - 100000 for r in rows if r[0] > 100000)
    return total == 0 and appended == list(range(1, len(appended) + 1)) and len(rows) >= n0


def _seed(server, table):
    _sql(server, f"DROP TABLE IF EXISTS {table}")
    _sql(server, f"CREATE TABLE {table} (id bigint PRIMARY KEY, v bigint)")
    _sql(server, f"INSERT INTO {table} SELECT g, 0 FROM generate_series(0, 1999) g")


def test_partitioned_read_is_one_snapshot_while_writers_commit(spark, cumulo_server):
    _seed(cumulo_server, "sp_cons")
    df = _reader(spark, cumulo_server, "sp_cons", numPartitions=6).load()
    with _Committer(cumulo_server, "sp_cons") as w:
        before = w.commits
        rows = [(r.id, r.v) for r in df.collect()]
        during = w.commits - before
    assert during > 0, "no commit happened during the read: the test proved nothing"
    assert _consistent(rows, 2000), f"{len(rows)} rows, sum {sum(v for _, v in rows)}"


def test_jdbc_partitions_share_an_exported_snapshot(spark, cumulo_server):
    _seed(cumulo_server, "sp_jdbc")
    url = f"jdbc:postgresql://127.0.0.1:{cumulo_server.port}/cumulo?user=cumulo"
    predicates = [f"id % 4 = {i}" for i in range(4)]
    with _Committer(cumulo_server, "sp_jdbc") as w:
        exporter = psycopg.connect(cumulo_server.dsn(), autocommit=True)
        exporter.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        ident = exporter.execute("SELECT pg_export_snapshot()").fetchone()[0]
        at_export = w.commits
        init = ("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ; "
                f"SET TRANSACTION SNAPSHOT '{ident}'")
        df = spark.read.option("sessionInitStatement", init).jdbc(
            url, "sp_jdbc", predicates=predicates, properties={"driver": "org.postgresql.Driver"})
        rows = [(r.id, r.v) for r in df.collect()]
        mine = sorted(exporter.execute("SELECT id, v FROM sp_jdbc").fetchall())
        exporter.execute("COMMIT")
        exporter.close()
        after = w.commits
    assert after > at_export, "no commit happened during the read: the test proved nothing"
    assert sorted(rows) == mine  # exactly the exporter's snapshot
    assert _consistent(rows, 2000)
