"""Base-table access: KiVi scans (with pushed filters, ranges, limits, partial aggregates),
primary-key point gets, and secondary-index lookups.

Rows arrive as tuples holding every column slot in attnum order. When the
plan needs `ctid`, the scan asks for keys (`with_keys`) and moves the key to
the end of the row, where the planner placed the hidden ctid column.
Parameter leaves in pushed filter IR, `("param", n)`, are replaced by the
execution's values before the scan is sent.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator
from itertools import repeat
from typing import Any

import numpy as np

from ...kivi.columnar import Column
from ...kivi.columnar.aggregate import Unsafe
from ...kivi.columnar.encode import encode
from ...kivi.columnar.irmask import mask, vectorizable
from ...kivi.expr import compile_selector
from ...pgtypes.coded import Coded, picked, values
from ...txn.api import ScanSpec
from ...txn.transaction import Transaction
from ..expr import codegen as cg
from ..plan import nodes as N
from .keys import encode_key, prefix_upper_bound
from .runner import Batch, compiled, executes, value_of


def bind_ir(ir: Any, params: list[Any]) -> Any:
    """Replaces ("param", n) leaves of a filter IR with the parameter values."""
    if not isinstance(ir, tuple):
        if isinstance(ir, list):
            return [bind_ir(x, params) for x in ir]
        return ir
    if ir and ir[0] == "param":
        return ("const", params[ir[1] - 1])
    return tuple(bind_ir(x, params) for x in ir)


def bound_ir(node: Any, ctx: Any) -> Any:
    """The node's pushed filter IR bound to this execution's parameters (`bind_ir`), one
    tree object per plan node and parameter values: built once for a filter without
    parameters, and again only for values not seen lately; KiVi compiles a tree object
    once (`kivi.expr`)."""
    used = compiled(node, "ir_params", lambda: tuple(sorted(_params_of(node.ir))))
    if not used:
        return compiled(node, "ir_bound", lambda: bind_ir(node.ir, []))
    trees = compiled(node, "ir_trees", dict)
    params = ctx.params
    try:  # NB: by type too: True and 1 are equal keys but differently compiled constants
        key = tuple([(type(params[n - 1]), params[n - 1]) for n in used])
        tree = trees.get(key)
    except TypeError:  # an unhashable value (an array): bound for this execution alone
        return bind_ir(node.ir, params)
    if tree is None:
        if len(trees) >= BOUND_TREES:
            trees.clear()
        tree = trees[key] = bind_ir(node.ir, params)
    return tree


BOUND_TREES = 64  # bound filter trees kept per plan node


def _params_of(ir: Any) -> set[int]:
    """The parameter numbers a filter IR reads."""
    if isinstance(ir, list):
        return set().union(*map(_params_of, ir))
    if not isinstance(ir, tuple):
        return set()
    if ir and ir[0] == "param":
        return {ir[1]}
    return set().union(*map(_params_of, ir))


KeyRange = tuple[bytes | None, bytes | None, bool]


def key_range(node: Any, ctx: Any) -> KeyRange:
    """Returns (lo, hi) keys for the node's bounds; the flag is False when a bound is NULL."""
    return compiled(node, "range", lambda: _range_function(node))(ctx)


def _range_function(node: Any) -> Callable[[Any], KeyRange]:
    """`key_range` of one scan node, built once per plan. When the two bounds are one
    value (an equality prefix: `WHERE w = $1 AND d = $2`), it is computed and encoded
    once, and the upper bound is the prefix's end."""
    lo_fn = cg.key_function(node.lo) if node.lo is not None else None
    hi_fn = cg.key_function(node.hi) if node.hi is not None else None
    lo_strict, hi_strict = node.lo_strict, node.hi_strict
    if (lo_fn is not None and hi_fn is not None and len(node.lo) == len(node.hi)
            and all(map(N.same_bound, node.lo, node.hi))):

        def one(ctx: Any) -> KeyRange:
            v = lo_fn((), ctx)
            if _has_null(v):
                return None, None, False
            key = encode_key(v)
            return (prefix_upper_bound(key) if lo_strict else key,
                    key if hi_strict else prefix_upper_bound(key), True)
        return one

    def two(ctx: Any) -> KeyRange:
        lo = hi = None
        if lo_fn is not None:
            v = lo_fn((), ctx)
            if _has_null(v):
                return None, None, False
            lo = encode_key(v)
            if lo_strict:
                lo = prefix_upper_bound(lo)
        if hi_fn is not None:
            v = hi_fn((), ctx)
            if _has_null(v):
                return None, None, False
            hi = encode_key(v)
            if not hi_strict:
                hi = prefix_upper_bound(hi)
        return lo, hi, True
    return two


def _has_null(vals: tuple) -> bool:
    """Whether a bound holds a NULL (by identity: a Decimal's == is slow)."""
    for v in vals:
        if v is None:
            return True
    return False


