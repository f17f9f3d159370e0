"""Expressions over user-defined and specially ordered types: the sort keys comparisons and
ORDER BY use where a Python value orders differently from PostgreSQL's btree order, and
the enum functions over an enum's labels.

Apart from `usertypes` (the catalog's type facts, which `typefacts` and so the expression
IR itself read) so that those facts need no IR: `bound` -> `typefacts` -> `usertypes`
has no way back to `bound`.

>>> enum_ordered(E("col", 0, [], T.INT4)).kind
'col'
>>> enum_ordered(E("col", 0, [], T.JSONB)).data[0]
'jsonb_order'
"""

from __future__ import annotations

from typing import Any

from ...pgtypes import hstore, tsearch
from ...pgtypes import oids as T
from ...pgtypes.jsonborder import sort_key as jsonb_sort_key
from ...pgtypes.network import sort_key as network_sort_key
from ...pgtypes.tid import sort_key as tid_sort_key
from ...pgtypes.tsqorder import sort_key as tsquery_sort_key
from .bound import E
from .usertypes import by_oid, enum_sort_key, is_enum


def _tsquery_key(v: str) -> bytes:
    return tsquery_sort_key(tsearch.query(v))


def enum_ordered(e: E) -> E:
    """An expression as its btree sort key where its Python value would order differently:
    an enum by its enumsortorder, a jsonb by PostgreSQL's jsonb order (pgtypes.jsonborder).
    For <, > and ORDER BY; other expressions are returned as they are."""
    if e.type == T.JSONB:
        return E("pyfunc", ("jsonb_order", jsonb_sort_key, True), [e], T.JSONB, -1, e.name)
    if e.type in (T.INET, T.CIDR):  # NB: the text of an address does not sort as its bits
        return E("pyfunc", ("network_order", network_sort_key, True), [e], T.BYTEA, -1, e.name)
    if e.type in hstore.OIDS:  # NB: hstore_cmp's order is not its text's
        return E("pyfunc", ("hstore_order", hstore.sort_key, True), [e], T.BYTEA, -1, e.name)
    if e.type == tsearch.TSVECTOR:  # NB: tsvector's btree order (size first) is not its text's
        return E("pyfunc", ("tsvector_order", tsearch.sort_key, True), [e], T.BYTEA, -1, e.name)
    if e.type == tsearch.TSQUERY:  # NB: and tsquery's (CompareTSQ) neither
        return E("pyfunc", ("tsquery_order", _tsquery_key, True), [e], T.BYTEA, -1, e.name)
    if e.type == T.TID:  # NB: (10,1) is above (9,1)
        return E("pyfunc", ("tid_order", tid_sort_key, True), [e], T.INT8, -1, e.name)
    if not is_enum(e.type):
        return e
    return E("pyfunc", ("enum_sortorder", enum_sort_key(e.type), True), [e], T.FLOAT4, -1, e.name)


def enum_function(name: str, args: list[E]) -> E | None:
    """enum_first(x), enum_last(x), enum_range(x) and enum_range(lo, hi) over an enum's labels
    (the argument's type picks the enum; its value only bounds enum_range). None: not an
    enum call, for the registry to report."""
    if not args or not all(is_enum(a.type) or a.type == T.UNKNOWN for a in args):
        return None
    oid = next((a.type for a in args if a.type != T.UNKNOWN), 0)
    t = by_oid(oid)
    if t is None or len(args) > (2 if name == "enum_range" else 1) or \
            any(a.type not in (oid, T.UNKNOWN) for a in args):
        return None
    labels = list(t.labels)
    if name == "enum_first":
        return E("const", labels[0] if labels else None, [], oid, -1, name)
    if name == "enum_last":
        return E("const", labels[-1] if labels else None, [], oid, -1, name)
    arr = t.array_oid
    if len(args) == 1:
        return E("const", labels, [], arr, -1, name)

    def between(lo: Any, hi: Any) -> list[str]:
        i = labels.index(lo) if lo is not None else 0
        j = labels.index(hi) + 1 if hi is not None else len(labels)
        return labels[i:j]

    return E("pyfunc", (name, between, False), args, arr, -1, name)
