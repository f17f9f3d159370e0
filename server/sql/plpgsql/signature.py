"""A CREATE FUNCTION's parameter list as PostgreSQL prints it back.

`pg_get_function_arguments`, `pg_get_function_identity_arguments` and
`pg_get_function_result` (psql's `\\df`, `functions.catalogfns`) print
each parameter with its mode, name, type and default. PostgreSQL prints the
default from the stored, coerced expression (`DEFAULT 'x'::text`), so the text
is built once, at CREATE, from the declaration and the parameter's type, and the
catalog row keeps it (`Function.param_modes`, `param_texts`, `param_defaults`).

>>> sig = signature(["a int", "b text default 'x'", "OUT c int"], ["x int"], lambda t: 23 if "int" in t else 25)
>>> sig.modes, sig.texts, sig.defaults
(('i', 'i', 'o', 't'), ('a integer', 'b text', 'OUT c integer', 'x integer'), ('', "'x'::text", '', ''))
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..pgcatalog.names import quote_ident
from ..pgcatalog.typetext import format_type
from .results import parameter

_DEFAULT = re.compile(r"\s+(?:DEFAULT\b|=)\s*", re.I)
_MODES = {"IN": "i", "OUT": "o", "INOUT": "b", "VARIADIC": "v"}
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_STRING = re.compile(r"'(?:[^']|'')*'")
_BARE = {23: re.compile(r"-?\d+"), 1700: _NUMBER, 16: re.compile(r"true|false", re.I)}


@dataclass(frozen=True)
class Signature:
    """One parameter per entry: proargmodes' letter (i, o, b, v, t), its printed declaration
    without the default, and the default's printed SQL ("" for none)."""

    modes: tuple[str, ...]
    texts: tuple[str, ...]
    defaults: tuple[str, ...]


def signature(params: Sequence[str], table_columns: Sequence[str],
              type_of: Callable[[str], int]) -> Signature:
    """The parameters (and a RETURNS TABLE's columns, mode `t`) of a CREATE FUNCTION."""
    modes, texts, defaults = [], [], []
    for p in params:
        kind, name, typ = parameter(p, type_of)
        modes.append(_MODES[kind])
        head = "" if kind == "IN" else kind + " "
        texts.append(head + (quote_ident(name) + " " if name else "") + (format_type(typ, None) or ""))
        parts = _DEFAULT.split(p.strip(), maxsplit=1)
        defaults.append(default_text(parts[1], typ) if len(parts) == 2 else "")
    for c in table_columns:
        _, name, typ = parameter(c, type_of)
        modes.append("t")
        texts.append((quote_ident(name) + " " if name else "") + (format_type(typ, None) or ""))
        defaults.append("")
    return Signature(tuple(modes), tuple(texts), tuple(defaults))


def default_text(expr: str, typ: int) -> str:
    """A constant default as PostgreSQL's ruleutils prints the coerced Const: int4, numeric and
    bool bare, anything else quoted with a cast; other expressions as written.

    >>> default_text("'x'", 25), default_text("1", 23), default_text("null", 23)
    ("'x'::text", '1', 'NULL::integer')
    """
    e = expr.strip()
    tname = format_type(typ, None) or ""
    if e.upper() == "NULL":
        return f"NULL::{tname}"
    bare = _BARE.get(typ)
    if bare is not None and bare.fullmatch(e.strip("'")):
        return e.strip("'").lower()
    if _STRING.fullmatch(e):
        return f"{e}::{tname}"
    if _NUMBER.fullmatch(e):
        return f"'{e}'::{tname}"
    return e
