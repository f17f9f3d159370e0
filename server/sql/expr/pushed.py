"""Pushed filters: the KiVi filter IR (`kivi.api`) compiled by the SQL layer's own compilers.

Why: one expression IR, compiled to each target. The optimizer lowers the conjuncts of
a Filter over a table Scan to the KiVi IR (`optimizer.pushdown_filters.to_ir`): a
serializable form of the bound expressions (`bound.E`) that crosses to the storage
node (msgpack, in cluster mode), with the execution's parameter values beside it
(`Scan.params`). The node compiles no expression itself: this module reads the tree
back as the bound expression it came from and compiles that with `codegen` (row code:
one list comprehension per batch) and `vectorize` (numpy kernels over a columnar
pack): the compilers of every other expression, so three-valued logic, PostgreSQL's
NaN order, LIKE and IN lists are theirs. KiVi cannot import the SQL layer, so this
module installs its compilers into it (`kivi.filters.install`) when imported: by the
executor in a query engine, by `cluster.role` in a KiVi node's process.

Leaves carry the type OID they were bound with, `("col", 2, 1700)`: the optimizer's, and
the column types of foreign-key cascades, runtime filters' IN sets and the direct API's
filters. A leaf without one (an IS NULL check; a foreign-key check without a matching
index) takes the type its constant's Python value implies, or the other operand's.
Every constant but NULL and the booleans becomes a parameter slot, numbered before the
statement's own parameters, so one shape compiles once, whatever its constants and the
execution's values:

    >>> sel = positions(("and", [("cmp", ">", ("col", 0, 23), ("param", 1, 23)),
    ...                          ("like", ("col", 1, 25), "a%", False)]))
    >>> rows = [(1, "ab"), (5, "ab"), (7, "ba"), (None, "ab")]
    >>> sel(rows, [2]), sel(rows, [0])
    ([1], [0, 1])
    >>> from decimal import Decimal
    >>> nan = Decimal("NaN")
    >>> positions(("cmp", ">", ("col", 0), ("const", Decimal(1))))([(nan,), (Decimal(0),)], ())
    [0]
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

import numpy as np

from ...errors import FeatureNotSupported
from ...kivi import filters
from ...kivi.columnar.encode import Column
from ...pgtypes import oids as T
from . import codegen as cg
from . import vectorize as vz
from .bound import E

Row = tuple[Any, ...]
Params = Sequence[Any]
_ARITH = ("+", "-", "*", "/", "%")
_CMP = {"=": "=", "<>": "<>", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
_IMPLIED = {int: T.INT8, float: T.FLOAT8, Decimal: T.NUMERIC, str: T.TEXT, dt.date: T.DATE,
            dt.datetime: T.TIMESTAMP, bytes: T.BYTEA}
_CACHE_MAX = 4096


class _Ctx:
    """What compiled code reads of an execution context: the parameter values only."""

    __slots__ = ("params",)

    def __init__(self, params: Params) -> None:
        self.params = params


def _implied(v: Any) -> int:
    """The SQL type a constant's Python value implies (UNKNOWN: compared as Python does)."""
    if isinstance(v, dt.datetime) and v.tzinfo is not None:
        return T.TIMESTAMPTZ
    return _IMPLIED.get(type(v), T.UNKNOWN)


def _declared(ir: Any) -> int:
    """A leaf's type: the one it carries, or its constant's implied type (an arithmetic
    node's: its operands' wider type)."""
    if ir[0] == "arith":
        return _wider(_declared(ir[2]), _declared(ir[3]))
    if ir[0] not in ("col", "const", "param"):
        return T.UNKNOWN
    if len(ir) > 2:
        return int(ir[2])
    if ir[0] == "const":
        return _implied(ir[1])
    return T.UNKNOWN


def _wider(a: int, b: int) -> int:
    """The type of arithmetic over a and b: float over numeric over integers.

    >>> _wider(T.INT4, T.NUMERIC) == T.NUMERIC, _wider(T.INT8, T.UNKNOWN) == T.INT8
    (True, True)
    """
    for t in (T.FLOAT8, T.FLOAT4, T.NUMERIC, T.INT8, T.INT4, T.INT2):
        if t in (a, b):
            return t
    return a if a != T.UNKNOWN else b


