"""ANALYZE samples a table's rows by position (`kivi.storesample`), or its columnar copy
when it has one (`optimizer.sampling`): the same statistics as the row path's full
read, no copy built for ANALYZE's sake, and a count of Columnar runs per session that a
plain run updates (`exec.vector.runs`)."""

from __future__ import annotations

import doctest

import pytest

from cumulo.server.errors import InvalidParameterValue
from cumulo.server.kivi.columnar.access import copy_bytes
from cumulo.server.sql import autoanalyze
from cumulo.server.sql.exec.vector import dictmerge, runs
from cumulo.server.sql.optimizer import sampling, stats
from cumulo.server.txn.transaction import Transaction
from tests.unit.columnar.sqlrun import run

ROWS = stats.SAMPLE + 5000  # more than a sample: the copy's path samples


PG_STATS = ("SELECT attname, null_frac, n_distinct, most_common_vals::text, "
            "histogram_bounds::text FROM pg_stats WHERE tablename = 't' ORDER BY attname")


def _same_statistics(by_rows: list, other: list) -> None:  # type: ignore[type-arg]
    for (name, nf1, nd1, mcv1, _), (name2, nf2, nd2, mcv2, hist2) in zip(
            by_rows, other, strict=True):
        assert name == name2
        assert abs(nf1 - nf2) < 0.02, name
        if name == "id":  # unique: PostgreSQL's -1 on both paths, bounds over the whole range
            assert nd1 == nd2 == -1
            assert hist2 is not None and len(hist2.split(",")) == stats.BUCKETS + 1
        else:  # few values: every one is common, on both paths
            assert nd1 == nd2
            assert set(mcv1.strip("{}").split(",")) == set(mcv2.strip("{}").split(","))


def test_analyze_samples_positions_or_the_copy_with_the_same_statistics(engine, monkeypatch
                                                                        ) -> None:  # type: ignore[no-untyped-def]
    s = engine.open_session("cumulo", "cumulo", {})
    run(s, "CREATE TABLE t (id int PRIMARY KEY, g int, z int, s text)")
    run(s, f"INSERT INTO t SELECT i, i % 7, CASE WHEN i % 5 = 0 THEN NULL ELSE i % 13 END, "
           f"'s' || (i % 3) FROM generate_series(1, {ROWS}) i")

    def no_row_read(*args):  # type: ignore[no-untyped-def]
        raise AssertionError("ANALYZE read every row although it could sample")

    def no_positions(*args, **kwargs):  # type: ignore[no-untyped-def]
        return None

    with monkeypatch.context() as m:
        m.setattr(Transaction, "sample", no_positions)
        run(s, "ANALYZE t")  # no copy yet: every row read, and no copy built for it
    assert copy_bytes(engine.tm.ltm.kivi) == {}
    by_rows = run(s, PG_STATS)[-1]
    tuples = run(s, "SELECT reltuples FROM pg_class WHERE relname = 't'")[-1]
    assert tuples == [(ROWS,)]

    with monkeypatch.context() as m:  # by positions: the same statistics, the count exact
        m.setattr(sampling, "reservoir", no_row_read)
        run(s, "DELETE FROM t WHERE id <= 10")  # tombstones among the hot rows
        run(s, "ANALYZE t")
        _same_statistics(by_rows, run(s, PG_STATS)[-1])
        assert run(s, "SELECT reltuples FROM pg_class WHERE relname = 't'")[-1] == [
            (ROWS - 10,)]
        run(s, "BEGIN")  # its own writes are merged by rows: read them all
        run(s, "DELETE FROM t WHERE id <= 20")
        with pytest.raises(AssertionError, match="could sample"):
            run(s, "ANALYZE t")
        run(s, "ROLLBACK")
    assert copy_bytes(engine.tm.ltm.kivi) == {}

    run(s, "SET cumulo.columnar = on")
    before = run(s, "SELECT cumulo_columnar_runs('vector'), cumulo_columnar_runs('rows')")[-1]
    assert run(s, "SELECT g, count(*) FROM t GROUP BY g ORDER BY g")[-1][0] == (0, ROWS // 7 - 1)
    after = run(s, "SELECT cumulo_columnar_runs('vector'), cumulo_columnar_runs('rows')")[-1]
    assert (after[0][0] - before[0][0], after[0][1] - before[0][1]) == (1, 0)
    assert copy_bytes(engine.tm.ltm.kivi)  # the query built the copy

    monkeypatch.setattr(sampling, "reservoir", no_row_read)
    monkeypatch.setattr(Transaction, "sample", no_positions)
    run(s, "DELETE FROM t WHERE id <= 100")  # the count is the snapshot's, exact
    run(s, "ANALYZE t")
    assert run(s, "SELECT reltuples FROM pg_class WHERE relname = 't'")[-1] == [(ROWS - 100,)]
    _same_statistics(by_rows, run(s, PG_STATS)[-1])

    # the row-count side of a plain run: off runs the row plan, counted as such
    run(s, "SET cumulo.columnar = off")
    run(s, "SELECT g, count(*) FROM t GROUP BY g")
    again = run(s, "SELECT cumulo_columnar_runs('vector'), cumulo_columnar_runs('rows')")[-1]
    assert again[0][1] == after[0][1] + 1
    other = engine.open_session("cumulo", "cumulo", {})  # counts are per session
    assert run(other, "SELECT cumulo_columnar_runs('vector')")[-1] == [(0,)]
    with pytest.raises(InvalidParameterValue):
        run(other, "SELECT cumulo_columnar_runs('nope')")
    other.close()
    run(s, "DROP TABLE t")  # frees the copy (test_copy_memory looks for live copies)
    s.close()


def test_a_table_written_without_pause_waits_longer_after_a_long_analyze() -> None:
    a = autoanalyze.AutoAnalyze(store=None, tm=None)
    assert a.busy_wait(1, 5) == autoanalyze.BUSY_WAIT
    a._took[(1, 5)] = 0.2  # noqa: SLF001  # what run_once records
    assert a.busy_wait(1, 5) == autoanalyze.BUSY_WAIT
    a._took[(1, 5)] = 4.0  # noqa: SLF001
    assert a.busy_wait(1, 5) == autoanalyze.DUTY * 4.0


@pytest.mark.parametrize("module", [sampling, runs, dictmerge, autoanalyze])
def test_doctests(module) -> None:  # type: ignore[no-untyped-def]
    result = doctest.testmod(module)
    assert result.attempted and not result.failed
