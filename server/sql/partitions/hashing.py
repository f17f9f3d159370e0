"""PostgreSQL's partition hash: which row a `FOR VALUES WITH (MODULUS m, REMAINDER r)`
partition takes.

A hash partition must hold the rows PostgreSQL would put there, or a dump restored
into the other server (or a query naming a partition) disagrees. PostgreSQL hashes
each key column with the type's extended hash function seeded by
HASH_PARTITION_SEED (Bob Jenkins' lookup3, as its `hashfn.c`), folds the columns
with `hash_combine64` (a NULL column adds nothing), and takes the result modulo
each modulus. Integers hash their 32-bit value (an int8 folds its halves first),
text and bytea their bytes, so those keys land exactly where PostgreSQL's do;
other key types hash their text form (a stable placement, not PostgreSQL's).

>>> row_hash([1], [23]) % 4, row_hash([2], [23]) % 4, row_hash(['a'], [25]) % 4
(0, 2, 2)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...pgtypes import oids as T

SEED = 0x7A5B22367996DCFD  # HASH_PARTITION_SEED
_M32 = 0xFFFFFFFF
_M64 = 0xFFFFFFFFFFFFFFFF


def _rot(x: int, k: int) -> int:
    return ((x << k) | (x >> (32 - k))) & _M32


def _mix(a: int, b: int, c: int) -> tuple[int, int, int]:
    a = (a - c) & _M32; a ^= _rot(c, 4); c = (c + b) & _M32  # noqa: E702
    b = (b - a) & _M32; b ^= _rot(a, 6); a = (a + c) & _M32  # noqa: E702
    c = (c - b) & _M32; c ^= _rot(b, 8); b = (b + a) & _M32  # noqa: E702
    a = (a - c) & _M32; a ^= _rot(c, 16); c = (c + b) & _M32  # noqa: E702
    b = (b - a) & _M32; b ^= _rot(a, 19); a = (a + c) & _M32  # noqa: E702
    c = (c - b) & _M32; c ^= _rot(b, 4); b = (b + a) & _M32  # noqa: E702
    return a, b, c


def _final(a: int, b: int, c: int) -> tuple[int, int, int]:
    c ^= b; c = (c - _rot(b, 14)) & _M32  # noqa: E702
    a ^= c; a = (a - _rot(c, 11)) & _M32  # noqa: E702
    b ^= a; b = (b - _rot(a, 25)) & _M32  # noqa: E702
    c ^= b; c = (c - _rot(b, 16)) & _M32  # noqa: E702
    a ^= c; a = (a - _rot(c, 4)) & _M32  # noqa: E702
    b ^= a; b = (b - _rot(a, 14)) & _M32  # noqa: E702
    c ^= b; c = (c - _rot(b, 24)) & _M32  # noqa: E702
    return a, b, c


def _seeded(start: int, seed: int) -> tuple[int, int, int]:
    a = b = c = start & _M32
    if seed:
        a = (a + (seed >> 32)) & _M32
        b = (b + (seed & _M32)) & _M32
        a, b, c = _mix(a, b, c)
    return a, b, c


def hash_uint32(k: int, seed: int = SEED) -> int:
    """hash_uint32_extended: a 32-bit value to 64 bits."""
    a, b, c = _seeded(0x9E3779B9 + 4 + 3923095, seed)
    a = (a + (k & _M32)) & _M32
    a, b, c = _final(a, b, c)
    return (b << 32) | c


def hash_bytes(data: bytes, seed: int = SEED) -> int:
    """hash_bytes_extended (little-endian words, as on the machines PostgreSQL runs on)."""
    n = len(data)
    a, b, c = _seeded(0x9E3779B9 + n + 3923095, seed)
    pos = 0
    while n - pos >= 12:
        a = (a + int.from_bytes(data[pos:pos + 4], "little")) & _M32
        b = (b + int.from_bytes(data[pos + 4:pos + 8], "little")) & _M32
        c = (c + int.from_bytes(data[pos + 8:pos + 12], "little")) & _M32
        a, b, c = _mix(a, b, c)
        pos += 12
    tail = data[pos:]
    if tail:
        a = (a + int.from_bytes(tail[:4], "little")) & _M32
        b = (b + int.from_bytes(tail[4:8], "little")) & _M32
        # NB: the lowest byte of c is left for the length: the tail's bytes 8-10 go above it
        c = (c + (int.from_bytes(tail[8:11], "little") << 8)) & _M32
    a, b, c = _final(a, b, c)
    return (b << 32) | c


def _int8(v: int) -> int:
    lo, hi = v & _M32, (v >> 32) & _M32
    return hash_uint32(lo ^ (hi if v >= 0 else ~hi & _M32))


def _text(v: Any) -> int:
    return hash_bytes(str(v).encode())


def _bytes(v: Any) -> int:
    return hash_bytes(bytes(v))


def _bool(v: Any) -> int:
    return hash_uint32(1 if v else 0)


def hasher(type_oid: int) -> Callable[[Any], int]:
    """The extended hash of one key column's non-NULL values."""
    if type_oid in (T.INT2, T.INT4, T.OID):
        return hash_uint32
    if type_oid == T.INT8:
        return _int8
    if type_oid == T.BOOL:
        return _bool
    if type_oid == T.BYTEA:
        return _bytes
    return _text  # text, varchar, name: their bytes (others: their text form)


def combine(a: int, b: int) -> int:
    """hash_combine64."""
    return (a ^ ((b + 0x49A0F4DD15E5A8E3 + (a << 54) + (a >> 7)) & _M64)) & _M64


def row_hash(values: list[Any], types: list[int]) -> int:
    """The row's hash over its key values (NULLs skipped), as compute_partition_hash_value."""
    h = 0
    for v, t in zip(values, types, strict=True):
        if v is not None:
            h = combine(h, hasher(t)(v))
    return h
