"""COMMENT ON LARGE OBJECT n IS 'text' | NULL.

The comment is kept with every other COMMENT ON (`CatalogStore.set_comment`), so
`obj_description(n, 'pg_largeobject')` and psql's `\\lo_list` read it as they read any
comment; lo_unlink removes it with the object, as PostgreSQL's drop does.
"""

from __future__ import annotations

import re
from typing import Any

from ...errors import UndefinedObject
from ...pgwire.backend import Result
from ..stmt import Stmt
from . import objects as O

_COMMENT = re.compile(r"COMMENT\s+ON\s+LARGE\s+OBJECT\s+(?P<oid>\S+)\s+IS\s+"
                      r"(?P<text>NULL|E?'(?:[^']|'')*')\s*;?\s*$", re.I | re.S)


def analyse_comment(sql: str) -> Stmt | None:
    """The Stmt of COMMENT ON LARGE OBJECT, None for any other COMMENT."""
    m = _COMMENT.match(sql.strip())
    if m is None:
        return None
    lit = m.group("text")
    text = None if lit.upper() == "NULL" else lit[lit.index("'") + 1:-1].replace("''", "'")

    def run(s: Any, p: list[Any]) -> Result:
        raw = m.group("oid")
        lo = O.lookup(s, raw)
        if lo is None:
            raise UndefinedObject(f"large object {raw} does not exist")
        O.must_own(s, lo)
        O.set_comment(s, lo.oid, text)
        return Result("COMMENT")

    return Stmt(sql, "ddl", run, None, [], -1, tag="COMMENT")

