"""PostgreSQL v3 message framing: parsing frontend messages and building backend ones.

Every query pays for this module on both directions, so it is written for the
interpreter's fast paths: `struct.Struct` objects made once, constant replies
prebuilt as bytes (`READY[b"I"]`, `PARSE_COMPLETE`, ...), and the data rows
of a batch appended to one bytearray with no per-row objects beyond the
encoded values themselves.

Frontend payload readers take the payload (without type byte and length)
and return plain tuples; malformed payloads raise `ProtocolViolation`
(08P01) with PostgreSQL's own words (its pq_getmsg* functions: "insufficient
data left in message", "invalid string in message", "invalid message format"). Backend builders return bytes ready for the socket.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ..errors import CharacterNotInRepertoire, ProtocolViolation
from ..pgtypes.oids import type_size
from .backend import Column

I16 = struct.Struct("!h")
I32 = struct.Struct("!i")
U32 = struct.Struct("!I")
HEADER = struct.Struct("!ci")  # type byte, length (including itself)
_II = struct.Struct("!ii")
_FIELD = struct.Struct("!ihihih")  # table oid, attnum, type oid, typlen, typmod, format
_ROW_HEAD = struct.Struct("!cih")

SSL_REQUEST = 80877103
GSSENC_REQUEST = 80877104
CANCEL_REQUEST = 80877102
PROTOCOL_3 = 196608
NULL_FIELD = I32.pack(-1)
_ROW_ONE = struct.Struct("!cihi")  # a one-column DataRow's head and its field length
_ROW_ONE_NULL = _ROW_ONE.pack(b"D", 10, 1, -1)


def message(kind: bytes, payload: bytes = b"") -> bytes:
    """Frames one backend message: type byte, int32 length, payload."""
    return HEADER.pack(kind, len(payload) + 4) + payload


def _const(kind: bytes) -> bytes:
    return message(kind)


PARSE_COMPLETE = _const(b"1")
BIND_COMPLETE = _const(b"2")
CLOSE_COMPLETE = _const(b"3")
NO_DATA = _const(b"n")
PORTAL_SUSPENDED = _const(b"s")
EMPTY_QUERY = _const(b"I")
COPY_DONE = _const(b"c")
AUTH_OK = message(b"R", I32.pack(0))
AUTH_CLEARTEXT = message(b"R", I32.pack(3))
AUTH_SASL = message(b"R", I32.pack(10) + b"SCRAM-SHA-256\x00\x00")
READY = {s: message(b"Z", s) for s in (b"I", b"T", b"E")}
READY_STR = {s.decode(): v for s, v in READY.items()}


# -- frontend ------------------------------------------------------------------


INSUFFICIENT = "insufficient data left in message"
_U16 = struct.Struct("!H")


def cstr(data: bytes, pos: int) -> tuple[str, int]:
    """Reads a NUL-terminated UTF-8 string at pos; returns it and the position after the NUL."""
    try:
        if data[pos] == 0:  # unnamed statements and portals: the common case
            return "", pos + 1
    except IndexError:
        raise ProtocolViolation("invalid string in message") from None
    end = data.find(0, pos)
    if end < 0:
        raise ProtocolViolation("invalid string in message")
    raw = data[pos:end]
    try:
        return raw.decode(), end + 1
    except UnicodeDecodeError as e:
        bad = " ".join(f"0x{c:02x}" for c in raw[e.start : e.start + 2])
        raise CharacterNotInRepertoire(
            f'invalid byte sequence for encoding "UTF8": {bad}') from None


def _end(payload: bytes, pos: int) -> None:
    """PostgreSQL's pq_getmsgend: bytes left over make the message malformed."""
    if pos != len(payload):
        raise ProtocolViolation("invalid message format")


def _u16(payload: bytes, pos: int) -> int:
    """Reads a count as PostgreSQL does (pq_getmsgint(msg, 2): unsigned)."""
    if pos + 2 > len(payload):
        raise ProtocolViolation(INSUFFICIENT)
    return _U16.unpack_from(payload, pos)[0]


def _ints(fmt: str, n: int, size: int, payload: bytes, pos: int) -> list[int]:
    if pos + n * size > len(payload):
        raise ProtocolViolation(INSUFFICIENT)
    return list(struct.unpack_from(f"!{n}{fmt}", payload, pos))


def read_startup(payload: bytes) -> tuple[int, dict[str, str]]:
    """Reads a StartupMessage (after its length): protocol version and the parameters."""
    if len(payload) < 4:
        raise ProtocolViolation("invalid startup packet layout: expected terminator as last byte")
    (version,) = I32.unpack_from(payload)
    params: dict[str, str] = {}
    pos = 4
    while pos < len(payload) and payload[pos] != 0:
        key, pos = cstr(payload, pos)
        if pos >= len(payload):
            raise ProtocolViolation(
                "invalid startup packet layout: expected terminator as last byte")
        value, pos = cstr(payload, pos)
        params[key] = value
    if pos != len(payload) - 1:
        raise ProtocolViolation("invalid startup packet layout: expected terminator as last byte")
    return version, params


