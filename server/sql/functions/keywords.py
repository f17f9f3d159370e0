"""pg_get_keywords(): PostgreSQL 15's SQL keyword list (`kwlist`), for psql's tab completion."""

from __future__ import annotations

from collections.abc import Iterator

from ...pgtypes import oids as T
from ..kwlist import keywords
from .registry import register

_CATDESC = {
    "U": "unreserved",
    "C": "unreserved (cannot be function or type name)",
    "T": "reserved (can be function or type name)",
    "R": "reserved",
}


@register(
    "pg_get_keywords", args=[], returns=T.RECORD, set_returning=True,
    out_columns=[("word", T.TEXT), ("catcode", T.CHAR), ("barelabel", T.BOOL),
                 ("catdesc", T.TEXT), ("baredesc", T.TEXT)],
)
def pg_get_keywords() -> Iterator[tuple[str, str, bool, str, str]]:
    """Lists the SQL keywords with their categories."""
    for word, code, bare in keywords():
        yield word, code, bare, _CATDESC[code], "can be bare label" if bare else "requires AS"
