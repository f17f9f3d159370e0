"""Arrays whose lower bounds are not 1: '[2:3]={1,2}'.

Arrays are Python lists (nested for more dimensions) subscripted from 1, as
nearly every array PostgreSQL makes is. PostgreSQL also keeps the lower bounds
an input gives (text '[0:1]={a,b}', binary input's lbound) and shows them:
array_lower, array_upper and array_dims, `a[i]` counted from the bound, the
text output's dimensions and the binary output's lbound. Such an array is a
`Bounded`: a list (every list operation and function still sees its elements)
that carries its lower bound per dimension. Arrays whose bounds are all 1 stay
plain lists, so no other array pays for this.

>>> a = bounded([1, 2], [2])
>>> a, a.lower, dims_text(a)
(Bounded([1, 2], (2,)), (2,), '[2:3]')
>>> bounded([1, 2], [1]).__class__.__name__
'list'
>>> parse_dims("[2:3][0:0]={{1},{2}}")
((2, 0), (2, 1))
>>> with_dims("[2:3]={1,2}", lambda t: [1, 2]).lower
(2,)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ..errors import ArraySubscriptError, InvalidTextRepresentation, SQLError

_SPACE = " \t\n\r\v\f"  # PostgreSQL's array_isspace
_DIGITS = frozenset("0123456789+-")


class Bounded(list):
    """An array with some lower bound other than 1; `lower` has one bound per dimension."""

    __slots__ = ("lower",)

    def __init__(self, items: Iterable[Any], lower: tuple[int, ...]) -> None:
        super().__init__(items)
        self.lower = lower

    def __reduce__(self) -> tuple[Any, ...]:  # NB: pickle (cold rows) keeps the bounds
        return (Bounded, (list(self), self.lower))

    # NB: array_eq compares the bounds too: '[2:3]={1,2}' = '{1,2}' is false. Both methods,
    # as list's own __ne__ would answer `!=` without the bounds (a plain list on the left
    # defers to these: Bounded is its subclass).
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, list):
            return NotImplemented
        return list.__eq__(self, other) and lower_bounds(other) == self.lower

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, list):
            return NotImplemented
        return not self.__eq__(other)

    __hash__ = None  # NB: as a list's

    def __repr__(self) -> str:
        # NB: the executor keys unhashable values (arrays) by their repr (GROUP BY, DISTINCT,
        # UNION, hash joins): '[2:3]={1,2}' and '{1,2}' are two keys, as in PostgreSQL
        return f"Bounded({list.__repr__(self)}, {self.lower!r})"


def bounded(items: list[Any], lower: Sequence[int]) -> list[Any]:
    """`items` with these lower bounds: a plain list when every bound is 1."""
    return Bounded(items, tuple(lower)) if any(b != 1 for b in lower) else items


def same_bounds(arr: list[Any], out: list[Any]) -> list[Any]:
    """`out`, an array made from `arr` (a cast, an element appended), with `arr`'s lower
    bounds (none when it is empty: '{}' has no dimensions)."""
    return Bounded(out, arr.lower) if type(arr) is Bounded and out else out


def shape(arr: Any) -> list[int]:
    """The length of each dimension of a nested-list array ([] when it is empty)."""
    dims = []
    while isinstance(arr, list | tuple) and arr:
        dims.append(len(arr))
        arr = arr[0]
    return dims


def lower_bounds(arr: Any) -> tuple[int, ...]:
    """The lower bound of each dimension of an array."""
    return arr.lower if type(arr) is Bounded else (1,) * len(shape(arr))


def order_parts(arr: list[Any]) -> tuple[list[Any], tuple[int, ...], tuple[int, ...]]:
    """What PostgreSQL's array_cmp compares, in its order: the elements in storage order
    (whatever the dimensions), then their number, the number of dimensions, the dimensions
    and the lower bounds.

    >>> order_parts(bounded([[1, 2], [3, 4]], [0, 1]))
    ([1, 2, 3, 4], (2, 2), (0, 1))
    """
    dims: list[int] = []
    v: Any = arr
    while isinstance(v, list) and v:
        dims.append(len(v))
        v = v[0]
    flat = arr
    for _ in range(len(dims) - 1):
        flat = [x for sub in flat for x in sub]
    return flat, tuple(dims), arr.lower if type(arr) is Bounded else (1,) * len(dims)


def dims_text(arr: Any) -> str:
    """array_dims: '[lo:hi]' per dimension ('' for an empty array)."""
    return "".join(f"[{lo}:{lo + n - 1}]"
                   for lo, n in zip(lower_bounds(arr), shape(arr), strict=True))


def _malformed(text: str, detail: str) -> SQLError:
    return InvalidTextRepresentation(f'malformed array literal: "{text}"', detail=detail)


def _number(text: str, s: str, p: int, detail: str) -> tuple[int, int]:
    q = p
    while q < len(s) and s[q] in _DIGITS:
        q += 1
    if q == p:
        raise _malformed(text, detail)
    try:
        return int(s[p:q]), q
    except ValueError:  # NB: '+-1': atoi reads what it can; PostgreSQL 15 takes 0
        return 0, q


def parse_dims(text: str) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """The explicit dimensions before an array's braces, as array_in reads them: (lower
    bounds, lengths), or None when the text has none. Checks what array_in checks."""
    s = text.lstrip(_SPACE)
    if not s.startswith("["):
        return None
    lower: list[int] = []
    lengths: list[int] = []
    p = 0
    while True:
        while p < len(s) and s[p] in _SPACE:
            p += 1
        if p >= len(s) or s[p] != "[":
            break
        lo, q = _number(text, s, p + 1,
                        '"[" must introduce explicitly-specified array dimensions.')
        if q < len(s) and s[q] == ":":
            hi, q = _number(text, s, q + 1, "Missing array dimension value.")
        else:
            lo, hi = 1, lo
        if q >= len(s) or s[q] != "]":
            raise _malformed(text, 'Missing "]" after array dimensions.')
        if hi < lo:
            raise ArraySubscriptError("upper bound cannot be less than lower bound")
        lower.append(lo)
        lengths.append(hi - lo + 1)
        p = q + 1
    if not s.startswith("=", p):
        raise _malformed(text, 'Missing "=" after array dimensions.')
    if not s[p + 1:].lstrip(_SPACE).startswith("{"):
        raise _malformed(text, 'Array contents must start with "{".')
    return tuple(lower), tuple(lengths)


def with_dims(text: str, read: Callable[[str], list[Any]]) -> list[Any]:
    """The array `read` makes of `text` (its braces), with the dimensions the text gives
    before them, which are checked first and must match the braces (array_in's order)."""
    dims = parse_dims(text)
    items = read(text)
    if dims is None:
        return items
    lower, lengths = dims
    if tuple(shape(items)) != lengths:
        raise _malformed(text, "Specified array dimensions do not match array contents.")
    return bounded(items, lower)
