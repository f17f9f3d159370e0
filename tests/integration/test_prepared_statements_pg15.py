"""pg_prepared_statements against a throwaway PostgreSQL 15 (issue 16, item 8).

The view lists both kinds of prepared statement: SQL PREPARE (statement = the
full PREPARE text, from_sql true) and the extended protocol's named Parse
(statement = Parse's query, from_sql false), with parameter types and the
generic/custom plan counters PostgreSQL's plan cache keeps. Unnamed Parse
statements are not listed; DEALLOCATE and Close remove their rows.
Checked through psycopg (SQL PREPARE, and prepare=True for a named Parse)
and asyncpg (its named statements).

Portals and session details psycopg's own suite checks (issue 16), through psycopg and asyncpg:
a named cursor over an empty query (`DECLARE "c" CURSOR FOR `) is 42601 at end of input;
Close('P', name) of a DECLAREd cursor closes it (portals and SQL cursors share a namespace);
READ UNCOMMITTED runs as READ COMMITTED but `transaction_isolation` reports what was set;
CopyFail's 57014 carries the CONTEXT line PostgreSQL was reading.
A prepared FETCH describes its portal by the cursor as it stands at Bind (the cursor closed and
declared again with other columns), while Describe('S') keeps the columns seen at Parse.
"""

from __future__ import annotations

import asyncio

import asyncpg
import psycopg
import pytest
from psycopg import pq

from tests.integration.stmtdiff import assert_same, fresh_databases

VIEW = ("select name, statement, from_sql, parameter_types::text[], generic_plans, custom_plans,"
        " prepare_time is not null and prepare_time <= now() + interval '1 minute'"
        " from pg_prepared_statements order by name")


def _psycopg_rows(dsn: str) -> list[list[tuple]]:
    seen = []
    with psycopg.connect(dsn, autocommit=True) as c:
        seen.append(c.execute(VIEW).fetchall())
        c.execute("PREPARE p1(int, text) AS SELECT $1, $2")
        c.execute("prepare p0 as select 1")
        c.execute("EXECUTE p0")
        c.execute("EXECUTE p0")
        c.execute("EXECUTE p1(1, 'a')")
        seen.append(c.execute(VIEW).fetchall())
        c.execute("select %s::int + 1", (1,), prepare=True)  # a named Parse (_pg3_0)
        c.execute("select %s::int + 1", (2,), prepare=True)
        seen.append(c.execute(VIEW).fetchall())
        c.execute("DEALLOCATE p1")
        seen.append(c.execute(VIEW).fetchall())
        c.execute("PREPARE dup AS SELECT 1")
        try:
            c.execute("PREPARE _pg3_0 AS SELECT 1")  # a Parse statement's name is taken too
        except psycopg.Error as e:
            seen.append([(e.sqlstate, e.diag.message_primary)])
        c.execute("DEALLOCATE ALL")  # drops the Parse statements as well
        seen.append(c.execute(VIEW).fetchall())
        c.execute("select %s::int + 1", (3,), prepare=True)  # psycopg prepares it again
        seen.append(c.execute(VIEW).fetchall())
        again = [r[0] for r in seen[-1] if not r[2]]
        assert len(again) == 1
        c.execute(f"DEALLOCATE {again[0]}")
        seen.append(c.execute(VIEW).fetchall())
        c.execute("select %s::int + 2", (4,), prepare=True)
        c.execute("DISCARD ALL")
        seen.append(c.execute(VIEW).fetchall())
    return seen


def test_psycopg_sql_and_protocol_statements_match_pg15(pg15, cumulo_server):
    want = _psycopg_rows(pg15.dsn())
    got = _psycopg_rows(cumulo_server.dsn())
    assert got == want
    assert [r[0] for r in want[2]] == ["_pg3_0", "p0", "p1"]  # the test exercises both kinds


