"""Clients that drop their connection (no Terminate) leave nothing behind.

The long fuzz run (`fuzz_long.py`) found that the event-loop front end kept
every such connection: the connection's greenlet stayed parked waiting for
input, its frame held the handler with its 256 KiB read buffer and the
session, and the garbage collector does not look into a suspended
greenlet's frames. 40,000 fuzzed connections grew the server to 1.6 GB.
Both front ends are checked: the server's resident memory must stay flat
while a thousand clients connect, run a query and hang up without a word.
"""

from __future__ import annotations

import socket
import time

import psycopg
import pytest

from tests.server_process import CumuloServer
from tests.unit.pgwire import wire

from .test_frontend_fuzz import _rss_kb

WARM_UP = 400  # allocator pools and caches fill up first
DROPPED = 1000  # at the old leak's 290 KB each: 283 MB


def _drop(server: CumuloServer, data: bytes) -> None:
    with socket.create_connection((server.host, server.port), timeout=30) as s:
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)  # NB: EOF without a Terminate message
        while s.recv(65536):
            pass


@pytest.mark.parametrize("frontend", ["loop", "threads"])
def test_dropped_connections_do_not_grow_the_server(frontend):
    server = CumuloServer(extra_args=["--frontend", frontend]).start()
    try:
        hello = wire.startup("cumulo", "cumulo") + wire.query("select 1")
        for _ in range(WARM_UP):
            _drop(server, hello)
        before = _rss_kb(server.proc.pid)
        for _ in range(DROPPED):
            _drop(server, hello)
        grown_mb = (_rss_kb(server.proc.pid) - before) / 1024
        with psycopg.connect(server.dsn(), autocommit=True) as c:
            deadline = time.monotonic() + 30  # NB: the last session may still be ending
            while (n := c.execute("select count(*) from pg_stat_activity").fetchone()) != (1,) \
                    and time.monotonic() < deadline:
                time.sleep(0.1)
            assert n == (1,), f"sessions left behind: {n}"
        assert grown_mb < 100, f"{DROPPED} dropped connections grew the server by {grown_mb:.0f} MB"
    finally:
        server.stop()
