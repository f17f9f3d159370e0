"""What a CREATE FUNCTION returns: a value, a row, or a set of either (pg_proc's shape).

PostgreSQL reads the result from the RETURNS clause and the parameter modes together:
`RETURNS SETOF int` is a set of values, `RETURNS TABLE (x int, y text)` a set of rows
with those columns, `OUT x int, OUT y text` one row of them (a set with `RETURNS SETOF
record`), a single OUT parameter its plain type, and `RETURNS t` / `SETOF t` for a table
`t` rows of t's columns typed as t's row type. The IN / INOUT / VARIADIC parameters are
the call's arguments; OUT / INOUT / TABLE ones are the result's fields.

>>> shape = Shape.of(["n int", "out x int", "out y text"], None, "", lambda t: {"int": 23, "text": 25}[t], {})
>>> shape.args, shape.returns, shape.retset, shape.out_names, shape.out_types
([('n', 23)], 2249, False, ('x', 'y'), (23, 25))
>>> one = Shape.of(["out x int"], None, "", lambda t: {"int": 23}[t], {})
>>> one.returns, one.out_names, one.column
(23, (), 'x')
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ...errors import SQLError
from ...pgtypes import oids as T
from ..expr.types import type_name

_MODE = re.compile(r"(IN|OUT|INOUT|VARIADIC)\s+", re.I)


def _ident(text: str) -> str:
    text = text.strip()
    return text[1:-1].replace('""', '"') if text.startswith('"') else text.lower()


def parameter(text: str, type_of: Callable[[str], int]) -> tuple[str, str, int]:
    """(mode, name or "", type OID) of one parameter declaration."""
    text = re.split(r"\s+(?:DEFAULT\b|=)", text, maxsplit=1, flags=re.I)[0].strip()
    mode = _MODE.match(text)
    kind = "IN"
    if mode is not None:
        kind = mode.group(1).upper()
        text = text[mode.end():]
    parts = text.split(None, 1)
    if len(parts) == 2:
        try:
            return kind, _ident(parts[0]), type_of(parts[1])
        except SQLError:
            pass
    return kind, "", type_of(text)


@dataclass
class Shape:
    """A function's arguments and result as pg_proc records them."""

    args: list[tuple[str, int]]
    returns: int
    retset: bool
    out_names: tuple[str, ...] = ()
    out_types: tuple[int, ...] = ()
    column: str = ""  # a single OUT / TABLE column's name: the result column's name in FROM

    @staticmethod
    def of(params: Sequence[str], returns: str | None, form: str, type_of: Callable[[str], int],
           tables: dict[str, tuple[int, tuple[tuple[str, int], ...]]]) -> Shape:
        """`form`: "" (RETURNS t), "SETOF" or "TABLE"; `tables`: name -> (row type, columns)."""
        decl = [parameter(p, type_of) for p in params]
        args = [(n, t) for m, n, t in decl if m != "OUT"]
        outs = [(n, t) for m, n, t in decl if m in ("OUT", "INOUT")]
        if form == "TABLE":
            cols = [parameter(c, type_of)[1:] for c in table_columns(returns or "")]
            if len(cols) == 1:
                return Shape(args, cols[0][1], True, column=cols[0][0])
            return Shape(args, T.RECORD, True, *_fields(cols))
        rtext = (returns or "").strip()
        row = tables.get(_ident(rtext)) if rtext else None
        if row is not None:
            return Shape(args, row[0], form == "SETOF", *_fields(list(row[1])))
        if outs:
            ret = T.RECORD if len(outs) > 1 else outs[0][1]
            if returns is not None and (rtext.lower() != "record" or len(outs) == 1) \
                    and type_of(rtext) != ret:  # NB: one OUT parameter: its type, not record
                raise SQLError(f"function result type must be {type_name(ret)} because of "
                               "OUT parameters", sqlstate="42P13")
            if len(outs) == 1:
                return Shape(args, ret, form == "SETOF", column=outs[0][0])
            return Shape(args, ret, form == "SETOF", *_fields(outs))
        if returns is None:
            raise SQLError("function result type must be specified", sqlstate="42P13")
        ret = T.VOID if rtext.lower() == "void" else type_of(rtext)
        return Shape(args, ret, form == "SETOF")


def _fields(cols: list[tuple[str, int]]) -> tuple[tuple[str, ...], tuple[int, ...]]:
    return (tuple(n or f"column{i + 1}" for i, (n, _) in enumerate(cols)),
            tuple(t for _, t in cols))


def split_top_level(text: str) -> list[str]:
    """The comma-separated parts of a parameter or column list, commas inside
    parentheses kept (`numeric(5, 2)` is one type).

    >>> split_top_level("x int, y numeric(5, 2)")
    ['x int', 'y numeric(5, 2)']
    """
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    if cur.strip():
        out.append(cur)
    return [c.strip() for c in out]


def table_columns(text: str) -> list[str]:
    """The column declarations of `TABLE (x int, y numeric(5, 2))`."""
    return split_top_level(text.strip().rstrip(")"))
