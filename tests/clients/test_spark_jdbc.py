"""Spark reads and writes Cumulo through Debian's PostgreSQL JDBC driver (issue 4).

One local SparkSession for the module (its start-up is the slow part). Every
read is checked against what was written: row counts and a checksum computed
independently with psycopg. The JDBC driver's metadata calls (getTables,
getColumns, getPrimaryKeys) go through py4j to the same driver Spark uses.
"""

from __future__ import annotations

import os
import shutil

import psycopg
import pytest

from tests.server_process import CumuloServer

JAR = "/usr/share/java/postgresql.jar"
ROWS = 5000

pyspark = pytest.importorskip("pyspark", reason="pyspark is not installed (pip install pyspark)")
if not os.path.exists(JAR) or not shutil.which("java"):
    pytest.skip(f"needs {JAR} (apt-get install libpostgresql-jdbc-java) and java",
                allow_module_level=True)


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("cumulo-jdbc")
        .config("spark.jars", JAR)
        .config("spark.driver.extraClassPath", JAR)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.memory", "1g")
        .config("spark.sql.catalog.cumulo", "org.apache.spark.sql.execution.datasources.v2.jdbc.JDBCTableCatalog")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="module")
def db(cumulo_server, client_db):
    """The module's database with a table of ROWS rows; returns (jdbc url, psycopg dsn)."""
    dsn = cumulo_server.dsn(dbname=client_db)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            "create table items (id int primary key, grp int not null, price numeric(10,2),"
            " name varchar(20), made date, ok boolean)"
        )
        with conn.cursor().copy("copy items from stdin") as copy:
            for i in range(1, ROWS + 1):
                copy.write_row((i, i % 7, f"{i % 100}.25", f"item{i}", f"2024-01-{i % 28 + 1:02d}", i % 2 == 0))
        conn.execute("create index items_grp on items (grp)")
    url = f"jdbc:postgresql://{cumulo_server.host}:{cumulo_server.port}/{client_db}?user=cumulo"
    return url, dsn


def _checksum(rows) -> tuple[int, int, float]:
    return len(rows), sum(r["id"] for r in rows), float(sum(r["price"] for r in rows))


def _want(dsn: str, table: str = "items") -> tuple[int, int, float]:
    with psycopg.connect(dsn) as conn:
        n, s, p = conn.execute(f"select count(*), sum(id), sum(price) from {table}").fetchone()
    return n, int(s), float(p)


def test_whole_table(spark, db):
    url, dsn = db
    df = spark.read.format("jdbc").option("url", url).option("dbtable", "items").load()
    assert [f.name for f in df.schema.fields] == ["id", "grp", "price", "name", "made", "ok"]
    assert str(df.schema["price"].dataType) == "DecimalType(10,2)"
    assert _checksum(df.collect()) == _want(dsn)


def test_partitioned_read(spark, db):
    url, dsn = db
    df = (
        spark.read.format("jdbc").option("url", url).option("dbtable", "items")
        .option("partitionColumn", "id").option("lowerBound", 1).option("upperBound", ROWS)
        .option("numPartitions", 4).load()
    )
    assert df.rdd.getNumPartitions() == 4
    assert _checksum(df.collect()) == _want(dsn)


def test_predicates(spark, db):
    url, dsn = db
    preds = [f"grp = {g}" for g in range(7)]
    df = spark.read.jdbc(url, "items", predicates=preds, properties={"user": "cumulo"})
    assert df.rdd.getNumPartitions() == 7
    assert _checksum(df.collect()) == _want(dsn)


def test_query_option_and_fetchsize(spark, db):
    url, dsn = db
    df = (
        spark.read.format("jdbc").option("url", url)
        .option("query", "select id, price, name from items where ok")
        .option("fetchsize", 100).load()  # the driver suspends the portal every 100 rows
    )
    rows = df.collect()
    with psycopg.connect(dsn) as conn:
        want = conn.execute("select count(*), sum(id), sum(price) from items where ok").fetchone()
    assert _checksum(rows) == (want[0], int(want[1]), float(want[2]))


