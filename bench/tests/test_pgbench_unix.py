"""`python -m bench pgbench --transport`: both systems over their Unix-domain sockets.

A real run at a tiny size (this checks the harness, not anybody's speed): with `both`,
each test runs over loopback TCP and then over the sockets, on PostgreSQL 15 and on
Cumulo, and each transport has figures of its own.
"""

from __future__ import annotations

import json

import psycopg
import pytest

from bench.__main__ import main
from bench.systems import System, cumulo_embedded


def test_system_over_unix_points_libpq_at_the_socket_directory():
    system = System("cumulo", "Cumulo", "127.0.0.1", 5433, socket_dir="/tmp/x y")
    unix = system.over_unix()
    assert unix.libpq_args() == ["-h", "/tmp/x y", "-p", "5433", "-U", "cumulo"]
    assert unix.dsn == "postgresql://cumulo@/cumulo?host=/tmp/x%20y&port=5433"
    assert system.dsn == "postgresql://cumulo@127.0.0.1:5433/cumulo"
    with pytest.raises(LookupError, match="no Unix-domain socket known for Ext"):
        System("cumulo", "Ext", "10.0.0.1", 5433).over_unix()


def test_embedded_cumulo_answers_on_its_socket():
    with cumulo_embedded() as system:
        with psycopg.connect(system.over_unix().dsn, autocommit=True) as conn:
            assert conn.execute("select inet_client_addr()").fetchone() == (None,)


def test_pgbench_over_tcp_and_unix_sockets(tmp_path):
    rc = main(["pgbench", "--scale", "1", "--seconds", "1", "--clients", "2", "--threads", "1",
               "--transport", "both", "--out", str(tmp_path)])
    data = json.loads(next(tmp_path.glob("*.json")).read_text())
    assert rc == 0, data["notes"]
    tps = {f["metric"]: f["values"] for f in data["figures"] if f["unit"] == "tx/s"}
    assert set(tps) == {"TPC-B -s 1 -c 2 tps", "TPC-B -s 1 -c 2 over Unix socket tps",
                        "select-only -s 1 -c 2 tps",
                        "select-only -s 1 -c 2 over Unix socket tps"}
    for values in tps.values():
        assert values["cumulo"] > 0 and values["postgres"] > 0, values
    timed = [c for c in data["commands"] if " -T 1 " in c]
    over_sockets = [c for c in timed if " -h /" in c]
    assert len(timed) == 8 and len(over_sockets) == 4  # 2 tests x 2 transports x 2 systems


def test_external_url_with_a_socket_directory():
    from bench.systems import external

    s = external("cumulo", "Cumulo", "postgresql://bob@/shop?host=/var/run/postgresql&port=6000")
    assert (s.host, s.port, s.user, s.dbname) == ("127.0.0.1", 6000, "bob", "shop")
    assert s.over_unix().libpq_args() == ["-h", "/var/run/postgresql", "-p", "6000", "-U", "bob"]
    assert external("c", "C", "postgresql://bob@10.0.0.7:6000/shop").socket_dir == ""
