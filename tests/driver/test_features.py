"""Issue 5's driver list beyond classic dbapi20, sync API, against each target.

Errors with SQLSTATE/detail/hint, transaction settings, streaming through
portals, the statement cache, pipelined executemany, `conn.metadata`, URL
parsing and every type of the issue in round trips (binary and text). Round
trips are counted with the session's message counters (`session.stats`).
"""

from __future__ import annotations

import datetime
import decimal
import uuid

import pytest

import cumulo.driver as drv
from cumulo.driver import errors as drv_errors
from cumulo.driver.url import make_params, parse_url

# ---------------------------------------------------------------- errors


def test_sqlstate_table():
    c = drv_errors.class_for_sqlstate
    assert c("23505") is drv.IntegrityError and c("22012") is drv.DataError
    assert c("42P01") is drv.ProgrammingError and c("0A000") is drv.NotSupportedError
    assert c("40001") is drv.OperationalError and c("XX000") is drv.InternalError
    assert c("25006") is drv.InternalError and c("ZZ999") is drv.DatabaseError
    assert c(None) is drv.DatabaseError
    # One table drives it all: every class maps to a PEP 249 DatabaseError subclass.
    assert all(issubclass(k, drv.DatabaseError) for k in drv_errors.SQLSTATE_CLASSES.values())


def test_errors_carry_sqlstate_detail_hint(conn, table):
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute(f"create table {table} (id int primary key)")
    cur.execute(f"insert into {table} values (1)")
    with pytest.raises(drv.IntegrityError) as ei:
        cur.execute(f"insert into {table} values (%s)", (1,))
    e = ei.value
    assert e.sqlstate == e.pgcode == "23505" and e.severity == "ERROR"
    assert e.detail == "Key (id)=(1) already exists."
    assert "duplicate key" in str(e)
    with pytest.raises(drv.ProgrammingError) as ei:
        cur.execute("select no_such_function_xyz(%s)", (1,))
    assert ei.value.sqlstate == "42883"
    assert ei.value.hint.startswith("No function matches the given name")
    with pytest.raises(drv.ProgrammingError) as ei:
        cur.execute(f"select nosuchcol from {table}")
    assert ei.value.sqlstate == "42703"
    with pytest.raises(drv.DataError) as ei:
        cur.execute("select 1 / 0")
    assert ei.value.sqlstate == "22012"
    cur.execute("select 1")
    assert cur.fetchone() == (1,)


def _xfail_on_cumulo(request, target, reason: str) -> None:
    if target.kind == "cumulo":
        request.applymarker(pytest.mark.xfail(strict=True, reason=reason))


def test_error_position(conn):
    with pytest.raises(drv.ProgrammingError) as ei:
        conn.cursor().execute("select 1, nosuchcol")
    assert ei.value.sqlstate == "42703" and ei.value.position == 11


def test_failed_transaction_needs_rollback(conn):
    cur = conn.cursor()
    with pytest.raises(drv.ProgrammingError):
        cur.execute("select * from no_such_table_here")
    assert conn.transaction_status == "E"
    with pytest.raises(drv.InternalError) as ei:
        cur.execute("select 1")
    assert ei.value.sqlstate == "25P02"
    conn.rollback()
    cur.execute("select 1")
    assert cur.fetchone() == (1,)


# ---------------------------------------------------------------- transaction settings


def test_autocommit(target, table):
    a = drv.connect(target.dsn())
    b = drv.connect(target.dsn(autocommit="true"))
    try:
        assert b.autocommit is True
        cb = b.cursor()
        cb.execute(f"create table {table} (i int)")
        cb.execute(f"insert into {table} values (1)")
        assert b.transaction_status == "I"  # nothing left open
        ca = a.cursor()
        ca.execute(f"select count(*) from {table}")
        assert ca.fetchone() == (1,)  # b's insert is already committed
        assert a.transaction_status == "T"
        with pytest.raises(drv.ProgrammingError):
            a.autocommit = True  # not inside a transaction
        a.rollback()
        a.autocommit = True
        ca.execute(f"insert into {table} values (2)")
        assert a.transaction_status == "I"
    finally:
        a.close()
        b.close()


