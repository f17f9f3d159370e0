"""asyncpg against a real `cumulo serve`: binary everything, introspection, COPY, pools.

asyncpg asks for binary results and sends binary parameters for every type,
prepares with `Parse/Describe/Flush` (no Sync), fetches rows through
`Execute(maxrows)` + PortalSuspended, introspects unknown and array types with
a WITH RECURSIVE query over pg_type/pg_range taking a binary `oid[]`
parameter, copies records in binary COPY format, and resets pooled
connections with `pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *; RESET ALL`.
"""

from __future__ import annotations

import asyncio
import json

import asyncpg
import pytest
from asyncpg.introspection import INTRO_LOOKUP_TYPES_13

from tests.clients import types_matrix as M


@pytest.fixture(scope="module")
def connect(cumulo_server, client_db):
    def connect(**kw):
        return asyncpg.connect(host="127.0.0.1", port=cumulo_server.port, user="cumulo",
                               database=client_db, **kw)
    connect.dsn = cumulo_server.dsn(dbname=client_db)
    return connect


def run(coro):
    return asyncio.run(coro)


def _adapt(case: M.TypeCase):
    if case.sql_type == '"char"':
        return case.value.encode()
    return json.dumps(case.value) if case.sql_type in ("json", "jsonb") else case.value


async def _round_trip(conn, table: str, cases) -> None:
    await conn.execute(f"drop table if exists {table}")
    await conn.execute(M.create_sql(table, cases))
    marks = ", ".join(f"${i + 1}" for i in range(len(cases)))
    await conn.execute(f"insert into {table} (id, {M.columns(cases)}) values (1, {marks})",
                       *[_adapt(c) for c in cases])
    row = await conn.fetchrow(f"select {M.columns(cases)} from {table}")
    M.check_row(tuple(row), cases)
    for case in cases:
        got = await conn.fetchval(f"select $1::{case.sql_type}", _adapt(case))
        assert M.normalise(case, got) == case.value, case.column


def test_binary_round_trip_of_every_type(connect):
    async def main():
        conn = await connect()
        try:
            await _round_trip(conn, "ap_types", M.working("asyncpg"))
        finally:
            await conn.close()
    run(main())


def test_type_introspection_and_custom_codec(connect):
    async def main():
        conn = await connect()
        try:
            # Arrays are not built in: asyncpg runs its WITH RECURSIVE introspection query
            # with a binary oid[] parameter the first time it meets each array type.
            got = await conn.fetchval("select array[array[1, 2], array[3, null]]::int8[]")
            assert got == [[1, 2], [3, None]]
            assert await conn.fetchval("select $1::varchar[]", ["a", None]) == ["a", None]
            assert await conn.fetchval("select $1::uuid[]", []) == []
            # set_type_codec looks the type up by name, then introspects it by OID.
            await conn.set_type_codec("json", encoder=json.dumps, decoder=json.loads,
                                      schema="pg_catalog")
            assert await conn.fetchval("select $1::json", {"a": [1]}) == {"a": [1]}
            await conn.set_type_codec("numeric", encoder=str, decoder=lambda s: f"N{s}",
                                      schema="pg_catalog", format="text")
            assert await conn.fetchval("select 1.50::numeric") == "N1.50"
            assert await conn.fetchval("select current_setting('jit')") in ("on", "off")
        finally:
            await conn.close()
    run(main())


