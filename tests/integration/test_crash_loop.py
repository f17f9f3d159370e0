"""Crash recovery loop (issue 2): SIGKILL a loaded `cumulo serve` again and again.

Why: durability and atomicity are promises about the moment of a crash, which no
orderly test reaches. Here writer threads run real psycopg traffic and the server is
killed with SIGKILL at a random moment, 20 times; after each restart:

- every acknowledged commit is present (each writer remembers the ids whose COMMIT,
  or autocommit statement, returned);
- no transaction is half applied: explicit transactions move money between
  `accounts` and record the move in `transfers`, so every account's balance must equal
  its opening balance plus the recorded moves; autocommit single-statement moves
  between `wallets` must keep the wallets' total.

A fifth thread runs CHECKPOINT now and then, so kills also land during checkpoints and
log trimming, and recovery replays the log on top of a checkpoint.

A commit in flight at the kill may or may not be there (its outcome is unknown to the
client), but it must be all there or not at all.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import threading
import time

import psycopg
import pytest

from tests.server_process import CumuloServer

ACCOUNTS = 12
WALLETS = 8
OPENING = 1000
KILLS = int(os.environ.get("CUMULO_CRASH_KILLS") or 20)  # raise it locally to stress recovery
SEED = int(os.environ.get("CUMULO_CRASH_SEED") or random.SystemRandom().randrange(1 << 32))


class Writers:
    """Client threads that write until the server dies under them."""

    def __init__(self, dsn: str, rng: random.Random, round_no: int) -> None:
        self.dsn = dsn
        self.round = round_no
        self.rng = random.Random(rng.random())
        self.acked_transfers: list[str] = []
        self.acked_events: list[str] = []
        self.errors: list[str] = []
        self.lock = threading.Lock()
        self.threads = [
            threading.Thread(target=self._guard, args=(fn, i), daemon=True)
            for i, fn in enumerate(
                (self._transfers, self._transfers, self._wallets, self._events, self._checkpoints)
            )
        ]

    def start(self) -> None:
        for t in self.threads:
            t.start()

    def wait_for_acks(self, n: int, timeout: float) -> None:
        """Returns once n transfers and n events are acknowledged (or after timeout)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not self.errors:
            with self.lock:
                if len(self.acked_transfers) >= n and len(self.acked_events) >= n:
                    return
            time.sleep(0.01)

    def join(self) -> None:
        for t in self.threads:
            t.join(30)
            assert not t.is_alive(), "a writer thread hung after the server was killed"

    def _guard(self, fn, idx: int) -> None:
        try:
            with psycopg.connect(self.dsn, connect_timeout=5) as conn:
                fn(conn, idx, random.Random(self.rng.random()))
        except psycopg.OperationalError:
            pass  # the server was killed: expected
        except Exception as e:  # anything else is a bug, reported by the test
            with self.lock:
                self.errors.append(f"{type(e).__name__}: {e}")

    def _transfers(self, conn, idx: int, rng: random.Random) -> None:
        n = 0
        while True:
            n += 1
            tid = f"r{self.round}-t{idx}-{n}"
            src, dst = rng.sample(range(1, ACCOUNTS + 1), 2)
            amount = rng.randint(1, 50)
            try:
                with conn.transaction():
                    conn.execute(
                        "UPDATE accounts SET balance = balance - %s WHERE id = %s", (amount, src)
                    )
                    conn.execute(
                        "UPDATE accounts SET balance = balance + %s WHERE id = %s", (amount, dst)
                    )
                    conn.execute(
                        "INSERT INTO transfers VALUES (%s, %s, %s, %s)", (tid, src, dst, amount)
                    )
            except (psycopg.errors.SerializationFailure, psycopg.errors.DeadlockDetected):
                continue  # rolled back as a whole: retry with a new id
            with self.lock:
                self.acked_transfers.append(tid)

    def _wallets(self, conn, idx: int, rng: random.Random) -> None:
        conn.autocommit = True
        while True:
            src, dst = rng.sample(range(1, WALLETS + 1), 2)
            amount = rng.randint(1, 50)
            try:
                conn.execute(
                    "UPDATE wallets SET balance = balance + CASE WHEN id = %s THEN -%s ELSE %s END "
                    "WHERE id IN (%s, %s)",
                    (src, amount, amount, src, dst),
                )
            except (psycopg.errors.SerializationFailure, psycopg.errors.DeadlockDetected):
                continue

    def _events(self, conn, idx: int, rng: random.Random) -> None:
        conn.autocommit = True
        n = 0
        while True:
            n += 1
            eid = f"r{self.round}-e{n}"
            conn.execute("INSERT INTO events VALUES (%s, %s)", (eid, rng.random()))
            with self.lock:
                self.acked_events.append(eid)

    def _checkpoints(self, conn, idx: int, rng: random.Random) -> None:
        conn.autocommit = True  # checkpoints and log trimming must survive a kill too
        while True:
            time.sleep(rng.uniform(0.02, 0.2))
            conn.execute("CHECKPOINT")