@executes(N.Scan)
def run_scan(node: N.Scan, ctx: Any) -> Iterator[Batch]:
    lo, hi, ok = key_range(node, ctx)
    if not ok:
        return
    limit = None
    if node.limit is not None:
        limit = value_of(node.limit, ctx)
        if limit is not None and limit <= 0:
            return
    ir = bound_ir(node, ctx) if node.ir is not None else None
    spec = ScanSpec(space=node.table.space, lo=lo, hi=hi, projection=node.projection, filter=ir,
                    limit=limit, aggregate=node.aggregate, with_keys=node.with_keys,
                    reverse=node.reverse)
    for b in ctx.txn.scan(spec):
        ctx.check_cancel()
        if node.with_keys:
            b = [(*r[1:], r[0]) for r in b]
        if b:
            yield b


def column_scan(node: N.Node, ctx: Any) -> Iterator[tuple[list[Any], int]] | None:
    """A whole table's rows as column batches ((columns, row count), `Txn.scan_columns`),
    for a plan that is a scan with no limit, aggregate or keys (a projection is picked per
    batch; a pushed filter is a mask per batch, `filtered`); None when the plan or the
    transaction needs the row path."""
    if (type(node) is not N.Scan or node.limit is not None
            or node.aggregate is not None or node.with_keys or node.reverse
            or not isinstance(ctx.txn, Transaction)):
        return None
    ir = bound_ir(node, ctx) if node.ir is not None else None
    if ir is not None and not vectorizable(ir):
        return None
    lo, hi, ok = key_range(node, ctx)
    if not ok:
        return iter(())
    width = len(node.table.columns)
    batches = ctx.txn.scan_columns(ScanSpec(space=node.table.space, lo=lo, hi=hi), width)
    if batches is None:
        return None
    proj = node.projection
    selector: list[Any] = []  # the row filter, compiled when a batch needs it

    def picked() -> Iterator[tuple[list[Any], int]]:
        for cols, n in batches:
            ctx.check_cancel()
            if ir is not None:
                cols, n = filtered(cols, n, ir, selector)
                if not n:
                    continue
            yield (cols if proj is None else [cols[i] for i in proj]), n
    return picked()


def _mask_column(col: Any) -> Column:
    """A batch's column as the columnar kernels read it: a stored-form timestamp column
    without NULLs straight from its microseconds, anything else from its values."""
    if type(col) is Coded and col.kind == "U" and not any(map(operator.is_, col.wire,
                                                              repeat(None))):
        return Column("ts", np.array(col.wire, np.int64).astype("datetime64[us]"), None)
    return encode(list(values(col)))


def filtered(cols: list[Any], n: int, ir: Any, selector: list[Any]) -> tuple[list[Any], int]:
    """The rows of a column batch that pass a pushed filter: numpy masks over the columns
    the filter reads (`kivi.columnar.irmask`, SQL's three-valued logic); a filter the masks
    cannot decide exactly (`Unsafe`: a NaN, a constant of another type) runs the row filter
    over the batch's rows instead (`kivi.expr`, the reference). `selector` keeps the
    compiled row filter for the next batch."""
    encoded: dict[int, Column] = {}

    def column(i: int) -> Column:
        got = encoded.get(i)
        if got is None:
            got = encoded[i] = _mask_column(cols[i])
        return got
    try:
        keep = mask(ir, column, n)
    except Unsafe:
        if not selector:
            selector.append(compile_selector(ir))
        keep = np.zeros(n, bool)
        keep[selector[0](list(zip(*map(values, cols), strict=True)))] = True
    count = int(np.count_nonzero(keep))
    if count == n:
        return cols, n
    if not count:
        return [], 0
    sel = keep.tolist()
    return [picked(c, sel) for c in cols], count


@executes(N.PointGet)
def run_point_get(node: N.PointGet, ctx: Any) -> Iterator[Batch]:
    fn = compiled(node, "keys", lambda: cg.project_function([e for k in node.keys for e in k]))
    flat = fn([()], ctx)[0]
    width = len(node.keys[0]) if node.keys else 0
    keys = []
    for i in range(0, len(flat), width):
        vals = flat[i : i + width]
        if None not in vals:
            keys.append(encode_key(vals))
    if not keys:
        return
    rows = ctx.txn.get(node.table.space, keys)
    if node.with_keys:
        out = [(*r, k) for r, k in zip(rows, keys, strict=True) if r is not None]
    else:
        out = [r for r in rows if r is not None]
    if out:
        yield out


@executes(N.IndexLookup)
def run_index(node: N.IndexLookup, ctx: Any) -> Iterator[Batch]:
    lo, hi, ok = key_range(node, ctx)
    if not ok:
        return
    spec = ScanSpec(space=node.index.space, lo=lo, hi=hi)
    for b in ctx.txn.scan(spec):
        ctx.check_cancel()
        if node.table.primary_key:
            keys = [encode_key(tuple(pk)) for pk in b]
        else:  # a hidden row id: the entry holds the row's encoded key itself
            keys = [pk[0] for pk in b]
        rows = ctx.txn.get(node.table.space, keys)
        if node.with_keys:
            out = [(*r, k) for r, k in zip(rows, keys, strict=True) if r is not None]
        else:
            out = [r for r in rows if r is not None]
        if out:
            yield out
