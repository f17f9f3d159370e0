"""SERIALIZABLE (write-snapshot isolation) through a real `cumulo serve` and real clients.

- Hermitage: the three SERIALIZABLE tests pass strictly (PostgreSQL's exact trace and
  error placement); `test_hermitage.py` runs all 26 with `--lenient`.
- PostgreSQL's error fields: 40001, message, DETAIL and HINT from predicate.c.
- A bank with a constraint (checking + savings >= 0) and a per-doctor shift cap enforced
  by count-then-insert (phantoms): at SERIALIZABLE no violation commits and READ ONLY
  auditors never abort; the same runs at REPEATABLE READ do commit violations, which
  shows that the harness can fail. Each round releases every client's writes at once (a
  barrier after the reads), so the write skew is certain at REPEATABLE READ, not a race.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import psycopg
import pytest

HERMITAGE = (Path(__file__).resolve().parents[3] / "shared" / "suites" / "hermitage"
             / "hermitage_pg.py")
RW = "could not serialize access due to read/write dependencies among transactions"


def dsn(server) -> str:
    return f"host=127.0.0.1 port={server.port} user=cumulo dbname=cumulo"


def connect(server, **kw) -> psycopg.Connection:
    return psycopg.connect(dsn(server), **kw)


def test_hermitage_serializable_strict(cumulo_server):
    if not HERMITAGE.exists():
        pytest.skip(f"{HERMITAGE} is not present: the external test suites are not part of this repository")
    out = subprocess.run([sys.executable, str(HERMITAGE), "--dsn", dsn(cumulo_server),
                          "--levels", "serializable"], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert "3 passed, 0 failed" in out.stdout, out.stdout[-4000:]
    for name in ("g2item_ser", "g2_ser", "g2_fekete_ser"):
        assert f"ok   {name}" in out.stdout
    with connect(cumulo_server, autocommit=True) as c:
        c.execute("drop table if exists test")  # the runner leaves its table behind


def test_error_fields_and_read_only_deferrable(cumulo_server):
    with connect(cumulo_server, autocommit=True) as admin:
        admin.execute("drop table if exists ser_err")
        admin.execute("create table ser_err (id int primary key, v int)")
        admin.execute("insert into ser_err values (1, 10), (2, 20)")
    a = connect(cumulo_server)
    b = connect(cumulo_server)
    ro = connect(cumulo_server)
    try:
        for c in (a, b):
            c.execute("set transaction isolation level serializable")
            assert c.execute("select sum(v) from ser_err").fetchone() == (30,)
        ro.execute("set transaction isolation level serializable, read only, deferrable")
        assert ro.execute("select v from ser_err where id = 1").fetchone() == (10,)
        a.execute("update ser_err set v = v - 30 where id = 1")
        b.execute("update ser_err set v = v - 30 where id = 2")
        a.commit()
        with pytest.raises(psycopg.errors.SerializationFailure) as e:
            b.commit()
        d = e.value.diag
        assert (d.sqlstate, d.message_primary) == ("40001", RW)
        assert d.message_detail == (
            "Reason code: Canceled on identification as a pivot, during commit attempt.")
        assert d.message_hint == "The transaction might succeed if retried."
        # the READ ONLY transaction read at its snapshot and commits, whatever happened
        assert ro.execute("select v from ser_err where id = 1").fetchone() == (10,)
        ro.commit()
    finally:
        for c in (a, b, ro):
            c.close()


def test_hidden_duplicate_key_is_40001_visible_one_is_23505(cumulo_server):
    with connect(cumulo_server, autocommit=True) as admin:
        admin.execute("drop table if exists ser_uniq")
        admin.execute("create table ser_uniq (i int primary key)")
    a, b = connect(cumulo_server, autocommit=True), connect(cumulo_server, autocommit=True)
    try:
        for c in (a, b):
            c.execute("begin isolation level serializable")
            assert c.execute("select * from ser_uniq").fetchall() == []
        a.execute("insert into ser_uniq values (42)")
        result: dict[str, object] = {}

        def insert():
            try:
                b.execute("insert into ser_uniq values (42)")
                result["ok"] = True
            except psycopg.Error as exc:
                result["err"] = exc

        th = threading.Thread(target=insert)
        th.start()
        th.join(0.3)  # b waits for a (a writer blocked on an active writer)
        a.execute("commit")
        th.join(30)
        assert isinstance(result.get("err"), psycopg.errors.SerializationFailure), result
        assert result["err"].diag.message_primary == RW
        b.execute("rollback")
        b.execute("begin isolation level serializable")
        assert b.execute("select * from ser_uniq").fetchall() == [(42,)]
        with pytest.raises(psycopg.errors.UniqueViolation):
            b.execute("insert into ser_uniq values (42)")
        b.execute("rollback")
    finally:
        a.close()
        b.close()


# -- invariants under concurrency ------------------------------------------------------------


CLIENTS = 16
ROUNDS = 3


def _rounds(server, level: str, setup: list[str], client_round, audit_sql: str) -> dict:
    """Runs ROUNDS rounds of CLIENTS concurrent transactions; returns counters and audits.

    In each round every client begins, runs its reads, waits at a barrier until all have
    read, then writes and commits (a 40001 is counted and the round ends for that client,
    which retries in the next round). Two READ ONLY auditors check the invariant once per
    round at SERIALIZABLE READ ONLY (they must never fail).
    """
    with psycopg.connect(dsn(server), autocommit=True) as admin:
        for sql in setup:
            admin.execute(sql)
    conns = [psycopg.connect(dsn(server), autocommit=True) for _ in range(CLIENTS)]
    auditors = [psycopg.connect(dsn(server), autocommit=True) for _ in range(2)]
    stats = {"commits": 0, "failures": 0, "audit_violations": 0, "auditor_errors": 0}
    lock = threading.Lock()
    barrier = threading.Barrier(CLIENTS + len(auditors))

    def client(i: int) -> None:
        c = conns[i]
        for r in range(ROUNDS):
            writes = None
            try:
                c.execute(f"begin isolation level {level}")
                writes = client_round(c, i, r)
            except psycopg.errors.SerializationFailure:
                writes = None
            barrier.wait()
            try:
                if writes is None:
                    c.execute("rollback")
                    continue
                for sql in writes:
                    c.execute(sql)
                c.execute("commit")
                with lock:
                    stats["commits"] += 1
            except psycopg.errors.SerializationFailure:
                c.execute("rollback")
                with lock:
                    stats["failures"] += 1
            finally:
                barrier.wait()

    def auditor(i: int) -> None:
        c = auditors[i]
        for _ in range(ROUNDS):
            barrier.wait()
            try:
                c.execute("begin isolation level serializable read only")
                bad = c.execute(audit_sql).fetchall()
                c.execute("commit")
                with lock:
                    stats["audit_violations"] += len(bad)
            except psycopg.Error:
                c.execute("rollback")
                with lock:
                    stats["auditor_errors"] += 1
            barrier.wait()

    threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
    threads += [threading.Thread(target=auditor, args=(i,)) for i in range(len(auditors))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert not any(t.is_alive() for t in threads)
    with psycopg.connect(dsn(server), autocommit=True) as admin:
        stats["final_violations"] = len(admin.execute(audit_sql).fetchall())
    for c in conns + auditors:
        c.close()
    return stats


def _bank(server, level: str) -> dict:
    customers = 4
    setup = ["drop table if exists bank",
             "create table bank (customer int, kind text, balance int, "
             "primary key (customer, kind))"]
    values = ", ".join(f"({c}, 'checking', 50), ({c}, 'savings', 50)" for c in range(customers))
    setup.append(f"insert into bank values {values}")

    def client_round(c, i, r):
        cust = i % customers
        kind = "checking" if (i // customers) % 2 == 0 else "savings"
        rows = c.execute("select kind, balance from bank where customer = %s",
                         (cust,)).fetchall()
        total = sum(b for _, b in rows)
        if total < 80:
            deposit = f"update bank set balance = balance + 100 where customer = {cust} " \
                      f"and kind = '{kind}'"
            return [deposit]
        # a withdrawal that keeps checking + savings >= 0 as of the snapshot
        return [f"update bank set balance = balance - 80 where customer = {cust} "
                f"and kind = '{kind}'"]

    audit = ("select customer from bank group by customer having sum(balance) < 0")
    return _rounds(server, level, setup, client_round, audit)


def _shifts(server, level: str) -> dict:
    doctors, cap = 2, 2
    setup = ["drop table if exists shifts",
             "create table shifts (doctor int, slot int, primary key (doctor, slot))"]

    def client_round(c, i, r):
        doctor = i % doctors
        (n,) = c.execute("select count(*) from shifts where doctor = %s", (doctor,)).fetchone()
        if n >= cap:
            return []
        return [f"insert into shifts values ({doctor}, {r * CLIENTS + i})"]

    audit = f"select doctor from shifts group by doctor having count(*) > {cap}"
    return _rounds(server, level, setup, client_round, audit)


@pytest.mark.parametrize("workload", [_bank, _shifts], ids=["bank", "doctor_shifts"])
def test_no_violation_commits_at_serializable(cumulo_server, workload):
    s = workload(cumulo_server, "serializable")
    assert s["final_violations"] == 0, s
    assert s["audit_violations"] == 0, s
    assert s["auditor_errors"] == 0, s
    assert s["commits"] > 0 and s["failures"] > 0, s


@pytest.mark.parametrize("workload", [_bank, _shifts], ids=["bank", "doctor_shifts"])
def test_the_same_run_at_repeatable_read_commits_violations(cumulo_server, workload):
    s = workload(cumulo_server, "repeatable read")
    assert s["final_violations"] > 0, s


def test_isolation_level_is_fixed_by_the_first_query(cumulo_server):
    with connect(cumulo_server, autocommit=True) as c:
        c.execute("begin")
        c.execute("select 1")
        with pytest.raises(psycopg.errors.ActiveSqlTransaction) as e:
            c.execute("set transaction isolation level serializable")
        assert e.value.diag.message_primary == (
            "SET TRANSACTION ISOLATION LEVEL must be called before any query")
        c.execute("rollback")
        c.execute("begin isolation level serializable read only deferrable")
        assert c.execute("show transaction_isolation").fetchone() == ("serializable",)
        assert c.execute("show transaction_read_only").fetchone() == ("on",)
        c.execute("commit")


def test_concurrent_ddl_in_serializable_transactions(cumulo_server):
    a = connect(cumulo_server, autocommit=True)
    b = connect(cumulo_server, autocommit=True)
    try:
        for c, name in ((a, "ser_ddl_a"), (b, "ser_ddl_b")):
            c.execute(f"drop table if exists {name}")
            c.execute("begin isolation level serializable")
            c.execute(f"create table {name} (x int)")
            c.execute(f"insert into {name} values (1)")
        a.execute("commit")
        b.execute("commit")  # PostgreSQL 15 commits both
        assert b.execute("select count(*) from ser_ddl_b").fetchone() == (1,)
    finally:
        a.close()
        b.close()
