"""pgcrypto's common functions and uuid-ossp's, provided built in (see ddl/extensions.py).

digest and hmac hash with the algorithms pgcrypto names (md5, sha1, sha224,
sha256, sha384, sha512); an unknown one is pgcrypto's 22023 `Cannot use "x":
No such hash algorithm`. The uuid-ossp generators follow RFC 4122 (v3/v5 are
name-based, so equal to PostgreSQL's output for the same namespace and name).
"""

from __future__ import annotations

import hashlib
import hmac as _hmac
import os
import uuid

from ...errors import SQLError
from ...pgtypes import oids as T
from . import trgmfns, unaccentfns
from .registry import register

BYTEA, TEXT, UUID = T.BYTEA, T.TEXT, T.UUID
_ALGOS = ("md5", "sha1", "sha224", "sha256", "sha384", "sha512")
# The extension that makes each function: without CREATE EXTENSION it does not exist (42883),
# as in PostgreSQL. gen_random_uuid is core since PostgreSQL 13.
EXTENSION_OF = {
    **dict.fromkeys(("digest", "hmac", "gen_random_bytes", "crypt", "gen_salt", "encrypt",
                     "decrypt", "encrypt_iv", "decrypt_iv"), "pgcrypto"),
    **dict.fromkeys(("uuid_nil", "uuid_ns_dns", "uuid_ns_url", "uuid_ns_oid", "uuid_ns_x500",
                     "uuid_generate_v1", "uuid_generate_v1mc", "uuid_generate_v3",
                     "uuid_generate_v4", "uuid_generate_v5"), "uuid-ossp"),
    **dict.fromkeys(trgmfns.EXTENSION_FUNCTIONS, "pg_trgm"),
    **dict.fromkeys(unaccentfns.EXTENSION_FUNCTIONS, "unaccent"),
}


def _algo(name: str) -> str:
    a = name.lower()
    if a not in _ALGOS:
        raise SQLError(f'Cannot use "{name}": No such hash algorithm', sqlstate="22023")
    return a


def _bytes(v: str | bytes) -> bytes:
    return v.encode() if isinstance(v, str) else bytes(v)


@register("digest", args=[TEXT, TEXT], returns=BYTEA)
def digest_text(data: str, algo: str) -> bytes:
    """Returns the hash of the text (pgcrypto)."""
    return hashlib.new(_algo(algo), _bytes(data)).digest()


@register("digest", args=[BYTEA, TEXT], returns=BYTEA)
def digest_bytea(data: bytes, algo: str) -> bytes:
    """Returns the hash of the bytes (pgcrypto)."""
    return hashlib.new(_algo(algo), _bytes(data)).digest()


@register("hmac", args=[TEXT, TEXT, TEXT], returns=BYTEA)
def hmac_text(data: str, key: str, algo: str) -> bytes:
    """Returns the keyed hash of the text (pgcrypto)."""
    return _hmac.new(_bytes(key), _bytes(data), _algo(algo)).digest()


@register("hmac", args=[BYTEA, BYTEA, TEXT], returns=BYTEA)
def hmac_bytea(data: bytes, key: bytes, algo: str) -> bytes:
    """Returns the keyed hash of the bytes (pgcrypto)."""
    return _hmac.new(_bytes(key), _bytes(data), _algo(algo)).digest()


@register("gen_random_bytes", args=[T.INT4], returns=BYTEA, volatile=True)
def gen_random_bytes(n: int) -> bytes:
    """Returns n cryptographically strong random bytes (1 to 1024)."""
    if not 1 <= n <= 1024:
        raise SQLError("Length not in range", sqlstate="22023")
    return os.urandom(n)


@register("uuid_nil", args=[], returns=UUID)
def uuid_nil() -> uuid.UUID:
    """Returns the nil UUID."""
    return uuid.UUID(int=0)


for _name, _ns in (("uuid_ns_dns", uuid.NAMESPACE_DNS), ("uuid_ns_url", uuid.NAMESPACE_URL),
                   ("uuid_ns_oid", uuid.NAMESPACE_OID), ("uuid_ns_x500", uuid.NAMESPACE_X500)):
    def _ns_fn(ns: uuid.UUID = _ns) -> uuid.UUID:
        return ns

    _ns_fn.__doc__ = f"Returns the {_name[8:].upper()} namespace UUID."
    register(_name, args=[], returns=UUID)(_ns_fn)


@register("uuid_generate_v1", args=[], returns=UUID, volatile=True)
def uuid_generate_v1() -> uuid.UUID:
    """Returns a version 1 (time and node based) UUID."""
    return uuid.uuid1()


@register("uuid_generate_v1mc", args=[], returns=UUID, volatile=True)
def uuid_generate_v1mc() -> uuid.UUID:
    """Returns a version 1 UUID with a random multicast node id."""
    return uuid.uuid1(int.from_bytes(os.urandom(6), "big") | (1 << 40))


@register("uuid_generate_v3", args=[UUID, TEXT], returns=UUID)
def uuid_generate_v3(ns: uuid.UUID, name: str) -> uuid.UUID:
    """Returns a version 3 (MD5, name based) UUID."""
    return uuid.uuid3(ns, name)


@register("uuid_generate_v4", args=[], returns=UUID, volatile=True)
def uuid_generate_v4() -> uuid.UUID:
    """Returns a version 4 (random) UUID."""
    return uuid.uuid4()


@register("uuid_generate_v5", args=[UUID, TEXT], returns=UUID)
def uuid_generate_v5(ns: uuid.UUID, name: str) -> uuid.UUID:
    """Returns a version 5 (SHA-1, name based) UUID."""
    return uuid.uuid5(ns, name)