def test_isolation_level_and_readonly(conn, table):
    cur = conn.cursor()
    cur.execute(f"create table {table} (i int)")
    conn.commit()
    assert conn.isolation_level is None
    conn.isolation_level = "serializable"
    assert conn.isolation_level == "SERIALIZABLE"
    cur.execute("select current_setting('transaction_isolation')")
    assert cur.fetchone() == ("serializable",)
    conn.rollback()
    conn.isolation_level = "repeatable_read"
    cur.execute("select current_setting('transaction_isolation')")
    assert cur.fetchone() == ("repeatable read",)
    conn.rollback()
    with pytest.raises(drv.ProgrammingError):
        conn.isolation_level = "chaotic"
    conn.isolation_level = None
    conn.readonly = True
    cur.execute("select current_setting('transaction_read_only')")
    assert cur.fetchone() == ("on",)
    with pytest.raises(drv.InternalError) as ei:
        cur.execute(f"insert into {table} values (1)")
    assert ei.value.sqlstate == "25006"
    conn.rollback()
    conn.readonly = False
    cur.execute(f"insert into {table} values (1)")
    conn.commit()
    cur.execute(f"select count(*) from {table}")
    assert cur.fetchone() == (1,)
    conn.rollback()


def test_transaction_context_manager(target, table):
    with drv.connect(target.dsn(autocommit=True)) as c:
        c.cursor().execute(f"create table {table} (i int)")
        with c.transaction():
            c.cursor().execute(f"insert into {table} values (1)")
            assert c.transaction_status == "T"
        with pytest.raises(ValueError), c.transaction():
            c.cursor().execute(f"insert into {table} values (2)")
            raise ValueError
        assert c.autocommit is True
        cur = c.cursor()
        cur.execute(f"select i from {table}")
        assert cur.fetchall() == [(1,)]


# ---------------------------------------------------------------- streaming


def test_fetchmany_streams_through_the_portal(target):
    # fetch_size=1: the batch size is the cursor's arraysize.
    c = drv.connect(target.dsn(fetch_size=1))
    try:
        cur = c.cursor()
        cur.arraysize = 100
        stats = c.session.stats
        before = stats["execute"]
        cur.execute("select g, repeat('x', 10) from generate_series(1, 1000) g")
        assert len(cur._rows) == 100  # only the first batch came
        assert cur.rownumber == 0
        assert cur.fetchmany() == [(i, "x" * 10) for i in range(1, 101)]
        assert cur.fetchmany(150)[-1][0] == 250
        assert cur.rownumber == 250
        rest = cur.fetchall()
        assert rest[0][0] == 251 and rest[-1][0] == 1000 and len(rest) == 750
        # 1 Bind+Execute(100), 2 more for fetchmany(150), then one for all that fetchall
        # wants (not a batch per fetch_size: a round trip and a portal resume each).
        assert stats["execute"] - before == 4
        assert cur.rowcount == 1000 and cur.statusmessage == "SELECT 1000"
        # Iteration streams too; commit reads what the cursor left, so it stays fetchable.
        cur.execute("select g from generate_series(1, 300) g")
        it = iter(cur)
        assert [next(it)[0] for _ in range(5)] == [1, 2, 3, 4, 5]
        c.commit()
        assert [r[0] for r in cur] == list(range(6, 301))
    finally:
        c.close()


def test_autocommit_streams_until_another_statement(target, table):
    c = drv.connect(target.dsn(fetch_size=1), autocommit=True)
    try:
        cur, other = c.cursor(), c.cursor()
        cur.arraysize = 50
        other.execute(f"create table {table} (i int)")
        # Autocommit streams too: Execute(50) + Flush keeps the implicit transaction open.
        cur.execute("select g from generate_series(1, 500) g")
        assert len(cur._rows) == 50
        assert cur.fetchmany(120)[-1] == (120,) and len(cur._rows) == 50
        # Another statement on the connection first reads the rest: it stays fetchable.
        other.execute(f"insert into {table} values (%s)", (1,))
        assert other.rowcount == 1
        assert [r[0] for r in cur.fetchall()] == list(range(121, 501))
        assert cur.rowcount == 500 and c.transaction_status == "I"
        # Re-executing (or closing) a cursor mid-stream drops its rows.
        cur.execute("select g from generate_series(1, 500) g")
        assert cur.fetchone() == (1,)
        cur.execute("select 'again'")
        assert cur.fetchall() == [("again",)]
        cur.execute("select g from generate_series(1, 500) g")
        cur.close()
        # An error in a later batch (PostgreSQL computes rows as they are fetched; a server
        # may also compute them all up front) ends the stream; the session goes on.
        cur = c.cursor()
        cur.arraysize = 10
        with pytest.raises(drv.DataError):
            cur.execute("select 10 / (100 - g) from generate_series(1, 200) g")
            assert len(cur.fetchmany(10)) == 10
            cur.fetchall()
        assert c.transaction_status == "I" and not c._streaming
        other.execute(f"select count(*) from {table}")
        assert other.fetchone() == (1,)
        # fetch_size <= 0 turns streaming off: every row comes with the first round trip.
        cur.fetch_size = 0
        cur.execute("select g from generate_series(1, 300) g")
        assert len(cur._rows) == 300
    finally:
        c.close()


