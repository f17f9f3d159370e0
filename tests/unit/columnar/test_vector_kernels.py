"""The substring and integer mod kernels of `expr.vectorize` equal the row code: over seeded
random packs with NULLs, non-ASCII strings, the int64 minimum and zero divisors, each
expression's vector value equals `codegen`'s value per row, or the kernel falls back (a
zero divisor, a negative count), never answering differently. The kernels do compile:
no NotVectorizable, so the vector path, not the row bridge, computes them."""

from __future__ import annotations

import doctest
import random
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from cumulo.server.kivi.columnar import encode
from cumulo.server.pgtypes import oids as T
from cumulo.server.sql.expr import codegen as cg
from cumulo.server.sql.expr.bound import E, col, const
from cumulo.server.sql.expr.kernels import base as kernel_base
from cumulo.server.sql.expr.vectorize import Fallback, S, compile_vector
from cumulo.server.sql.functions.registry import FUNCTIONS

CTX = SimpleNamespace(params=[], functions=None)


def _fn(name: str, *types: int) -> Any:
    return next(f for f in FUNCTIONS[name] if list(f.args)[:len(types)] == list(types)
                and len(f.args) == len(types))


def _row_values(e: E, rows: list[tuple]) -> list[Any]:
    f = cg.row_function(e)
    return [f(r, CTX) for r in rows]


def _vector_values(e: E, pack: dict) -> list[Any]:
    v = compile_vector(e)(pack.__getitem__, CTX)
    assert not isinstance(v, S)
    vals = v.objects() if v.kind == "str" else v.values
    out = [x.item() if isinstance(x, np.generic) else x for x in vals]
    return out if v.valid is None else [x if ok else None for x, ok in zip(out, v.valid, strict=True)]


def _pack(rnd: random.Random, n: int) -> tuple[list[tuple], dict]:
    words = ["", "a", "ab", "abc", "straße", "élan", "zz", "x y z"]
    rows = [(rnd.choice([None, *range(-9, 10)]),
             rnd.choice([None, 0, 1, -1, 2, -3, 7]),
             rnd.choice([None, -2**63, 2**63 - 1, rnd.randrange(-10**12, 10**12)]),
             rnd.choice([None, *words])) for _ in range(n)]
    return rows, {j: encode([r[j] for r in rows]) for j in range(4)}


EXPRS = [
    lambda: E("op", "%", [col(0, T.INT4), col(1, T.INT4)], T.INT4),
    lambda: E("op", "%", [col(2, T.INT8), const(-1, T.INT8)], T.INT8),
    lambda: E("op", "%", [col(2, T.INT8), const(97, T.INT8)], T.INT8),
    lambda: E("op", "%", [const(100, T.INT4), col(0, T.INT4)], T.INT4),
    lambda: E("call", _fn("mod", T.INT4, T.INT4), [col(0, T.INT4), const(-4, T.INT4)], T.INT4),
    lambda: E("call", _fn("substring", T.TEXT, T.INT4, T.INT4),
              [col(3, T.TEXT), const(2, T.INT4), const(2, T.INT4)], T.TEXT),
    lambda: E("call", _fn("substr", T.TEXT, T.INT4, T.INT4),
              [col(3, T.TEXT), const(-1, T.INT4), const(3, T.INT4)], T.TEXT),
    lambda: E("call", _fn("substr", T.TEXT, T.INT4),
              [col(3, T.TEXT), const(0, T.INT4)], T.TEXT),
    lambda: E("call", _fn("substring", T.TEXT, T.INT4, T.INT4),
              [col(3, T.TEXT), const(1, T.INT4), const(-1, T.INT4)], T.TEXT),
]


@pytest.mark.parametrize("make", EXPRS)
def test_kernel_equals_row_code(make) -> None:
    e = make()
    rnd = random.Random(11)
    vector_runs = 0
    for _ in range(40):
        rows, pack = _pack(rnd, rnd.randrange(0, 30))
        try:
            got = _vector_values(e, pack)
        except Fallback:
            with pytest.raises(Exception):  # noqa: B017 - the row code raises 22012 / 22011
                _row_values(e, rows)
            continue
        vector_runs += 1
        assert got == _row_values(e, rows), e
    assert vector_runs or "-1" in repr(e)


def test_the_result_dictionary_is_sorted_and_unique() -> None:
    e = EXPRS[5]()
    _rows, pack = _pack(random.Random(3), 200)
    v = compile_vector(e)(pack.__getitem__, CTX)
    d = list(v.dictionary)
    assert d == sorted(set(d))


def test_kernel_base_doctests() -> None:
    """The registry's shared helpers show their behaviour (a re-dictionary of mapped entries)."""
    result = doctest.testmod(kernel_base)
    assert result.attempted and not result.failed
