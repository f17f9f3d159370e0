"""String kernels over dictionary-encoded columns: work per distinct string, then the
codes index the results (LIKE / ILIKE by Arrow's `match_like`, substring by the row code's
`substr` once per dictionary entry)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ....pgtypes import oids as T
from .. import runtime as rt
from ..bound import E
from .base import (
    DictMemo,
    Fallback,
    NotVectorizable,
    S,
    Source,
    V,
    VFn,
    compile_vector,
    is_bound,
    redictionary,
    register,
)


def _v_like(e: E) -> VFn:
    ci, negate = e.data
    if len(e.args) > 2 or e.args[1].kind != "const" or not isinstance(e.args[1].data, str) \
            or e.args[0].type == T.BPCHAR:
        raise NotVectorizable("LIKE with a non-constant pattern or ESCAPE, or over char(n)")
    f = compile_vector(e.args[0])
    pattern = e.args[1].data
    rx = rt.like_regex(pattern, ci, "\\")  # NB: also rejects a pattern ending in the escape
    memo = DictMemo()  # hits per dictionary: packs may share one

    def run(src: Source, ctx: Any) -> V | S:
        v = f(src, ctx)
        if isinstance(v, S) or v.kind != "str":
            raise Fallback("LIKE over a non-string column")
        d = v.dictionary
        assert d is not None
        hits = memo.get(d, None, lambda: like_hits(d, pattern, ci, rx))
        m = hits[v.values] if len(d) else np.zeros(len(v.values), bool)
        return V("b1", ~m if negate else m, v.valid)

    return run


def like_hits(d: np.ndarray, pattern: str, ci: bool, rx: Any) -> np.ndarray:
    """Which strings of a dictionary match a LIKE (ci: ILIKE) pattern, escape `\\`: one
    Arrow kernel over the whole dictionary (RE2, or a substring search for `%x%`, `x%`
    ...), which the codes then index. Arrow's LIKE is PostgreSQL's: `_` is one character
    (a newline too), `%` any run, `\\` makes the next character literal. Case-folding
    beyond ASCII is left to Python's `re` (`rx`), as before, for ILIKE.

    >>> d = np.array(["", "a" + chr(10) + "b", "a_b", "ab", "straße"], dtype=object)
    >>> like_hits(d, "a_b", False, None).tolist(), like_hits(d, "%ß%", False, None).tolist()
    ([False, True, True, False, False], [False, False, False, False, True])
    >>> like_hits(d[:4], "A\\_%", True, None).tolist()  # ILIKE over ASCII strings
    [False, False, True, False]
    """
    if not len(d):
        return np.zeros(0, bool)
    arr = pa.array(d, pa.string())
    if ci and not (pattern.isascii() and pc.all(pc.string_is_ascii(arr)).as_py()):
        return np.fromiter((rx.fullmatch(s) is not None for s in d), bool, len(d))
    hits = pc.match_like(arr, pattern, ignore_case=ci)
    return hits.to_numpy(zero_copy_only=False).astype(bool, copy=False)


def _substring(e: E) -> VFn:
    """substring(text, start [, count]) over a dictionary-encoded column with constant (or
    parameter) bounds: the row code's `substr` (characters, a start below 1, 22011 for a
    negative count) runs once per distinct string, and the codes are remapped into the
    new sorted dictionary. A pack with a NULL bound is all NULL, as PostgreSQL's strict
    function; an error falls back to the row code, which reports it."""
    if e.args[0].type not in (T.TEXT, T.VARCHAR) or not all(is_bound(a) for a in e.args[1:]):
        raise NotVectorizable("substring of a non-text or with non-constant bounds")
    f = compile_vector(e.args[0])
    bounds = [compile_vector(a) for a in e.args[1:]]
    impl = e.data.impl
    memo = DictMemo()  # (new dictionary, remapping) per (dictionary, bounds)

    def run(src: Source, ctx: Any) -> V | S:
        v = f(src, ctx)
        if isinstance(v, S):
            raise Fallback("substring of a constant")
        bs = [b(src, ctx).value for b in bounds]  # type: ignore[union-attr]
        n = len(v.values)
        all_null = v.valid is not None and not v.valid.any()
        if v.kind != "str" and not (all_null or n == 0):  # NB: a pack of NULLs encodes as i8
            raise Fallback("substring of a non-string")
        if all_null or n == 0 or any(x is None for x in bs):
            return V("str", np.zeros(n, np.int32), np.zeros(n, bool), np.empty(0, object))
        if any(isinstance(x, bool) or not isinstance(x, int) for x in bs):
            raise Fallback("substring bounds not integers")
        d = v.dictionary
        assert d is not None
        nd, remap = memo.get(d, tuple(bs), lambda: _substrings(impl, d, bs))
        codes = remap[v.values] if len(remap) else np.zeros(n, np.int32)
        return V("str", codes, v.valid, nd)

    return run


def _substrings(impl: Any, d: np.ndarray, bs: list[Any]) -> tuple[np.ndarray, np.ndarray]:
    try:
        subs = [impl(x, *bs) for x in d.tolist()]
    except Exception as ex:  # NB: 22011; the row code raises it for the right rows
        raise Fallback(str(ex)) from ex
    return redictionary(subs)


register(like=_v_like)

__all__ = ["like_hits", "substring"]
substring = _substring