def test_fetch_size_from_url_drives_batches(target):
    c = drv.connect(target.dsn(fetch_size=50))
    try:
        cur = c.cursor()
        assert cur.fetch_size == 50
        cur.execute("select g from generate_series(1, 120) g")
        assert len(cur._rows) == 50
        assert [r[0] for r in cur.fetchall()] == list(range(1, 121))
        c.rollback()
    finally:
        c.close()


# ---------------------------------------------------------------- statement cache, batches


def test_statement_cache(target):
    c = drv.connect(target.dsn(statement_cache_size=2), autocommit=True)
    try:
        cur, stats = c.cursor(), c.session.stats
        for i in range(5):
            cur.execute("select %s::int * 2", (i,))
            assert cur.fetchone() == (i * 2,)
        assert stats["parse"] == 1  # prepared once, then reused by name
        cur.execute("select %s::text", ("a",))
        cur.execute("select %s::int + 1", (1,))  # third statement evicts the first
        assert len(c.session.cache) == 2
        cur.execute("select %s::int * 2", (3,))
        assert cur.fetchone() == (6,) and stats["parse"] == 4
    finally:
        c.close()


def test_statement_cache_after_ddl(target):
    c = drv.connect(target.dsn(), autocommit=True)
    try:
        cur = c.cursor()
        # DDL on the same connection drops the cache (as psycopg does after DROP).
        cur.execute("create temp table drv_cache_t (a int)")
        cur.execute("insert into drv_cache_t values (1)")
        cur.execute("select * from drv_cache_t")
        cur.execute("alter table drv_cache_t add column b text default 'x'")
        cur.execute("select * from drv_cache_t")
        assert [d[0] for d in cur.description] == ["a", "b"]
        assert cur.fetchall() == [(1, "x")]
        cur.execute("drop table drv_cache_t")
        cur.execute("create temp table drv_cache_t (a timestamp)")
        cur.execute("insert into drv_cache_t values (%s)", (datetime.datetime(2012, 1, 1, 3, 4),))
        cur.execute("select * from drv_cache_t")
        assert cur.fetchall() == [(datetime.datetime(2012, 1, 1, 3, 4),)]
    finally:
        c.close()


def test_statement_changed_by_another_connection(target, table):
    a = drv.connect(target.dsn(), autocommit=True)
    b = drv.connect(target.dsn(), autocommit=True)
    try:
        ca = a.cursor()
        ca.execute(f"create table {table} (a int)")
        ca.execute(f"insert into {table} values (1)")
        ca.execute(f"select * from {table}")
        assert ca.fetchall() == [(1,)]
        b.cursor().execute(f"alter table {table} add column b text default 'y'")
        # The server refuses the cached plan (0A000); in autocommit the driver prepares again.
        ca.execute(f"select * from {table}")
        assert ca.fetchall() == [(1, "y")] and a.session.stats["parse"] >= 4
    finally:
        a.close()
        b.close()


def test_portal_survives_cache_eviction(target):
    c = drv.connect(target.dsn(statement_cache_size=1, fetch_size=1))
    try:
        a, b = c.cursor(), c.cursor()
        a.arraysize = 10
        a.execute("select g from generate_series(1, 100) g")
        assert a.fetchone() == (1,)
        for i in range(3):  # each evicts the statement before it, including a's
            b.execute(f"select {i} + %s::int", (1,))
        assert len(c.session.cache) == 1
        assert [r[0] for r in a.fetchall()] == list(range(2, 101))
        c.commit()
        b.execute("select 1")  # the deferred Closes go out now that no portal is open
        assert b.fetchone() == (1,) and not c.session.to_close
    finally:
        c.close()