async def _asyncpg_rows(dsn: str) -> list[list[tuple]]:
    conn = await asyncpg.connect(dsn)
    try:
        seen = []
        st = await conn.prepare("select $1::int8 * 2")
        for i in range(7):  # five custom plans, then the generic one
            await st.fetchval(i)
        await conn.prepare("select 42")
        await conn.execute("create temp table ps_many (a int)")
        ins = await conn.prepare("insert into ps_many values ($1)")
        await ins.executemany([(i,) for i in range(8)])  # NB: pipelined: held, one write
        await ins.executemany([(i,) for i in range(3)])
        rows = await conn.fetch(VIEW)
        # NB: by text, not name: asyncpg numbers its statements per process, so which of
        # the two names sorts first changes when the count gains a digit (stmt_f, stmt_10)
        seen.append(sorted((r[1], r[2], r[3], r[4], r[5], r[6]) for r in rows
                           if r[0].startswith("__asyncpg")))
        return seen
    finally:
        await conn.close()


def test_asyncpg_named_statements_match_pg15(pg15, cumulo_server):
    want = asyncio.run(_asyncpg_rows(pg15.dsn()))
    got = asyncio.run(_asyncpg_rows(cumulo_server.dsn()))
    assert got == want
    assert ("select $1::int8 * 2", False, ["bigint"], 2, 5, True) in want[0]
    assert ("insert into ps_many values ($1)", False, ["integer"], 6, 5, True) in want[0]


def _psycopg_failed_block(dsn: str) -> list[tuple]:
    seen: list[tuple] = []
    with psycopg.connect(dsn) as c:
        try:
            c.execute("select * from missing_fb")
        except psycopg.Error as e:
            seen.append(("first", e.sqlstate))
        for q, args in (("select %s::int", (1,)), ("select * from missing_fb2 where a = %s", (1,))):
            try:  # NB: psycopg sends Parse, Bind, Describe, Execute, Sync: PG fails the Parse
                c.execute(q, args)
            except psycopg.Error as e:
                seen.append((q, e.sqlstate, e.diag.message_primary))
        c.rollback()
        seen.append(c.execute("select %s::int + 1", (1,)).fetchone())
    return seen


async def _asyncpg_failed_block(dsn: str) -> list[tuple]:
    conn = await asyncpg.connect(dsn)
    seen: list[tuple] = []
    try:
        st = await conn.prepare("select $1::int * 3")
        tr = conn.transaction()
        await tr.start()
        try:
            await conn.execute("select * from missing_fb")
        except asyncpg.PostgresError as e:
            seen.append(("first", e.sqlstate))
        for step in ("prepare", "bind", "fetch"):
            try:  # its prepare is Parse, Describe, Sync: PG fails it at the Parse
                if step == "prepare":
                    await conn.prepare("select $1::int * 2")
                elif step == "bind":
                    await st.fetchval(1)
                else:
                    await conn.fetchval("select $1::text", "x")
            except asyncpg.PostgresError as e:
                seen.append((step, e.sqlstate, type(e).__name__))
        await tr.rollback()
        seen.append(("after", await st.fetchval(2)))
        return seen
    finally:
        await conn.close()


def test_a_failed_block_refuses_new_statements_at_parse_as_pg15(pg15, cumulo_server):
    want = _psycopg_failed_block(pg15.dsn())
    assert want[1][1] == want[2][1] == "25P02"  # NB: not 42P01: the text is never analysed
    assert _psycopg_failed_block(cumulo_server.dsn()) == want
    want = asyncio.run(_asyncpg_failed_block(pg15.dsn()))
    assert [s[1] for s in want[1:4]] == ["25P02"] * 3
    assert asyncio.run(_asyncpg_failed_block(cumulo_server.dsn())) == want


# -- Cached plans across another session's DDL, through psycopg and asyncpg, against PostgreSQL 15.
#
# A DDL commit drops only the plans that could see what it changed (`plan.deps`); these
# check that the plans it must drop are dropped, with PostgreSQL's outcomes: an unrelated
# view created and dropped, an index dropped, a column added (0A000 for a `SELECT *`
# statement whose row shape changed), a table dropped and made again under the same name,
# a GRANT and a REVOKE, and a table that shadows another in an earlier search_path schema
# (outside prepared statements: PostgreSQL does not replan those for a new table).

SETUP = ("create table pi_t (id int primary key, a int)", "insert into pi_t values (1, 10), (2, 20)",
         "create index pi_t_a on pi_t (a)", "create schema pi_s",
         "drop role if exists pi_reader", "create role pi_reader")
