"""Snapshot reads on one query engine while another writes (issue 14, item 4).

`cumulo cluster up --nodes 3 --engines 2`: three writers on engine 0 (psycopg and
pg8000) run bank transfers (two balance updates and one ledger insert per transaction)
while a pg8000 checker on engine 1 runs REPEATABLE READ transactions that read the
accounts' total and count, and the ledger's count and sum, twice each, a moment apart.
Within one snapshot both reads must agree, the total must be the constant one and the
count the number of accounts, whatever plan serves the read (the columnar copy's pushed
aggregate on a KiVi node, or rows).

Concurrent commits reach a KiVi node out of timestamp order (each session applies its
own commit), so a region's columnar tail is not sorted by begin: a tail whose *last*
row began at or below the snapshot may hold an earlier row that began above it. Reading
the whole tail as visible then showed a transfer's new balance next to the old one
(sum and count one row too high) and a ledger row from after the snapshot.
"""

from __future__ import annotations

import random
import threading
import time

from tests.integration.test_cluster_launcher import cluster_dir, cumulo  # noqa: F401 (fixture)
from tests.integration.test_cluster_placement import _engine_port

ACCOUNTS = 40
START = 100
WRITERS = 3


class Run:
    def __init__(self) -> None:
        self.stop = threading.Event()
        self.acked: list[int] = []
        self.checks = 0
        self.errors: list[str] = []
        self._ids = iter(range(1, 10**9))
        self._lock = threading.Lock()

    def transfer(self, rng: random.Random) -> tuple[int, int, int, int]:
        a, b = rng.sample(range(1, ACCOUNTS + 1), 2)
        with self._lock:
            tid = next(self._ids)
        return tid, a, b, rng.randint(1, 20)


def _psycopg_writer(port: int, run: Run, seed: int) -> None:
    import psycopg

    rng = random.Random(seed)
    with psycopg.connect(f"host=127.0.0.1 port={port} user=cumulo dbname=cumulo") as c:
        while not run.stop.is_set():
            tid, a, b, amount = run.transfer(rng)
            try:
                with c.transaction():
                    for acc, delta in sorted([(a, -amount), (b, amount)]):
                        c.execute("UPDATE acc SET b = b + %s WHERE id = %s", (delta, acc))
                    c.execute("INSERT INTO ledger VALUES (%s, %s, %s, %s)", (tid, a, b, amount))
            except psycopg.Error as e:
                if e.sqlstate not in ("40001", "40P01"):
                    run.errors.append(f"writer: {e.sqlstate} {e}")
                    return
                continue
            run.acked.append(tid)


def _pg8000_writer(port: int, run: Run, seed: int) -> None:
    import pg8000.native

    rng = random.Random(seed)
    c = pg8000.native.Connection("cumulo", host="127.0.0.1", port=port, database="cumulo")
    try:
        while not run.stop.is_set():
            tid, a, b, amount = run.transfer(rng)
            try:
                c.run("BEGIN")
                for acc, delta in sorted([(a, -amount), (b, amount)]):
                    c.run("UPDATE acc SET b = b + :d WHERE id = :i", d=delta, i=acc)
                c.run("INSERT INTO ledger VALUES (:t, :a, :b, :m)", t=tid, a=a, b=b, m=amount)
                c.run("COMMIT")
            except pg8000.native.DatabaseError as e:
                c.run("ROLLBACK")
                fields = e.args[0] if e.args and isinstance(e.args[0], dict) else {}
                if fields.get("C") not in ("40001", "40P01"):
                    run.errors.append(f"writer: {fields}")
                    return
                continue
            run.acked.append(tid)
    finally:
        c.close()


def _checker(port: int, run: Run) -> None:
    import pg8000.native

    c = pg8000.native.Connection("cumulo", host="127.0.0.1", port=port, database="cumulo")
    try:
        while not run.stop.is_set():
            c.run("BEGIN ISOLATION LEVEL REPEATABLE READ")
            # The first read takes the snapshot: the newest, as the last commits are applied.
            led1 = c.run("SELECT count(*), sum(amount) FROM ledger")
            first = c.run("SELECT sum(b), count(*) FROM acc")
            time.sleep(0.02)  # let newer commits be applied under this snapshot
            rows = c.run("SELECT id, b FROM acc")
            second = c.run("SELECT sum(b), count(*) FROM acc")
            led2 = c.run("SELECT count(*), sum(amount) FROM ledger")
            c.run("COMMIT")
            if not (first == second == [[ACCOUNTS * START, ACCOUNTS]]
                    and sum(r[1] for r in rows) == ACCOUNTS * START and len(rows) == ACCOUNTS
                    and led1 == led2):
                run.errors.append(f"check {run.checks}: acc {first} then {second}, "
                                  f"{len(rows)} rows summing to {sum(r[1] for r in rows)}; "
                                  f"ledger {led1} then {led2}")
                if len(run.errors) >= 5:
                    return
            run.checks += 1
    finally:
        c.close()


def test_reads_on_one_engine_while_another_writes(cluster_dir):  # noqa: F811 (the fixture)
    import psycopg

    port = _engine_port()
    r = cumulo("cluster", "up", "--nodes", "3", "--engines", "2", "--data-dir", cluster_dir,
               "--port", str(port))
    assert r.returncode == 0, r.stderr + r.stdout
    with psycopg.connect(f"host=127.0.0.1 port={port} user=cumulo dbname=cumulo",
                         autocommit=True) as c:
        c.execute("CREATE TABLE acc (id int PRIMARY KEY, b int NOT NULL)")
        c.execute("INSERT INTO acc SELECT g, %s FROM generate_series(1, %s) g", (START, ACCOUNTS))
        c.execute("CREATE TABLE ledger (id bigint PRIMARY KEY, src int, dst int, amount int)")
    run = Run()
    threads = [threading.Thread(target=_psycopg_writer, args=(port, run, i))
               for i in range(WRITERS - 1)]
    # NB: one writer on engine 1 too: each engine commits from its own block of timestamps,
    # so the nodes apply commits far out of timestamp order
    threads.append(threading.Thread(target=_pg8000_writer, args=(port + 1, run, WRITERS)))
    threads.append(threading.Thread(target=_checker, args=(port + 1, run)))
    for t in threads:
        t.start()
    deadline = time.monotonic() + 120
    try:
        while (run.checks < 150 or len(run.acked) < 300) and not run.errors:
            assert time.monotonic() < deadline, (run.checks, len(run.acked))
            time.sleep(0.2)
    finally:
        run.stop.set()
        for t in threads:
            t.join(60)
    assert run.errors == [], run.errors
    with psycopg.connect(f"host=127.0.0.1 port={port + 1} user=cumulo dbname=cumulo") as c:
        assert c.execute("SELECT sum(b), count(*) FROM acc").fetchone() == (ACCOUNTS * START,
                                                                            ACCOUNTS)
        assert c.execute("SELECT count(*) FROM ledger").fetchone() == (len(run.acked),)
