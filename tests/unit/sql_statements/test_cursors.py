"""SQL cursors: DECLARE, FETCH, MOVE, CLOSE and WITH HOLD."""

from __future__ import annotations

from .helpers import fails, rows, run


def setup(session):
    run(session, "create table t (a int primary key)")
    run(session, "insert into t select g from generate_series(1, 10) g")


def test_fetch_forms(session):
    setup(session)
    run(session, "begin")
    assert run(session, "declare c cursor for select a from t order by a") == [
        ("DECLARE CURSOR", None)]
    assert [c.name for c in session.cursor_columns("c")] == ["a"]
    assert session.cursor_columns("nope") is None
    assert run(session, "fetch c") == [("FETCH 1", [(1,)])]
    assert run(session, "fetch forward 2 from c") == [("FETCH 2", [(2,), (3,)])]
    assert run(session, "move 2 in c") == [("MOVE 2", None)]
    assert run(session, "fetch next from c") == [("FETCH 1", [(6,)])]
    assert run(session, "fetch prior from c") == [("FETCH 1", [(5,)])]
    assert run(session, "fetch absolute 9 from c") == [("FETCH 1", [(9,)])]
    assert run(session, "fetch all from c") == [("FETCH 1", [(10,)])]
    assert run(session, "fetch c") == [("FETCH 0", [])]
    assert run(session, "fetch backward 2 from c") == [("FETCH 2", [(10,), (9,)])]
    assert run(session, "fetch first from c") == [("FETCH 1", [(1,)])]
    assert run(session, "close c") == [("CLOSE CURSOR", None)]
    fails(session, "fetch c", "34000")
    run(session, "rollback")


def test_declare_rules(session):
    setup(session)
    fails(session, "declare c cursor for select 1", "25P01")
    run(session, "begin; declare c cursor for select 1")
    fails(session, "declare c cursor for select 2", "42P03")
    run(session, "rollback")
    fails(session, "close c", "34000")


def test_cursors_close_at_commit_unless_held(session):
    setup(session)
    run(session, 'begin; declare "c" cursor for select a from t order by a; '
        "declare h cursor with hold for select a from t order by a")
    run(session, "insert into t values (11)")
    run(session, "commit")
    fails(session, "fetch c", "34000")
    assert rows(session, "fetch 3 from h") == [(1,), (2,), (3,)]
    assert len(rows(session, "fetch all from h")) == 8  # materialised inside its transaction
    run(session, "close all")
    fails(session, "fetch h", "34000")


def test_psycopg_pattern(session):
    setup(session)
    run(session, "begin")
    p = session.prepare('DECLARE "cur" CURSOR FOR select a from t where a < $1', [0])
    session.execute(p, [4])
    assert session.cursor_columns("cur")[0].name == "a"
    f = session.prepare('FETCH FORWARD ALL FROM "cur"', [])
    res = session.execute(f, [])
    assert res.fetch() == [(1,), (2,), (3,)] and res.tag == "FETCH 3"
    run(session, 'close "cur"; commit')
