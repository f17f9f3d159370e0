"""pgcrypto's password hashing: crypt(password, salt) and gen_salt(type [, rounds]).

The algorithms are the ones pgcrypto implements (bf, md5, xdes, des), chosen by the salt's
prefix as its px_crypt does (`$2a$`/`$2x$` Blowfish, `$1$` MD5, `_` extended DES, anything
else traditional DES). They are the system's: libcrypt (libxcrypt) computes the same
standard algorithms, byte for byte, so a hash made by PostgreSQL verifies here and back.
libcrypt's crypt() keeps its result in a static buffer, hence the lock. gen_salt draws
its random bytes from os.urandom and checks rounds as pgcrypto does (bf 4..31, default 6;
xdes odd 1..16777215, default 725; des and md5 take none).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
from typing import Any

from ...errors import FeatureNotSupported, InvalidParameterValue, SQLError
from ...pgtypes import oids as T
from .registry import register

TEXT = T.TEXT
_ITOA64 = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_BF64 = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_LOCK = threading.Lock()


def _load() -> Any:  # NB: libcrypt may be missing; crypt() then says so
    name = ctypes.util.find_library("crypt")
    try:
        fn = ctypes.CDLL(name or "libcrypt.so.1").crypt
    except (OSError, AttributeError):
        return None
    fn.restype = ctypes.c_char_p
    fn.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    return fn


_CRYPT = _load()


@register("crypt", args=[TEXT, TEXT], returns=TEXT)
def crypt(password: str, salt: str) -> str:
    """The password hashed with the salt's algorithm (a stored hash verifies itself)."""
    if _CRYPT is None:
        raise FeatureNotSupported("crypt() needs the system's libcrypt, which is not installed")
    if salt.startswith(("$2a$", "$2x$", "$1$", "_")):
        return _crypt(password, salt)
    if salt.startswith("$2$"):  # NB: pgcrypto lists the prefix with no algorithm
        raise SQLError("crypt(3) returned NULL", sqlstate="39000")
    if len(salt) < 2:
        raise InvalidParameterValue("invalid salt")
    # NB: anything else is traditional DES, whose two salt characters pgcrypto reads with
    # ascii_to_bin (any character: '$5' too) and copies to the result as written
    head = salt[:2]
    return head + _crypt(password, "".join(_ITOA64[_ascii_to_bin(c)] for c in head))[2:]


def _ascii_to_bin(ch: str) -> int:
    if "a" <= ch <= "z":
        return ord(ch) - ord("a") + 38
    if "A" <= ch <= "Z":
        return ord(ch) - ord("A") + 12
    if "." <= ch <= "9":
        return ord(ch) - ord(".")
    return 0


def _crypt(password: str, salt: str) -> str:
    with _LOCK:
        out = _CRYPT(password.encode(), salt.encode())
    if out is None or out.startswith(b"*"):
        raise InvalidParameterValue("invalid salt")
    return str(out.decode())


def _b64(data: bytes, alphabet: str) -> str:
    """crypt's base 64: 6 bits at a time, least significant first (as _crypt_to64 does)."""
    out: list[str] = []
    for i in range(0, len(data), 3):
        chunk = data[i:i + 3]
        v = int.from_bytes(chunk, "little")
        out.extend(alphabet[(v >> (6 * k)) & 63] for k in range((len(chunk) * 8 + 5) // 6))
    return "".join(out)


def _bf64(data: bytes) -> str:
    """bcrypt's own base 64 (most significant bits first, its alphabet)."""
    bits = "".join(f"{b:08b}" for b in data)
    bits += "0" * (-len(bits) % 6)
    return "".join(_BF64[int(bits[i:i + 6], 2)] for i in range(0, len(bits), 6))


def _rounds_error() -> SQLError:
    return InvalidParameterValue("gen_salt: Incorrect number of rounds")


def _salt(kind: str, rounds: int) -> str:
    k = kind.lower()
    if k == "des":
        if rounds:
            raise _rounds_error()
        return _b64(os.urandom(2), _ITOA64)[:2]
    if k == "md5":
        if rounds:
            raise _rounds_error()
        return "$1$" + _b64(os.urandom(6), _ITOA64)
    if k == "xdes":
        count = rounds or 725
        if not 1 <= count <= 0xFFFFFF or not count & 1:
            raise _rounds_error()
        return "_" + "".join(_ITOA64[(count >> (6 * i)) & 63] for i in range(4)) \
            + _b64(os.urandom(3), _ITOA64)
    if k == "bf":
        cost = rounds or 6
        if not 4 <= cost <= 31:
            raise _rounds_error()
        return f"$2a${cost:02d}$" + _bf64(os.urandom(16))[:22]
    raise InvalidParameterValue("gen_salt: Unknown salt algorithm")


@register("gen_salt", args=[TEXT], returns=TEXT, volatile=True)
def gen_salt(kind: str) -> str:
    """A new random salt for crypt(): 'bf', 'md5', 'xdes' or 'des'."""
    return _salt(kind, 0)


@register("gen_salt", args=[TEXT, T.INT4], returns=TEXT, volatile=True)
def gen_salt_rounds(kind: str, rounds: int) -> str:
    """A new random salt with an iteration count ('bf': 4..31, 'xdes': odd)."""
    return _salt(kind, rounds)
