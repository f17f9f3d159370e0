"""The asyncio API (`cumulo.driver.aio`, asyncpg style) against each target.

Each test is a plain function running one coroutine with `asyncio.run`, so no
pytest plugin is needed. Round trips are checked through the session's
message counters (`conn.session.stats`), which count what actually went
out on the socket: one Sync for a whole executemany, no second Parse for a
cached statement, several Executes for a streamed cursor.
"""

from __future__ import annotations

import asyncio
import datetime
import decimal
import io
import uuid

import pytest

from cumulo.driver import aio
from cumulo.driver import errors as drv_errors

# With $1 = 20000, runs for minutes unless cancelled.
LONG_QUERY = "select count(*) from generate_series(1, $1::int) a, generate_series(1, $1::int) b"


def arun(coro):
    return asyncio.run(coro)


def test_connect_execute_and_tags(target, table):
    async def main():
        conn = await aio.connect(target.dsn())
        try:
            assert not conn.is_closed() and conn.get_server_pid() != 0
            assert "server_version" in conn.get_settings()
            assert await conn.execute(f"create table {table} (id int primary key, v text)") \
                == "CREATE TABLE"
            assert await conn.execute(f"insert into {table} values ($1, $2)", 1, "a") \
                == "INSERT 0 1"
            # Several statements without arguments go as one simple query: last tag wins.
            tag = await conn.execute(f"insert into {table} values (2, 'b'); "
                                     f"update {table} set v = v || '!'")
            assert tag == "UPDATE 2"
            assert await conn.fetch(f"select id, v from {table} order by id") == \
                [(1, "a!"), (2, "b!")]
        finally:
            await conn.close()
        assert conn.is_closed()
        await conn.close()  # twice is harmless
        with pytest.raises(drv_errors.InterfaceError):
            await conn.fetchval("select 1")

    arun(main())


def test_fetch_fetchrow_fetchval_and_records(target):
    async def main():
        async with await aio.connect(target.dsn()) as conn:
            rows = await conn.fetch("select g as n, g * 2 as twice from generate_series(1, $1) g",
                                    3)
            assert len(rows) == 3
            r = rows[1]
            assert r[0] == 2 and r["twice"] == 4 and r.get("n") == 2 and r.get("zz", 9) == 9
            assert list(r.keys()) == ["n", "twice"] and list(r.values()) == [2, 4]
            assert dict(r.items()) == {"n": 2, "twice": 4} and len(r) == 2
            assert tuple(r) == (2, 4) and r == (2, 4) and r[0:1] == (2,)
            with pytest.raises(KeyError):
                r["missing"]
            row = await conn.fetchrow("select 'x' as a, 1 as b")
            assert row["a"] == "x" and row["b"] == 1
            assert await conn.fetchrow("select 1 where false") is None
            assert await conn.fetchval("select 1, 'two'", column=1) == "two"
            assert await conn.fetchval("select 1 where false") is None
            assert await conn.fetch("select 1 where false") == []

    arun(main())


def test_executemany_is_one_pipeline(target, table):
    async def main():
        async with await aio.connect(target.dsn()) as conn:
            await conn.execute(f"create table {table} (id int primary key, v text, d numeric)")
            before = dict(conn.session.stats)
            rows = [(i, None if i % 3 == 0 else f"v{i}", decimal.Decimal(i) / 4)
                    for i in range(500)]
            await conn.executemany(f"insert into {table} values ($1, $2, $3)", rows)
            stats = conn.session.stats
            # Two round trips: Parse+Describe, then 500 Bind+Execute with a single Sync.
            assert stats["ready"] - before.get("ready", 0) == 2
            assert stats["execute"] - before.get("execute", 0) == 500
            got = await conn.fetch(f"select id, v, d from {table} order by id")
            assert [tuple(r) for r in got] == rows
            # A failing row fails the whole batch: autocommit here is one implicit transaction.
            with pytest.raises(drv_errors.IntegrityError) as ei:
                await conn.executemany(f"insert into {table} values ($1, $2, $3)",
                                       [(1000, "a", 1), (1, "dup", 1)])
            assert ei.value.sqlstate == "23505"
            assert await conn.fetchval(f"select count(*) from {table}") == 500

    arun(main())


