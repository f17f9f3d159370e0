"""A session sees its own committed DDL at its next statement, while other sessions write.

A commit is acknowledged before its timestamp becomes readable, so a catalog reload right
after a DDL commit could read an older snapshot and cache the catalog without that DDL
(CH Q15's CREATE VIEW revenue0 was then "does not exist" in the next statement). The
reload now waits for the DDL's commit, as the session's own next transaction does.
"""

from __future__ import annotations

import threading

import psycopg


def test_own_ddl_is_visible_at_once_under_concurrent_writes(cumulo_server):
    dsn = cumulo_server.dsn()
    with psycopg.connect(dsn, autocommit=True) as setup:
        setup.execute("drop table if exists ddlvis_w cascade")
        setup.execute("create table ddlvis_w (id int primary key, v int)")
        setup.execute("insert into ddlvis_w select i, 0 from generate_series(1, 100) i")
    stop = threading.Event()
    errors: list[BaseException] = []

    def writer() -> None:
        try:
            with psycopg.connect(dsn, autocommit=True) as w:
                i = 0
                while not stop.is_set():
                    w.execute("update ddlvis_w set v = v + 1 where id = %s", (i % 100 + 1,))
                    i += 1
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=writer) for _ in range(2)]
    for t in threads:
        t.start()
    failures = []
    try:
        with psycopg.connect(dsn, autocommit=True) as a:
            for k in range(100):
                for sql in ("create view ddlvis_v as select id, sum(v) from ddlvis_w group by id",
                            "select * from ddlvis_w w, ddlvis_v r where w.id = r.id "
                            "and r.sum = (select max(sum) from ddlvis_v)",
                            "drop view ddlvis_v"):
                    try:
                        a.execute(sql)
                    except psycopg.Error as e:
                        failures.append((k, sql.split()[0], e.sqlstate, str(e)))
                        a.execute("drop view if exists ddlvis_v")
                        break
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert not errors, errors
    assert not failures, failures[:5]
