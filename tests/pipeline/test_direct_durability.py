"""A direct-API bulk upsert that COMMIT acknowledged survives kill -9 of the server.

Batches of fresh keys take the bulk way (held whole by the conflict manager,
logged from their columns: `Transaction.put_bulk`, `WriteSet.columns`); an
upsert over committed keys takes the key-by-key way. Both must come back
from the redo log exactly, with every column's type, and an open
transaction's batch must not. `dur` has a numeric(12,3) column, whose typmod
makes new rows (the record transposes them); `dur2` has none, so its batches are
logged from the columns as they came.
"""

from __future__ import annotations

import datetime as dt
import signal
from decimal import Decimal

import psycopg
import pyarrow as pa

import cumulo.driver as cd

UTC = dt.UTC
N = 6000
BASE = dt.datetime(2024, 1, 1, tzinfo=UTC)


def _batch(lo: int, hi: int, tag: str) -> pa.Table:
    ids = list(range(lo, hi))
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "a": pa.array([i % 1000 for i in ids], pa.int32()),
        "x": pa.array([i / 4 for i in ids], pa.float64()),
        "s": pa.array([f"{tag}{i}" for i in ids], pa.string()),
        "ts": pa.array([BASE + dt.timedelta(seconds=i) for i in ids], pa.timestamp("us", "UTC")),
        "n": pa.array([Decimal(i) / 8 for i in ids], pa.decimal128(12, 3)),
    })


def test_acknowledged_bulk_upserts_survive_kill_9(fresh_server):
    with psycopg.connect(fresh_server.dsn(), autocommit=True) as c:
        c.execute("CREATE TABLE dur (id bigint PRIMARY KEY, a integer, x double precision, "
                  "s text, ts timestamptz, n numeric(12,3), d text DEFAULT 'dflt')")
        c.execute("CREATE TABLE dur2 (id bigint PRIMARY KEY, a integer, x double precision, "
                  "s text, ts timestamptz, d text DEFAULT 'dflt')")
    conn = cd.connect(fresh_server.dsn())
    t, t2 = conn.table("dur"), conn.table("dur2")
    for lo, hi, tag in ((0, N // 2, "a"), (N // 2, N, "a"),  # fresh keys: the bulk way
                        (N - 100, N + 100, "b"),  # over committed keys: key by key
                        (N + 100, N + 300, "lost")):  # never committed
        t.upsert(_batch(lo, hi, tag))
        t2.upsert(_batch(lo, hi, tag).drop_columns(["n"]))
        if hi in (N, N + 100):  # after the fresh batches, and after the rewrite
            conn.commit()
    fresh_server.stop(signal.SIGKILL)
    fresh_server.start()
    with psycopg.connect(fresh_server.dsn(), autocommit=True) as c:
        got2 = c.execute("SELECT count(*), sum(id), sum(a), sum(x), count(*) FILTER "
                         "(WHERE s LIKE 'b%'), min(ts), max(ts), count(*) FILTER "
                         "(WHERE d = 'dflt') FROM dur2").fetchone()
        last2 = c.execute("SELECT * FROM dur2 WHERE id = %s", (N - 1,)).fetchone()
    with psycopg.connect(fresh_server.dsn(), autocommit=True) as c:
        got = c.execute("SELECT count(*), sum(id), sum(a), sum(x), count(*) FILTER "
                        "(WHERE s LIKE 'b%'), sum(n), min(ts), max(ts), "
                        "count(*) FILTER (WHERE d = 'dflt') FROM dur").fetchone()
        last = c.execute("SELECT * FROM dur WHERE id IN (0, %s, %s) ORDER BY id",
                         (N - 1, N + 99)).fetchall()
    ids = range(N + 100)
    assert got == (N + 100, sum(ids), sum(i % 1000 for i in ids), sum(i / 4 for i in ids), 200,
                   sum(Decimal(i) / 8 for i in ids), BASE, BASE + dt.timedelta(seconds=N + 99),
                   N + 100)
    assert got2 == got[:5] + got[6:]
    assert last2 == last[1][:5] + last[1][6:]
    assert last == [
        (0, 0, 0.0, "a0", BASE, Decimal("0.000"), "dflt"),
        (N - 1, (N - 1) % 1000, (N - 1) / 4, f"b{N - 1}", BASE + dt.timedelta(seconds=N - 1),
         Decimal(N - 1) / 8, "dflt"),
        (N + 99, (N + 99) % 1000, (N + 99) / 4, f"b{N + 99}",
         BASE + dt.timedelta(seconds=N + 99), Decimal(N + 99) / 8, "dflt"),
    ]
