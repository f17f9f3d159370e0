"""The btree order of jsonb values (PostgreSQL's compareJsonbContainers), as a sort key.

jsonb values travel as their text, and text order is not jsonb order. PostgreSQL
orders: Object > Array > Boolean > Number > String > Null; an object with more
pairs > one with fewer, then pairs compared in storage order (keys shorter
first, then bytewise); an array with more elements > one with fewer, then
element by element; numbers as numbers, strings bytewise (the C collation).
A top-level scalar is a one-element "raw scalar" array to PostgreSQL: the
element count is compared first, so the empty array sorts below every scalar,
a one-element array above them, and scalars compare by type, then value.

>>> sorted(['{"a": 1}', '[1, 2]', '[3]', '"b"', '10', '2', 'null', 'true', '{}', '[]'], key=sort_key)
['[]', 'null', '"b"', '2', '10', 'true', '[3]', '[1, 2]', '{}', '{"a": 1}']
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from .jsonbtext import loads


def _key(v: Any) -> tuple[Any, ...]:
    if v is None:
        return (0,)
    if isinstance(v, str):
        return (1, v.encode())
    if isinstance(v, bool):
        return (3, v)
    if isinstance(v, int | float | Decimal):
        return (2, Decimal(v))
    if isinstance(v, list):
        return (4, 1, len(v), tuple(_key(x) for x in v))
    keys = sorted(v, key=lambda k: (len(k.encode()), k.encode()))
    return (5, len(v), tuple((k.encode(), _key(v[k])) for k in keys))


def sort_key(doc: Any) -> tuple[Any, ...]:
    """The sort key of one jsonb value (its text, or an already parsed value)."""
    v = loads(doc) if isinstance(doc, str) else doc
    if isinstance(v, list):
        return (4, len(v), 1, tuple(_key(x) for x in v))
    if isinstance(v, dict):
        return _key(v)
    return (4, 1, 0, _key(v))
