"""Expressions with no vector form, evaluated by the row code over a frame's columns.

A join of CH-benCHmark reads `mod(s_w_id * s_i_id, 10000)`, `ascii(substring(c_state
from 1 for 1))`, `extract(year from o_entry_d)` or a CASE: `expr.vectorize` has no
kernel for them, and one such expression used to send the whole subtree to the
row path. Here it costs what the row path pays for that expression alone: the
columns it reads become Python lists, the row code (`codegen.row_function`, the
very function the row path runs) maps them, and the values are encoded back
into a column. The rest of the subtree stays vectorized, and the expression
sees only the rows left after the joins and filters below it.

Semantics are the row path's by construction. A SQL error raised here (a
division by zero, say) becomes `Fallback`: the row plan then runs and decides,
in its own order of evaluation, whether the statement fails.

    >>> from cumulo.server.kivi.columnar import encode
    >>> from cumulo.server.sql.expr.bound import E, col, const
    >>> from cumulo.server.pgtypes import oids as T
    >>> e = E("op", "%", [col(0, T.INT4), const(3, T.INT4)], T.INT4)
    >>> compile_any(e)({0: encode([7, None, 9])}.__getitem__, None).values.tolist()
    [1, 0, 0]
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import numpy as np

from ....errors import SQLError
from ....kivi.columnar import Column, encode
from ...expr import codegen as cg
from ...expr.bound import E
from ...expr.vectorize import Fallback, NotVectorizable, S, V, compile_vector, filter_mask

VFn = Callable[[Callable[[int], Column], Any], "V | S"]


def _renumber(e: E, mapping: dict[int, int]) -> E:
    if e.kind == "col":
        return E("col", mapping[e.data], [], e.type, e.typmod, e.name, e.fields)
    if not e.args:
        return e
    return E(e.kind, e.data, [_renumber(a, mapping) for a in e.args], e.type, e.typmod,
             e.name, e.fields)


def _values(e: E) -> Callable[[Callable[[int], Column], Any], list[Any] | None]:
    """The row code for e over the columns it reads: a list of values (None: no column)."""
    cols = sorted({x.data for x in e.walk() if x.kind == "col"})
    fn = cg.row_function(_renumber(e, {c: i for i, c in enumerate(cols)}))

    def run(src: Callable[[int], Column], ctx: Any) -> list[Any] | None:
        if not cols:
            return None
        lists = [src(c).to_pylist() for c in cols]
        try:
            return [fn(r, ctx) for r in zip(*lists, strict=True)]
        except SQLError as ex:
            raise Fallback(f"the row code raised {ex}") from ex

    return run


def _per_entry(e: E) -> Callable[[Callable[[int], Column], Any], Any] | None:
    """For e over one column, its row code run once per distinct string instead of once per
    row, when that column is dictionary-encoded and its dictionary is no longer than its
    rows (CH-benCHmark's `ascii(substring(c_state from 1 for 1))`: 30,000 customers, a few
    hundred states). Returns (the results per dictionary entry, then NULL's; each row's
    entry) or None where it does not apply. A volatile call must run per row: never here.
    An error over an entry no row reaches would not be the row path's: `Fallback`."""
    cols = sorted({x.data for x in e.walk() if x.kind == "col"})
    if len(cols) != 1 or any(x.kind == "call" and x.data.volatile for x in e.walk()):
        return None
    fn = cg.row_function(_renumber(e, {cols[0]: 0}))
    c0 = cols[0]

    def run(src: Callable[[int], Column], ctx: Any) -> tuple[list[Any], np.ndarray] | None:
        c = src(c0)
        d = c.dictionary
        if c.kind != "str" or d is None or len(d) > len(c):
            return None
        try:
            vals = [fn((x,), ctx) for x in d.tolist()] + [fn((None,), ctx)]
        except SQLError as ex:
            raise Fallback(f"the row code raised {ex}") from ex
        idx = c.values.astype(np.intp) if c.valid is None else \
            np.where(c.valid, c.values, len(d)).astype(np.intp)
        return vals, idx

    return run


def _scalar(e: E) -> Callable[[Any], Any]:
    fn = cg.row_function(e)

    def run(ctx: Any) -> Any:
        try:
            return fn((), ctx)
        except SQLError as ex:
            raise Fallback(f"the row code raised {ex}") from ex

    return run


def _column(vals: list[Any], align: bool) -> Column:
    c = encode(vals)
    if c.kind == "obj" and align:
        c = _aligned(vals, c)
    if c.kind == "obj":  # numerics of several scales among them: no exact vector kind
        raise Fallback("an expression of no vector kind")
    return c


def _aligned(vals: list[Any], c: Column) -> Column:
    """Decimals of several scales at the largest one (a SUM over one group has that scale)."""
    nn = [v for v in vals if v is not None]
    if not all(isinstance(v, Decimal) and v.is_finite() for v in nn):
        return c
    scale = max((-int(v.as_tuple().exponent) for v in nn), default=0)
    if not 0 <= scale <= 18:
        return c
    q = Decimal(1).scaleb(-scale)
    return encode([None if v is None else v.quantize(q) for v in vals])