STAR, BY_ID = "select * from pi_t where a = %s", "select a from pi_t where id = %s"
DDL = ("create view pi_v as select 1 as x", "drop view pi_v", "drop index pi_t_a",
       "grant select on pi_t to pi_reader", "revoke select on pi_t from pi_reader",
       "alter table pi_t add column b int default 7",
       "drop table pi_t; create table pi_t (id int primary key, a int); "
       "insert into pi_t values (1, 111)")


def _outcome(c: psycopg.Connection, sql: str, arg: int) -> tuple:
    try:
        return ("ok", c.execute(sql, (arg,), prepare=True).fetchall())
    except psycopg.Error as e:
        return (e.sqlstate, e.diag.message_primary)


def _psycopg(dsn: str) -> list[tuple]:
    seen = []
    with psycopg.connect(dsn, autocommit=True) as ddl, psycopg.connect(dsn, autocommit=True) as c:
        for sql in SETUP:
            ddl.execute(sql)

        def both() -> None:
            for sql, arg in ((STAR, 10), (BY_ID, 1)):
                seen.append((sql, _outcome(c, sql, arg)))

        both()
        for sql in DDL:
            ddl.execute(sql)
            if "pi_reader" in sql:
                c.execute("set role pi_reader")
            seen.append((sql,))
            both()
            c.execute("reset role")
        c.execute("set search_path = pi_s, public")
        text = "select a from pi_t where id = 1"
        seen.append(("search_path", c.execute(text, prepare=False).fetchall()))
        ddl.execute("create table pi_s.pi_t (id int, a int); insert into pi_s.pi_t values (1, 5)")
        seen.append(("shadowed", c.execute(text, prepare=False).fetchall()))
        ddl.execute("drop table pi_t; drop owned by pi_reader; drop role pi_reader")
    return seen


async def _asyncpg(dsn: str) -> list[tuple]:
    seen: list[tuple] = []
    ddl, c = await asyncpg.connect(dsn), await asyncpg.connect(dsn)
    try:
        await ddl.execute("create table pi_a (id int primary key, a int); create index pi_a_a on "
                          "pi_a (a); insert into pi_a values (1, 10)")
        for sql in (None, "create view pi_av as select 2 as y", "drop view pi_av",
                    "drop index pi_a_a", "alter table pi_a add column c text",
                    "drop table pi_a; create table pi_a (id int primary key, a int); "
                    "insert into pi_a values (1, 42)"):
            if sql is not None:
                await ddl.execute(sql)
            for q in ("select a from pi_a where id = $1", "select * from pi_a where a >= $1"):
                try:
                    seen.append((sql, q, [tuple(r) for r in await c.fetch(q, 1)]))
                except asyncpg.PostgresError as e:
                    seen.append((sql, q, e.sqlstate))
        await ddl.execute("drop table pi_a")
    finally:
        await c.close()
        await ddl.close()
    return seen


def test_psycopg_prepared_statements_replan_as_pg15(pg15, cumulo_server):
    pg, cu = fresh_databases(pg15, cumulo_server, "plan_inval")
    assert_same(_psycopg(pg), _psycopg(cu))


def test_asyncpg_statement_cache_replans_as_pg15(pg15, cumulo_server):
    pg, cu = fresh_databases(pg15, cumulo_server, "plan_inval_a")
    assert_same(asyncio.run(_asyncpg(pg)), asyncio.run(_asyncpg(cu)))


def _error(fn) -> tuple:  # type: ignore[no-untyped-def]
    try:
        fn()
    except psycopg.Error as e:
        return (e.sqlstate, e.diag.message_primary, e.diag.statement_position)
    return ("no error",)


def _empty_named_cursor(dsn: str) -> list:
    out = []
    with psycopg.connect(dsn) as c:
        cur = c.cursor("c")
        out.append(_error(lambda: cur.execute("")))
        c.rollback()
        out.append(_error(lambda: c.execute("declare d cursor for")))
    return out


