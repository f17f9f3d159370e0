"""The first columnar read of a table builds its copy outside the node lock while other
sessions keep writing (`kivi.columnar.build`): through real sessions, a REPEATABLE READ
snapshot that triggers the build gets the row path's answer, and so does every later
snapshot, once the writes that landed during the build were caught up."""

from __future__ import annotations

import random
import threading

import psycopg

AGG = "select g, count(*), sum(v), min(v), max(v) from {t} group by g order by g"


def test_first_read_during_writes(cumulo_server) -> None:
    dsn = cumulo_server.dsn()
    with psycopg.connect(dsn, autocommit=True) as c:
        for k in range(3):
            c.execute(f"drop table if exists colb_{k}")
            c.execute(f"create table colb_{k} (id int primary key, g int, v int)")
            c.execute(f"insert into colb_{k} select i, i % 7, i from generate_series(1, 60000) i")
    stop = threading.Event()
    errors: list[BaseException] = []

    def writer(k: int) -> None:
        rnd = random.Random(k)
        try:
            with psycopg.connect(dsn, autocommit=True) as w:
                n = 0
                while not stop.is_set():
                    n += 1
                    op = rnd.random()
                    if op < 0.5:
                        lo = rnd.randrange(1, 60000)
                        w.execute(f"update colb_{k} set v = v + 1 where id between %s and %s",
                                  (lo, lo + 20))
                    elif op < 0.8:
                        w.execute(f"insert into colb_{k} values (%s, %s, %s)",
                                  (100000 + n, n % 7, n))
                    else:
                        w.execute(f"delete from colb_{k} where id = %s",
                                  (rnd.randrange(1, 60000),))
        except BaseException as e:  # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    try:
        with psycopg.connect(dsn, autocommit=True) as r:
            for k in range(3):
                sql = AGG.format(t=f"colb_{k}")
                r.execute("begin isolation level repeatable read")
                r.execute("set cumulo.columnar = on")
                on = r.execute(sql).fetchall()  # the first columnar read: builds the copy
                r.execute("set cumulo.columnar = off")
                off = r.execute(sql).fetchall()
                r.execute("commit")
                assert on == off, k
                for _ in range(3):  # newer snapshots: the caught-up copy, still equal
                    r.execute("begin isolation level repeatable read")
                    r.execute("set cumulo.columnar = on")
                    on = r.execute(sql).fetchall()
                    r.execute("set cumulo.columnar = off")
                    assert r.execute(sql).fetchall() == on, k
                    r.execute("commit")
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert not errors, errors
    with psycopg.connect(dsn, autocommit=True) as c:
        for k in range(3):
            c.execute(f"drop table colb_{k}")