def compile_any(e: E, align: bool = False) -> VFn:
    """Vector code for e when it has some, else the row code bridged to columns (`align`:
    numerics of several scales are set to the largest, for a SUM over one group)."""
    try:
        return compile_vector(e)
    except NotVectorizable:
        pass
    values = _values(e)
    scalar = _scalar(e)
    entries = _per_entry(e)

    def run(src: Callable[[int], Column], ctx: Any) -> V | S:
        per = entries(src, ctx) if entries is not None else None
        if per is not None:
            return V.of(_column(per[0], align).take(per[1]))
        vals = values(src, ctx)
        if vals is None:
            return S(scalar(ctx))
        return V.of(_column(vals, align))

    return run


def compile_scaled(e: E) -> tuple[VFn, VFn]:
    """A numeric expression whose rows may differ in scale (`CASE WHEN ... THEN volume ELSE 0
    END`), as two columns: its values at the largest scale (exact: only trailing zeros are
    added), and each row's own scale. PostgreSQL's SUM of such values has, per group, the
    largest scale among that group's rows: the aggregate takes the MAX of the scales per
    group and sets each group's sum back to it (`run._rescale`). The row code runs once;
    the second column reads its values from a one-entry memo of the same input.

        >>> from cumulo.server.sql.expr.bound import E, col, const
        >>> from cumulo.server.pgtypes import oids as T
        >>> e = E("case", True, [E("op", ">", [col(0, T.INT4), const(1, T.INT4)], T.BOOL),
        ...       const(Decimal("2.50"), T.NUMERIC), const(Decimal("0"), T.NUMERIC)], T.NUMERIC)
        >>> vals, scales = compile_scaled(e)
        >>> src = {0: encode([1, 2, None])}.__getitem__
        >>> c = vals(src, None)
        >>> (c.values.tolist(), c.scale), scales(src, None).values.tolist()
        (([0, 250, 0], 2), [0, 2, 0])
    """
    values = _values(e)
    memo: list[Any] = [None]  # (src, ctx, values): one tuple, replaced whole

    def vals_of(src: Callable[[int], Column], ctx: Any) -> list[Any]:
        m = memo[0]
        if m is not None and m[0] == src and m[1] is ctx:
            return m[2]
        vals = values(src, ctx)
        if vals is None:
            raise Fallback("a constant aggregate argument")
        memo[0] = (src, ctx, vals)
        return vals

    def aligned(src: Callable[[int], Column], ctx: Any) -> V | S:
        return V.of(_column(vals_of(src, ctx), True))

    def scales(src: Callable[[int], Column], ctx: Any) -> V | S:
        out = []
        for v in vals_of(src, ctx):
            if v is None:
                out.append(0)
            elif isinstance(v, Decimal) and v.is_finite():
                x = v.as_tuple().exponent
                assert isinstance(x, int)
                out.append(max(0, -x))
            else:
                raise Fallback("a numeric of no scale")
        return V("i8", np.asarray(out, np.int64), None)

    return aligned, scales


def mask_any(e: E) -> Callable[[Callable[[int], Column], Any], np.ndarray | None]:
    """The rows where predicate e is TRUE (None: all), as `vectorize.filter_mask` gives.

    Vector code whose input holds Python objects (an AVG's numerics of several scales, read
    from an aggregate's rows: CH-benCHmark Q17's `ol_quantity < t.a`) has no kernel: the
    numerics are set to their largest scale and the vector code runs over them (exact: only
    the values decide a predicate); failing that, the row code, exact over those objects,
    decides instead."""
    try:
        vector = filter_mask(e)
    except NotVectorizable:
        vector = None
    values = _values(e)
    scalar = _scalar(e)
    cols = sorted({x.data for x in e.walk() if x.kind == "col"})
    entries = _per_entry(e)

    def rows(src: Callable[[int], Column], ctx: Any) -> np.ndarray | None:
        per = entries(src, ctx) if entries is not None else None
        if per is not None:
            return np.fromiter((v is True for v in per[0]), bool, len(per[0]))[per[1]]
        vals = values(src, ctx)
        if vals is None:
            return None if scalar(ctx) is True else np.zeros(0, bool)
        return np.fromiter((v is True for v in vals), bool, len(vals))

    if vector is None:
        return rows
    fast = vector

    def run(src: Callable[[int], Column], ctx: Any) -> np.ndarray | None:
        try:
            return fast(src, ctx)
        except Fallback:
            objs = [c for c in cols if src(c).kind == "obj"]
            if not objs:
                raise
        # numerics of several scales at the largest one: a predicate's truth depends on the
        # values only (the kernels compare and compute + - * exactly), not on their scales
        aligned = {c: _aligned(src(c).to_pylist(), src(c)) for c in objs}
        if all(a.kind == "dec" for a in aligned.values()):
            try:
                return fast(lambda c: aligned[c] if c in aligned else src(c), ctx)
            except Fallback:
                pass
        return rows(src, ctx)

    return run


__all__ = ["compile_any", "compile_scaled", "mask_any"]
