"""Base-table access: KiVi scans (with pushed filters, ranges, limits, partial aggregates),
primary-key point gets, and secondary-index lookups.

Rows arrive as tuples holding every column slot in attnum order. When the
plan needs `ctid`, the scan asks for keys (`with_keys`) and moves the key to
the end of the row, where the planner placed the hidden ctid column.
Parameter leaves in pushed filter IR, `("param", n)`, stay in the tree the scan
sends; the execution's values travel beside it (`ScanSpec.params`).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator, Sequence
from itertools import repeat
from typing import Any

import numpy as np

from ...errors import InternalError
from ...kivi.columnar import Column
from ...kivi.columnar.aggregate import Unsafe
from ...kivi.columnar.encode import encode
from ...kivi.columnar.pace import offload, settle
from ...kivi.fanout import local_node
from ...pgtypes import oids as T
from ...pgtypes.coded import Coded, picked, values
from ...txn.api import ScanSpec
from ...txn.transaction import Transaction
from ..expr import codegen as cg
from ..expr import vectorize as vz
from ..expr.bound import E
from ..plan import nodes as N
from .keys import encode_key, prefix_upper_bound
from .runner import Batch, compiled, executes, value_of


def filter_params(node: Any, ctx: Any) -> Sequence[Any]:
    """The parameter values a scan node's pushed filter reads, sent beside the filter: the
    filter keeps its `("param", n)` slots, so KiVi compiles it once for every execution
    (`expr.pushed`). The execution's values as they are when the filter reads them all (or
    none); otherwise the others are None, so that no value the filter ignores (an array,
    a record) needs to cross to a remote node."""
    used = compiled(node, "ir_params", lambda: _params_of(node.ir))
    params = ctx.params
    if not used:
        return ()
    if len(used) == len(params):
        return params
    return [v if i in used else None for i, v in enumerate(params)]


def _params_of(ir: Any) -> frozenset[int]:
    """The parameter positions (0-based) a filter IR reads.

    >>> sorted(_params_of(("and", [("cmp", "<", ("col", 0), ("param", 3)),
    ...                            ("in", ("col", 1), [1, 2])])))
    [2]
    """
    if isinstance(ir, list):
        return frozenset().union(*map(_params_of, ir))
    if not isinstance(ir, tuple):
        return frozenset()
    if ir and ir[0] == "param":
        return frozenset((ir[1] - 1,))
    return frozenset().union(*map(_params_of, ir))


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
    ir = node.ir
    spec = ScanSpec(space=node.table.space, lo=lo, hi=hi, projection=node.projection, filter=ir,
                    limit=limit, aggregate=node.aggregate, with_keys=node.with_keys,
                    reverse=node.reverse, params=() if ir is None else filter_params(node, ctx))
    if node.aggregate is not None and _local(ctx.txn):
        # NB: a row plan's pushed aggregate (`cumulo.columnar = off`, a vector form that fell
        # back, a copy still being built after a restart) is analytic work too: beside OLTP
        # it runs on an analytic worker as the vector form does, paced by the worker's own
        # CPU and billed to the session (`settle`); on the loop it held the thread for the
        # whole region's fold
        got = offload(_all_rows, ctx.txn, spec)
        settle()
        ctx.check_cancel()
        if got:
            yield got
        return
    for b in ctx.txn.scan(spec):
        ctx.check_cancel()
        if node.with_keys:
            b = [(*r[1:], r[0]) for r in b]
        if b:
            yield b


def _local(txn: Any) -> bool:
    """Whether a scan of `txn` may run on an analytic worker thread: the node is in process
    and no read ranges are recorded (a remote node's client, and a SERIALIZABLE updater's
    probes of the conflict managers, talk over the loop's sockets)."""
    return isinstance(txn, Transaction) and txn.reads is None and \
        local_node(txn.ltm.kivi) is not None


def _all_rows(txn: Transaction, spec: ScanSpec) -> list[tuple]:
    """A scan's rows in one list (a pushed aggregate's: one row a group)."""
    return [r for b in txn.scan(spec) for r in b]


def column_scan(node: N.Node, ctx: Any) -> Iterator[tuple[list[Any], int]] | None:
    """A whole table's rows as column batches ((columns, row count), `Txn.scan_columns`),
    for a plan that is a scan with no limit, aggregate or keys (a projection is picked per
    batch; a pushed filter is a mask per batch, `filtered`); None when the plan or the
    transaction needs the row path."""
    if (type(node) is not N.Scan or node.limit is not None
            or node.aggregate is not None or node.with_keys or node.reverse
            or not isinstance(ctx.txn, Transaction)):
        return None
    if node.ir is not None and vector_filter(node) is None:
        return None
    lo, hi, ok = key_range(node, ctx)
    if not ok:
        return iter(())
    width = len(node.table.columns)
    batches = ctx.txn.scan_columns(ScanSpec(space=node.table.space, lo=lo, hi=hi), width)
    if batches is None:
        return None
    proj = node.projection
    pushed = node.ir is not None

    def picked() -> Iterator[tuple[list[Any], int]]:
        for cols, n in batches:
            ctx.check_cancel()
            if pushed:
                cols, n = filtered(cols, n, node, ctx)
                if not n:
                    continue
            yield (cols if proj is None else [cols[i] for i in proj]), n
    return picked()


def pushed_pred(node: N.Scan) -> E | None:
    """A scan's pushed filter as one bound expression: the conjuncts its KiVi IR was lowered
    from (`Scan.shown`), which the SQL layer compiles with its own compilers wherever it
    runs the filter itself (column batches, a bind join's gets). None for a scan without
    that record."""
    shown = node.shown
    if not shown:
        return None
    return shown[0] if len(shown) == 1 else E("and", None, list(shown), T.BOOL)


def vector_filter(node: N.Scan) -> Callable[[Any, Any], np.ndarray | None] | None:
    """The scan's pushed filter compiled once to vector code (`expr.vectorize`), or None
    when it has no vector form."""
    def build() -> Any:
        pred = pushed_pred(node)
        if pred is None:
            return None
        try:
            return vz.filter_mask(pred)
        except vz.NotVectorizable:
            return None
    return compiled(node, "pushed_mask", build)


def row_selector(node: N.Scan) -> Callable[[list[Any], Any], list[int]]:
    """The scan's pushed filter compiled once to row code (`codegen.select_function`):
    the positions of the rows where it is TRUE."""
    def build() -> Any:
        pred = pushed_pred(node)
        if pred is None:  # NB: the optimizer records what it pushes; a plan without it is a bug
            raise InternalError("a pushed filter without its bound conjuncts")
        return cg.select_function(pred)
    return compiled(node, "pushed_select", build)


def _mask_column(col: Any) -> Column:
    """A batch's column as the columnar kernels read it: a stored-form timestamp column
    without NULLs straight from its microseconds, anything else from its values."""
    if type(col) is Coded and col.kind == "U" and not any(map(operator.is_, col.wire,
                                                              repeat(None))):
        return Column("ts", np.array(col.wire, np.int64).astype("datetime64[us]"), None)
    return encode(list(values(col)))


def filtered(cols: list[Any], n: int, node: N.Scan, ctx: Any) -> tuple[list[Any], int]:
    """The rows of a column batch that pass the scan's pushed filter: the SQL layer's vector
    code over the columns the filter reads (`vector_filter`, SQL's three-valued logic and
    PostgreSQL's NaN order); a batch the kernels cannot decide exactly (`Fallback`: a
    constant of another kind, a value outside the kernels' range) runs the row code over
    the batch's rows instead (`row_selector`)."""
    encoded: dict[int, Column] = {}

    def column(i: int) -> Column:
        got = encoded.get(i)
        if got is None:
            got = encoded[i] = _mask_column(cols[i])
        return got
    vmask = vector_filter(node)
    assert vmask is not None  # column_scan checked
    try:
        keep = vmask(column, ctx)
        if keep is not None and len(keep) != n:
            if len(keep):
                raise vz.Fallback("mask length")
            return [], 0  # a constant FALSE or NULL
    except Unsafe:
        keep = np.zeros(n, bool)
        keep[row_selector(node)(list(zip(*map(values, cols), strict=True)), ctx)] = True
    if keep is None:
        return cols, n
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
