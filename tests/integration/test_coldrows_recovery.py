"""Cold rows (on by default in `cumulo serve`) across writes, a checkpoint and a SIGKILL.

Why: a settled table's rows live in compact segments (`kivi.coldrows`), written to a
checkpoint through them, and writes move rows back hot; none of that may change what
a client reads, before or after a crash. The server collects every second, so the
load freezes, the updates warm some rows again, scans read the segments (twice: the
second from their decoded copy), and a rewrite folds rows left alone back in. After
the kill, recovery rebuilds the store from the checkpoint and the redo log.
"""

from __future__ import annotations

import signal
import time

import psycopg

from tests.server_process import CumuloServer

ROWS = 1500


def _table(conn: psycopg.Connection) -> list[tuple]:
    return conn.execute("select id, g, x from cold order by id").fetchall()


def test_cold_rows_survive_updates_a_checkpoint_and_a_sigkill():
    server = CumuloServer(extra_args=["--gc-interval", "1"]).start()
    try:
        want = {i: (i % 10, i * 7) for i in range(1, ROWS + 1)}
        with psycopg.connect(server.dsn(), autocommit=True) as conn:
            conn.execute("create table cold (id bigint primary key, g int, x bigint)")
            conn.execute(f"insert into cold select i, i % 10, i * 7 from generate_series(1, {ROWS}) i")
            time.sleep(2.1)  # NB: not asserted: lets two collections freeze the load
            for i in range(1, ROWS + 1, 9):  # rows go hot inside the segments' ranges
                want[i] = (want[i][0], -i)
            conn.execute("update cold set x = -id where id % 9 = 1")
            conn.execute("delete from cold where id between 100 and 140")
            for i in range(100, 141):
                del want[i]
            expect = [(i, *v) for i, v in sorted(want.items())]
            assert _table(conn) == expect
            assert _table(conn) == expect  # the segments' decoded copy
            assert conn.execute("select count(*), sum(x) from cold where g = 3").fetchone() == (
                sum(1 for v in want.values() if v[0] == 3),
                sum(v[1] for v in want.values() if v[0] == 3))
            time.sleep(2.1)  # NB: not asserted: a rewrite folds the updated rows back
            conn.execute("checkpoint")
            conn.execute("update cold set g = 99 where id = 7")
            want[7] = (99, want[7][1])
            conn.execute(f"insert into cold values ({ROWS + 1}, 1, 1)")
            want[ROWS + 1] = (1, 1)
        server.stop(signal.SIGKILL)
        server.start()
        with psycopg.connect(server.dsn()) as conn:
            assert _table(conn) == [(i, *v) for i, v in sorted(want.items())]
            assert conn.execute("select id, g, x from cold where id = 7").fetchone() == (
                7, 99, want[7][1])
    finally:
        server.stop()
