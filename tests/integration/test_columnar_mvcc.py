"""The columnar path under MVCC, through real sessions: snapshots taken before, during and after
concurrent INSERT / UPDATE / DELETE see what the row path sees; an old REPEATABLE READ
snapshot keeps its answer while other sessions rewrite the table (and garbage collection runs);
a crash (SIGKILL) and restart rebuild the copy from checkpoint and redo log."""

from __future__ import annotations

import random
import signal

import psycopg

AGG = "select g, count(*), sum(v), min(v), max(s) from colm_t group by g order by g"
TOPN = "select id, v from colm_t where v > 10 order by v desc, id limit 5"


def both(conn: psycopg.Connection, sql: str) -> list:
    """The answer with the columnar path forced, checked against the row path's."""
    conn.execute("set cumulo.columnar = on")
    on = conn.execute(sql).fetchall()
    conn.execute("set cumulo.columnar = off")
    off = conn.execute(sql).fetchall()
    conn.execute("set cumulo.columnar = on")
    assert on == off, sql
    return on


def test_snapshots_under_concurrent_writes(cumulo_server) -> None:
    rnd = random.Random(11)
    with psycopg.connect(cumulo_server.dsn(), autocommit=True) as w, \
            psycopg.connect(cumulo_server.dsn(), autocommit=True) as r, \
            psycopg.connect(cumulo_server.dsn(), autocommit=True) as old:
        w.execute("drop table if exists colm_t")
        w.execute("create table colm_t (id int primary key, g int, v int, s text)")
        w.execute("insert into colm_t select i, i % 5, i, 's' || (i % 7) "
                  "from generate_series(1, 4000) i")
        before = both(r, AGG)
        old.execute("set cumulo.columnar = on")
        old.execute("begin isolation level repeatable read")
        assert old.execute(AGG).fetchall() == before  # the snapshot is taken here
        for step in range(30):
            op = rnd.random()
            if op < 0.4:
                lo = rnd.randrange(1, 4000)
                w.execute("update colm_t set v = v + %s where id between %s and %s",
                          (rnd.randrange(-50, 50), lo, lo + rnd.randrange(1, 400)))
            elif op < 0.7:
                base = 10_000 + step * 100
                w.execute("insert into colm_t select i, i %% 5, i %% 97, null "
                          "from generate_series(%s, %s) i", (base, base + rnd.randrange(1, 90)))
            else:
                w.execute("delete from colm_t where id %% 13 = %s and g = %s",
                          (rnd.randrange(13), rnd.randrange(5)))
            both(r, AGG)  # after each commit: the newest snapshot, both paths
            both(r, TOPN)
            if step % 10 == 0:
                assert old.execute(AGG).fetchall() == before  # the old snapshot is unmoved
        assert old.execute(AGG).fetchall() == before
        old.execute("commit")
        after = both(r, AGG)
        assert after != before
        w.execute("drop table colm_t")


def test_crash_recovery_rebuilds_the_copy(fresh_server) -> None:
    with psycopg.connect(fresh_server.dsn(), autocommit=True) as c:
        c.execute("create table colm_r (id int primary key, g int, v int)")
        c.execute("insert into colm_r select i, i % 4, i from generate_series(1, 3000) i")
        c.execute("set cumulo.columnar = on")
        c.execute("select count(*) from colm_r").fetchall()  # the copy is built
        c.execute("update colm_r set v = -v where g = 1")
        c.execute("delete from colm_r where g = 2 and id < 100")
        c.execute("insert into colm_r values (5000, 3, 7)")
        want = both(c, "select g, count(*), sum(v) from colm_r group by g order by g")
        # a row plan that returns keys (ctid) keeps the row path: same answer either way
        both(c, "select id, ctid from colm_r where g = 3 order by v, id limit 3")
    fresh_server.stop(signal.SIGKILL)
    fresh_server.start()
    with psycopg.connect(fresh_server.dsn(), autocommit=True) as c:
        got = both(c, "select g, count(*), sum(v) from colm_r group by g order by g")
        assert got == want
        c.execute("update colm_r set v = 0 where id = 5000")  # writes after the rebuild
        assert both(c, "select sum(v) from colm_r where g = 3") == [(want[-1][2] - 7,)]
