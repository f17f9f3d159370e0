"""Vector code: a bound expression (`bound.E`) compiled to numpy kernels over one columnar pack.

The third target of the one expression IR, beside `codegen` (row code) and
the KiVi filter IR: the same `E` tree that `codegen.filter_function` turns
into a list comprehension becomes here a tree of closures, each called once
per pack, each one numpy call over the whole pack:

    E("op", "<", [col(2), param(1)])  ->  codes < searchsorted(dictionary, $1)   (strings)
                                      ->  values < $1                           (numbers)

Values are `V` (an array per pack, a validity mask, a kind from
`kivi.columnar.encode`) or `S` (one scalar: constants and parameters, bound at
each execution, so a prepared statement compiles once). The semantics are
the row code's, which are Python's plus PostgreSQL's NaN rules: NaN equals NaN
and sorts above every number; NULL propagates; AND / OR are three-valued.

The kernels live in `expr.kernels`, one small module per concept (leaves, comparisons,
arithmetic, logic, strings, function calls) registering into one table (`KERNELS`) by
expression kind; this module is the entry point the optimizer and the executor use.

Two failures: `NotVectorizable` at compile time (the optimizer then keeps the
row path for that subtree), and `Fallback` at run time, when the data make a
kernel unsafe (an integer overflow the row code must report, a string kind
meeting a date): the executor then reruns the subtree on the row path, before
it has emitted anything.

    >>> from cumulo.server.kivi.columnar import encode
    >>> from cumulo.server.sql.expr.bound import E, col, const
    >>> from cumulo.server.pgtypes import oids as T
    >>> pack = {0: encode([1, 5, None, 7]), 1: encode(["b", "a", "c", "a"])}
    >>> f = filter_mask(E("and", None, [E("op", ">", [col(0, T.INT4), const(2, T.INT4)]),
    ...                                 E("op", "=", [col(1, T.TEXT), const("a", T.TEXT)])]))
    >>> f(pack.__getitem__, None).tolist()
    [False, True, False, True]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .bound import E
from .kernels import KERNELS  # noqa: F401 - importing the package registers every kernel
from .kernels.base import Fallback, NotVectorizable, S, Source, V, compile_vector, is_fixed
from .kernels.leaves import PLAIN_TYPES
from .kernels.strings import like_hits


def filter_mask(e: E) -> Callable[[Source, Any], np.ndarray | None]:
    """Compiles a predicate into a function returning the rows where it is True (None: all)."""
    f = compile_vector(e)

    def run(src: Source, ctx: Any) -> np.ndarray | None:
        v = f(src, ctx)
        if isinstance(v, S):
            if v.value is True:
                return None
            return np.zeros(0, bool)  # NB: broadcast by the caller: no row passes
        if v.kind != "b1":
            raise Fallback("not a boolean")
        return v.values if v.valid is None else v.values & v.valid

    return run


def vectorizable(e: E) -> bool:
    """Tells whether `compile_vector` accepts e."""
    try:
        compile_vector(e)
    except NotVectorizable:
        return False
    return True


__all__ = ["PLAIN_TYPES", "S", "V", "Fallback", "NotVectorizable", "compile_vector",
           "filter_mask", "is_fixed", "like_hits", "vectorizable"]
