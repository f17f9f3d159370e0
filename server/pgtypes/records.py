"""Anonymous record values (`ROW(1, 'a')`, `(1, 'a')`): record_out and record_send.

A row constructor's value is a `Record`, a tuple that also carries its fields'
type OIDs (which the binder knows), so the output functions can print each
field with its own type's output function: text `(1,"a b",,t)` with
PostgreSQL's quoting (a field is quoted when empty or when it holds a quote,
a backslash, a parenthesis, a comma or white space; NULL is nothing), binary
as a field count then, per field, its type OID, its length and its send
function's bytes. A plain tuple (a record from elsewhere) prints with its
fields' types guessed from their Python values.

>>> from . import text
>>> text.format_text(2249, Record((1, "a b", None, "", 'x"y'), (23, 25, 25, 25, 25)))
'(1,"a b",,"","x""y")'
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from ..errors import InvalidTextRepresentation

RECORD = 2249
_I = struct.Struct("!i")


class Record(tuple):
    """A row value with its fields' type OIDs."""

    oids: tuple[int, ...]

    def __new__(cls, values: Any, oids: tuple[int, ...]) -> Record:
        self = super().__new__(cls, values)
        self.oids = oids
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (Record, (tuple(self), self.oids))


MARKED = -2  # OuterRowTypes.guard: the row's first field carries null-extension markers


class OuterRowTypes(tuple):
    """The field types of a whole row from the null side of an outer join (`u` in
    `t LEFT JOIN u ON ...`): PostgreSQL gives NULL, not `(,)`, for a null-extended row.
    `guard` is the position of a NOT NULL column of the relation, NULL only when the row is
    null-extended; -1 when it has none (then a row of NULLs is taken to be null-extended);
    MARKED when the join marked its padded rows (plan.nullmark), so that a row of NULLs
    stays `(,)` as in PostgreSQL.

    >>> outer_row((None, None), OuterRowTypes((23, 25), 0)) is None
    True
    >>> outer_row((1, None), OuterRowTypes((23, 25), -1))
    (1, None)
    """

    guard: int

    def __new__(cls, oids: Any, guard: int) -> OuterRowTypes:
        self = super().__new__(cls, oids)
        self.guard = guard
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (OuterRowTypes, (tuple(self), self.guard))


def outer_row(values: tuple, oids: OuterRowTypes, marks: tuple = ()) -> Record | None:
    """A whole row of an outer join's nullable side: NULL when the row is null-extended
    (`marks`: the markers' values when `oids.guard` is MARKED; one is NULL in a padded row).

    >>> outer_row((None, None), OuterRowTypes((23, 25), MARKED), (True,))
    (None, None)
    >>> outer_row((None, None), OuterRowTypes((23, 25), MARKED), (True, None)) is None
    True
    """
    g = oids.guard
    if g == MARKED:
        if None in marks:
            return None
    elif values[g] is None if g >= 0 else all(v is None for v in values):
        return None
    return Record(values, tuple(oids))


def guess_oid(v: Any) -> int:
    """The type OID PostgreSQL would give a value of this Python type (text if unsure)."""
    if isinstance(v, bool):
        return 16
    if isinstance(v, int):
        return 23 if -(2**31) <= v < 2**31 else 20
    if isinstance(v, float):
        return 701
    if isinstance(v, Decimal):
        return 1700
    if isinstance(v, tuple):
        return RECORD
    return 25


def field_oids(v: tuple) -> tuple[int, ...]:
    return v.oids if isinstance(v, Record) else tuple(guess_oid(x) for x in v)


def _quote(s: str) -> str:
    if s and not any(c in '"\\(),' or c.isspace() for c in s):
        return s
    return '"' + s.replace("\\", "\\\\").replace('"', '""') + '"'


def text_encoder(field_encoder: Callable[[int], Callable[[Any], str]]) -> Callable[[tuple], str]:
    """record_out over `field_encoder(oid)`, the text output function of each field's type."""
    cache: dict[tuple[int, ...], list[Callable[[Any], str]]] = {}

    def enc(v: tuple) -> str:
        oids = field_oids(v)
        encs = cache.get(oids)
        if encs is None:
            encs = cache[oids] = [field_encoder(o) for o in oids]
        return "(" + ",".join("" if x is None else _quote(e(x))
                              for x, e in zip(v, encs, strict=True)) + ")"

    return enc


