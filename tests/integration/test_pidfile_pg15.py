"""postmaster.pid as PostgreSQL 15 writes it: eight lines that pg_ctl and tools read.

Both servers listen on 127.0.0.1 and one Unix-socket directory; their files must have
the same lines with the same meaning (the values differ: pid, directories, port).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time

import psycopg
import pytest

from tests.server_process import CumuloServer


def pid_lines(data_dir: str) -> list[str]:
    with open(os.path.join(data_dir, "postmaster.pid")) as f:
        text = f.read()
    assert text.endswith("\n")
    return text[:-1].split("\n")


@pytest.fixture(scope="module")
def cumulo_with_socket():
    sock_dir = tempfile.mkdtemp(prefix="cumulo-pidsock-")
    started = int(time.time())
    server = CumuloServer(extra_args=["-c", f"unix_socket_directories={sock_dir}"]).start()
    yield server, sock_dir, started
    server.stop()
    shutil.rmtree(server.data_dir, ignore_errors=True)
    shutil.rmtree(sock_dir, ignore_errors=True)


def test_eight_lines_as_postgresql(pg15, cumulo_with_socket):
    server, sock_dir, started = cumulo_with_socket
    pg, ours = pid_lines(pg15.data_dir), pid_lines(server.data_dir)
    assert len(pg) == len(ours) == 8, (pg, ours)
    assert (pg[0], ours[0]) == (str(pg15.postmaster[0]), str(server.proc.pid))
    assert (pg[1], ours[1]) == (pg15.data_dir, os.path.abspath(server.data_dir))
    assert int(ours[2]) >= started - 1 and int(ours[2]) <= time.time()
    assert int(pg[2]) <= time.time()
    assert (pg[3], ours[3]) == (str(pg15.port), str(server.port))
    assert (pg[4], ours[4]) == (pg15.socket_dir, sock_dir)
    assert pg[5] == ours[5] == "127.0.0.1"
    # the shared memory key: PostgreSQL's System V segment; Cumulo has none
    assert re.fullmatch(r"\s*\d+\s+\d+", pg[6]) and ours[6] == ""
    assert pg[7] == ours[7] == "ready   "


def test_socket_directory_line_connects(cumulo_with_socket):
    """What a tool does with line 5 and 4: connect over the Unix socket."""
    server, _, _ = cumulo_with_socket
    lines = pid_lines(server.data_dir)
    with psycopg.connect(host=lines[4], port=int(lines[3]), user="cumulo", dbname="cumulo") as c:
        assert c.execute("select 1").fetchone() == (1,)


def test_no_socket_and_every_interface():
    """No Unix socket: line 5 empty, as PostgreSQL's with unix_socket_directories=''; a server
    on every interface says `*`, as listen_addresses does."""
    server = CumuloServer(extra_args=["--host", "0.0.0.0", "-c", "unix_socket_directories="])
    server.start()
    try:
        lines = pid_lines(server.data_dir)
        assert len(lines) == 8
        assert (lines[4], lines[5], lines[7]) == ("", "*", "ready   ")
    finally:
        assert server.stop() == 0
        shutil.rmtree(server.data_dir, ignore_errors=True)
    assert not os.path.exists(os.path.join(server.data_dir, "postmaster.pid"))
