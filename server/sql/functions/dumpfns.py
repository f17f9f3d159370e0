"""Catalog helpers pg_dump calls: acldefault and pg_options_to_table.

pg_dump 15 reads every object's ACL next to `acldefault(kind, owner)` and
prints GRANT/REVOKE for the difference, so a NULL ACL (never granted) and a
default one dump the same. The kinds are PostgreSQL's one-letter codes.

>>> _PRIVS["r"], _PUBLIC["f"]
('arwdDxt', 'X')
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...errors import InvalidParameterValue
from ...pgtypes import oids as T
from ..privileges.acl import aclitem_text
from .registry import register

# kind letter -> every privilege the owner holds / what PUBLIC holds by default (acl.c)
_PRIVS = {"c": "arwx", "r": "arwdDxt", "s": "rwU", "d": "CTc", "f": "X", "l": "U", "L": "rw",
          "n": "UC", "p": "sA", "t": "U", "T": "U", "F": "U", "S": "U"}
_PUBLIC = {"d": "Tc", "f": "X", "l": "U", "T": "U"}


@register("acldefault", args=[T.CHAR, T.OID], returns=1034, needs_context=True, oid=3943)
def acldefault(ctx: Any, kind: str, owner: int) -> list[str]:
    """Returns the default ACL of an object of `kind` owned by `owner`, as aclitem[] text."""
    if kind not in _PRIVS:
        raise InvalidParameterValue(f"unrecognized objtype abbreviation: {kind}")
    items = [f"{owner}={_PRIVS[kind]}/{owner}"]
    if kind in _PUBLIC:
        items.insert(0, f"0={_PUBLIC[kind]}/{owner}")
    return [aclitem_text(ctx.catalog, i) for i in items]


@register("pg_options_to_table", args=[1009], returns=T.RECORD, set_returning=True,
          out_columns=[("option_name", T.TEXT), ("option_value", T.TEXT)], oid=2289)
def pg_options_to_table(options: list[str | None]) -> Iterator[tuple[str, str | None]]:
    """Splits reloptions / fdwoptions items `name=value` into rows (a bare name has NULL)."""
    for item in options:
        if item is not None:
            name, eq, value = item.partition("=")
            yield name, value if eq else None