def read_query(payload: bytes) -> str:
    """Reads a Query: the SQL text."""
    sql, pos = cstr(payload, 0)
    _end(payload, pos)
    return sql


def read_parse(payload: bytes) -> tuple[str, str, list[int]]:
    """Reads a Parse: statement name, SQL text, declared parameter OIDs."""
    name, pos = cstr(payload, 0)
    sql, pos = cstr(payload, pos)
    n = _u16(payload, pos)
    oids = _ints("I", n, 4, payload, pos + 2) if n else []
    _end(payload, pos + 2 + 4 * n)
    return name, sql, oids


def read_bind_head(payload: bytes) -> tuple[str, str, list[int], int, int]:
    """Reads a Bind up to its values: portal, statement, parameter format codes, the number
    of values and where they start (`read_bind_values` reads the rest, after the checks that
    PostgreSQL makes first)."""
    portal, pos = cstr(payload, 0)
    stmt, pos = cstr(payload, pos)
    nf = _u16(payload, pos)
    fmts = _ints("h", nf, 2, payload, pos + 2) if nf else []
    pos += 2 + 2 * nf
    return portal, stmt, fmts, _u16(payload, pos), pos + 2


def read_bind_values(payload: bytes, pos: int, np: int) -> tuple[list[bytes | None], list[int]]:
    """Reads a Bind's raw values (None for NULL) and its result format codes."""
    values: list[bytes | None] = []
    unpack = I32.unpack_from
    size = len(payload)
    for _ in range(np):
        if pos + 4 > size:
            raise ProtocolViolation(INSUFFICIENT)
        (n,) = unpack(payload, pos)
        pos += 4
        if n == -1:
            values.append(None)
        else:
            if n < 0 or pos + n > size:
                raise ProtocolViolation(INSUFFICIENT)
            values.append(payload[pos : pos + n])
            pos += n
    nr = _u16(payload, pos)
    rfmts = _ints("h", nr, 2, payload, pos + 2) if nr else []
    _end(payload, pos + 2 + 2 * nr)
    return values, rfmts


def read_bind(payload: bytes) -> tuple[str, str, list[int], list[bytes | None], list[int]]:
    """Reads a whole Bind: portal, statement, parameter formats, raw values, result formats."""
    portal, stmt, fmts, np, pos = read_bind_head(payload)
    if len(fmts) > 1 and len(fmts) != np:
        raise ProtocolViolation(
            f"bind message has {len(fmts)} parameter formats but {np} parameters")
    values, rfmts = read_bind_values(payload, pos, np)
    return portal, stmt, fmts, values, rfmts


def read_target(payload: bytes, message: str = "DESCRIBE") -> tuple[str, str]:
    """Reads a Describe or Close (`message` names it in errors): kind ('S' or 'P') and name."""
    if not payload:
        raise ProtocolViolation("no data left in message")
    name, pos = cstr(payload, 1)
    _end(payload, pos)
    kind = payload[0]
    if kind != 83 and kind != 80:  # S, P
        raise ProtocolViolation(f"invalid {message} message subtype {kind}")
    return chr(kind), name


def read_execute(payload: bytes) -> tuple[str, int]:
    """Reads an Execute: portal name and row limit (0 = all)."""
    name, pos = cstr(payload, 0)
    if pos + 4 > len(payload):
        raise ProtocolViolation(INSUFFICIENT)
    _end(payload, pos + 4)
    return name, I32.unpack_from(payload, pos)[0]


def read_sasl_initial(payload: bytes) -> tuple[str, bytes]:
    """Reads a SASLInitialResponse: mechanism and the client-first message."""
    mech, pos = cstr(payload, 0)
    if pos + 4 > len(payload):
        raise ProtocolViolation(INSUFFICIENT)
    (n,) = I32.unpack_from(payload, pos)
    if n > len(payload) - pos - 4:
        raise ProtocolViolation(INSUFFICIENT)
    return mech, payload[pos + 4 : pos + 4 + n] if n >= 0 else b""


# -- backend -------------------------------------------------------------------


def auth_md5(salt: bytes) -> bytes:
    """Builds AuthenticationMD5Password with its 4-byte salt."""
    return message(b"R", I32.pack(5) + salt)


def auth_sasl_continue(data: bytes) -> bytes:
    """Builds AuthenticationSASLContinue (R11)."""
    return message(b"R", I32.pack(11) + data)


def auth_sasl_final(data: bytes) -> bytes:
    """Builds AuthenticationSASLFinal (R12)."""
    return message(b"R", I32.pack(12) + data)


