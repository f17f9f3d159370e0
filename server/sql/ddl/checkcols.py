"""What a CHECK constraint's text references: its columns' attnums and its default name's part.

CREATE TABLE (`tables.TableBuilder`) and ALTER TABLE ADD CONSTRAINT
(`constraints`) both store CHECK constraints from sqlglot-generated text;
both name an unnamed one `<table>_<col>_check` when it references exactly
one column (`<table>_check` otherwise), as PostgreSQL does, and record the
referenced attnums as pg_constraint.conkey.
"""

from __future__ import annotations

import re

from sqlglot import exp

from ..catalog.model import Column
from ..parse import parse_sql
from .names import ident


def check_attnums(text: str, cols: list[Column]) -> tuple[int, ...]:
    """The attnums a CHECK expression references, ascending (pg_constraint.conkey)."""

    try:
        tree = parse_sql(f"SELECT {text}")
    except Exception:  # NB: the text was produced by sqlglot; a failure only loses conkey
        return ()
    names = {ident(c.this) for c in tree.find_all(exp.Column)}
    return tuple(c.attnum for c in cols if not c.dropped and c.name in names)


def check_col(text: str, cols: list[Column]) -> str:
    """The column part of an unnamed CHECK's name: `<col>_` for exactly one column, else ''."""

    names = set(re.findall(r"[a-z_][a-z_0-9]*", text))
    used = [c.name for c in cols if c.name in names]
    return f"{used[0]}_" if len(used) == 1 else ""
