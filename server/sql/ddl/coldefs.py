"""Column definitions as PostgreSQL records them: types with typmods, defaults, identity options.

CREATE TABLE and ALTER TABLE share these. They keep what the catalog shows to
clients close to PostgreSQL's own text (psql's \\d, SQLAlchemy reflection):
`now()` stays `now()`, sequence names are quoted as `quote_ident` would, and
precision typmods (`interval(6)`, `timestamp(3)`) are kept.
"""

from __future__ import annotations

import re
from typing import Any

from sqlglot import exp

from ...pgtypes import oids as T
from ..expr.types import datatype_oid


def column_type(kind: exp.DataType) -> tuple[int, int]:
    """Returns (oid, typmod) of a column's declared type, PostgreSQL's way."""
    name = getattr(kind.this, "name", str(kind.this)) if isinstance(kind, exp.DataType) else ""
    if name == "ARRAY" and kind.expressions:  # NB: the element's typmod is the column's
        oid, typmod = column_type(kind.expressions[0])
        return (oid if oid in T.ELEMENT_OF else T.ARRAY_OF.get(oid, T.ANYARRAY)), typmod
    if name in ("DOUBLE", "FLOAT") and kind.expressions:
        p = int(kind.expressions[0].name)
        return (T.FLOAT4 if p <= 24 else T.FLOAT8), -1
    precision = _PRECISION_TYPES.get(name)
    if precision is not None and len(kind.expressions) == 1:
        p = min(int(kind.expressions[0].name), 6)  # NB: PostgreSQL warns and reduces it to 6
        if name == "INTERVAL":
            return T.INTERVAL, (0x7FFF << 16) | p  # INTERVAL_TYPMOD(p, INTERVAL_FULL_RANGE)
        return precision, p
    return datatype_oid(kind)


_PRECISION_TYPES = {"INTERVAL": T.INTERVAL, "TIMESTAMP": T.TIMESTAMP,
                    "TIMESTAMPTZ": T.TIMESTAMPTZ, "TIME": T.TIME}


def identity_options(k: exp.Expression) -> dict[str, Any]:
    """START / INCREMENT / MINVALUE / MAXVALUE / CYCLE of `AS IDENTITY (...)`."""
    out: dict[str, Any] = {}
    for arg, key in (("start", "start"), ("increment", "increment"), ("minvalue", "min_value"),
                     ("maxvalue", "max_value")):
        node = k.args.get(arg)
        if node is not None:
            neg = isinstance(node, exp.Neg)
            v = int((node.this if neg else node).name)
            out[key] = -v if neg else v
    if k.args.get("cycle") is not None:
        out["cycle"] = bool(k.args["cycle"])
    if k.meta.get("cache"):
        out["cache"] = int(k.meta["cache"])
    return out


def quote_ident(name: str) -> str:
    """Quotes an identifier when PostgreSQL's quote_ident would (upper case, odd characters)."""
    if re.fullmatch(r"[a-z_][a-z0-9_$]*", name):
        return name
    return '"' + name.replace('"', '""') + '"'


def default_sql(node: exp.Expression) -> str | None:
    """A DEFAULT expression's text, close to what the user wrote (None for DEFAULT NULL).

    sqlglot reads `now()` as CURRENT_TIMESTAMP; PostgreSQL's catalog keeps `now()`,
    and clients (psql's \\d, SQLAlchemy reflection) show it, so it is put back. A
    CURRENT_TIMESTAMP that came from a function-call token carries position meta.
    """
    if isinstance(node, exp.Null):
        return None

    def back(n: exp.Expression) -> exp.Expression:
        if isinstance(n, exp.CurrentTimestamp) and n.meta and not n.args.get("this"):
            return exp.Anonymous(this="now", expressions=[])
        return n

    return node.copy().transform(back).sql("postgres", normalize_functions="lower")
