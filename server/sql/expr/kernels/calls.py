"""The function calls that have a kernel (`mod`, `substr` / `substring`); every other
call keeps the row path (or, over one string column, `exec.vector.rowexpr` runs its row
code once per dictionary entry)."""

from __future__ import annotations

from ....pgtypes import oids as T
from ..bound import E
from .arith import int_mod
from .base import NotVectorizable, VFn, compile_vector, register
from .strings import substring


def _v_call(e: E) -> VFn:
    """The function calls that have a kernel; every other call keeps the row path."""
    name = e.data.name
    if name == "mod" and len(e.args) == 2:
        return int_mod(e.type, *(compile_vector(a) for a in e.args))
    if name in ("substr", "substring") and e.type == T.TEXT and 2 <= len(e.args) <= 3:
        return substring(e)
    raise NotVectorizable(f"function {name}")


register(call=_v_call)
