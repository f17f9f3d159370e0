"""UPDATE and DELETE by full primary key on their fast path, against PostgreSQL 15 (issue 12).

`UPDATE t SET ... WHERE pk = $1` reads its row with one get and the plan's own
projection (sql/dml/keyed.py) instead of the executor. The script runs on both
servers through psycopg's server-side prepared statements (the extended
protocol, pgbench's -M prepared shape) and compares what a client sees:
rows, row counts, RETURNING, composite and NULL keys, a missing key, a key
change, the transaction's own earlier writes, and a statement that fails
half-way inside a transaction block (its effects undone, then 25P02 until
ROLLBACK, and a ROLLBACK TO SAVEPOINT that recovers).
"""

from __future__ import annotations

from typing import Any

import psycopg

SETUP = [
    "DROP TABLE IF EXISTS kd_acc, kd_kv",
    "CREATE TABLE kd_acc (id int PRIMARY KEY, bal int NOT NULL, note text, "
    "amt numeric(6,2) CHECK (amt < 5000))",
    "INSERT INTO kd_acc SELECT g, g * 10, 'n' || g, g FROM generate_series(1, 10) g",
    "CREATE TABLE kd_kv (a int, b text, v int, PRIMARY KEY (a, b))",
    "INSERT INTO kd_kv VALUES (1, 'x', 10), (1, 'y', 11), (2, 'x', 20)",
]


def _script(dsn: str) -> list[Any]:
    seen: list[Any] = []
    with psycopg.connect(dsn, autocommit=True) as c:
        for sql in SETUP:
            c.execute(sql)

        def run(sql: str, *args: Any) -> Any:
            try:
                cur = c.execute(sql, args, prepare=True)
                return (cur.statusmessage, cur.fetchall() if cur.description else None)
            except psycopg.Error as e:
                return ("error", e.sqlstate)

        upd = "UPDATE kd_acc SET bal = bal + %s WHERE id = %s"
        for _ in range(3):  # prepared after a few runs: the same statement, cached
            seen += [run(upd, 5, 1), run(upd, 5, 99), run(upd, 5, None)]
        seen.append(run("UPDATE kd_acc SET note = note || %s, amt = amt * 2 WHERE id = %s "
                        "RETURNING id, bal, note, amt", "!", 2))
        seen.append(run("DELETE FROM kd_acc WHERE id = %s RETURNING *", 3))
        seen.append(run("DELETE FROM kd_acc WHERE id = %s", 3))
        seen.append(run("UPDATE kd_kv SET v = v + %s WHERE a = %s AND b = %s RETURNING *",
                        1, 1, "y"))
        seen.append(run("UPDATE kd_kv SET v = v + %s WHERE a = %s AND b = %s", 1, 1, None))
        seen.append(run("UPDATE kd_acc SET id = id + 100 WHERE id = %s RETURNING id", 4))
        seen.append(run("UPDATE kd_acc SET id = %s WHERE id = %s", 5, 6))  # 23505
        # inside a block: the block's own writes, then a statement failing half-way
        c.execute("BEGIN")
        seen.append(run(upd, 1, 7))
        seen.append(run("SELECT bal FROM kd_acc WHERE id = %s", 7))
        seen.append(run("UPDATE kd_acc SET amt = amt * 1000 WHERE id = %s", 7))  # 23514
        seen.append(run(upd, 1, 8))  # 25P02
        c.execute("ROLLBACK")
        c.execute("BEGIN")
        seen.append(run(upd, 1, 8))
        c.execute("SAVEPOINT s")
        seen.append(run("UPDATE kd_acc SET bal = NULL WHERE id = %s", 8))  # 23502
        c.execute("ROLLBACK TO SAVEPOINT s")
        seen.append(run(upd, 1, 8))
        c.execute("COMMIT")
        seen.append(run("SELECT * FROM kd_acc ORDER BY id"))
        seen.append(run("SELECT * FROM kd_kv ORDER BY a, b"))
    return seen


def test_keyed_update_delete_match_pg15(pg15, cumulo_server):
    want = _script(pg15.dsn())
    assert ("error", "25P02") in want and ("error", "23514") in want  # the script tests them
    assert ("error", "23505") in want and ("error", "23502") in want
    assert _script(cumulo_server.dsn()) == want
