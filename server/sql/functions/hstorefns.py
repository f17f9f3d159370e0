"""hstore's functions (CREATE EXTENSION hstore), as hstore--1.8 defines them.

Values are hstore's canonical text (`pgtypes.hstore`); each function returns
what PostgreSQL's hstore_op.c returns. They are declared over the placeholder
`typeslots.HSTORE`, so they exist only where the extension was created. The
operators (`->`, `?`, `@>`, `||`, `-`, ...) call the same functions
(`expr.extops`).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Any

from ...errors import ArraySubscriptError, NullValueNotAllowed, SQLError
from ...pgtypes import hstore as H
from ...pgtypes import oids as T
from ...pgtypes.jsonbtext import normalize as jsonb_normalize
from ...pgtypes.pghash import hash_bytes, hash_bytes_extended
from .typeslots import HSTORE, register_slotted

TEXT, TEXTS, BOOL = T.TEXT, T.ARRAY_OF[T.TEXT], T.BOOL


def _bad_array(msg: str) -> SQLError:
    return ArraySubscriptError(msg)


@register_slotted("hstore", args=[TEXT, TEXT], returns=HSTORE, strict=False)
def from_pair(k: str | None, v: str | None) -> str | None:
    """hstore(key, value): one pair (a NULL key gives NULL)."""
    return None if k is None else H.canonical([(k, v)])


def _flat(a: list[Any]) -> list[Any]:
    if a and all(isinstance(x, list) for x in a):
        if any(len(x) != 2 for x in a):
            raise _bad_array("wrong number of array subscripts")
        return [y for x in a for y in x]
    return a


@register_slotted("hstore", args=[TEXTS], returns=HSTORE)
def from_array(a: list[Any]) -> str:
    """hstore(text[]): alternating keys and values (or {{k,v},...})."""
    flat = _flat(a)
    if len(flat) % 2:
        raise _bad_array("array must have even number of elements")
    items = []
    for k, v in zip(flat[::2], flat[1::2], strict=True):
        if k is None:
            raise NullValueNotAllowed("null value not allowed for hstore key")
        items.append((k, v))
    return H.canonical(items)


@register_slotted("hstore", args=[TEXTS, TEXTS], returns=HSTORE, strict=False)
def from_arrays(keys: list[Any] | None, vals: list[Any] | None) -> str | None:
    """hstore(keys, values): pairs from two arrays of the same length (values NULL: all NULL)."""
    if keys is None:
        return None
    if vals is not None and len(vals) != len(keys):
        raise _bad_array("arrays must have same bounds")
    if any(k is None for k in keys):
        raise NullValueNotAllowed("null value not allowed for hstore key")
    return H.canonical(zip(keys, vals if vals is not None else [None] * len(keys), strict=True))


@register_slotted("akeys", args=[HSTORE], returns=TEXTS)
def akeys(h: str) -> list[str]:
    """The keys, in hstore order."""
    return [k for k, _ in H.pairs(h)]


@register_slotted("avals", args=[HSTORE], returns=TEXTS)
def avals(h: str) -> list[str | None]:
    """The values, in hstore order."""
    return [v for _, v in H.pairs(h)]


@register_slotted("skeys", args=[HSTORE], returns=TEXT, set_returning=True)
def skeys(h: str) -> Iterator[str]:
    """The keys as a set."""
    yield from akeys(h)


@register_slotted("svals", args=[HSTORE], returns=TEXT, set_returning=True)
def svals(h: str) -> Iterator[str | None]:
    """The values as a set."""
    yield from avals(h)


@register_slotted("each", args=[HSTORE], returns=T.RECORD, set_returning=True,
                  out_columns=[("key", TEXT), ("value", TEXT)])
def each(h: str) -> Iterator[tuple[str, str | None]]:
    """The (key, value) pairs as a set."""
    yield from H.pairs(h)


@register_slotted("fetchval", args=[HSTORE, TEXT], returns=TEXT)
def fetchval(h: str, k: str) -> str | None:
    """h -> key."""
    return H.as_dict(h).get(k)


@register_slotted("slice_array", args=[HSTORE, TEXTS], returns=TEXTS)
def slice_array(h: str, keys: list[Any]) -> list[str | None]:
    """h -> keys: the values of the keys (NULL for a missing one)."""
    d = H.as_dict(h)
    return [None if k is None else d.get(k) for k in keys]


@register_slotted("exist", args=[HSTORE, TEXT], returns=BOOL)
def exist(h: str, k: str) -> bool:
    """h ? key."""
    return k in H.as_dict(h)


@register_slotted("exists_any", args=[HSTORE, TEXTS], returns=BOOL)
def exists_any(h: str, keys: list[Any]) -> bool:
    """h ?| keys."""
    d = H.as_dict(h)
    return any(k is not None and k in d for k in keys)


@register_slotted("exists_all", args=[HSTORE, TEXTS], returns=BOOL)
def exists_all(h: str, keys: list[Any]) -> bool:
    """h ?& keys (NULL keys are ignored)."""
    d = H.as_dict(h)
    return all(k is None or k in d for k in keys)


@register_slotted("defined", args=[HSTORE, TEXT], returns=BOOL)
def defined(h: str, k: str) -> bool:
    """Has the key a non-NULL value?"""
    return H.as_dict(h).get(k) is not None


@register_slotted("delete", args=[HSTORE, TEXT], returns=HSTORE)
def delete_key(h: str, k: str) -> str:
    """h - key."""
    return H.canonical(p for p in H.pairs(h) if p[0] != k)


@register_slotted("delete", args=[HSTORE, TEXTS], returns=HSTORE)
def delete_keys(h: str, keys: list[Any]) -> str:
    """h - keys."""
    drop = set(keys)
    return H.canonical(p for p in H.pairs(h) if p[0] not in drop)


@register_slotted("delete", args=[HSTORE, HSTORE], returns=HSTORE)
def delete_pairs(h: str, other: str) -> str:
    """h - hstore: drops the pairs that are also in `other` (same key and value)."""
    drop = set(H.pairs(other))
    return H.canonical(p for p in H.pairs(h) if p not in drop)


@register_slotted("hs_concat", args=[HSTORE, HSTORE], returns=HSTORE)
def concat(a: str, b: str) -> str:
    """a || b: b's values win."""
    return H.merged(H.pairs(a) + H.pairs(b))


