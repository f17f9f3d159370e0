"""The vector kernels' common ground: values (`V`, `S`), failures, and the registry.

`compile_vector` looks a bound expression's kind up in `KERNELS`, which the kernel modules
of this package fill (`leaves`, `compare`, `arith`, `logic`, `strings`, `calls`): one
concept per module, one compiler for the whole IR. A subtree reading no column and calling
nothing volatile is one scalar per execution, computed by the row code (`is_fixed`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ....errors import SQLError
from ....kivi.columnar.aggregate import Unsafe
from ....kivi.columnar.encode import Column
from ....pgtypes import oids as T
from .. import codegen as cg
from ..bound import E


class NotVectorizable(Exception):
    """The expression has no vector form: keep the row path."""


class Fallback(Unsafe):
    """The data make the vector form unsafe at run time: rerun on the row path."""


class V:
    """A vector value over one pack: values, validity (None: no NULL), kind, dictionary."""

    __slots__ = ("kind", "values", "valid", "dictionary", "scale")

    def __init__(self, kind: str, values: np.ndarray, valid: np.ndarray | None,
                 dictionary: np.ndarray | None = None, scale: int = 0) -> None:
        self.kind = kind
        self.scale = scale
        self.values = values
        self.valid = valid
        self.dictionary = dictionary

    @classmethod
    def of(cls, c: Column) -> V:
        return cls(c.kind, c.values, c.valid, c.dictionary, c.scale)

    def objects(self) -> np.ndarray:
        """The values as Python objects (strings decoded)."""
        if self.kind == "str":
            assert self.dictionary is not None
            return self.dictionary[self.values] if len(self.dictionary) else \
                np.full(len(self.values), "", dtype=object)
        if self.kind in ("date", "ts"):
            return self.values.astype(object)
        return self.values


class S:
    """A scalar: one value for the whole pack (None: NULL)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


Source = Callable[[int], Column]  # a pack's column j


VFn = Callable[[Source, Any], "V | S"]


_INTS = (T.INT2, T.INT4, T.INT8)


_FLOATS = (T.FLOAT4, T.FLOAT8)


_INT_LIMIT = {T.INT2: 2**15, T.INT4: 2**31, T.INT8: 2**63}


Kernel = Callable[[E], VFn]
KERNELS: dict[str, Kernel] = {}  # bound-expression kind -> its kernel compiler


def register(**kernels: Kernel) -> None:
    """Adds kernel compilers by expression kind (each kernel module calls it once)."""
    KERNELS.update(kernels)


def compile_vector(e: E) -> VFn:
    """Compiles a bound expression into a function of (pack columns, ctx) -> V | S."""
    if e.kind not in ("const", "param") and is_fixed(e):
        return _v_fixed(e)
    fn = KERNELS.get(e.kind)
    if fn is None:
        raise NotVectorizable(e.kind)
    return fn(e)


_PER_ROW = frozenset(("col", "outer", "subquery", "exists", "in_sub"))


def is_fixed(e: E) -> bool:
    """Tells whether e reads no column and calls nothing volatile: one value per execution
    (`$1 + 10`, `date '1995-01-01' + interval '1' year`, `upper($2)`).

    >>> from cumulo.server.sql.expr.bound import col, const
    >>> two = E("op", "+", [const(1, T.INT4), const(1, T.INT4)], T.INT4)
    >>> is_fixed(two), is_fixed(E("op", "+", [col(0, T.INT4), two], T.INT4))
    (True, False)
    """
    for x in e.walk():
        if x.kind in _PER_ROW or (x.kind == "call" and x.data.volatile):
            return False
    return True


def _v_fixed(e: E) -> VFn:
    """A subtree of constants and parameters is one scalar, computed by the row code (so its
    semantics, errors included, are the row path's): the vector kernels then see a constant.
    An error hands the statement to the row plan, which raises it where PostgreSQL would."""
    fn = cg.row_function(e)

    def run(src: Source, ctx: Any) -> S:
        try:
            return S(fn((), ctx))
        except SQLError as ex:
            raise Fallback(f"the row code raised {ex}") from ex

    return run


def _and_valid(a: np.ndarray | None, b: np.ndarray | None) -> np.ndarray | None:
    if a is None:
        return b
    if b is None:
        return a
    return a & b


def _nulls(n: int) -> V:
    return V("b1", np.zeros(n, bool), np.zeros(n, bool))


def redictionary(strings: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(sorted distinct strings, int32 code of each input) for a dictionary's mapped entries.

    A kernel that maps each dictionary entry once (a cast, a substring) can map two
    entries to one string; the result must stay a dictionary of distinct values.

    >>> nd, remap = redictionary(["b", "a", "b"])
    >>> nd.tolist(), remap.tolist()
    (['a', 'b'], [1, 0, 1])
    """
    arr = np.empty(len(strings), dtype=object)
    arr[:] = strings
    if not len(arr):
        return arr, np.zeros(0, np.int32)
    nd, remap = np.unique(arr, return_inverse=True)
    return nd, remap.astype(np.int32).reshape(-1)


class DictMemo:
    """What a kernel computed per dictionary, kept for the last few dictionaries it met.

    A column's packs carry their own dictionaries (the tail's, a merged pack's), and
    one plan's kernel meets them in turn on every execution: remembering only the last
    redid the work on each pack switch (two alternating packs: every time). Entries are
    keyed by the dictionary's identity and `extra` (a substring's bounds) and hold the
    dictionary itself, so an id is never reused while its entry lives; at most `size`
    entries, the oldest dropped first.

    >>> m = DictMemo(2)
    >>> a, b, c = (np.array([x], dtype=object) for x in "abc")
    >>> [m.get(d, (), lambda d=d: d[0].upper()) for d in (a, b, a, c, a)]
    ['A', 'B', 'A', 'C', 'A']
    >>> len(m.entries)
    2
    """

    __slots__ = ("entries", "size")

    def __init__(self, size: int = 16) -> None:
        self.size = size
        self.entries: dict[tuple[int, Any], tuple[np.ndarray, Any]] = {}

    def get(self, d: np.ndarray, extra: Any, compute: Callable[[], Any]) -> Any:
        """The value for dictionary `d` (and `extra`), computed by `compute()` when new."""
        key = (id(d), extra)
        hit = self.entries.get(key)
        if hit is not None and hit[0] is d:
            return hit[1]
        value = compute()
        if len(self.entries) >= self.size:
            del self.entries[next(iter(self.entries))]
        self.entries[key] = (d, value)
        return value


def is_bound(e: E) -> bool:
    """A constant or a parameter: one value per execution."""
    return e.kind in ("const", "param")


__all__ = ["KERNELS", "DictMemo", "Fallback", "Kernel", "NotVectorizable", "S", "Source", "V", "VFn",
           "compile_vector", "is_bound", "is_fixed", "register"]
