"""The bit-string operators: `&`, `|`, `#`, `~`, `<<` and `>>` on bit and bit varying.

A bit string is held as its text of '0's and '1's (`pgtypes.bits`). PostgreSQL's
bitand/bitor/bitxor need operands of one length (22026 otherwise), the shifts keep the
length (a negative count shifts the other way), and every result is `bit`, the type the
operators are declared on (varbit is binary-coercible to it).

>>> shift("1001", -2, "<<"), shift("1001", 1, ">>"), shift("1001", 5, "<<")
('0010', '0100', '0000')
>>> combine("&")("1010", "1100"), combine("#")("1010", "1100"), invert("10")
('1000', '0110', '01')
"""

from __future__ import annotations

from collections.abc import Callable

from ...errors import SQLError
from ...pgtypes import oids as T
from .bound import E
from .functions import coerce

BITS = (T.BIT, T.VARBIT)
_NAMES = {"&": "AND", "|": "OR", "#": "XOR"}
_OPS: dict[str, Callable[[int, int], int]] = {
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "#": lambda a, b: a ^ b}


def combine(op: str) -> Callable[[str, str], str]:
    """bitand / bitor / bitxor of two bit strings of one length."""
    fn = _OPS[op]

    def run(a: str, b: str) -> str:
        if len(a) != len(b):
            raise SQLError(f"cannot {_NAMES[op]} bit strings of different sizes",
                           sqlstate="22026")  # string_data_length_mismatch
        if not a:
            return a
        return format(fn(int(a, 2), int(b, 2)), f"0{len(a)}b")

    return run


def shift(v: str, n: int, op: str) -> str:
    """bitshiftleft / bitshiftright: the length is kept, zeros come in."""
    if op == ">>":
        n = -n
    k = len(v)
    if n >= 0:
        return (v[n:] + "0" * min(n, k)) if n < k else "0" * k
    n = -n
    return ("0" * n + v[:k - n]) if n < k else "0" * k


def invert(v: str) -> str:
    """bitnot."""
    return v.translate(str.maketrans("01", "10"))


def involves_bits(a: E, b: E | None = None) -> bool:
    """True when the operator is the bit-string one (a bit operand, the other unknown or bits)."""
    if b is None:
        return a.type in BITS
    return (a.type in BITS and b.type in (*BITS, T.UNKNOWN)) or (
        b.type in BITS and a.type == T.UNKNOWN)


def bit_operator(op: str, a: E, b: E, params: object) -> E:
    """`a op b` on bit strings; a shift's count is an integer."""
    if op in ("<<", ">>"):
        b = coerce(b, T.INT4, params=params)
        return E("pyfunc", (op, lambda v, n: shift(v, n, op), True), [a, b], T.BIT, -1,
                 "?column?")
    a, b = coerce(a, T.BIT, params=params), coerce(b, T.BIT, params=params)
    return E("pyfunc", (op, combine(op), True), [a, b], T.BIT, -1, "?column?")


def bit_not(a: E) -> E:
    return E("pyfunc", ("~", invert, True), [a], T.BIT, -1, "?column?")