def test_introspection_query_directly(connect):
    """asyncpg's own introspection query gives PostgreSQL 15's rows (recorded from it)."""
    def row(oid, name, kind, elem, delim, rng, depth, elem_name, rng_name):
        return (oid, "pg_catalog", name, kind, None, elem, delim, rng, None, None, depth, None,
                elem_name, rng_name)

    expected = {
        row(1043, "varchar", b"b", 0, None, None, 1, "-", None),
        row(23, "int4", b"b", 0, None, None, 1, "-", None),
        row(3904, "int4range", b"r", 0, None, 23, 0, "-", "integer"),
        row(1007, "_int4", b"b", 23, b",", None, 0, "integer", None),
        row(3802, "jsonb", b"b", 0, None, None, 0, "-", None),
        row(1015, "_varchar", b"b", 1043, b",", None, 0, "character varying", None),
    }

    async def main():
        conn = await connect()
        try:
            rows = await conn.fetch(INTRO_LOOKUP_TYPES_13, [1007, 3904, 3802, 1015])
            assert [r["depth"] for r in rows] == [1, 1, 0, 0, 0, 0]
            assert {tuple(r) for r in rows} == expected
        finally:
            await conn.close()
    run(main())


def test_prepared_statements_and_fetchrow(connect):
    async def main():
        conn = await connect()
        try:
            await conn.execute("drop table if exists ap_prep")
            await conn.execute("create table ap_prep (id int primary key, v text, n numeric)")
            await conn.executemany("insert into ap_prep values ($1, $2, $3)",
                                   [(i, f"v{i}", i * 1.25) for i in range(100)])
            stmt = await conn.prepare("select v, n from ap_prep where id >= $1 order by id")
            assert [a.name for a in stmt.get_attributes()] == ["v", "n"]
            assert [t.name for t in stmt.get_parameters()] == ["int4"]
            row = await stmt.fetchrow(42)
            assert (row["v"], str(row["n"])) == ("v42", "52.5")
            assert len(await stmt.fetch(90)) == 10
            assert await stmt.fetchval(99) == "v99"
            assert await conn.fetchval("select count(*) from ap_prep") == 100
            status = await conn.execute("update ap_prep set v = $1 where id < $2", "x", 10)
            assert status == "UPDATE 10"
        finally:
            await conn.close()
    run(main())


def test_cursors_fetch_in_batches(connect):
    async def main():
        conn = await connect()
        try:
            await conn.execute("drop table if exists ap_cur")
            await conn.execute("create table ap_cur (id int primary key)")
            await conn.execute("insert into ap_cur select g from generate_series(1, 1000) g")
            async with conn.transaction():
                seen = [r["id"] async for r in conn.cursor(
                    "select id from ap_cur where id > $1 order by id", 500, prefetch=64)]
                assert seen == list(range(501, 1001))
                cur = await conn.cursor("select id from ap_cur order by id")
                assert [r[0] for r in await cur.fetch(3)] == [1, 2, 3]
                assert (await cur.fetchrow())[0] == 4
        finally:
            await conn.close()
    run(main())


def test_cursor_forward_moves_protocol_portal(connect):
    async def main():
        conn = await connect()
        try:
            async with conn.transaction():
                cur = await conn.cursor("select g from generate_series(1, 100) g")
                assert (await cur.fetchrow())[0] == 1
                assert await cur.forward(10) == 10
                assert (await cur.fetchrow())[0] == 12
        finally:
            await conn.close()
    run(main())


def test_copy_records_and_copy_out(connect, tmp_path):
    async def main():
        conn = await connect()
        try:
            await conn.execute("drop table if exists ap_copy")
            cases = M.working("asyncpg")
            await conn.execute(M.create_sql("ap_copy", cases))
            records = [(i, *[_adapt(c) for c in cases]) for i in range(1, 51)]
            status = await conn.copy_records_to_table(
                "ap_copy", records=records, columns=["id", *[c.column for c in cases]])
            assert status == "COPY 50"
            rows = await conn.fetch(f"select {M.columns(cases)} from ap_copy order by id")
            assert len(rows) == 50
            M.check_row(tuple(rows[-1]), cases)
            out = tmp_path / "out.csv"
            status = await conn.copy_from_query(
                "select id, c_text, c_int4arr from ap_copy where id <= $1 order by id", 2,
                output=str(out), format="csv")
            assert status == "COPY 2"
            text = next(c for c in cases if c.column == "c_text").value.replace('"', '""')
            assert out.read_text() == "".join(
                f'{i},"{text}","{{1,NULL,3}}"\n' for i in (1, 2))
        finally:
            await conn.close()
    run(main())