async def _asyncpg_empty_declare(dsn: str) -> tuple:
    conn = await asyncpg.connect(dsn)
    try:
        async with conn.transaction():
            await conn.execute('declare "c" cursor for ')
    except asyncpg.PostgresError as e:
        return (e.sqlstate, str(e), e.position)
    finally:
        await conn.close()
    return ("no error",)


def test_named_cursor_of_an_empty_query_is_a_syntax_error(pg15, cumulo_server):
    want = _empty_named_cursor(pg15.dsn())
    assert want[0][0] == "42601"
    assert _empty_named_cursor(cumulo_server.dsn()) == want
    want = asyncio.run(_asyncpg_empty_declare(pg15.dsn()))
    assert asyncio.run(_asyncpg_empty_declare(cumulo_server.dsn())) == want


def _close_declared(dsn: str) -> list:
    pgc = pq.PGconn.connect(dsn.encode())
    try:
        pgc.exec_(b"begin; declare cur cursor for select * from generate_series(1, 3) foo")
        before = pgc.describe_portal(b"cur")
        closed = pgc.close_portal(b"cur")
        after = pgc.describe_portal(b"cur")
        fetch = pgc.exec_(b"fetch 1 from cur")
        return [before.status, before.fname(0), closed.status, after.status,
                after.error_field(pq.DiagnosticField.SQLSTATE), fetch.status]
    finally:
        pgc.finish()


@pytest.mark.skipif(pq.version() < 170000, reason="PQclosePortal needs libpq 17")
def test_close_portal_closes_a_declared_cursor(pg15, cumulo_server):
    want = _close_declared(pg15.dsn())
    assert want[3] == pq.ExecStatus.FATAL_ERROR
    assert _close_declared(cumulo_server.dsn()) == want


def _isolation_psycopg(dsn: str) -> list:
    out = []
    with psycopg.connect(dsn) as c:
        c.isolation_level = psycopg.IsolationLevel.READ_UNCOMMITTED
        out.append(c.execute("select current_setting('transaction_isolation')").fetchone())
        out.append(c.execute("show transaction_isolation").fetchone())
        c.rollback()
        c.autocommit = True
        c.execute("begin isolation level read uncommitted")
        out.append(c.execute("select current_setting('transaction_isolation')").fetchone())
        c.execute("commit")
    return out


async def _isolation_asyncpg(dsn: str) -> list:
    conn = await asyncpg.connect(dsn)
    try:
        async with conn.transaction(isolation="read_uncommitted"):
            return [await conn.fetchval("select current_setting('transaction_isolation')")]
    finally:
        await conn.close()


def test_read_uncommitted_is_reported_as_set(pg15, cumulo_server):
    want = _isolation_psycopg(pg15.dsn())
    assert want[0] == ("read uncommitted",)
    assert _isolation_psycopg(cumulo_server.dsn()) == want
    want = asyncio.run(_isolation_asyncpg(pg15.dsn()))
    assert asyncio.run(_isolation_asyncpg(cumulo_server.dsn())) == want


COPY_FAILS = [(b"", "text"), (b"1\tx\n2\ty\n", "text"), (b"1\tx\n2\ty", "text"),
              (b"a,b\n1,x\n", "csv, header true"), (b"PGCOPY\n\xff\r\n\x00" + b"\x00" * 8, "binary")]


def _copy_fails(dsn: str) -> list:
    pgc = pq.PGconn.connect(dsn.encode())
    out = []
    try:
        pgc.exec_(b"create temp table ci (a int, b text)")
        for data, fmt in COPY_FAILS:
            pgc.exec_(f"copy ci from stdin (format {fmt})".encode())
            if data:
                pgc.put_copy_data(data)
            pgc.put_copy_end(b"boom")
            res = pgc.get_result()
            out.append([res.error_field(f) for f in (pq.DiagnosticField.SQLSTATE,
                        pq.DiagnosticField.MESSAGE_PRIMARY, pq.DiagnosticField.CONTEXT)])
            while pgc.get_result() is not None:
                pass
    finally:
        pgc.finish()
    return out