def test_statement_cache_reuses_prepared_statements(target):
    async def main():
        async with await aio.connect(target.dsn()) as conn:
            q = "select $1::int + 1"
            assert await conn.fetchval(q, 1) == 2
            parses = conn.session.stats["parse"]
            for i in range(5):
                assert await conn.fetchval(q, i) == i + 1
            assert conn.session.stats["parse"] == parses
        async with await aio.connect(target.dsn(statement_cache_size=0)) as conn:
            for i in range(3):
                assert await conn.fetchval("select $1::int", i) == i
            assert conn.session.stats["parse"] == 3  # unnamed statements, parsed every time

    arun(main())


def test_prepared_statement(target, table):
    async def main():
        async with await aio.connect(target.dsn()) as conn:
            await conn.execute(f"create table {table} (id int, v text)")
            ins = await conn.prepare(f"insert into {table} values ($1, $2)")
            assert ins.get_parameters() == (23, 25)
            assert ins.get_attributes() == []
            await ins.executemany([(i, str(i)) for i in range(10)])
            sel = await conn.prepare(f"select id, v from {table} where id >= $1 order by id")
            assert sel.get_attributes() == [("id", 23), ("v", 25)]
            assert [tuple(r) for r in await sel.fetch(8)] == [(8, "8"), (9, "9")]
            assert (await sel.fetchrow(3))["v"] == "3"
            assert await sel.fetchval(5, column=1) == "5"
            assert await sel.fetchrow(100) is None

    arun(main())


def test_transaction_context(target, table):
    async def main():
        async with await aio.connect(target.dsn()) as conn, \
                await aio.connect(target.dsn()) as other:
            await conn.execute(f"create table {table} (id int)")
            async with conn.transaction():
                assert conn.is_in_transaction()
                await conn.execute(f"insert into {table} values (1)")
                assert await other.fetchval(f"select count(*) from {table}") == 0
                async with conn.transaction():  # nested: a savepoint
                    await conn.execute(f"insert into {table} values (2)")
                with pytest.raises(ZeroDivisionError):
                    async with conn.transaction():
                        await conn.execute(f"insert into {table} values (3)")
                        1 / 0  # noqa: B018
                assert conn.is_in_transaction()
            assert not conn.is_in_transaction()
            assert sorted(r[0] for r in await other.fetch(f"select id from {table}")) == [1, 2]
            with pytest.raises(RuntimeError):
                async with conn.transaction():
                    await conn.execute(f"insert into {table} values (4)")
                    raise RuntimeError
            assert await conn.fetchval(f"select count(*) from {table}") == 2
            # An error inside the block rolls back and leaves the connection usable.
            with pytest.raises(drv_errors.ProgrammingError):
                async with conn.transaction():
                    await conn.execute(f"insert into {table} values (5)")
                    await conn.execute("select * from no_such_table_at_all")
            assert not conn.is_in_transaction()
            assert await conn.fetchval(f"select count(*) from {table}") == 2
            # Explicit start/commit, isolation level and read only.
            tx = conn.transaction(isolation="repeatable_read")
            await tx.start()
            assert await conn.fetchval("select current_setting('transaction_isolation')") \
                == "repeatable read"
            await tx.commit()
            with pytest.raises(drv_errors.InternalError) as ei:
                async with conn.transaction(readonly=True):
                    await conn.execute(f"insert into {table} values (6)")
            assert ei.value.sqlstate == "25006"

    arun(main())


def test_cursor_streams_through_a_portal(target):
    async def main():
        async with await aio.connect(target.dsn()) as conn:
            with pytest.raises(drv_errors.InterfaceError):
                async for _ in conn.cursor("select 1"):
                    pass
            async with conn.transaction():
                before = conn.session.stats["execute"]
                got = [r[0] async for r in conn.cursor(
                    "select g from generate_series(1, $1) g", 25, prefetch=10)]
                assert got == list(range(1, 26))
                # One Bind+Execute, then Execute(portal, 10) until the portal is drained.
                assert conn.session.stats["execute"] - before == 3
                # Breaking out early leaves the transaction usable.
                async for r in conn.cursor("select g from generate_series(1, 100) g",
                                           prefetch=5):
                    if r[0] == 7:
                        break
                assert await conn.fetchval("select 42") == 42

    arun(main())