def test_json_loads_hook(target):
    c = drv.connect(target.dsn(), autocommit=True)
    try:
        c.json_loads = lambda text: ("custom", text)
        cur = c.cursor()
        cur.execute("select '{\"a\": 1}'::jsonb, '[1]'::json")
        assert cur.fetchone() == (("custom", '{"a": 1}'), ("custom", "[1]"))
        c.json_loads = None
        cur.execute("select '{\"a\": 1}'::jsonb")
        assert cur.fetchone() == ({"a": 1},)
    finally:
        c.close()


def test_executemany_is_one_pipeline(conn, table):
    cur, stats = conn.cursor(), conn.session.stats
    cur.execute(f"create table {table} (id int primary key, v text, f float8)")
    before_ready, before_exec = stats["ready"], stats["execute"]
    cur.executemany(f"insert into {table} values (%s, %s, %s)",
                    [(i, f"v{i}", i / 2) for i in range(300)])
    # Two round trips: Parse+Describe, then 300 Bind+Execute with a single Sync.
    assert stats["ready"] - before_ready == 2
    assert stats["execute"] - before_exec == 300
    assert cur.rowcount == 300
    conn.commit()
    cur.execute(f"select count(*), sum(f) from {table}")
    assert cur.fetchone() == (300, sum(i / 2 for i in range(300)))
    # executemany of a RETURNING statement leaves the last result set to fetch.
    cur.executemany(f"update {table} set v = %s where id = %s returning id",
                    [("x", 1), ("y", 2)])
    assert cur.fetchall() == [(2,)]
    conn.rollback()


# ---------------------------------------------------------------- metadata


def test_metadata(conn, table):
    cur = conn.cursor()
    cur.execute(f"create table {table} (id int primary key, name varchar(30) not null, "
                f"score numeric(5, 2) default 0)")
    cur.execute(f"create index {table}_name_idx on {table} (name)")
    conn.commit()
    md = conn.metadata
    tables = md.tables(table)
    assert tables == [{"schema": "public", "name": table, "type": "TABLE"}]
    cols = md.columns(table)
    assert [(c["name"], c["position"], c["type"], c["nullable"]) for c in cols] == [
        ("id", 1, "integer", False),
        ("name", 2, "character varying(30)", False),
        ("score", 3, "numeric(5,2)", True),
    ]
    assert cols[0]["type_oid"] == 23 and cols[2]["default"] == "0"
    pks = md.primary_keys(table)
    assert [(k["column"], k["position"]) for k in pks] == [("id", 1)]
    assert pks[0]["name"] == f"{table}_pkey"
    idx = {i["name"]: i for i in md.indexes(table)}
    assert set(idx) == {f"{table}_pkey", f"{table}_name_idx"}
    assert idx[f"{table}_pkey"]["primary"] and idx[f"{table}_pkey"]["unique"]
    assert idx[f"{table}_name_idx"]["column"] == "name"
    assert not idx[f"{table}_name_idx"]["unique"]
    assert "(name)" in idx[f"{table}_name_idx"]["definition"]
    assert md.tables(table, schema="no_such_schema") == []
    cur.execute(f"create view {table}_v as select id, name from {table}")
    assert [(t["name"], t["type"]) for t in md.tables(f"{table}%")] == [
        (table, "TABLE"), (f"{table}_v", "VIEW")]
    assert [c["name"] for c in md.columns(f"{table}_v")] == ["id", "name"]
    cur.execute(f"drop view {table}_v")
    conn.commit()


# ---------------------------------------------------------------- URLs


def test_url_parsing():
    p = make_params("cumulo://us%40r:p%3Aw@h1:5433,h2:5434,[::1]/db"
                    "?fetch_size=1000&load_balance=true&sslmode=require&search_path=s1")
    assert p.hosts == [("h1", 5433), ("h2", 5434), ("::1", 5433)]
    assert (p.user, p.password, p.database) == ("us@r", "p:w", "db")
    assert p.fetch_size == 1000 and p.load_balance is True and p.sslmode == "require"
    assert p.settings == {"search_path": "s1"}  # unknown settings go to the server
    assert make_params("postgresql://u@h/d").hosts == [("h", 5432)]
    assert make_params("cumulo://u@h/d", port=7000, fetch_size="5").fetch_size == 5
    assert make_params(host="a,b:6", port=9, user="u").hosts == [("a", 9), ("b", 6)]
    assert parse_url("cumulo://h")["host"] == "h"
    with pytest.raises(drv.InterfaceError):
        make_params("mysql://u@h/d")
    with pytest.raises(drv.InterfaceError):
        make_params("cumulo://u@h/d?sslmode=sometimes")


