"""An automatic ANALYZE replans (bumps the catalog version, which drops every session's
cached plans) only when a table's size moved by `autoanalyze.REPLAN` times or it had no
statistics yet; otherwise it reloads the statistics in place and the plans stay.

The test runs the launcher's passes itself (its thread stopped), on a real engine."""

from __future__ import annotations

import random
import threading

import pytest

from cumulo.server.sql.autoanalyze import AutoAnalyze
from cumulo.server.txn.writeset import WriteSet
from tests.unit.sql_statements.helpers import rows, run


def _analyse_due(engine) -> int:
    """Two passes: the first notes the counts, the second finds them unchanged (a nap's
    pause in the writes) and analyses."""
    engine.autoanalyze.run_once()
    return engine.autoanalyze.run_once()


def test_an_automatic_analyze_replans_only_when_a_size_moved(engine, session):
    engine.autoanalyze.stop()
    run(session, "create table aa (id int primary key, g int)")
    run(session, "insert into aa select g, g % 7 from generate_series(1, 1000) g")
    v = engine.store.version
    assert _analyse_due(engine) == 1
    assert engine.store.version > v  # first statistics: every plan was made without them
    v = engine.store.version
    assert rows(session, "select count(*) from aa where g = 3") == [(143,)]
    stmt, _ = session.lookup_simple("select count(*) from aa where g = 3")  # the cached plan

    run(session, "insert into aa select g, g % 7 from generate_series(1001, 1300) g")
    assert _analyse_due(engine) == 1  # 300 changes > 50 + 10 % of 1000
    assert engine.store.version == v  # 1000 -> 1300 rows: the plans stay
    assert rows(session, "select reltuples from pg_class where relname = 'aa'") == [(1300.0,)]
    assert session.lookup_simple("select count(*) from aa where g = 3")[0] is stmt

    run(session, "insert into aa select g, g % 7 from generate_series(1301, 3000) g")
    assert _analyse_due(engine) == 1
    assert engine.store.version > v  # 1300 -> 3000 rows
    assert session.lookup_simple("select count(*) from aa where g = 3")[0] is not stmt
    assert rows(session, "select count(*) from aa where g = 3") == [(429,)]


def test_the_changes_of_several_commits_add_up(engine, session):
    """`note` adds each commit's counts to the table's (the first change's time kept): two
    commits of 100 rows make a table of 1000 due, one more of 100 does not."""
    engine.autoanalyze.stop()
    run(session, "create table ab (id int primary key)")
    run(session, "insert into ab select g from generate_series(1, 1000) g")
    assert _analyse_due(engine) == 1
    run(session, "insert into ab select g from generate_series(1001, 1100) g")
    run(session, "delete from ab where id <= 100")
    assert _analyse_due(engine) == 1  # 200 changes > 50 + 10 % of 1000
    assert rows(session, "select reltuples from pg_class where relname = 'ab'") == [(1000.0,)]
    run(session, "insert into ab select g from generate_series(1101, 1200) g")
    assert _analyse_due(engine) == 0  # 100 changes < 50 + 10 % of 1000


@pytest.mark.parametrize("seed", range(4))
def test_a_write_set_is_noted_as_its_counts(seed: int) -> None:
    """`note_writes` (the commit's: the write set itself) leaves the changes and first-change
    times `note` of the set's `counts` leaves, through savepoint rollbacks that empty a
    space (none noted for it) and bulk runs (`note`'s way)."""
    rnd = random.Random(seed)
    by_counts, by_set = AutoAnalyze(None, None), AutoAnalyze(None, None)
    by_counts._thread = by_set._thread = threading.current_thread()  # no launcher thread
    for _ in range(40):
        ws = WriteSet()
        for _ in range(rnd.randint(1, 4)):
            token = ws.savepoint() if rnd.random() < 0.3 else None
            for _ in range(rnd.randint(1, 3)):
                ws.put(rnd.randrange(6), b"k%d" % rnd.randrange(5), (1,))
            if token is not None and rnd.random() < 0.6:
                ws.rollback_to(token)
        if rnd.random() < 0.1:
            ws.put_new(7, [b"a", b"b"], [(1,), (2,)])
        db = rnd.randrange(2)
        by_counts.note(db, ws.counts())
        by_set.note_writes(db, ws)
        assert by_set._changes == by_counts._changes
        assert by_set._since.keys() == by_counts._since.keys()
    assert 0 not in [n for per in by_set._changes.values() for n in per.values()]