def test_transactions_and_serialization_retry(connect):
    async def main():
        a, b = await connect(), await connect()
        try:
            await a.execute("drop table if exists ap_ser")
            await a.execute("create table ap_ser (id int primary key, v int)")
            await a.execute("insert into ap_ser values (1, 0)")
            with pytest.raises(asyncpg.UniqueViolationError):
                async with a.transaction():
                    await a.execute("update ap_ser set v = 100")
                    await a.execute("insert into ap_ser values (1, 1)")
            assert await a.fetchval("select v from ap_ser") == 0
            attempts = 0
            while True:
                attempts += 1
                try:
                    async with a.transaction(isolation="repeatable_read"):
                        await a.fetchval("select v from ap_ser where id = 1")
                        if attempts == 1:
                            await b.execute("update ap_ser set v = v + 10 where id = 1")
                        await a.execute("update ap_ser set v = v + 1 where id = 1")
                    break
                except asyncpg.SerializationError as e:
                    assert e.sqlstate == "40001"
            assert attempts == 2
            assert await b.fetchval("select v from ap_ser") == 11
        finally:
            await a.close()
            await b.close()
    run(main())


def test_errors_carry_sqlstate(connect):
    async def main():
        conn = await connect()
        try:
            await conn.execute("create table if not exists ap_err (id int primary key)")
            cases = [("select * from ap_missing", asyncpg.UndefinedTableError),
                     ("selec 1", asyncpg.PostgresSyntaxError),
                     ("select nope from ap_err", asyncpg.UndefinedColumnError),
                     ("select no_such_fn(1)", asyncpg.UndefinedFunctionError),
                     ("select 'abc'::int", asyncpg.InvalidTextRepresentationError),
                     ("select 1 / 0", asyncpg.DivisionByZeroError)]
            for sql, exc in cases:
                with pytest.raises(exc):
                    await conn.fetch(sql)
            await conn.execute("insert into ap_err values (1)")
            with pytest.raises(asyncpg.UniqueViolationError) as e:
                await conn.execute("insert into ap_err values ($1)", 1)
            assert e.value.constraint_name == "ap_err_pkey"
            assert e.value.table_name == "ap_err"
        finally:
            await conn.close()
    run(main())


def test_timeout_sends_cancel_and_connection_survives(connect):
    async def main():
        conn = await connect()
        try:
            with pytest.raises(asyncio.TimeoutError):
                await conn.fetchval("select count(*) from generate_series(1, 1000000000000)",
                                    timeout=0.5)
            assert await conn.fetchval("select 7") == 7
            await conn.execute("set statement_timeout = 200")
            with pytest.raises(asyncpg.QueryCanceledError):
                await conn.fetchval("select count(*) from generate_series(1, 1000000000000)")
            assert await conn.fetchval("select 8") == 8
        finally:
            await conn.close()
    run(main())


def test_pool_reset_on_release(connect):
    async def main():
        pool = await asyncpg.create_pool(connect.dsn, min_size=1, max_size=1)
        try:
            async with pool.acquire() as c:
                pid = await c.fetchval("select pg_backend_pid()")
                await c.execute("set application_name = 'dirty'")
                assert await c.fetchval("select pg_try_advisory_lock(42)")
                await c.execute("begin; declare pc cursor with hold for select 1; commit")
            async with pool.acquire() as c:
                assert await c.fetchval("select pg_backend_pid()") == pid
                assert await c.fetchval("show application_name") == ""
                assert await c.fetchval("select count(*) from pg_locks "
                                        "where locktype = 'advisory'") == 0
                with pytest.raises(asyncpg.InvalidCursorNameError):
                    await c.execute("fetch 1 from pc")
        finally:
            await pool.close()
    run(main())
