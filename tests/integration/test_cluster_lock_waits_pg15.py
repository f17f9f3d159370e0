"""Lock waits across query engines (cluster mode): they heal, and READ COMMITTED's reruns
give PostgreSQL's answers.

- A waiter whose holder belongs to another engine is woken through its conflict
  manager's mailbox (`PollWoken`). A wake-up lost on its way left the waiter asleep for
  ever; now it asks its manager again after `reask_after` seconds
  (`LocalTxnManager.reask_after`). Real role processes (`test_cluster_rpc.Cluster`); the
  loss is made real by telling the manager that the waiter gave up (`Forget`), so that
  the holder's release wakes nobody.
- INSERT ... ON CONFLICT DO UPDATE (single-row and multi-row, new keys and old) and a
  multi-row UPDATE on the same rows, with a BEFORE UPDATE trigger counting each row's
  updates, from sessions of two engines (`cumulo cluster up --engines 2`: ZooKeeper,
  MasterMind, KiVi nodes, conflict manager, logger, two `cumulo serve --cluster`):
  READ COMMITTED locks the conflicting row and reruns the statement (lock-first, always
  on in cluster mode). The same workload on PostgreSQL 15 gives the final table to
  compare: every statement counted once on each row, the trigger once per update, no
  error.
"""

from __future__ import annotations

import threading

import psycopg

from cumulo.server.cluster.manager import ClusterTxnManager, bucket_shares
from cumulo.server.cluster.proxies import RemoteConflictManager
from cumulo.server.cluster.services import Forget
from cumulo.server.kivi.remote import RemoteNode
from tests.integration.test_cluster_engines import two_engines  # noqa: F401
from tests.integration.test_cluster_launcher import cluster_dir  # noqa: F401
from tests.integration.test_cluster_rpc import BUCKETS, _wait_for, cluster  # noqa: F401
from tests.unit.txn import golden_runner


def test_a_lost_wake_up_heals_by_asking_again(cluster):  # noqa: F811 (the fixture)
    a = cluster.manager()  # empties space 1 and resets the managers
    b = ClusterTxnManager(a.kivi, [RemoteConflictManager(h, p, owned) for (h, p), owned in
                                   zip(cluster.cms, bucket_shares(2, BUCKETS), strict=True)],
                          None, buckets=BUCKETS, recover=False, ltm_id=1, reask_after=0.5)
    space = golden_runner.SPACE
    outcome: list[str] = []
    try:
        ta = a.begin(isolation="repeatable read")
        tb = b.begin(isolation="repeatable read")
        ta.put(space, [(b"j", ("j", 1))])

        def write() -> None:
            try:
                tb.put(space, [(b"j", ("j", 2))])
                outcome.append("granted")
            except Exception as e:  # noqa: BLE001 - the outcome is what is checked
                outcome.append(type(e).__name__)

        th = threading.Thread(target=write, daemon=True)
        th.start()
        _wait_for(lambda: b.ltm.is_waiting(tb) or outcome, "B to wait")
        assert not outcome, outcome  # B waits for A's transaction
        for h, p in cluster.cms:  # the wake-up is lost: the managers forget that B waits
            node = RemoteNode(h, p)
            try:
                node.handle(Forget(tb.tid, ta.tid))
            finally:
                node.close()
        ta.abort()  # the holder ends: no Woken for B anywhere
        th.join(60)
        if th.is_alive():  # never woken: free the thread, then fail
            b.ltm.abort(tb)
            th.join(60)
            outcome.append("never woken")
        assert not th.is_alive()
        assert outcome == ["granted"]
        assert b.ltm.stats["reasks"] >= 1
        b.ltm.abort(tb)
    finally:
        b.close()
        a.close()


KEYS = 6  # 0..3 exist from the start; 4 and 5 are inserted by the first upsert on each
OLD = 4
UPSERT = "INSERT INTO up VALUES (%s, 1, 0) ON CONFLICT (k) DO UPDATE SET v = up.v + 1"
# keys in ascending order in every session, as in PostgreSQL: no deadlock
UPSERT_ALL = ("INSERT INTO up VALUES " + ", ".join(f"({k}, 1, 0)" for k in range(KEYS))
              + " ON CONFLICT (k) DO UPDATE SET v = up.v + excluded.v")
UPDATE_OLD = f"UPDATE up SET v = v + 1 WHERE k < {OLD}"  # a multi-row rerun
SETUP = [
    "DROP TABLE IF EXISTS up",
    "CREATE TABLE up (k int PRIMARY KEY, v int NOT NULL, n int NOT NULL)",
    # each row counts its updates: a trigger fired twice by a rerun, or not at all, shows
    "CREATE OR REPLACE FUNCTION count_update() RETURNS trigger LANGUAGE plpgsql AS "
    "$$ BEGIN NEW.n := OLD.n + 1; RETURN NEW; END $$",
    "CREATE TRIGGER up_counts BEFORE UPDATE ON up FOR EACH ROW EXECUTE FUNCTION count_update()",
    f"INSERT INTO up SELECT k, 0, 0 FROM generate_series(0, {OLD - 1}) k",
]


def _statements(me: int, turns: int) -> list[tuple[str, tuple[int, ...]]]:
    """One session's statements: upserts of one key in turn, every fifth of all keys,
    and every fifth (another turn) an UPDATE of the rows there from the start."""
    out: list[tuple[str, tuple[int, ...]]] = []
    for i in range(turns):
        if i % 5 == 4:
            out.append((UPSERT_ALL, ()))
        elif i % 5 == 2:
            out.append((UPDATE_OLD, ()))
        else:
            out.append((UPSERT, ((me + i) % KEYS,)))
    return out


def _session(dsn: str, me: int, turns: int, errors: list[str]) -> None:
    with psycopg.connect(dsn, autocommit=True) as c:
        for sql, args in _statements(me, turns):
            try:
                c.execute(sql, args or None)
            except psycopg.Error as e:
                errors.append(f"{e.sqlstate}: {e}")


def _run(dsns: list[str], turns: int) -> tuple[list[tuple], list[str]]:
    """Runs the sessions (two per dsn) at once; returns the final table and the errors."""
    with psycopg.connect(dsns[0], autocommit=True) as c:
        for sql in SETUP:
            c.execute(sql)
    errors: list[str] = []
    threads = [threading.Thread(target=_session, args=(dsn, i, turns, errors), daemon=True)
               for i, dsn in enumerate(dsns * 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(600)
    assert not any(t.is_alive() for t in threads), "a session never finished"
    with psycopg.connect(dsns[-1], autocommit=True) as c:
        rows = c.execute("SELECT k, v, n FROM up ORDER BY k").fetchall()
    return rows, errors


def test_upserts_and_updates_on_two_engines_count_every_one(two_engines, pg15):  # noqa: F811
    p1, p2 = two_engines
    turns = 40
    got, errors = _run([f"host=127.0.0.1 port={p} user=cumulo dbname=cumulo" for p in (p1, p2)],
                       turns)
    want, pg_errors = _run([pg15.dsn(), pg15.dsn()], turns)
    assert pg_errors == []
    assert errors == []
    assert got == want
    # every statement counted once on each row it touched, and each update of a row by
    # the trigger: PostgreSQL's answer does not depend on the interleaving
    touches = [0] * KEYS
    for me in range(4):
        for sql, args in _statements(me, turns):
            for k in (args if sql == UPSERT else range(OLD if sql == UPDATE_OLD else KEYS)):
                touches[k] += 1
    assert want == [(k, t, t - (k >= OLD)) for k, t in enumerate(touches)]
