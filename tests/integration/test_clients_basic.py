"""pg8000, asyncpg, psycopg2 and psql against a real `cumulo serve`: the day-one checks."""

from __future__ import annotations

import asyncio
import subprocess

import asyncpg
import pg8000.dbapi
import pg8000.native
import psycopg2
import pytest


def test_pg8000_extended_protocol_with_inferred_types(cumulo_server):
    conn = pg8000.native.Connection(
        "cumulo", host="127.0.0.1", port=cumulo_server.port, database="cumulo"
    )
    conn.run("drop table if exists p8")
    conn.run("create table p8 (id int primary key, name text, bal bigint)")
    for i in range(5):
        conn.run("insert into p8 values (:i, :n, :b)", i=i, n=f"n{i}", b=i * 100)
    conn.run("update p8 set bal = bal + :d where id = :i", d=7, i=3)
    assert conn.run("select name, bal from p8 where id = :i", i=3) == [["n3", 307]]
    assert conn.row_count == 1
    with pytest.raises(pg8000.native.DatabaseError) as e:
        conn.run("insert into p8 values (1, 'dup', 0)")
    assert e.value.args[0]["C"] == "23505"
    assert conn.run("select count(*) from p8") == [[5]]
    conn.close()


def test_pg8000_dbapi_transactions(cumulo_server):
    conn = pg8000.dbapi.connect(
        "cumulo", host="127.0.0.1", port=cumulo_server.port, database="cumulo"
    )
    cur = conn.cursor()
    cur.execute("drop table if exists p8t")
    cur.execute("create table p8t (id int primary key)")
    conn.commit()
    cur.execute("insert into p8t values (1)")
    conn.rollback()
    cur.execute("insert into p8t values (2)")
    conn.commit()
    cur.execute("select id from p8t")
    assert [list(r) for r in cur.fetchall()] == [[2]]
    cur.execute("select array_agg(id) from p8t")
    assert cur.fetchone() == [[2]]
    conn.close()


def test_psycopg2(cumulo_server):
    conn = psycopg2.connect(
        host="127.0.0.1", port=cumulo_server.port, user="cumulo", dbname="cumulo"
    )
    cur = conn.cursor()
    cur.execute("drop table if exists pg2")
    cur.execute("create table pg2 (id int primary key, v text)")
    cur.executemany("insert into pg2 values (%s, %s)", [(i, str(i)) for i in range(20)])
    conn.commit()
    cur.execute("select count(*), max(v) from pg2 where id >= %s", (10,))
    assert cur.fetchone() == (10, "19")
    with pytest.raises(psycopg2.errors.UndefinedTable):
        cur.execute("select * from nothing_here")
    conn.rollback()
    conn.close()


def test_asyncpg_binary_prepared_and_cursor(cumulo_server):
    async def main():
        conn = await asyncpg.connect(
            host="127.0.0.1", port=cumulo_server.port, user="cumulo", database="cumulo"
        )
        await conn.execute("drop table if exists apg")
        await conn.execute("create table apg (id int primary key, v text, n numeric(8,2))")
        await conn.executemany(
            "insert into apg values ($1, $2, $3)", [(i, f"v{i}", i / 4) for i in range(100)]
        )
        stmt = await conn.prepare("select v, n from apg where id = $1")
        row = await stmt.fetchrow(42)
        assert (row["v"], float(row["n"])) == ("v42", 10.5)
        assert await conn.fetchval("select count(*) from apg where id < $1", 10) == 10
        async with conn.transaction():
            total = 0
            async for r in conn.cursor("select id from apg order by id", prefetch=7):
                total += r["id"]
        assert total == sum(range(100))
        with pytest.raises(asyncpg.UniqueViolationError):
            await conn.execute("insert into apg values (1, 'x', 0)")
        await conn.close()

    asyncio.run(main())


def psql(server, *args):
    return subprocess.run(
        ["psql", "-X", "-h", "127.0.0.1", "-p", str(server.port), "-U", "cumulo", "cumulo", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_psql_describe_table(cumulo_server):
    setup = psql(
        cumulo_server,
        "-c",
        "drop table if exists dchild; drop table if exists dparent; "
        "create table dparent (id int primary key); "
        "create table dchild (id serial primary key, name varchar(20) not null "
        "default 'x', pid int references dparent(id)); "
        "create index dchild_name on dchild (name)",
    )
    assert setup.returncode == 0, setup.stderr
    out = psql(cumulo_server, "-c", r"\d dchild")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert 'Table "public.dchild"' in text
    assert "nextval('dchild_id_seq'::regclass)" in text
    assert "character varying(20)" in text
    assert '"dchild_pkey" PRIMARY KEY, btree (id)' in text
    assert '"dchild_name" btree (name)' in text
    assert "FOREIGN KEY (pid) REFERENCES dparent(id)" in text
    out = psql(cumulo_server, "-c", r"\dt")
    assert out.returncode == 0, out.stderr
    assert "dchild" in out.stdout and "dparent" in out.stdout
