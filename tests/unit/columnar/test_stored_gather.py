"""`Stored.gather` (a few rows of several packs, taken pack by pack) equals concatenating the
whole column and taking the rows: strings of different dictionaries, numerics of several
scales, NULLs, all-NULL packs, selections, unsorted positions and -1 (padding)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import numpy as np
import pytest

from cumulo.server.kivi.columnar.aggregate import Selected
from cumulo.server.kivi.columnar.copy import Pack
from cumulo.server.pgtypes import oids as T
from cumulo.server.sql.exec.vector.frame import Frame, Stored, _gather

TYPES = [T.INT4, T.TEXT, T.NUMERIC, T.DATE]


def _pack(pid: int, rows: list[tuple]) -> Pack:
    keys = [(pid, i) for i in range(len(rows))]
    return Pack(pid, keys, rows, None, None)


def _stored() -> Stored:
    d = dt.date(2020, 1, 1)
    p1 = _pack(1, [(i, f"s{i % 5}", Decimal(i) / 4, d) for i in range(40)])
    p2 = _pack(2, [(i, None if i % 3 else f"t{i}", Decimal(i) / 100, None) for i in range(30)])
    p3 = _pack(3, [(None, None, None, None) for _ in range(25)])
    sel = [Selected(p1, np.arange(0, 40, 2)), Selected(p2, None), Selected(p3, None),
           Selected(p1, None)]
    return Stored(sel, TYPES, [-1] * 4, 4)


@pytest.mark.parametrize("seed", range(6))
def test_gather_equals_concatenate_then_take(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a, b = _stored(), _stored()
    n = a.n
    idx = rng.integers(-1 if seed % 2 else 0, n, size=rng.integers(1, n // 32))
    if seed % 3 == 0:
        idx.sort()
    for c in range(len(TYPES)):
        assert a.sparse(c, idx)
        got = a.gather(c, idx).to_pylist()
        want = _gather(b.column(c), idx).to_pylist()
        assert got == want, c


def test_frame_reads_few_rows_by_gather() -> None:
    s = _stored()
    f = Frame.of(s).take(np.array([100, 3, 60]))
    assert f.column(1).to_pylist() == ["s0", "s1", None]
    assert 1 not in s._cols  # never concatenated whole