@register_slotted("hs_contains", args=[HSTORE, HSTORE], returns=BOOL)
def contains(a: str, b: str) -> bool:
    """a @> b: every pair of b is in a (NULL values match NULL values)."""
    d = H.as_dict(a)
    return all(k in d and d[k] == v for k, v in H.pairs(b))


@register_slotted("hs_contained", args=[HSTORE, HSTORE], returns=BOOL)
def contained(a: str, b: str) -> bool:
    """a <@ b."""
    return contains(b, a)


@register_slotted("slice", args=[HSTORE, TEXTS], returns=HSTORE)
def slice_(h: str, keys: list[Any]) -> str:
    """The pairs of the given keys."""
    want = set(keys)
    return H.canonical(p for p in H.pairs(h) if p[0] in want)


@register_slotted("hstore_to_array", args=[HSTORE], returns=TEXTS)
def to_array(h: str) -> list[str | None]:
    """%% h: keys and values alternating."""
    return [x for p in H.pairs(h) for x in p]


@register_slotted("hstore_to_matrix", args=[HSTORE], returns=TEXTS)
def to_matrix(h: str) -> list[list[str | None]]:
    """%# h: {{key,value},...}."""
    return [list(p) for p in H.pairs(h)]


@register_slotted("hstore_to_json", args=[HSTORE], returns=T.JSON)
def to_json(h: str) -> str:
    """hstore_to_json: a json object of string values."""
    return H.to_json(h)