def test_table_catalog_pushes_down_aggregates_and_limits(spark, db):
    url, dsn = db
    spark.conf.set("spark.sql.catalog.cumulo.url", url)
    spark.conf.set("spark.sql.catalog.cumulo.pushDownAggregate", "true")
    spark.conf.set("spark.sql.catalog.cumulo.pushDownLimit", "true")
    agg = spark.sql("select grp, count(*) as n, sum(id) as s from cumulo.public.items group by grp")
    plan = agg._jdf.queryExecution().executedPlan().toString()
    assert "PushedAggregates: [COUNT(*), SUM(id)]" in plan, plan
    got = sorted((r["grp"], r["n"], r["s"]) for r in agg.collect())
    with psycopg.connect(dsn) as conn:
        want = conn.execute("select grp, count(*), sum(id) from items group by grp order by grp").fetchall()
    assert got == [tuple(w) for w in want]
    limited = spark.sql("select id from cumulo.public.items order by id limit 5")
    assert "PushedLimit" in limited._jdf.queryExecution().executedPlan().toString() or \
        "PushedTopN" in limited._jdf.queryExecution().executedPlan().toString()
    assert [r["id"] for r in limited.collect()] == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("rewrite", ["false", "true"])
def test_append_write(spark, db, rewrite):
    url, dsn = db
    table = f"written_{rewrite}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"create table {table} (id int primary key, grp int not null,"
                     " price numeric(10,2), name varchar(20), made date, ok boolean)")
    src = spark.read.format("jdbc").option("url", url).option("dbtable", "items").load()
    (
        src.write.format("jdbc").option("url", url).option("dbtable", table)
        .option("reWriteBatchedInserts", rewrite).option("batchsize", 500)
        .mode("append").save()
    )
    assert _want(dsn, table) == _want(dsn)
    with psycopg.connect(dsn) as conn:
        diff = conn.execute(
            f"select count(*) from (select * from items except select * from {table}) d"
        ).fetchone()[0]
    assert diff == 0


def test_database_metadata(spark, db):
    url, _ = db
    jvm = spark.sparkContext._jvm
    conn = jvm.java.sql.DriverManager.getConnection(url)
    try:
        meta = conn.getMetaData()
        assert meta.getDatabaseProductName() == "PostgreSQL"
        rs = meta.getTables(None, "public", "items", None)
        assert rs.next() and rs.getString("TABLE_NAME") == "items" and rs.getString("TABLE_TYPE") == "TABLE"
        rs = meta.getColumns(None, "public", "items", None)
        cols = []
        while rs.next():
            cols.append((rs.getString("COLUMN_NAME"), rs.getString("TYPE_NAME"), rs.getInt("NULLABLE")))
        assert cols == [
            ("id", "int4", 0), ("grp", "int4", 0), ("price", "numeric", 1),
            ("name", "varchar", 1), ("made", "date", 1), ("ok", "bool", 1),
        ]
        rs = meta.getPrimaryKeys(None, "public", "items")
        assert rs.next() and rs.getString("COLUMN_NAME") == "id" and rs.getString("PK_NAME") == "items_pkey"
        stmt = conn.prepareStatement("select id, price from items where id = ?")
        stmt.setInt(1, 42)
        rs = stmt.executeQuery()
        md = rs.getMetaData()
        assert (md.getColumnTypeName(1), md.getColumnTypeName(2), md.getPrecision(2), md.getScale(2)) == (
            "int4", "numeric", 10, 2)
        assert md.getTableName(1) == "items"
        assert rs.next() and rs.getInt(1) == 42
    finally:
        conn.close()


def test_read_and_write_with_scram(spark):
    """Spark's JDBC reads and appends log in with SCRAM-SHA-256 (`cumulo serve --auth scram`)."""
    srv = CumuloServer().start()
    try:
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            c.execute("create role spark_scram login password 'spark pw'")
            c.execute("create table s (id int primary key, v text)")
            c.execute("grant all on s to spark_scram")
            c.execute("insert into s select g, 'v' || g from generate_series(1, 50) g")
        srv.stop()
        srv.extra_args = ["--auth", "scram"]
        srv.start()
        url = f"jdbc:postgresql://{srv.host}:{srv.port}/cumulo"
        props = {"user": "spark_scram", "password": "spark pw",
                 "driver": "org.postgresql.Driver"}
        df = spark.read.jdbc(url, "s", properties=props)
        assert df.count() == 50
        df.selectExpr("id + 100 as id", "v").write.jdbc(url, "s", mode="append",
                                                        properties=props)
        kw = {"host": srv.host, "port": srv.port, "user": "spark_scram", "dbname": "cumulo"}
        with psycopg.connect(**kw, password="spark pw") as c:
            assert c.execute("select count(*), sum(id) from s").fetchone() == (100, 7550)
        bad = {**props, "password": "wrong"}
        # NB: Spark wraps pgJDBC's 28P01 PSQLException into "Couldn't connect to the database"
        with pytest.raises(Exception, match="FAILED_JDBC.CONNECTION"):
            spark.read.jdbc(url, "s", properties=bad).count()
    finally:
        srv.stop()
        shutil.rmtree(srv.data_dir, ignore_errors=True)
