"""Background checkpoints bound the redo log and the restart time (issue 15, issue 14 item 6).

Many writes, then a background checkpoint, a short tail of writes and kill -9: the restart
replays only the tail (the log says how many records), and every acknowledged commit is
there. The redo log's old segments are gone once a checkpoint covers them.
"""

from __future__ import annotations

import os
import re
import signal
import time

import psycopg

from tests.server_process import CumuloServer

COMPLETE = re.compile(r"checkpoint complete: up to commit (\d+)")
REDO = re.compile(r"redo done: replayed (\d+) records")


def log_segments(server: CumuloServer) -> list[str]:
    d = os.path.join(server.data_dir, "log")
    return sorted(f for f in os.listdir(d) if f.endswith(".log"))


STARTING = "checkpoint starting: time"


def checkpoint_after_now(server: CumuloServer, conn: psycopg.Connection) -> int:
    """Commits small marker rows until a background checkpoint that started after this call
    has completed (an idle server skips checkpoints, so there must be commits); returns how
    many markers were committed."""
    started = server.log().count(STARTING)
    conn.execute("create table if not exists marks (n int)")
    n = 0
    deadline = time.monotonic() + 120
    while len(COMPLETE.findall(server.log())) <= started:
        assert time.monotonic() < deadline, "no background checkpoint"
        n += 1
        conn.execute("insert into marks values (%s)", (n,))
        time.sleep(0.05)
    return n + 1


def test_background_checkpoint_bounds_replay_after_kill_9():
    server = CumuloServer(extra_args=["-c", "checkpoint_timeout=1s"]).start()
    try:
        with psycopg.connect(server.dsn(), autocommit=True) as conn:
            conn.execute("create table acct (id int primary key, balance int)")
            conn.execute("insert into acct select g, 100 from generate_series(1, 2000) g")
            for i in range(300):  # many small commits: one redo record each
                conn.execute("update acct set balance = balance + 1 where id = %s", (i + 1,))
            markers = checkpoint_after_now(server, conn)
            tail = 7
            for i in range(tail):
                conn.execute("update acct set balance = balance - 1000 where id = %s", (i + 1,))
        server.stop(signal.SIGKILL)
        server.start()
        replayed = [int(n) for n in REDO.findall(server.log())]
        assert replayed, server.log()
        # only what followed the checkpoint: the tail, and markers committed while it ran
        assert replayed[-1] <= tail + markers < 300, (replayed, markers, server.log())
        with psycopg.connect(server.dsn()) as conn:
            total, low = conn.execute(
                "select sum(balance), count(*) filter (where balance < 0) from acct").fetchone()
            assert conn.execute("select count(*) from marks").fetchone() == (markers - 1,)
        assert total == 2000 * 100 + 300 - tail * 1000
        assert low == tail
    finally:
        server.stop()


def test_checkpoint_trims_the_redo_log():
    server = CumuloServer(extra_args=["-c", "checkpoint_timeout=1s"]).start()
    try:
        with psycopg.connect(server.dsn(), autocommit=True) as conn:
            first = log_segments(server)
            conn.execute("create table big (id int primary key, pad text)")
            for i in range(20):
                conn.execute("insert into big select g, repeat('x', 64) from "
                             "generate_series(%s, %s) g", (i * 1000, i * 1000 + 999))
            checkpoint_after_now(server, conn)
            # NB: a marker may commit between a segment's roll and the checkpoint's ts: that
            # segment goes at the next checkpoint
            checkpoint_after_now(server, conn)
        # the segments that held those commits are gone: a checkpoint covers them
        assert first and not set(first) & set(log_segments(server)), log_segments(server)
        server.stop(signal.SIGKILL)
        server.start()
        with psycopg.connect(server.dsn()) as conn:
            assert conn.execute("select count(*) from big").fetchone() == (20_000,)
    finally:
        server.stop()


def test_clean_restart_needs_no_redo():
    server = CumuloServer(extra_args=["-c", "checkpoint_timeout=1s"]).start()
    try:
        with psycopg.connect(server.dsn(), autocommit=True) as conn:
            conn.execute("create table calm (id int)")
            conn.execute("insert into calm values (1)")
        server.restart()
        this_start = server.log().split("ready to accept")[-2]
        assert "no redo needed" in this_start, this_start
        with psycopg.connect(server.dsn()) as conn:
            assert conn.execute("select count(*) from calm").fetchone() == (1,)
    finally:
        server.stop()