class _Reader:
    """Reads an IR tree as a bound expression, constants as slots (`expression`)."""

    def __init__(self) -> None:
        self.consts: list[Any] = []
        self.params: list[E] = []  # the statement's parameters: renumbered after the slots

    def expr(self, ir: Any, hint: int = T.UNKNOWN) -> E:
        kind = ir[0]
        if kind == "col":
            return E("col", int(ir[1]), [], int(ir[2]) if len(ir) > 2 else hint)
        if kind == "const":
            v = ir[1]
            t = int(ir[2]) if len(ir) > 2 else _implied(v) if _implied(v) != T.UNKNOWN else hint
            if v is None or isinstance(v, bool):
                return E("const", v, [], t)
            self.consts.append(v)
            return E("param", len(self.consts), [], t)
        if kind == "param":
            e = E("param", int(ir[1]), [], int(ir[2]) if len(ir) > 2 else hint)
            self.params.append(e)
            return e
        if kind == "cmp":
            op = _CMP.get(ir[1])
            if op is None:
                raise FeatureNotSupported(f"comparison {ir[1]!r} cannot be pushed down")
            ta, tb = _declared(ir[2]), _declared(ir[3])
            return E("op", op, [self.expr(ir[2], tb), self.expr(ir[3], ta)], T.BOOL)
        if kind == "and" or kind == "or":
            if not ir[1]:  # NB: an empty AND is TRUE, an empty OR FALSE
                return E("const", kind == "and", [], T.BOOL)
            return E(kind, None, [self.expr(x) for x in ir[1]], T.BOOL)
        if kind == "not":
            return E("not", None, [self.expr(ir[1])], T.BOOL)
        if kind == "is_null" or kind == "is_not_null":
            return E("isnull" if kind == "is_null" else "notnull", None, [self.expr(ir[1])],
                     T.BOOL)
        if kind == "in":
            vals = list(ir[2])
            t = next((_implied(v) for v in vals if v is not None), T.UNKNOWN)
            x = self.expr(ir[1], t)
            return E("in_list", False, [x, *(E("const", v, [], x.type) for v in vals)], T.BOOL)
        if kind == "arith":
            op = ir[1]
            if op not in _ARITH:
                raise FeatureNotSupported(f"arithmetic operator {op!r} cannot be pushed down")
            ta, tb = _declared(ir[2]), _declared(ir[3])
            a, b = self.expr(ir[2], tb), self.expr(ir[3], ta)
            return E("op", op, [a, b], _wider(a.type, b.type))
        if kind == "like":
            ci = bool(ir[3]) if len(ir) > 3 else False
            x = self.expr(ir[1], T.TEXT)
            return E("like", (ci, False), [x, E("const", ir[2], [], T.TEXT)], T.BOOL)
        raise FeatureNotSupported(f"expression {kind!r} cannot be pushed down")


def expression(ir: Any) -> tuple[E, list[Any]]:
    """(the bound expression of an IR tree, the values of its constant slots).

    >>> expression(("cmp", "<", ("col", 0), ("const", 5)))
    ((#0 < $1), [5])
    """
    r = _Reader()
    e = r.expr(ir)
    shift = len(r.consts)
    for p in r.params:
        p.data += shift
    return e, r.consts


class Compiled:
    """One IR tree's compiled forms: row code for positions and rows, and vector code (None:
    none), each taking the execution's parameters; built once per shape."""

    __slots__ = ("pred", "select", "keep", "_mask", "masked")

    def __init__(self, pred: E) -> None:
        self.pred = pred
        self.select = cg.select_function(pred)
        self.keep = cg.filter_function(pred)
        self._mask: Any = None
        self.masked = False

    def mask(self) -> Callable[[Any, Any], np.ndarray | None] | None:
        """The vector code, compiled on first use (a node scanning rows never needs it)."""
        if not self.masked:
            try:
                self._mask = vz.filter_mask(self.pred)
            except vz.NotVectorizable:
                self._mask = None
            self.masked = True
        return self._mask


