"""ALTER / CREATE SEQUENCE ... OWNED BY table.column | NONE.

pg_dump writes every SERIAL column as a plain column, a CREATE SEQUENCE, an
`ALTER SEQUENCE ... OWNED BY` and a separate default: restoring one needs the
link (pg_depend's 'a' row, DROP TABLE dropping the sequence).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import ObjectNotInPrerequisiteState, SyntaxError_, UndefinedColumn, UndefinedTable
from ..catalog.model import Sequence
from ..parse import unquote_ident
from .names import find_relation, parse_qualified

if TYPE_CHECKING:
    from ..session import SQLSession


def owned_by(s: SQLSession, seq: Sequence, raw: str) -> tuple[int, int] | None:
    """The (table OID, attnum) `OWNED BY raw` names; None for NONE. PostgreSQL's errors."""
    if raw.upper() == "NONE":
        return None
    rel, dot, column = raw.rpartition(".")
    if not dot:
        raise SyntaxError_("invalid OWNED BY option",
                           hint="Specify OWNED BY table.column or OWNED BY NONE.")
    schema, name = parse_qualified(rel)
    t = find_relation(s.catalog(), schema, name, s.search_path())
    if t is None:
        raise UndefinedTable(f'relation "{rel}" does not exist')
    if t.schema_oid != seq.schema_oid:
        raise ObjectNotInPrerequisiteState(
            "sequence must be in same schema as table it is linked to")
    col = unquote_ident(column)
    c = next((c for c in t.columns if c.name == col and not c.dropped), None)
    if c is None:
        raise UndefinedColumn(f'column "{col}" of relation "{t.name}" does not exist')
    return t.oid, c.attnum
