"""The analytical fast paths answer exactly what the general paths answer.

- KiVi serves a table's pushed aggregates from its versioned columnar copy
  (`kivi.columnar`), which writes maintain instead of dropping, so the path must
  stay right across COPYs, an UPDATE, a DELETE and a rolled-back write, and it
  must actually be taken after a COPY and its commit.
- The streaming GROUP BY (`exec/fold`) folds a batch that splits into many
  small groups row by row; every foldable aggregate, FILTER, NULLs and the
  functionally dependent "first" column must give the per-group result.

Expected values are computed here in Python, not by another Cumulo path.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from cumulo.server.kivi import mvcc
from cumulo.server.kivi.columnar.build import PendingBuild

from .helpers import copy_in, rows, run


@pytest.fixture
def served(monkeypatch):
    """Counts the aggregate scans the columnar copy served: a snapshot from
    `VersionStore.columnar_begin` (the node's entry; a `PendingBuild` it hands back is
    built, then read through `columnar`) or from `columnar`."""
    calls = {"served": 0}

    def spy_on(name: str) -> None:
        real = getattr(mvcc.VersionStore, name)

        def spy(self, ts):
            got = real(self, ts)
            calls["served"] += got is not None and not isinstance(got, PendingBuild)
            return got

        monkeypatch.setattr(mvcc.VersionStore, name, spy)

    spy_on("columnar")
    spy_on("columnar_begin")
    return calls


def _copy(session, ids):
    data = "".join(f"{i}\t{i % 10}\t{i * 2}\n" for i in ids).encode()
    assert copy_in(session, "copy t from stdin", [data]) == f"COPY {len(ids)}"


def _want(table: dict[int, tuple[int, int]]) -> list[tuple[int, int, int]]:
    out: dict[int, list[int]] = {}
    for g, x in table.values():
        acc = out.setdefault(g, [0, 0])
        acc[0] += 1
        acc[1] += x
    return sorted((g, c, s) for g, (c, s) in out.items())


def test_group_by_uses_columns_after_copy_and_stays_fresh(session, served):
    run(session, "create table t (id bigint primary key, g int not null, x bigint not null)")
    table = {i: (i % 10, i * 2) for i in range(1, 20001)}
    q = "select g, count(*), sum(x) from t group by g order by g"
    _copy(session, range(1, 10001))
    _copy(session, range(10001, 20001))
    assert rows(session, q) == _want(table)
    assert served["served"] == 1  # the pushed aggregate read the columnar copy
    for lo in (20001, 30001):  # COPYs after the copy exists: maintained, not dropped
        _copy(session, range(lo, lo + 10000))
        table.update({i: (i % 10, i * 2) for i in range(lo, lo + 10000)})
        assert rows(session, q) == _want(table)
    assert served["served"] == 3
    run(session, "update t set x = 0 where id % 1000 = 7")
    for i in table:
        if i % 1000 == 7:
            table[i] = (table[i][0], 0)
    run(session, "delete from t where id between 100 and 199")
    for i in range(100, 200):
        del table[i]
    assert rows(session, q) == _want(table)  # old versions and tombstones: chunk scan
    run(session, "begin")
    _copy(session, range(40001, 50001))
    run(session, "rollback")
    assert rows(session, q) == _want(table)
    assert rows(session, "select count(*), sum(id) from t") == [(len(table), sum(table))]


def test_many_small_groups_fold_row_by_row_like_per_group(session):
    run(session, "create table p (id int primary key, name text)")
    run(session, "create table c (id int primary key, pid int, v float8, n numeric, b bool)")
    run(session, "insert into p select i, 'p' || i from generate_series(1, 3000) i")
    run(session, "insert into c select i, i % 3000 + 1, case when i % 7 = 0 then null else "
                 "i / 4.0 end, i % 11, i % 3 <> 0 from generate_series(1, 9000) i")
    got = rows(session, """
        select p.id, p.name, count(*), count(c.v), sum(c.v), avg(c.n), min(c.v), max(c.n),
               bool_and(c.b), bool_or(c.b), count(*) filter (where c.n > 5),
               sum(c.n) filter (where c.b)
        from p join c on c.pid = p.id group by p.id order by p.id""")
    kids: dict[int, list[tuple]] = {}
    for i in range(1, 9001):
        v = None if i % 7 == 0 else i / 4.0
        kids.setdefault(i % 3000 + 1, []).append((v, Decimal(i % 11), i % 3 != 0))
    want = []
    for pid in range(1, 3001):
        ks = kids[pid]
        vs = [k[0] for k in ks if k[0] is not None]
        ns = [k[1] for k in ks]
        picked = [k[1] for k in ks if k[2]]
        avg = sum(ns) / len(ns)
        want.append((pid, f"p{pid}", len(ks), len(vs), sum(vs) if vs else None, avg,
                     min(vs) if vs else None, max(ns), all(k[2] for k in ks),
                     any(k[2] for k in ks), sum(1 for n in ns if n > 5),
                     sum(picked) if picked else None))
    assert len(got) == 3000
    for g, w in zip(got, want, strict=True):
        assert g[:5] == w[:5] and g[6:] == w[6:], (g, w)
        assert abs(g[5] - w[5]) < Decimal("1e-12")
    few = rows(session, "select i % 3, count(*), sum(i), min(i) from generate_series(1, 5000) i "
                        "group by 1 order by 1")
    many = rows(session, "select i % 2500, count(*), sum(i), min(i) from generate_series(1, 5000) i"
                         " group by 1 order by 1")
    assert few == [(r, len(range(r or 3, 5001, 3)), sum(range(r or 3, 5001, 3)), r or 3)
                   for r in range(3)]
    assert many == [(r, 2, (r or 2500) * 2 + 2500, r or 2500) for r in range(2500)]


NULL = "\\N"


def test_columns_with_nulls_in_some_segments(session, served):
    run(session, "create table n (id bigint primary key, g int, x int)")
    want: dict[int | None, list] = {}
    for lo, null_every in ((1, 0), (5001, 7), (10001, 0)):  # NULLs only in the middle COPY
        lines = []
        for i in range(lo, lo + 5000):
            g = None if null_every and i % 11 == 0 else i % 4
            x = None if null_every and i % null_every == 0 else i
            lines.append("\t".join(NULL if v is None else str(v) for v in (i, g, x)) + "\n")
            acc = want.setdefault(g, [0, 0, 0, None, None])
            acc[0] += 1
            if x is not None:
                acc[1] += 1
                acc[2] += x
                acc[3] = x if acc[3] is None else min(acc[3], x)
                acc[4] = x if acc[4] is None else max(acc[4], x)
        assert copy_in(session, "copy n from stdin", ["".join(lines).encode()]) == "COPY 5000"
        got = rows(session, "select g, count(*), count(x), sum(x), min(x), max(x) from n "
                            "group by g order by g nulls last")
        assert got == [(g, *v) for g, v in sorted(want.items(), key=lambda kv: (
            kv[0] is None, kv[0] or 0))]
    assert served["served"] == 3


def test_filter_guards_the_argument_in_row_by_row_folds(session):
    """PostgreSQL evaluates an aggregate's argument only on the rows its FILTER keeps."""
    got = rows(session, "select i % 2000, sum(100 / (i % 5)) filter (where i % 5 <> 0), "
                        "count(*) filter (where i % 5 = 0) from generate_series(1, 6000) i "
                        "group by 1 order by 1")
    want = []
    for r in range(2000):
        ids = [i for i in range(1, 6001) if i % 2000 == r]
        kept = [100 // (i % 5) for i in ids if i % 5]
        want.append((r, sum(kept) if kept else None, sum(1 for i in ids if i % 5 == 0)))
    assert got == want
