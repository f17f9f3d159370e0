"""PostgreSQL's hash_bytes and hash_bytes_extended (Bob Jenkins' lookup3, as src/common/hashfn.c
has it), for the hash support functions whose values users can see (hstore_hash).

Little-endian, as PostgreSQL on the machines it runs on here; a 32-bit result is returned
as the int4 PostgreSQL shows, a 64-bit one as the int8.

>>> hash_bytes(b""), hash_bytes(b"a"), hash_bytes(b"hello world, 12+ bytes")
(-1477818771, 1075015857, -1650861534)
>>> hash_bytes_extended(b"a", 0), hash_bytes_extended(b"a", 7)
(3591986179850072241, 6761863715122467050)

(PostgreSQL 15's hashtext('')/('a')/(...) and hashtextextended('a', 0)/('a', 7).)
"""

from __future__ import annotations

import struct

_M = 0xFFFFFFFF


def _rot(x: int, k: int) -> int:
    return ((x << k) | (x >> (32 - k))) & _M


def _mix(a: int, b: int, c: int) -> tuple[int, int, int]:
    a = ((a - c) & _M) ^ _rot(c, 4)
    c = (c + b) & _M
    b = ((b - a) & _M) ^ _rot(a, 6)
    a = (a + c) & _M
    c = ((c - b) & _M) ^ _rot(b, 8)
    b = (b + a) & _M
    a = ((a - c) & _M) ^ _rot(c, 16)
    c = (c + b) & _M
    b = ((b - a) & _M) ^ _rot(a, 19)
    a = (a + c) & _M
    c = ((c - b) & _M) ^ _rot(b, 4)
    b = (b + a) & _M
    return a, b, c


def _final(a: int, b: int, c: int) -> tuple[int, int, int]:
    c = ((c ^ b) - _rot(b, 14)) & _M
    a = ((a ^ c) - _rot(c, 11)) & _M
    b = ((b ^ a) - _rot(a, 25)) & _M
    c = ((c ^ b) - _rot(b, 16)) & _M
    a = ((a ^ c) - _rot(c, 4)) & _M
    b = ((b ^ a) - _rot(a, 14)) & _M
    c = ((c ^ b) - _rot(b, 24)) & _M
    return a, b, c


def _state(k: bytes, seed: int) -> tuple[int, int, int]:
    a = b = c = (0x9E3779B9 + len(k) + 3923095) & _M
    if seed:  # NB: the seed is a 12-byte chunk of its own (its two halves and four zeros)
        a = (a + ((seed >> 32) & _M)) & _M
        b = (b + (seed & _M)) & _M
        a, b, c = _mix(a, b, c)
    i = 0
    while len(k) - i >= 12:
        x, y, z = struct.unpack_from("<III", k, i)
        a, b, c = _mix((a + x) & _M, (b + y) & _M, (c + z) & _M)
        i += 12
    rest = k[i:]
    if len(rest) >= 9:  # NB: c's lowest byte is left for the length, already in the seed
        c = (c + (int.from_bytes(rest[8:11], "little") << 8)) & _M
    if len(rest) >= 5:
        b = (b + int.from_bytes(rest[4:8], "little")) & _M
    if rest:
        a = (a + int.from_bytes(rest[0:4], "little")) & _M
    return _final(a, b, c)


def hash_bytes(k: bytes) -> int:
    """hash_any(k): the int4 PostgreSQL returns."""
    c = _state(k, 0)[2]
    return c - (1 << 32) if c >> 31 else c


def hash_bytes_extended(k: bytes, seed: int) -> int:
    """hash_any_extended(k, seed): the int8 PostgreSQL returns."""
    _, b, c = _state(k, seed & 0xFFFFFFFFFFFFFFFF)
    v = (b << 32) | c
    return v - (1 << 64) if v >> 63 else v
