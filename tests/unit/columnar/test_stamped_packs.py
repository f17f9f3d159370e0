"""Columnar answers over built packs that later writes stamped equal the rows' own:
GROUP BY a key that follows the primary key (per-run totals kept with each pack, less the
rows a snapshot leaves out: `aggregate._by_runs`), and `<>` filters that the zone maps of
packs holding one value rule out (`vector.scan._excluded`), before and after updates,
deletes and inserts, with NULLs and MIN/MAX values held by superseded rows. The oracle
is computed here from the rows: with `cumulo.columnar = off` an aggregate pushed to KiVi
runs the same partial-aggregate kernel."""

from __future__ import annotations

import doctest
from decimal import Decimal
from typing import Any

import pytest

from cumulo.server.kivi.columnar import aggregate
from cumulo.server.kivi.columnar import copy as ccopy
from cumulo.server.sql.exec.vector import scan
from tests.unit.columnar.sqlrun import run

QUERIES = (
    "SELECT g, count(*), sum(x), min(x), max(x), count(x), sum(d) FROM t GROUP BY g ORDER BY g",
    "SELECT count(*), sum(x) FROM t WHERE x <> 0",
    "SELECT count(*) FROM t WHERE 0 <> x AND s <> 'a'",
    "SELECT g, count(*) FROM t WHERE d <> 1.5 GROUP BY g ORDER BY g",
    "SELECT t.g, count(*), sum(t.x) FROM t JOIN k ON k.g = t.g WHERE t.x <> 0 GROUP BY t.g"
    " ORDER BY 1",
)
WRITES = (
    "UPDATE t SET x = x + 7 WHERE id % 97 = 3",
    "UPDATE t SET x = 0 WHERE id IN (5, 400, 401)",
    "DELETE FROM t WHERE id % 89 = 1",
    "UPDATE t SET x = 0 WHERE g = 0 AND x = 5",  # every row holding the group's MAX
    "UPDATE t SET x = 0 WHERE g = 1 AND x = -5 AND id % 2 = 0",  # some holding its MIN
    "UPDATE t SET x = 100 WHERE id = 130",
    "UPDATE t SET x = 1 WHERE id = 130",
    "INSERT INTO t SELECT i, i / 64, 0, 'a', 1.5 FROM generate_series(600, 640) i",
    "UPDATE t SET x = NULL WHERE id = 7",
)


def _sum(vs: list[Any]) -> Any:
    vs = [v for v in vs if v is not None]
    return sum(vs) if vs else None


def _expected(rows: list[tuple]) -> list[list]:
    """The answers of QUERIES computed from the rows (id, g, x, s, d)."""
    groups = sorted({r[1] for r in rows})
    by = {g: [r for r in rows if r[1] == g] for g in groups}
    xs = {g: [r[2] for r in by[g] if r[2] is not None] for g in groups}
    nz = [r for r in rows if r[2] is not None and r[2] != 0]
    return [
        [(g, len(by[g]), _sum(xs[g]), min(xs[g], default=None), max(xs[g], default=None),
          len(xs[g]), _sum([r[4] for r in by[g]])) for g in groups],
        [(len(nz), _sum([r[2] for r in nz]))],
        [(sum(1 for r in nz if r[3] != "a"),)],
        [(g, n) for g in groups if (n := sum(1 for r in by[g] if r[4] != Decimal("1.5")))],
        [(g, len(m), _sum([r[2] for r in m])) for g in groups
         if (m := [r for r in nz if r[1] == g])],
    ]


def test_stamped_packs_answer_as_rows(engine, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(ccopy, "PACK_ROWS", 64)
    s = engine.open_session("cumulo", "cumulo", {})
    run(s, "CREATE TABLE t (id int PRIMARY KEY, g int, x int, s text, d numeric)")
    run(s, "CREATE TABLE k (g int PRIMARY KEY)")
    # packs of 64 rows: x is 0 in every row of ids 64-255, s 'a' and d 1.5 in most packs
    run(s, "INSERT INTO t SELECT i, i / 40, CASE WHEN i BETWEEN 64 AND 255 THEN 0"
           " ELSE i % 11 - 5 END, CASE WHEN i > 300 THEN 'b' ELSE 'a' END,"
           " CASE WHEN i % 50 = 0 THEN 2.5 ELSE 1.5 END FROM generate_series(0, 511) i")
    run(s, "INSERT INTO k SELECT i FROM generate_series(0, 20) i")
    for w in ("", *WRITES):
        if w:
            run(s, w)
        run(s, "SET cumulo.columnar = off")
        want = _expected(run(s, "SELECT id, g, x, s, d FROM t")[-1])
        run(s, "SET cumulo.columnar = on")
        assert [run(s, q)[-1] for q in QUERIES] == want, w
    vector = run(s, "SELECT cumulo_columnar_runs('vector')")[-1][0][0]
    assert vector >= len(QUERIES) * (len(WRITES) + 1)  # every query ran the vector form


@pytest.mark.parametrize("module", [aggregate, scan])
def test_doctests(module) -> None:  # type: ignore[no-untyped-def]
    result = doctest.testmod(module)
    assert result.attempted and not result.failed
