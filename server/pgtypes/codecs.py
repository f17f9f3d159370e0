"""Per-column wire codecs: what pgwire builds once per RowDescription or prepared statement.

A row-returning portal gets a list of encoders (value -> bytes, one per column,
honouring that column's format code) and a statement gets a list of parameter
decoders (bytes -> value). Choosing them once keeps the per-value cost at a
single call, which matters because DataRow encoding is the hottest loop on the
wire.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import (
    InvalidBinaryRepresentation,
    ProtocolViolation,
    SQLError,
)
from . import oids as T
from .binary import binary_decoder, binary_encoder
from .dateparse import date_style
from .text import STRING_OIDS, format_generic, text_decoder, text_encoder
from .utf8check import decode_utf8

WireEncoder = Callable[[Any], bytes]
WireDecoder = Callable[[bytes], Any]


def _text_bytes(v: Any) -> bytes:
    return v.encode() if type(v) is str else format_generic(v).encode()


def _int_bytes(v: Any) -> bytes:
    return str(v).encode() if type(v) is int else format_generic(v).encode()


def wire_encoder(oid: int, fmt: int, tz: Any = None) -> WireEncoder:
    """Returns value -> bytes for one column in format `fmt` (0 text, 1 binary)."""
    if fmt == 1:
        return binary_encoder(oid)
    if oid in STRING_OIDS:
        return _text_bytes
    if oid in (T.INT2, T.INT4, T.INT8, T.OID):
        return _int_bytes
    enc = text_encoder(oid, tz)
    return lambda v: enc(v).encode()


class ColumnEncoders(list[WireEncoder]):
    """One wire encoder per column, and what they were made for: the column types, format
    codes and whether DateStyle was ISO, so that a whole batch can be encoded a column at
    a time (`pgtypes.vectext`) with the same output as the encoders give value by value."""

    def __init__(self, encoders: list[WireEncoder], oids: Sequence[int], formats: Sequence[int],
                 iso: bool) -> None:
        super().__init__(encoders)
        self.oids = list(oids)
        self.formats = list(formats)
        self.iso = iso


def column_encoders(oids: Sequence[int], formats: Sequence[int], tz: Any = None
                    ) -> ColumnEncoders:
    """Returns one wire encoder per column."""
    return ColumnEncoders([wire_encoder(oid, fmt, tz) for oid, fmt in zip(oids, formats, strict=True)],
                          oids, formats, date_style() == "ISO")


_NEEDS = re.compile(r"requires a buffer of (at least )?(\d+) bytes")


def _binary_error(exc: BaseException, size: int) -> SQLError:
    """Classifies a failed binary receive as PostgreSQL does: reading past the value's end is a
    malformed message (08P01), anything else a bad value (22P03)."""
    m = _NEEDS.search(str(exc)) if isinstance(exc, struct.error) else None
    if isinstance(exc, IndexError) or (m is not None and size < int(m.group(2))):
        return ProtocolViolation("insufficient data left in message")
    return InvalidBinaryRepresentation("incorrect binary data format")


def wire_decoder(oid: int, fmt: int, tz: Any = None) -> WireDecoder:
    """Returns bytes -> value for one parameter in format `fmt`; bad input raises 22P02/22P03."""
    if fmt == 1:
        dec = binary_decoder(oid)

        def from_binary(b: bytes) -> Any:
            try:
                return dec(b)
            except SQLError:
                raise
            except (struct.error, IndexError, ValueError, TypeError, OverflowError) as e:
                raise _binary_error(e, len(b)) from None

        return from_binary
    tdec = text_decoder(oid, tz) if oid not in REG_NAMED else reg_param_in

    def from_text(b: bytes) -> Any:
        return tdec(decode_utf8(b))  # NB: a NUL is 22021 too, as in PostgreSQL

    return from_text


# reg* types whose input looks a name up in the catalog (regclassin, ...): a bound value
# names the object, which only the SQL layer can resolve (`expr.regarrays.reg_param`)
REG_NAMED = frozenset({T.REGCLASS, T.REGTYPE, T.REGPROC, T.REGPROCEDURE, T.REGNAMESPACE,
                       T.REGROLE, T.REGCONFIG, T.REGOPER, T.REGOPERATOR, T.REGCOLLATION})


def reg_param_in(s: str) -> int | str:
    """A reg* parameter's text: digits are the OID itself, anything else stays the name."""
    return text_decoder(T.OID)(s) if s.strip().isdigit() else s