def _verify(server: CumuloServer, transfers: set[str], events: set[str], kill: int) -> None:
    with psycopg.connect(server.dsn(), autocommit=True) as conn:
        where = f"after kill {kill} (CUMULO_CRASH_SEED={SEED})"
        have = {r[0] for r in conn.execute("SELECT id FROM transfers")}
        lost = transfers - have
        assert not lost, f"{where}: acknowledged transfers lost: {sorted(lost)[:5]}"
        have_events = {r[0] for r in conn.execute("SELECT id FROM events")}
        lost = events - have_events
        assert not lost, f"{where}: acknowledged events lost: {sorted(lost)[:5]}"
        expect = {i: OPENING for i in range(1, ACCOUNTS + 1)}
        for src, dst, amount in conn.execute("SELECT src, dst, amount FROM transfers"):
            expect[src] -= amount
            expect[dst] += amount
        balances = dict(conn.execute("SELECT id, balance FROM accounts").fetchall())
        assert balances == expect, f"{where}: a transfer is half applied: {balances} != {expect}"
        (total, count), = conn.execute("SELECT sum(balance), count(*) FROM wallets").fetchall()
        assert (total, count) == (WALLETS * OPENING, WALLETS), f"{where}: wallets {total}/{count}"


@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    ("args", "kills"),
    [([], KILLS), (["--no-sync-commit"], KILLS // 3), (["--frontend", "threads"], KILLS // 2)],
    ids=["sync-commit", "no-sync-commit", "threads-frontend"],
)
def test_sigkill_loop(args, kills):
    """With --no-sync-commit a commit is acknowledged once written to the OS, before fsync:
    that survives a crash of the process (not of the machine), so the same checks hold.
    The event-loop front end runs CHECKPOINT and the log's fsyncs on helper threads
    (`waits.blocking`) while its one thread serves the other sessions; the same checks hold."""
    rng = random.Random(SEED)
    print(f"CUMULO_CRASH_SEED={SEED}")
    server = CumuloServer(extra_args=args).start()
    try:
        with psycopg.connect(server.dsn(), autocommit=True) as conn:
            conn.execute("CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL)")
            conn.execute("CREATE TABLE wallets (id int PRIMARY KEY, balance int NOT NULL)")
            conn.execute(
                "CREATE TABLE transfers (id text PRIMARY KEY, src int, dst int, amount int)"
            )
            conn.execute("CREATE TABLE events (id text PRIMARY KEY, x float8)")
            conn.execute(
                f"INSERT INTO accounts SELECT g, {OPENING} FROM generate_series(1, {ACCOUNTS}) g"
            )
            conn.execute(
                f"INSERT INTO wallets SELECT g, {OPENING} FROM generate_series(1, {WALLETS}) g"
            )
        transfers: set[str] = set()
        events: set[str] = set()
        for kill in range(1, kills + 1):
            writers = Writers(server.dsn(), rng, kill)
            writers.start()
            # A loaded machine may need a while to get through a few commits: kill only
            # once every kind of write has been acknowledged, then at a random moment.
            writers.wait_for_acks(3, timeout=60)
            time.sleep(rng.uniform(0.05, 0.4))
            server.stop(signal.SIGKILL)
            writers.join()
            assert not writers.errors, f"kill {kill}: {writers.errors[:3]} (seed {SEED})"
            transfers.update(writers.acked_transfers)
            events.update(writers.acked_events)
            server.start()
            _verify(server, transfers, events, kill)
        print(f"acknowledged: {len(transfers)} transfers, {len(events)} events")
        # The loop must have had something to lose: else it proves nothing.
        assert len(transfers) > 4 * kills and len(events) > 4 * kills, (len(transfers), len(events))
    finally:
        server.stop(signal.SIGKILL)
        shutil.rmtree(server.data_dir, ignore_errors=True)