def test_awaited_cursor_fetches_by_hand(target):
    async def main():
        async with await aio.connect(target.dsn()) as conn:
            async with conn.transaction():
                cur = await conn.cursor("select g, g::text as t from generate_series(1, $1) g",
                                        20)
                assert [tuple(r) for r in await cur.fetch(3)] == [(1, "1"), (2, "2"), (3, "3")]
                assert (await cur.fetchrow())["t"] == "4"
                assert await cur.forward(10) == 10
                rest = await cur.fetch(100)
                assert [r[0] for r in rest] == [15, 16, 17, 18, 19, 20]
                assert await cur.fetch(5) == [] and await cur.fetchrow() is None
                with pytest.raises(drv_errors.InterfaceError):
                    await cur.fetch(0)
                # Two cursors interleave on one connection (two portals).
                a = await conn.cursor("select g from generate_series(1, 5) g")
                b = await conn.cursor("select -g from generate_series(1, 5) g")
                got = []
                for _ in range(3):
                    got += [(await a.fetchrow())[0], (await b.fetchrow())[0]]
                assert got == [1, -1, 2, -2, 3, -3]
                await a.close()
                await b.close()
                assert await conn.fetchval("select 1") == 1

    arun(main())


def test_timeout_cancels_the_statement_and_keeps_the_connection(target):
    async def main():
        async with await aio.create_pool(target.dsn(), min_size=1, max_size=1) as pool:
            async with pool.acquire() as conn:
                pid = conn.get_server_pid()
                with pytest.raises(TimeoutError):
                    await asyncio.wait_for(conn.fetchval(LONG_QUERY, 20000), 1.0)
                # The driver cancelled the statement on the server and read its reply.
                assert not conn.is_closed() and not conn.is_in_transaction()
                assert await conn.fetchval("select 2") == 2
            async with pool.acquire() as conn:
                assert conn.get_server_pid() == pid
                assert await conn.fetchval(LONG_QUERY, 3) == 9  # now prepared and cached
                async with conn.transaction():
                    with pytest.raises(TimeoutError):
                        await asyncio.wait_for(conn.fetchval(LONG_QUERY, 20000), 1.0)
                    assert conn.session.status == "E"  # the transaction failed with it
                assert await conn.fetchval("select 3") == 3

    arun(main())


def test_cached_statements_after_ddl(target, table):
    async def main():
        async with await aio.connect(target.dsn()) as conn, \
                await aio.connect(target.dsn()) as other:
            await conn.execute(f"create table {table} (a int)")
            await conn.execute(f"insert into {table} values (1)")
            ps = await conn.prepare(f"select a from {table} where a = $1")
            assert await conn.fetch(f"select * from {table}") == [(1,)]
            await other.execute(f"alter table {table} add column b text default 'z'")
            # Changed by another session: 0A000 from the server, prepared again here.
            assert await conn.fetch(f"select * from {table}") == [(1, "z")]
            await conn.execute(f"alter table {table} add column c int default 7")
            assert await conn.fetch(f"select * from {table}") == [(1, "z", 7)]
            # An explicit prepared statement is not the cache's to close.
            assert await ps.fetchval(1) == 1
            conn.json_loads = lambda text: text.upper()
            assert await conn.fetchval("""select '{"k": "v"}'::jsonb""") == '{"K": "V"}'

    arun(main())


def test_finished_cursors_do_not_block_ddl(target, table):
    async def main():
        async with await aio.connect(target.dsn()) as conn:
            await conn.execute(f"create table {table} (id int)")
            async with conn.transaction():
                assert [r[0] async for r in conn.cursor(f"select id from {table}")] == []
                cur = await conn.cursor(f"select id from {table}")
                assert await cur.fetch(5) == []
                await conn.execute(f"drop table {table}")  # no portal keeps it in use

    arun(main())


