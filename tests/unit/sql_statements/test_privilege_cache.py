"""A prepared statement remembers the (catalog version, role, session user) its privilege
check passed for (`privileges.statements.guard`) and skips the check while they stand.
Every change that can take a right away must make the next execution check again: a
committed REVOKE, a REVOKE inside the block (uncommitted DDL: no version to trust), a
SET ROLE to another role, and a ROLLBACK that undoes a GRANT."""

from __future__ import annotations

import pytest

from cumulo.server.errors import InsufficientPrivilege
from cumulo.server.sql.engine import SQLEngine
from cumulo.server.txn.embedded import open_embedded

INT4 = 23


@pytest.fixture
def session():  # type: ignore[no-untyped-def]
    eng = SQLEngine(open_embedded(None, gc_interval=None))
    s = eng.open_session("cumulo", "cumulo", {})
    yield s
    eng.close()


def sql(session, text: str) -> list:  # type: ignore[no-untyped-def]
    return [r.fetch() if r.columns is not None else r.tag for r in session.simple_query(text)]


def test_each_change_of_rights_is_seen_by_the_next_execution(session) -> None:  # type: ignore[no-untyped-def]
    sql(session, "CREATE TABLE acc (id int PRIMARY KEY, v int); INSERT INTO acc VALUES (1, 10);"
                 "CREATE ROLE r1; CREATE ROLE r2; GRANT SELECT ON acc TO r1")
    p = session.prepare("SELECT v FROM acc WHERE id = $1", [INT4])

    def run() -> object:
        session.check_prepared(p)
        try:
            res = session.execute(p, [1])
            return res.fetch()
        except InsufficientPrivilege:
            return "42501"
        finally:
            session.sync()

    sql(session, "SET ROLE r1")
    assert [run(), run()] == [[(10,)], [(10,)]]
    sql(session, "SET ROLE r2")
    assert run() == "42501"  # another role, same catalog version
    sql(session, "SET ROLE r1")
    assert run() == [(10,)]
    sql(session, "RESET ROLE; REVOKE SELECT ON acc FROM r1; SET ROLE r1")
    assert run() == "42501"  # committed REVOKE
    sql(session, "RESET ROLE; GRANT SELECT ON acc TO r1; SET ROLE r1")
    assert run() == [(10,)]
    sql(session, "RESET ROLE; BEGIN; SET LOCAL ROLE r1")
    assert run() == [(10,)]
    sql(session, "RESET ROLE; REVOKE SELECT ON acc FROM r1; SET LOCAL ROLE r1")
    assert run() == "42501"  # uncommitted REVOKE in the block
    sql(session, "ROLLBACK; BEGIN; REVOKE SELECT ON acc FROM r1; GRANT SELECT ON acc TO r1;"
                 "SET LOCAL ROLE r1")
    assert [run(), run()] == [[(10,)], [(10,)]]
    sql(session, "RESET ROLE; REVOKE SELECT ON acc FROM r1; SET LOCAL ROLE r1")
    assert run() == "42501"  # a second DDL in the same block
    sql(session, "ROLLBACK; SET ROLE r1")
    assert run() == [(10,)]  # the ROLLBACK undid the REVOKE
    sql(session, "RESET ROLE; REVOKE SELECT ON acc FROM r1")
    sql(session, "BEGIN; GRANT SELECT ON acc TO r1; SET LOCAL ROLE r1")
    assert [run(), run()] == [[(10,)], [(10,)]]  # an uncommitted GRANT, each run checked
    sql(session, "ROLLBACK; SET ROLE r1")
    assert run() == "42501"  # the ROLLBACK undid the GRANT
    sql(session, "RESET ROLE; BEGIN; CREATE TABLE other (a int); SET LOCAL ROLE r1")
    assert run() == "42501"  # uncommitted DDL of another table: checked again, still denied
    sql(session, "ROLLBACK; RESET ROLE; GRANT SELECT ON acc TO r1; SET ROLE r1")
    assert run() == [(10,)]
