"""A big COPY and SIGKILL: every acknowledged COPY survives, an unacknowledged one is all or nothing.

Why: a COPY's commit is logged as one bulk record (`kivi.api.SpaceWrites`, a
space at a time) and replayed as one; the checks of `test_crash_loop` (which
runs small transactions) are repeated here for write sets of 40,000 rows, with
kills landing during a COPY's transfer, its commit, a CHECKPOINT, or replay.
After each restart the table must hold exactly the acknowledged COPYs, plus the
one in flight either whole or not at all, and GROUP BY (served from KiVi's
column segments once the store is quiet) must agree with the rows.
"""

from __future__ import annotations

import random
import shutil
import signal
import threading
import time

import psycopg
import pytest

from tests.server_process import CumuloServer

ROWS = 40_000  # per COPY: far above the bulk thresholds (64 writes, 4096 cache keys)
GROUPS = 7
KILLS = 3


def _data(block: int) -> bytes:
    lo = block * ROWS
    return "".join(f"{i}\t{i % GROUPS}\t{block}\n" for i in range(lo, lo + ROWS)).encode()


class Loader:
    """Runs COPY after COPY (a block of ROWS ids each) until the server dies."""

    def __init__(self, dsn: str, first: int) -> None:
        self.dsn = dsn
        self.next = first
        self.acked: list[int] = []
        self.errors: list[str] = []
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            with psycopg.connect(self.dsn, autocommit=True) as conn, conn.cursor() as cur:
                while True:
                    block, data = self.next, _data(self.next)
                    self.next += 1
                    with cur.copy("COPY big (id, g, block) FROM STDIN") as copy:
                        for i in range(0, len(data), 1 << 16):
                            copy.write(data[i:i + (1 << 16)])
                    self.acked.append(block)
                    if block % 3 == 0:
                        cur.execute("CHECKPOINT")
        except (psycopg.OperationalError, psycopg.errors.AdminShutdown):
            return  # the server died under us
        except Exception as e:  # noqa: BLE001 - reported by the test
            self.errors.append(repr(e))


@pytest.mark.timeout(300)
def test_acknowledged_copies_survive_sigkill():
    rng = random.Random()
    server = CumuloServer().start()
    try:
        with psycopg.connect(server.dsn(), autocommit=True) as conn:
            conn.execute("CREATE TABLE big (id bigint PRIMARY KEY, g int NOT NULL, block int)")
        acked: set[int] = set()
        first = 0
        for kill in range(1, KILLS + 1):
            loader = Loader(server.dsn(), first)
            loader.thread.start()
            deadline = time.monotonic() + 60
            while len(loader.acked) < 2 and time.monotonic() < deadline and loader.thread.is_alive():
                time.sleep(0.05)
            time.sleep(rng.uniform(0.0, 0.5))  # somewhere inside a later COPY or its commit
            server.stop(signal.SIGKILL)
            loader.thread.join(30)
            assert not loader.errors, loader.errors
            assert len(loader.acked) >= 2, f"kill {kill}: the loader acknowledged too little"
            acked.update(loader.acked)
            first = loader.next
            server.start()
            with psycopg.connect(server.dsn(), autocommit=True) as conn:
                per_block = dict(conn.execute(
                    "SELECT block, count(*) FROM big GROUP BY block").fetchall())
                for b in acked:
                    assert per_block.get(b) == ROWS, f"kill {kill}: COPY {b} lost rows"
                torn = {b: n for b, n in per_block.items() if b not in acked and n != ROWS}
                assert not torn, f"kill {kill}: a COPY half applied: {torn}"
                acked.update(per_block)  # the one in flight, if it made it, is whole
                ids = sorted(acked)
                total = conn.execute("SELECT count(*), sum(id) FROM big").fetchone()
                want_sum = sum(sum(range(b * ROWS, (b + 1) * ROWS)) for b in ids)
                assert total == (len(ids) * ROWS, want_sum)
                groups = conn.execute("SELECT g, count(*) FROM big GROUP BY g").fetchall()
                assert sum(n for _, n in groups) == len(ids) * ROWS and len(groups) == GROUPS
    finally:
        server.stop(signal.SIGKILL)
        shutil.rmtree(server.data_dir, ignore_errors=True)