class _Tree:
    """One tree object's compiled shape, constants, and row functions of (rows, params)."""

    __slots__ = ("ir", "code", "consts", "positions", "rows")

    def __init__(self, ir: Any, code: Compiled, consts: list[Any]) -> None:
        self.ir = ir  # NB: held, so that its id is not reused while the entry lives
        self.code = code
        self.consts = consts
        self.positions = _with_params(code.select, consts)
        self.rows = _with_params(code.keep, consts)


_shapes: dict[str, Compiled] = {}
_trees: dict[int, _Tree] = {}


def _tree(ir: Any) -> _Tree:
    """The compiled form of an IR tree. A tree object met again (a plan's own, in process)
    is one dictionary lookup; another tree of the same shape (a constant of its own, or a
    tree that crossed the wire) reuses the shape's code."""
    seen = _trees.get(id(ir))
    if seen is not None and seen.ir is ir:
        return seen
    pred, consts = expression(ir)
    key = _key(pred)
    code = _shapes.get(key)
    if code is None:
        if len(_shapes) >= _CACHE_MAX:
            _shapes.clear()
        code = _shapes[key] = Compiled(pred)
    if len(_trees) >= _CACHE_MAX:
        _trees.clear()
    t = _trees[id(ir)] = _Tree(ir, code, consts)
    return t


def compiled(ir: Any) -> tuple[Compiled, list[Any]]:
    """(the compiled shape of an IR tree, its constants)."""
    t = _tree(ir)
    return t.code, t.consts


def _key(e: E) -> str:
    """A bound expression's shape as a string: kinds, data (a constant's value with its
    Python type: 1 and True differ), types, in order."""
    return (f"{e.kind}:{type(e.data).__name__}:{e.data!r}:{e.type}("
            + ",".join(map(_key, e.args)) + ")")


def _ctx(consts: list[Any], params: Params) -> _Ctx:
    return _Ctx(params if not consts else [*consts, *params])


def _with_params(fn: Callable[[list[Row], Any], Any], consts: list[Any]
                 ) -> Callable[[list[Row], Params], Any]:
    """A compiled batch function of (rows, ctx) as one of (rows, params), its shape's
    constants in the slots before the parameters."""
    if not consts:
        def plain(batch: list[Row], params: Params) -> Any:
            return fn(batch, _Ctx(params))
        return plain

    def run(batch: list[Row], params: Params) -> Any:
        return fn(batch, _Ctx([*consts, *params]))
    return run


def positions(ir: Any) -> Callable[[list[Row], Params], list[int]]:
    """`fn(rows, params)`: the positions of the rows for which the filter is TRUE."""
    return _tree(ir).positions


def rows(ir: Any) -> Callable[[list[Row], Params], list[Row]]:
    """`fn(rows, params)`: the rows for which the filter is TRUE."""
    return _tree(ir).rows


def mask(ir: Any) -> Callable[[Callable[[int], Column], int, Params], np.ndarray] | None:
    """`fn(column, n, params)`: the rows of a pack (its columns by `column(j)`) where the
    filter is TRUE, as a boolean array of n, or raises `Unsafe` (`vectorize.Fallback`)
    where the kernels cannot say exactly; None when the filter has no vector form."""
    code, consts = compiled(ir)
    vector = code.mask()
    if vector is None:
        return None

    def run(column: Callable[[int], Column], n: int, params: Params) -> np.ndarray:
        got = vector(column, _ctx(consts, params))
        if got is None:
            return np.ones(n, bool)
        if len(got) != n:
            if len(got):
                raise vz.Fallback("mask length")
            return np.zeros(n, bool)  # a constant FALSE or NULL
        return got
    return run


filters.install(filters.Compilers(positions=positions, rows=rows, mask=mask))

__all__ = ["compiled", "expression", "mask", "positions", "rows"]
