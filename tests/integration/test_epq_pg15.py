"""READ COMMITTED's recheck of a row changed while a statement waited for it (PostgreSQL's
EvalPlanQual), diffed with PostgreSQL 15 through psycopg.

Session A changes a row in an open transaction; session B's UPDATE, DELETE or SELECT FOR
UPDATE blocks on that row; A commits (or rolls back) and B goes on with the row's newest
version: written from it when it still qualifies, skipped when it no longer does or was
deleted. B's outcome (status and rows, or SQLSTATE) and the table afterwards must be
PostgreSQL's. One database per module on each server; each race makes its own table.
"""

from __future__ import annotations

import threading

import psycopg
import pytest

from tests.integration.stmtdiff import fresh_databases, wait_until_active

SETUP = ("create table {t} (id int primary key, v int, w text);"
         " insert into {t} values (1, 0, 'a'), (2, 0, 'b'), (3, 5, 'c')")

# name: (A's statements in its open transaction, B's statement, how A ends, B's isolation)
RACES = {
    # a by-key UPDATE computes the new value from the committed one (pgbench's statement)
    "keyed_update": (["update {t} set v = v + 10 where id = 1"],
                     "update {t} set v = v + 1 where id = 1 returning v, w", "commit", ""),
    # A's change makes the row stop qualifying: B skips it and writes the rest
    "stops_qualifying": (["update {t} set v = 7 where id = 1"],
                         "update {t} set v = v + 1 where v = 0 returning id, v", "commit", ""),
    "still_qualifies": (["update {t} set w = 'z' where id = 2"],
                        "update {t} set v = v + 100 where v = 0 returning *", "commit", ""),
    "deleted": (["delete from {t} where id = 1"],
                "update {t} set v = v + 1 where id = 1 returning *", "commit", ""),
    "deleted_scan": (["delete from {t} where id = 2"],
                     "delete from {t} where v >= 0 returning id", "commit", ""),
    "key_changed": (["update {t} set id = 10 where id = 1"],
                    "update {t} set v = v + 1 where id = 1 returning *", "commit", ""),
    "delete_after_update": (["update {t} set v = 9 where id = 1"],
                            "delete from {t} where id in (1, 2) returning id, v", "commit", ""),
    "holder_rolls_back": (["update {t} set v = 50 where id = 1"],
                          "update {t} set v = v + 1 where id = 1 returning v", "rollback", ""),
    "for_update_requalifies": (["update {t} set v = 3 where id = 1"],
                               "select id, v from {t} where v = 0 order by id for update",
                               "commit", ""),
    "for_update_newest": (["update {t} set v = v + 4 where id = 1"],
                          "select id, v from {t} where id = 1 for update", "commit", ""),
    "repeatable_read": (["update {t} set v = 1 where id = 1"],
                        "update {t} set v = v + 1 where id = 1", "commit",
                        "begin isolation level repeatable read"),
    "serializable_delete": (["update {t} set v = 1 where id = 3"],
                            "delete from {t} where id = 3", "commit",
                            "begin isolation level serializable"),
}


def _race(dsn: str, name: str) -> tuple:
    holder, waiter, end, begin = RACES[name]
    t = f"epq_{name}"
    out: list = []
    with psycopg.connect(dsn, autocommit=True) as a, psycopg.connect(dsn, autocommit=True) as b:
        a.execute(f"drop table if exists {t}")
        a.execute(SETUP.format(t=t))
        a.execute("begin")
        for sql in holder:
            a.execute(sql.format(t=t))
        if begin:
            b.execute(begin)
        sql = waiter.format(t=t)

        def wait() -> None:
            try:
                cur = b.execute(sql)
                out.append((cur.statusmessage,
                            cur.fetchall() if cur.description is not None else None))
            except psycopg.Error as e:
                out.append(("ERROR", e.sqlstate))

        th = threading.Thread(target=wait)
        th.start()
        wait_until_active(dsn, sql)
        a.execute(end)
        th.join(30)
        if begin:
            b.execute("rollback")
        return out[0], a.execute(f"select * from {t} order by id").fetchall()


@pytest.fixture(scope="module")
def dsns(cumulo_server, pg15):
    return fresh_databases(pg15, cumulo_server, "epq")


@pytest.mark.parametrize("name", sorted(RACES))
def test_recheck_after_wait_as_pg15(dsns, name):
    pg, cu = dsns
    assert _race(cu, name) == _race(pg, name)


def _deleted_row_unlocked(dsn: str) -> tuple:
    """A row B's UPDATE skipped because it was deleted meanwhile is not left locked by B:
    a third session inserts that key again while B's transaction is still open."""
    with psycopg.connect(dsn, autocommit=True) as a, psycopg.connect(dsn, autocommit=True) as b, \
            psycopg.connect(dsn, autocommit=True) as c:
        a.execute("drop table if exists epq_unlock")
        a.execute("create table epq_unlock (id int primary key, v int)")
        a.execute("insert into epq_unlock values (1, 0)")
        a.execute("begin")
        a.execute("delete from epq_unlock where id = 1")
        b.execute("begin")
        out: list = []
        sql = "update epq_unlock set v = v + 1 where id = 1"
        th = threading.Thread(target=lambda: out.append(b.execute(sql).statusmessage))
        th.start()
        wait_until_active(dsn, sql)
        a.execute("commit")
        th.join(30)
        c.execute("set lock_timeout = '2s'")
        try:
            got = c.execute("insert into epq_unlock values (1, 5)").statusmessage
        except psycopg.Error as e:
            got = e.sqlstate
        b.execute("commit")
        return out[0], got


def test_deleted_row_is_not_left_locked_as_pg15(dsns):
    pg, cu = dsns
    expected = _deleted_row_unlocked(pg)
    assert expected == ("UPDATE 0", "INSERT 0 1")
    assert _deleted_row_unlocked(cu) == expected