def parameter_status(name: str, value: str) -> bytes:
    """Builds a ParameterStatus message."""
    return message(b"S", name.encode() + b"\x00" + value.encode() + b"\x00")


def notification(pid: int, channel: str, payload: str) -> bytes:
    """Builds NotificationResponse (LISTEN/NOTIFY): sender pid, channel, payload."""
    return message(b"A", I32.pack(pid) + channel.encode() + b"\x00" + payload.encode() + b"\x00")


def backend_key_data(pid: int, secret: int) -> bytes:
    """Builds BackendKeyData."""
    return message(b"K", _II.pack(pid, secret))


def negotiate_protocol(minor: int, unknown: Sequence[str]) -> bytes:
    """Builds NegotiateProtocolVersion: the newest minor version served and unknown options."""
    body = I32.pack(minor) + I32.pack(len(unknown)) + b"".join(o.encode() + b"\0" for o in unknown)
    return message(b"v", body)


# CommandComplete's bytes by tag (a hot path reads it first: a hit costs no call)
TAGS: dict[str, bytes] = {}


def command_complete(tag: str) -> bytes:
    """Builds CommandComplete (cached: most tags repeat, like "SELECT 1" or "UPDATE 1")."""
    msg = TAGS.get(tag)
    if msg is None:
        if len(TAGS) >= 4096:
            TAGS.clear()
        msg = TAGS[tag] = message(b"C", tag.encode() + b"\x00")
    return msg


def parameter_description(oids: Sequence[int]) -> bytes:
    """Builds ParameterDescription; the count is unsigned, as PostgreSQL's (up to 65535; a
    statement of more $n gets it modulo 65536, as from PostgreSQL's pq_sendint16).

    >>> [int.from_bytes(parameter_description([23] * n)[5:7], "big") for n in (40000, 65537)]
    [40000, 1]
    """
    return message(b"t", _U16.pack(len(oids) & 0xFFFF) + struct.pack(f"!{len(oids)}I", *oids))


def row_description(columns: Sequence[Column], formats: Sequence[int] | None = None) -> bytes:
    """Builds RowDescription; `formats` gives each column's format code (default text)."""
    parts = [I16.pack(len(columns))]
    for i, c in enumerate(columns):
        fmt = formats[i] if formats else 0
        parts.append(c.name.encode() + b"\x00")
        parts.append(_FIELD.pack(c.table_oid, c.attnum, c.type_oid, type_size(c.type_oid),
                                 c.typmod, fmt))
    return message(b"T", b"".join(parts))


def error_fields(kind: bytes, fields: dict[str, str]) -> bytes:
    """Builds an ErrorResponse (b"E") or NoticeResponse (b"N") from `errors.to_fields` output."""
    body = b"".join(k.encode() + v.encode() + b"\x00" for k, v in fields.items()) + b"\x00"
    return message(kind, body)


def copy_response(kind: bytes, binary: bool, ncols: int) -> bytes:
    """Builds CopyInResponse (b"G") or CopyOutResponse (b"H")."""
    fmt = 1 if binary else 0
    return message(kind, bytes([fmt]) + I16.pack(ncols) + I16.pack(fmt) * ncols)


def copy_data(chunk: bytes) -> bytes:
    """Builds CopyData."""
    return HEADER.pack(b"d", len(chunk) + 4) + chunk


def append_rows(out: bytearray, rows: Iterable[Sequence[Any]],
                encoders: Sequence[Callable[[Any], bytes]]) -> None:
    """Appends one DataRow per row to `out`, encoding column i with encoders[i].

    >>> out = bytearray()
    >>> append_rows(out, [(7,), (None,)], [lambda v: str(v).encode()])
    >>> bytes(out)
    b'D\\x00\\x00\\x00\\x0b\\x00\\x01\\x00\\x00\\x00\\x017D\\x00\\x00\\x00\\n\\x00\\x01\\xff\\xff\\xff\\xff'
    """
    ncols = len(encoders)
    if ncols == 1:  # NB: one column (a point lookup's answer): one pack per row
        enc = encoders[0]
        one = _ROW_ONE.pack
        for row in rows:
            v = row[0]
            if v is None:
                out += _ROW_ONE_NULL
            else:
                b = enc(v)
                out += one(b"D", 10 + len(b), 1, len(b))
                out += b
        return
    pack_len = I32.pack
    head = _ROW_HEAD.pack
    null = NULL_FIELD
    pairs = list(enumerate(encoders))
    for row in rows:
        parts = []
        size = 6
        for i, enc in pairs:
            v = row[i]
            if v is None:
                parts.append(null)
                size += 4
            else:
                b = enc(v)
                parts.append(pack_len(len(b)))
                parts.append(b)
                size += 4 + len(b)
        out += head(b"D", size, ncols)
        out += b"".join(parts)