def test_copy_fail_names_the_line(pg15, cumulo_server):
    want = _copy_fails(pg15.dsn())
    assert want[1] == [b"57014", b"COPY from stdin failed: boom", b"COPY ci, line 3"]
    assert _copy_fails(cumulo_server.dsn()) == want


def _bind_contexts(dsn: str) -> list:
    """A Bind value the parameter's type rejects: its CONTEXT quotes the value, cut to
    log_parameter_max_length_on_error bytes (default 0: just `...`); a binary one is not
    quoted. Through libpq (psycopg's pq) so that the formats are the test's own."""
    pgc = pq.PGconn.connect(dsn.encode())
    out = []
    try:
        for setting in ("", "-1", "5", "'1kB'", "3"):
            if setting:
                pgc.exec_(f"set log_parameter_max_length_on_error = {setting}".encode())
                out.append(pgc.exec_(b"show log_parameter_max_length_on_error").get_value(0, 0))
            for value, fmt in ((b"abcd'fghij", 0), ("h\u00e9llo".encode(), 0), (b"\x00\x01", 1)):
                res = pgc.exec_params(b"select $1::int", [value], [23], [fmt])
                out.append([res.error_field(f) for f in (pq.DiagnosticField.SQLSTATE,
                                                          pq.DiagnosticField.CONTEXT)])
        res = pgc.exec_(b"set log_parameter_max_length_on_error = -2")
        out.append([res.error_field(pq.DiagnosticField.SQLSTATE), res.error_message])
    finally:
        pgc.finish()
    return out


def test_a_bad_bind_value_is_quoted_in_context_as_pg15(pg15, cumulo_server):
    want = _bind_contexts(pg15.dsn())
    assert want[1] == [b"22P02", b"unnamed portal parameter $1 = '...'"]
    assert _bind_contexts(cumulo_server.dsn()) == want


def _names(res: pq.PGresult) -> list[tuple[str, int]]:
    return [(res.fname(i).decode(), res.ftype(i)) for i in range(res.nfields)]


def _refetch(dsn: str) -> list:
    out: list = []
    pgc = pq.PGconn.connect(dsn.encode())
    try:
        pgc.exec_(b"begin")
        out.append(_names(pgc.prepare(b"early", b"fetch 1 from c")))  # no cursor yet
        out.append(_names(pgc.describe_prepared(b"early")))  # NoData
        pgc.exec_(b"declare c cursor for select 1 as a")
        pgc.prepare(b"f", b"fetch 1 from c")
        pgc.prepare(b"m", b"move 1 in c")
        for res in (pgc.describe_prepared(b"f"), pgc.exec_prepared(b"f", []),
                    pgc.describe_prepared(b"m"), pgc.exec_prepared(b"m", [])):
            out.append((_names(res), res.command_status))
        pgc.exec_(b"close c")
        pgc.exec_(b"declare c cursor for select 'x'::text as b, 2 as z, 1 as a")
        res = pgc.exec_prepared(b"f", [])  # Bind, Describe('P'), Execute
        out.append((_names(res), [res.get_value(0, i) for i in range(res.nfields)]))
        out.append(_names(pgc.describe_portal(b"")))
        out.append(_names(pgc.describe_prepared(b"f")))  # still Parse's columns
        pgc.exec_(b"close c")
        res = pgc.exec_prepared(b"f", [])
        out.append(res.error_field(pq.DiagnosticField.SQLSTATE))
    finally:
        pgc.finish()
    with psycopg.connect(dsn, autocommit=True, prepare_threshold=0) as c, c.transaction():
        c.execute("declare c cursor for select 1 as a")
        out.append(c.execute("fetch 1 from c").fetchall())
        c.execute("close c")
        c.execute("declare c cursor for select 'x'::text as b, 2 as z")
        cur = c.execute("fetch 1 from c")
        out.append(([d.name for d in cur.description or []], cur.fetchall()))
    return out


def test_a_prepared_fetch_describes_the_cursor_declared_again_as_pg15(pg15, cumulo_server):
    # NB: not Describe('S') of it after the cursor is closed: PostgreSQL 15 crashes there
    want = _refetch(pg15.dsn())
    assert want[-1] == (["b", "z"], [("x", 2)])
    assert _refetch(cumulo_server.dsn()) == want