def test_errors_carry_sqlstate_detail_and_hint(target, table):
    async def main():
        async with await aio.connect(target.dsn()) as conn:
            with pytest.raises(drv_errors.ProgrammingError) as ei:
                await conn.execute("selec 1")
            assert ei.value.sqlstate == "42601"
            with pytest.raises(drv_errors.DataError) as ei:
                await conn.fetchval("select 1 / $1::int", 0)
            assert ei.value.sqlstate == "22012"
            await conn.execute(f"create table {table} (id int primary key)")
            await conn.execute(f"insert into {table} values (1)")
            with pytest.raises(drv_errors.IntegrityError) as ei:
                await conn.execute(f"insert into {table} values (1)")
            assert ei.value.sqlstate == "23505"
            assert ei.value.detail == "Key (id)=(1) already exists."
            with pytest.raises(drv_errors.ProgrammingError) as ei:
                await conn.fetchval("select no_such_function_xyz(1)")
            assert ei.value.sqlstate == "42883"
            assert ei.value.hint.startswith("No function matches the given name")
            assert await conn.fetchval("select 1") == 1  # still usable

    arun(main())


def test_type_round_trips(target):
    values = [
        (1, "int4"), (2**40, "int8"), (decimal.Decimal("12.345"), "numeric"),
        (1.5, "float8"), ("héllo", "text"), (b"\x00\xff", "bytea"), (True, "bool"),
        (datetime.date(2024, 2, 29), "date"), (datetime.time(12, 34, 56, 789), "time"),
        (datetime.datetime(2024, 1, 2, 3, 4, 5, 6), "timestamp"),
        (datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.UTC), "timestamptz"),
        (datetime.timedelta(days=3, seconds=7, microseconds=5), "interval"),
        (uuid.UUID("12345678-1234-5678-1234-567812345678"), "uuid"),
        ({"a": [1, 2], "b": None}, "jsonb"), ([1, 2, None], "int4[]"), (["a", "b"], "text[]"),
    ]

    async def main():
        async with await aio.connect(target.dsn()) as conn:
            for value, typ in values:
                got = await conn.fetchval(f"select $1::{typ}", value)
                assert got == value and type(got) is type(value), (typ, got)

    arun(main())


def test_copy_to_and_from(target, table):
    async def main():
        async with await aio.connect(target.dsn()) as conn:
            await conn.execute(f"create table {table} (id int, v text)")
            tag = await conn.copy_from(f"copy {table} from stdin",
                                       io.BytesIO(b"1\ta\n2\tb\n").read)
            assert tag == "COPY 2"
            out = io.BytesIO()
            assert await conn.copy_to(f"copy {table} to stdout", out.write) == "COPY 2"
            assert sorted(out.getvalue().splitlines()) == [b"1\ta", b"2\tb"]

    arun(main())


def test_copy_records_to_table(target, table):
    async def main():
        async with await aio.connect(target.dsn()) as conn:
            await conn.execute(f"create table {table} (id int, v text, d date)")
            rows = [(i, None if i % 5 == 0 else f"v\t{i}", datetime.date(2021, 1, 1))
                    for i in range(200)]
            assert await conn.copy_records_to_table(table, records=rows) == "COPY 200"
            assert await conn.copy_records_to_table(
                table, records=[(7,)], columns=["id"], schema_name="public") == "COPY 1"
            got = await conn.fetch(f"select id, v, d from {table} order by id, v nulls last")
            assert [tuple(r) for r in got if r["d"] is not None] == rows
            assert await conn.fetchval(f"select count(*) from {table} where d is null") == 1

    arun(main())