def test_keyword_connect_and_startup_settings(target):
    c = drv.connect(host=target.host, port=target.port, user=target.user,
                    password=target.password, dbname="cumulo", application_name="kw-app",
                    search_path="pg_catalog,public")
    try:
        cur = c.cursor()
        cur.execute("select current_setting('application_name'), current_database(), "
                    "current_setting('search_path')")
        assert cur.fetchone() == ("kw-app", "cumulo", "pg_catalog,public")
        assert c.server_version and c.backend_pid and c.parameters["client_encoding"] == "UTF8"
    finally:
        c.close()


# ---------------------------------------------------------------- types

AWARE = datetime.datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=datetime.UTC)
VALUES = [
    (0, "int2"), (-(2**31), "int4"), (2**62, "int8"), (decimal.Decimal("-123.4500"), "numeric"),
    (decimal.Decimal("1e-20"), "numeric"), (2.5, "float8"), (float("inf"), "float8"),
    ("snow ☃ 'q' \"d\" \\", "text"), ("v", "varchar"), (b"\x00\x01\xff", "bytea"),
    (False, "bool"), (datetime.date(1970, 1, 1), "date"), (datetime.date(9999, 12, 31), "date"),
    (datetime.time(0, 0), "time"), (datetime.time(23, 59, 59, 999999), "time"),
    (datetime.datetime(1999, 12, 31, 23, 59, 59, 999999), "timestamp"),
    (AWARE, "timestamptz"),
    (datetime.timedelta(days=-2, hours=5, microseconds=1), "interval"),
    (datetime.timedelta(0), "interval"),
    (uuid.uuid4(), "uuid"), ({"k": [1, "two", None, True, 1.5]}, "jsonb"),
    ({"nested": {"a": {}}}, "json"), ([1, 2, 3], "int4[]"), ([[1, 2], [3, 4]], "int8[]"),
    (["a", None, "b,c", 'q"'], "text[]"), ([1.5, -2.0], "float8[]"), ([True, False], "bool[]"),
    ([datetime.date(2020, 1, 1)], "date[]"), ([], "int4[]"),
    ([decimal.Decimal("1.5"), None], "numeric[]"), ([uuid.UUID(int=7)], "uuid[]"),
    ([AWARE], "timestamptz[]"), ([{"a": 1}, {"b": [2]}], "jsonb[]"),
]


@pytest.mark.parametrize("binary", [True, False], ids=["binary", "text"])
def test_interval_months_decode_alike_in_text_and_binary(target, binary):
    """An interval with months decodes as psycopg 3 does it: 365-day years, 30-day months."""
    c = drv.connect(target.dsn(binary_results=str(binary).lower()), autocommit=True)
    try:
        cur = c.cursor()
        cur.execute("select interval '1 year 2 mons 3 days 04:05:06.5', "
                    "interval '-1 year -2 mons +3 days', interval '-14 mons -00:00:01', "
                    "interval '25 mons'")
        assert cur.fetchone() == (
            datetime.timedelta(days=365 + 60 + 3, hours=4, minutes=5, seconds=6.5),
            datetime.timedelta(days=-365 - 60 + 3), datetime.timedelta(days=-425, seconds=-1),
            datetime.timedelta(days=2 * 365 + 30))
    finally:
        c.close()


@pytest.mark.parametrize("binary", [True, False], ids=["binary", "text"])
def test_type_round_trips(target, binary):
    c = drv.connect(target.dsn(binary_results=str(binary).lower()), autocommit=True)
    try:
        cur = c.cursor()
        for value, typ in VALUES:
            cur.execute(f"select %s::{typ}", (value,))
            (got,) = cur.fetchone()
            assert got == value and type(got) is type(value), (typ, value, got)
        # "char": the zero byte is '' as in PostgreSQL's text output (pg_attribute.attgenerated).
        cur.execute("""select 'a'::"char", attgenerated from pg_attribute limit 1""")
        assert cur.fetchone() == ("a", "")
        # A None parameter, and a list sent as json via the Json wrapper.
        cur.execute("select %s::int, %s::jsonb", (None, drv.Json([1, {"a": 2}])))
        assert cur.fetchone() == (None, [1, {"a": 2}])
        # Parameter types the values declare reach the server (no casts needed).
        cur.execute("select pg_typeof(%s)::text, pg_typeof(%s)::text, pg_typeof(%s)::text, "
                    "pg_typeof(%s)::text", (1, 2**40, AWARE, [1, 2]))
        assert cur.fetchone() == ("integer", "bigint", "timestamp with time zone", "integer[]")
    finally:
        c.close()


