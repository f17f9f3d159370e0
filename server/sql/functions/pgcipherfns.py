"""pgcrypto's raw encryption: encrypt, decrypt, encrypt_iv, decrypt_iv (CREATE EXTENSION
pgcrypto).

The type is `algorithm[-mode][/pad:padding]` as pgcrypto parses it: aes (rijndael) and
3des, cbc (the default) or ecb, pkcs (the default) or none; the last /pad: wins. An AES
key is zero-padded to 16, 24 or 32 bytes by its length (and cut at 32), a 3DES key to 24;
the IV is zeros, or the given one padded or cut to the block. These are the `cryptography`
package's ciphers, the same OpenSSL ones PostgreSQL calls, so the bytes match. What
PostgreSQL's OpenSSL 3 refuses to initialise (bf, des, cast5: legacy ciphers) is its
39000 `Cipher cannot be initialized` here too.
"""

from __future__ import annotations

import re
from typing import Any

from cryptography.hazmat.decrepit.ciphers.algorithms import TripleDES
from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from ...errors import InvalidParameterValue, SQLError
from ...pgtypes import oids as T
from .registry import register

BYTEA, TEXT = T.BYTEA, T.TEXT
_TYPE = re.compile(r"(?P<alg>[a-z0-9]+)(?:-(?P<mode>[a-z0-9]+))?(?P<opts>(?:/[^/]*)*)")
_LEGACY = frozenset(("bf", "blowfish", "des", "cast5"))


def _cipher(kind: str, key: bytes, iv: bytes | None) -> tuple[Any, int, bool]:
    """(a Cipher, its block size, pkcs padding?) for pgcrypto's type string."""
    m = _TYPE.fullmatch(kind.lower())
    pad, alg, mode = "pkcs", "", "cbc"
    if m is not None:
        alg, mode = m.group("alg"), m.group("mode") or "cbc"
        for opt in filter(None, m.group("opts").split("/")):
            name, _, value = opt.partition(":")
            if name != "pad" or value not in ("pkcs", "none"):
                m = None
                break
            pad = value
    if m is None or mode not in ("cbc", "ecb") or alg not in ("aes", "rijndael", "3des",
                                                                  *_LEGACY):
        raise InvalidParameterValue(f'Cannot use "{kind}": No such cipher algorithm')
    if alg in _LEGACY:
        raise SQLError("encrypt error: Cipher cannot be initialized", sqlstate="39000")
    algo: TripleDES | algorithms.AES
    if alg == "3des":
        block, algo = 8, TripleDES(key[:24].ljust(24, b"\0"))
    else:
        size = 16 if len(key) <= 16 else 24 if len(key) <= 24 else 32
        block, algo = 16, algorithms.AES(key[:size].ljust(size, b"\0"))
    vector = (iv or b"")[:block].ljust(block, b"\0")
    return (Cipher(algo, modes.CBC(vector) if mode == "cbc" else modes.ECB()), block,
            pad == "pkcs")


def _encrypt(data: bytes, key: bytes, iv: bytes | None, kind: str) -> bytes:
    cipher, block, pkcs = _cipher(kind, bytes(key), iv)
    data = bytes(data)
    if pkcs:
        padder = padding.PKCS7(block * 8).padder()
        data = padder.update(data) + padder.finalize()
    elif len(data) % block:
        raise SQLError("encrypt error: Encryption failed", sqlstate="39000")
    enc = cipher.encryptor()
    return bytes(enc.update(data) + enc.finalize())


def _decrypt(data: bytes, key: bytes, iv: bytes | None, kind: str) -> bytes:
    cipher, block, pkcs = _cipher(kind, bytes(key), iv)
    data = bytes(data)
    if len(data) % block:
        raise SQLError("decrypt error: Decryption failed", sqlstate="39000")
    dec = cipher.decryptor()
    out = dec.update(data) + dec.finalize()
    if pkcs:
        try:
            unpadder = padding.PKCS7(block * 8).unpadder()
            out = unpadder.update(out) + unpadder.finalize()
        except ValueError:  # NB: a wrong key shows as bad padding, as in OpenSSL
            raise SQLError("decrypt error: Decryption failed", sqlstate="39000") from None
    return bytes(out)


@register("encrypt", args=[BYTEA, BYTEA, TEXT], returns=BYTEA)
def encrypt(data: bytes, key: bytes, kind: str) -> bytes:
    """data encrypted with key by the type's cipher (a zero IV)."""
    return _encrypt(data, key, None, kind)


@register("decrypt", args=[BYTEA, BYTEA, TEXT], returns=BYTEA)
def decrypt(data: bytes, key: bytes, kind: str) -> bytes:
    """encrypt's inverse."""
    return _decrypt(data, key, None, kind)


@register("encrypt_iv", args=[BYTEA, BYTEA, BYTEA, TEXT], returns=BYTEA)
def encrypt_iv(data: bytes, key: bytes, iv: bytes, kind: str) -> bytes:
    """encrypt with an initialisation vector (ignored in ECB mode)."""
    return _encrypt(data, key, iv, kind)


@register("decrypt_iv", args=[BYTEA, BYTEA, BYTEA, TEXT], returns=BYTEA)
def decrypt_iv(data: bytes, key: bytes, iv: bytes, kind: str) -> bytes:
    """encrypt_iv's inverse."""
    return _decrypt(data, key, iv, kind)
