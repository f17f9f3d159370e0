"""The floor server answers real clients like PostgreSQL answers `SELECT 1`, and pgbench runs on it.

If the floor mis-frames a message, every client below fails or hangs, so
these checks use four independent clients and pgbench itself.
"""

from __future__ import annotations

import asyncio
import socket

import asyncpg
import pg8000.native
import psycopg

from bench.core import Options, RunContext
from bench.pgbench_tool import parse_summary, pgbench
from bench.systems import floor


def test_floor_answers_clients_and_pgbench(tmp_path):
    with floor() as system:
        with psycopg.connect(system.dsn, autocommit=True) as conn:
            assert conn.execute("SELECT 1").fetchall() == [(1,)]
            assert conn.execute("SELECT 1", prepare=True).fetchall() == [(1,)]
            assert conn.cursor(binary=True).execute("SELECT 1").fetchall() == [(1,)]
        pg = pg8000.native.Connection("cumulo", host=system.host, port=system.port)
        assert pg.run("SELECT 1") == [[1]]
        pg.close()

        async def with_asyncpg() -> list:
            conn = await asyncpg.connect(system.dsn)
            try:
                return [await conn.fetchval("SELECT 1"), await conn.fetchval("SELECT 1")]
            finally:
                await conn.close()

        assert asyncio.run(with_asyncpg()) == [1, 1]

        script = tmp_path / "s.sql"
        script.write_text("SELECT 1;\n")
        ctx = RunContext([system], Options(seconds=1), str(tmp_path))
        out = pgbench(
            ctx, system, ["-n", "-M", "simple", "-f", str(script), "-c", "2"], "SELECT 1", seconds=1
        )
        result = parse_summary(out)
        assert result.tps > 100 and result.transactions > 100 and result.failed == 0
        assert ctx.commands and "-T 1" in ctx.commands[0]
        log = system.log_tail(100)
        assert "floor: first query 'SELECT 1;'" in log
        port = system.port
    with socket.socket() as s:  # stopped on exit
        assert s.connect_ex(("127.0.0.1", port)) != 0