def test_timestamptz_in_session_time_zone(target):
    c = drv.connect(target.dsn(TimeZone="Asia/Kolkata"), autocommit=True)
    try:
        assert c.parameters["TimeZone"] == "Asia/Kolkata"
        cur = c.cursor()
        cur.execute("select %s::timestamptz", (AWARE,))
        got = cur.fetchone()[0]
        assert got == AWARE and got.utcoffset() == datetime.timedelta(hours=5, minutes=30)
    finally:
        c.close()


def test_timestamptz_text_in_session_time_zone(target):
    c = drv.connect(target.dsn(TimeZone="Asia/Kolkata", binary_results="false"), autocommit=True)
    try:
        cur = c.cursor()
        cur.execute("select %s::timestamptz, %s::timestamptz::text", (AWARE, AWARE))
        got, text = cur.fetchone()
        assert got == AWARE and got.utcoffset() == datetime.timedelta(hours=5, minutes=30)
        assert text == "2024-05-06 12:38:09.123456+05:30"
    finally:
        c.close()


@pytest.mark.parametrize("binary", [True, False], ids=["binary", "text"])
def test_empty_char(target, binary):
    c = drv.connect(target.dsn(binary_results=str(binary).lower()), autocommit=True)
    try:
        cur = c.cursor()
        cur.execute("select ''::\"char\", ''::\"char\" = 'x'::\"char\"")
        assert cur.fetchone() == ("", False)
    finally:
        c.close()


def test_rows_into_a_table(conn, table):
    cur = conn.cursor()
    cur.execute(f"create table {table} (i int8, n numeric(12, 3), t text, b bytea, "
                f"ts timestamptz, d date, u uuid, j jsonb, a int4[], iv interval, ok bool)")
    row = (7, decimal.Decimal("3.140"), "τ", b"\x00", AWARE, datetime.date(2001, 1, 1),
           uuid.UUID(int=5), {"x": 1}, [1, None, 3], datetime.timedelta(hours=1), True)
    cur.executemany(f"insert into {table} values ({', '.join(['%s'] * 11)})", [row, row])
    cur.execute(f"select * from {table}")
    assert cur.fetchall() == [row, row]
    d = {x[0]: x[1] for x in cur.description}
    assert d["i"] == drv.NUMBER and d["t"] == drv.STRING and d["b"] == drv.BINARY
    assert d["ts"] == drv.DATETIME and d["d"] == drv.DATETIME
    conn.rollback()


def test_copy_expert(conn, table):
    import io

    cur = conn.cursor()
    cur.execute(f"create table {table} (id int, v text)")
    assert cur.copy_expert(f"copy {table} from stdin", io.StringIO("1\ta\n2\t\\N\n")) == 2
    out = io.StringIO()
    cur.copy_expert(f"copy {table} to stdout", out)
    assert sorted(out.getvalue().splitlines()) == ["1\ta", "2\t\\N"]
    cur.execute(f"select count(*), count(v) from {table}")
    assert cur.fetchone() == (2, 1)
    conn.rollback()


def test_cancel_from_another_thread(target):
    import threading

    c = drv.connect(target.dsn(), autocommit=True)
    done = threading.Event()

    def cancel_until_done() -> None:  # a cancel arriving before the query starts is a no-op
        while not done.wait(0.2):
            c.cancel()

    canceller = threading.Thread(target=cancel_until_done)
    canceller.start()
    try:
        with pytest.raises(drv.OperationalError) as ei:
            c.cursor().execute("select count(*) from generate_series(1, 20000) a, "
                               "generate_series(1, 20000) b")
        assert ei.value.sqlstate == "57014"
    finally:
        done.set()
        canceller.join()
    try:
        cur = c.cursor()
        cur.execute("select 1")
        assert cur.fetchone() == (1,)
    finally:
        c.close()


def test_batch_runs_share_statements_across_untyped_values():
    from cumulo.driver import core

    rows = [core.encode_params(r)[1] for r in
            [(1, "a"), (None, "b"), (2, None), (3.5, "c"), (None, None), (4, "d")]]
    runs = core.batch_runs(rows)
    # int and NULL share a statement; a float for the same parameter starts a new one.
    assert [(oids, len(run)) for oids, run in runs] == [((23, 0), 3), ((701, 0), 2), ((23, 0), 1)]