@register_slotted("hstore_to_jsonb", args=[HSTORE], returns=T.JSONB)
def to_jsonb(h: str) -> str:
    """hstore_to_jsonb: a jsonb object of string values."""
    return jsonb_normalize(H.to_json(h))


@register_slotted("hstore_to_json_loose", args=[HSTORE], returns=T.JSON)
def to_json_loose(h: str) -> str:
    """hstore_to_json_loose: numbers and t/f as json numbers and booleans."""
    return H.to_json(h, True)


@register_slotted("hstore_to_jsonb_loose", args=[HSTORE], returns=T.JSONB)
def to_jsonb_loose(h: str) -> str:
    """hstore_to_jsonb_loose."""
    return jsonb_normalize(H.to_json(h, True))


@register_slotted("isexists", args=[HSTORE, TEXT], returns=BOOL)
def isexists(h: str, k: str) -> bool:
    """exist(h, key), the old name."""
    return exist(h, k)


@register_slotted("isdefined", args=[HSTORE, TEXT], returns=BOOL)
def isdefined(h: str, k: str) -> bool:
    """defined(h, key), the old name."""
    return defined(h, k)


@register_slotted("tconvert", args=[TEXT, TEXT], returns=HSTORE, strict=False)
def tconvert(k: str | None, v: str | None) -> str | None:
    """tconvert(key, value): hstore(key, value)'s old name."""
    return from_pair(k, v)


@register_slotted("hstore_version_diag", args=[HSTORE], returns=T.INT4)
def version_diag(h: str) -> int:
    """The on-disk format version of a value: always hstore's current one, 2."""
    return 2


@register_slotted("hstore_cmp", args=[HSTORE, HSTORE], returns=T.INT4)
def cmp(a: str, b: str) -> int:
    """hstore's btree comparison: -1, 0 or 1 (as PostgreSQL's hstore_cmp normalises it)."""
    ka, kb = H.sort_key(a), H.sort_key(b)
    return (ka > kb) - (ka < kb)


for _name, _test in (("hstore_eq", lambda c: c == 0), ("hstore_ne", lambda c: c != 0),
                     ("hstore_lt", lambda c: c < 0), ("hstore_le", lambda c: c <= 0),
                     ("hstore_gt", lambda c: c > 0), ("hstore_ge", lambda c: c >= 0)):
    def _compare(a: str, b: str, test: Any = _test) -> bool:
        return bool(test(cmp(a, b)))

    _compare.__doc__ = f"{_name}(a, b): the btree comparison behind hstore's operators."
    register_slotted(_name, args=[HSTORE, HSTORE], returns=BOOL)(_compare)


def _stored(h: str) -> bytes:
    """The value as PostgreSQL keeps it (after the varlena header), which hstore_hash hashes:
    the count with HS_FLAG_NEWVERSION, each key's and value's end offset (the first key's
    flagged ISFIRST, a NULL value's ISNULL), then the strings."""
    ps = H.pairs(h)
    entries, data = [], b""
    for i, (k, v) in enumerate(ps):
        data += k.encode()
        entries.append(len(data) | (0x80000000 if i == 0 else 0))
        if v is not None:
            data += v.encode()
        entries.append(len(data) | (0x40000000 if v is None else 0))
    return struct.pack(f"<I{len(entries)}I", len(ps) | 0x80000000, *entries) + data


@register_slotted("hstore_hash", args=[HSTORE], returns=T.INT4)
def hstore_hash(h: str) -> int:
    """hstore's hash opclass function: hash_any over the stored value."""
    return hash_bytes(_stored(h))


@register_slotted("hstore_hash_extended", args=[HSTORE, T.INT8], returns=T.INT8)
def hstore_hash_extended(h: str, seed: int) -> int:
    """The 64-bit, seeded hash of the stored value."""
    return hash_bytes_extended(_stored(h), seed)
