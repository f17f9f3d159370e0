"""The jsonb `||` and `-` operators, as the functions PostgreSQL implements them with.

Why functions: the binder maps `a || b` and `a - b` on jsonb operands to
`jsonb_concat` / `jsonb_delete` (PostgreSQL's own names for these operators'
implementations), so they resolve, cast and fold like any registered call.
jsonb values are text in normalised jsonb output form (see `jsonfns`).
"""

from __future__ import annotations

from typing import Any

from ...errors import InvalidParameterValue
from ...pgtypes import oids as T
from .jsonfns import jsonb_text, parse
from .registry import register

JB = T.JSONB


@register("jsonb_concat", args=[JB, JB], returns=JB)
def jsonb_concat(a: str, b: str) -> str:
    """object || object merges (right wins); anything else concatenates as arrays, a
    non-array operand counting as a one-element array."""
    x, y = parse(a), parse(b)
    if isinstance(x, dict) and isinstance(y, dict):
        return jsonb_text({**x, **y})
    xs = x if isinstance(x, list) else [x]
    ys = y if isinstance(y, list) else [y]
    return jsonb_text(xs + ys)


def _scalar(v: Any) -> bool:
    return not isinstance(v, dict | list)


@register("jsonb_delete", args=[JB, T.TEXT], returns=JB)
def jsonb_delete(doc: str, key: str) -> str:
    """jsonb - text: drops an object's key, or an array's string elements equal to it."""
    v = parse(doc)
    if _scalar(v):
        raise InvalidParameterValue("cannot delete from scalar")
    if isinstance(v, dict):
        return jsonb_text({k: x for k, x in v.items() if k != key})
    return jsonb_text([x for x in v if x != key])


@register("jsonb_delete", args=[JB, T.ARRAY_OF[T.TEXT]], returns=JB)
def jsonb_delete_keys(doc: str, keys: list[str | None]) -> str:
    """jsonb - text[]: drops every key (or string element) named in the array."""
    v = parse(doc)
    if _scalar(v):
        raise InvalidParameterValue("cannot delete from scalar")
    drop = {k for k in keys if k is not None}
    if isinstance(v, dict):
        return jsonb_text({k: x for k, x in v.items() if k not in drop})
    return jsonb_text([x for x in v if not (isinstance(x, str) and x in drop)])


@register("jsonb_delete", args=[JB, T.INT4], returns=JB)
def jsonb_delete_index(doc: str, i: int) -> str:
    """jsonb - integer: drops an array element (negative counts from the end)."""
    v = parse(doc)
    if _scalar(v):
        raise InvalidParameterValue("cannot delete from scalar")
    if isinstance(v, dict):
        raise InvalidParameterValue("cannot delete from object using integer index")
    n = len(v)
    if i < 0:
        i += n
    return jsonb_text([x for j, x in enumerate(v) if j != i])