def test_listen_notify(target):
    a = drv.connect(target.dsn(), autocommit=True)
    b = drv.connect(target.dsn(), autocommit=True)
    try:
        a.cursor().execute("listen drv_chan")
        b.cursor().execute("notify drv_chan, 'hello'")
        b.cursor().execute("notify drv_chan, 'again'")
        a.cursor().execute("select 1")  # notifications ride on the next reply
        assert [(ch, payload) for _, ch, payload in a.notifies] == \
            [("drv_chan", "hello"), ("drv_chan", "again")]
        assert a.notifies[0][0] == b.backend_pid
        a.notifies.clear()
    finally:
        a.close()
        b.close()


def test_numeric_text_and_binary_agree(target):
    c = drv.connect(target.dsn(), autocommit=True)
    try:
        cur = c.cursor()
        texts = ["0", "0.000", "-1.5", "12345.6789", "10000", "0.00000012", "-99999999.99",
                 "123456789012345678901234567890.123456789", "1.10", "NaN"]
        for text in texts:
            # numeric comes as text (faster to decode), numeric[] in binary: both must agree.
            cur.execute("select %s::numeric, array[%s::numeric]", (text, text))
            plain, (arr,) = cur.fetchone()
            want = decimal.Decimal(text)
            if want.is_nan():
                assert plain.is_nan() and arr.is_nan()
            else:
                assert str(plain) == str(arr) == str(want), (text, plain, arr)
    finally:
        c.close()


def test_large_pipeline_and_stream(conn, table):
    # Over 256 KB of Bind messages: the driver reads replies while it writes (no deadlock on
    # full socket buffers), then streams the rows back in batches.
    cur = conn.cursor()
    cur.execute(f"create table {table} (id int primary key, pad text)")
    rows = [(i, f"{i:05d}" + "p" * 1000) for i in range(300)]
    before = conn.session.stats["ready"]
    cur.executemany(f"insert into {table} values (%s, %s)", rows)
    assert cur.rowcount == 300 and conn.session.stats["ready"] - before == 2
    conn.commit()
    cur.arraysize = 100
    cur.execute(f"select id, pad from {table} order by id")
    got = []
    while batch := cur.fetchmany():
        assert len(batch) <= 100
        got += batch
    assert got == rows
    conn.rollback()


def test_copy_records(conn, table):
    cur = conn.cursor()
    cur.execute(f"create table {table} (id int, t text, d date, b bytea, j jsonb, a int4[], "
                f"ok bool, ts timestamptz, n numeric)")
    records = [(i, f"tab\there\nnew\\line {i}" if i % 2 else None, datetime.date(2020, 1, 1 + i % 28),
                bytes([i % 256, 0]), {"i": i}, [i, None], i % 3 == 0, AWARE,
                decimal.Decimal(i) / 8) for i in range(300)]
    assert cur.copy_records(table, records) == 300
    assert cur.copy_records(table, [(1000, "x")], columns=["id", "t"]) == 1
    cur.execute(f"select * from {table} where id < 1000 order by id")
    assert cur.fetchall() == records
    cur.execute(f"select t, n from {table} where id = 1000")
    assert cur.fetchone() == ("x", None)
    conn.rollback()


def test_finished_portals_do_not_block_ddl(conn, table):
    # PostgreSQL keeps a portal (and its table "in use") until it is closed: the driver
    # closes portals read to the end, or dropped by close()/re-execute, in the next pipeline.
    cur, other = conn.cursor(), conn.cursor()
    for i in range(3):
        cur.execute(f"create table {table}_{i} (id int)")
        cur.execute(f"insert into {table}_{i} select g from generate_series(1, 5) g")
    conn.commit()
    other.execute(f"select * from {table}_0")
    other.fetchall()  # read to the end
    other.execute(f"select * from {table}_1")
    other.fetchone()
    other.close()  # abandoned midway
    third = conn.cursor()
    third.arraysize = 2
    third.fetch_size = 2
    third.execute(f"select * from {table}_2")
    third.fetchone()
    third.execute("select 1")  # re-executed midway
    for i in range(3):
        cur.execute(f"drop table {table}_{i}")
    conn.commit()
    cur.execute("select count(*) from pg_class where relname like %s", (f"{table}\\_%",))
    assert cur.fetchone() == (0,)