def binary_encoder(field_encoder: Callable[[int], Callable[[Any], bytes]]) -> Callable[[tuple], bytes]:
    """record_send over `field_encoder(oid)`, the binary send function of each field's type."""

    def enc(v: tuple) -> bytes:
        oids = field_oids(v)
        out = [_I.pack(len(v))]
        for x, oid in zip(v, oids, strict=True):
            if x is None:
                out.append(_I.pack(oid) + _I.pack(-1))
            else:
                b = field_encoder(oid)(x)
                out.append(_I.pack(oid) + _I.pack(len(b)) + b)
        return b"".join(out)

    return enc


# composite type OID -> its attributes' type OIDs (CREATE TYPE ... AS (...)), filled by the SQL
# layer as catalogs are used (sql.expr.usertypes); OIDs are never reused within one store
COMPOSITES: dict[int, tuple[int, ...]] = {}

# the row types of tables (pg_class.reltype) a whole-row reference was sent as: their values
# are Records that carry their own field OIDs, so they encode exactly as `record` does (a
# table's columns may change; the OID stays a row type), filled by sql.expr.binder
ROW_TYPES: set[int] = set()

# a table's row type -> its array type (pg_type.typarray): `ARRAY[t]` and `array_agg(t)` go
# out as that array, whose elements encode as ROW_TYPES' do (filled by sql.expr.binder)
ROW_ARRAYS: dict[int, int] = {}


def typed(oids: tuple[int, ...], v: tuple) -> Record:
    """A tuple as a record of the given field types."""
    return v if isinstance(v, Record) and v.oids == oids else Record(v, oids)


def parse_record(s: str, ncolumns: int = -1) -> list[str | None]:
    """record_in's syntax: `(1,"a b",,x)` -> ['1', 'a b', None, 'x'] (fields as text).

    `()` is one NULL field, unless the type has no columns (`ncolumns` 0): then no field.

    >>> parse_record("()"), parse_record("()", 0)
    ([None], [])
    """
    t = s.strip()
    if not t.startswith("(") or not t.endswith(")"):
        raise InvalidTextRepresentation(f'malformed record literal: "{s}"',
                                        detail="Missing left parenthesis.")
    if ncolumns == 0 and t == "()":
        return []
    out: list[str | None] = []
    cur: list[str] = []
    quoted = seen = False
    i, body = 0, t[1:-1]
    while i < len(body):
        c = body[i]
        if c == '"':
            if quoted and i + 1 < len(body) and body[i + 1] == '"':
                cur.append('"')
                i += 1
            else:
                quoted = not quoted
            seen = True
        elif c == "\\" and i + 1 < len(body):
            cur.append(body[i + 1])
            i += 1
            seen = True
        elif c == "," and not quoted:
            out.append("".join(cur) if cur or seen else None)
            cur, seen = [], False
        else:
            cur.append(c)
            seen = True
        i += 1
    out.append("".join(cur) if cur or seen else None)
    return out


def text_decoder(oids: tuple[int, ...], field_decoder: Callable[[int], Callable[[str], Any]]
                 ) -> Callable[[str], Record]:
    """record_in for a composite type: each field through its type's input function."""
    decs = [field_decoder(o) for o in oids]

    def dec(s: str) -> Record:
        vals = parse_record(s, len(oids))
        if len(vals) != len(oids):
            raise InvalidTextRepresentation(
                f'malformed record literal: "{s}"',
                detail="Too few columns." if len(vals) < len(oids) else "Too many columns.")
        return Record(tuple(None if x is None else d(x) for x, d in zip(vals, decs, strict=True)),
                      oids)

    return dec


def binary_decoder(oids: tuple[int, ...], field_decoder: Callable[[int], Callable[[bytes], Any]]
                   ) -> Callable[[bytes], Record]:
    """record_recv for a composite type."""

    def dec(b: bytes) -> Record:
        (n,), pos = _I.unpack_from(b), 4
        out: list[Any] = []
        for _ in range(n):
            oid, ln = _I.unpack_from(b, pos)[0], _I.unpack_from(b, pos + 4)[0]
            pos += 8
            if ln < 0:
                out.append(None)
                continue
            out.append(field_decoder(oid)(bytes(b[pos:pos + ln])))
            pos += ln
        return Record(tuple(out), oids)

    return dec
