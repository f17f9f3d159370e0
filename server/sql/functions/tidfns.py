"""tidlarger and tidsmaller: the larger or smaller of two tids, in tid order (block, then
offset; `pgtypes.tid.sort_key`), as max(tid) and min(tid) pick them.

>>> tidlarger("(9,1)", "(10,1)"), tidsmaller("(1,10)", "(1,9)")
('(10,1)', '(1,9)')
"""

from __future__ import annotations

from ...pgtypes import oids as T
from ...pgtypes.tid import sort_key
from .registry import register


@register("tidlarger", args=[T.TID, T.TID], returns=T.TID, oid=2795)
def tidlarger(a: str, b: str) -> str:
    """The later of two tids (the first when equal)."""
    return a if sort_key(a) >= sort_key(b) else b


@register("tidsmaller", args=[T.TID, T.TID], returns=T.TID, oid=2796)
def tidsmaller(a: str, b: str) -> str:
    """The earlier of two tids (the first when equal)."""
    return a if sort_key(a) <= sort_key(b) else b