def test_pool(target, table):
    async def main():
        async with await aio.create_pool(target.dsn(), min_size=1, max_size=3) as pool:
            assert pool.get_size() == 1 and pool.get_idle_size() == 1
            await pool.execute(f"create table {table} (id int)")
            vals = await asyncio.gather(*(pool.fetchval("select $1::int * 2", i)
                                          for i in range(12)))
            assert vals == [i * 2 for i in range(12)]
            assert pool.get_size() <= 3
            # Every connection in use: the fourth acquire waits for a release.
            async with pool.acquire() as a, pool.acquire() as b, pool.acquire() as c:
                assert len({a.get_server_pid(), b.get_server_pid(), c.get_server_pid()}) == 3
                waiter = asyncio.ensure_future(pool.fetchval("select 7"))
                await asyncio.sleep(0.05)
                assert not waiter.done()
                await a.execute("set application_name = 'dirty'")
                await b.execute("begin")
                await b.execute(f"insert into {table} values (1)")  # forgotten transaction
            assert await waiter == 7
            assert pool.get_size() == 3
            # Released connections were reset: no leftover setting or transaction.
            for _ in range(3):
                async with pool.acquire() as conn:
                    assert not conn.is_in_transaction()
                    assert await conn.fetchval("select current_setting('application_name')") \
                        == "cumulo.driver"
            assert await pool.fetchval(f"select count(*) from {table}") == 0
            # A connection that breaks in use is dropped, and replaced on demand.
            async with pool.acquire() as conn:
                conn._abort()
            assert pool.get_size() == 2
            assert (await pool.fetch("select 1"))[0][0] == 1
            await pool.executemany(f"insert into {table} values ($1)", [(1,), (2,)])
            assert (await pool.fetchrow(f"select count(*) as n from {table}"))["n"] == 2
            # With every connection busy, acquire(timeout=) gives up.
            async with pool.acquire(), pool.acquire(), pool.acquire():
                with pytest.raises(drv_errors.OperationalError):
                    async with pool.acquire(timeout=0.05):
                        pass
            await pool.execute(f"drop table {table}")
        with pytest.raises(drv_errors.InterfaceError):
            await pool.fetchval("select 1")

    arun(main())


def test_cancel(target):
    async def main():
        async with await aio.connect(target.dsn()) as conn:
            # A long query (pg_sleep is not cancellable on Cumulo yet: catalog finding).
            task = asyncio.ensure_future(conn.fetchval(LONG_QUERY, 20000))
            while not task.done():  # a cancel that arrives before the query starts is a no-op
                await asyncio.sleep(0.2)
                await conn.cancel()
            with pytest.raises(drv_errors.OperationalError) as ei:
                await task
            assert ei.value.sqlstate == "57014"
            assert await conn.fetchval("select 1") == 1

    arun(main())


def test_show_through_extended_protocol(target):
    async def main():
        async with await aio.connect(target.dsn()) as conn:
            assert await conn.fetchval("show application_name") == "cumulo.driver"

    arun(main())


def test_listeners(target):
    async def main():
        async with await aio.connect(target.dsn()) as conn, \
                await aio.connect(target.dsn()) as other:
            got: list = []

            def on_note(c, pid, channel, payload):  # noqa: ANN001
                got.append((c is conn, pid, channel, payload))

            await conn.add_listener("drv_aio", on_note)
            await other.execute("notify drv_aio, 'one'")
            assert await conn.fetchval("select 5") == 5  # delivered by now, at the latest
            assert got == [(True, other.get_server_pid(), "drv_aio", "one")]
            await conn.remove_listener("drv_aio", on_note)
            await other.execute("notify drv_aio, 'two'")
            assert await conn.fetchval("select 6") == 6
            assert len(got) == 1

    arun(main())


def test_listener_called_while_idle(target):
    async def main():
        async with await aio.connect(target.dsn()) as conn, \
                await aio.connect(target.dsn()) as other:
            got: asyncio.Queue = asyncio.Queue()
            await conn.add_listener("drv_idle", lambda *note: got.put_nowait(note[1:]))
            # No call runs on conn: the driver's idle reader picks the notification up.
            await other.execute("notify drv_idle, 'one'")
            note = await asyncio.wait_for(got.get(), 3)
            assert note == (other.get_server_pid(), "drv_idle", "one")
            assert await conn.fetchval("select 5") == 5

    arun(main())


def test_listener_gets_notification_sent_with_the_listen_reply(target):
    async def main():
        async with await aio.connect(target.dsn()) as conn:
            execute = conn.execute

            async def listen_and_notify(sql, *args):
                # The notification comes back before the LISTEN's own ReadyForQuery.
                return await execute(sql + "; notify drv_early, 'early'", *args)

            conn.execute = listen_and_notify
            got: asyncio.Queue = asyncio.Queue()
            await conn.add_listener("drv_early", lambda *note: got.put_nowait(note[2:]))
            conn.execute = execute
            assert await asyncio.wait_for(got.get(), 3) == ("drv_early", "early")

    arun(main())
