"""PostgreSQL frontend/backend protocol v3: building and parsing messages, no I/O.

Builders return the bytes of one frontend message; callers concatenate them
so that a whole pipeline (Parse, Bind, Execute, ..., Sync) goes out in one
write. `MessageReader` cuts the incoming byte stream into (type, payload)
pairs; the parse_* functions decode the payloads the driver looks inside.
The sync and asyncio connections both use this module unchanged.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator, Sequence

PROTOCOL_VERSION = 196608  # 3.0
SSL_REQUEST = 80877103
CANCEL_REQUEST = 80877102

_I = struct.Struct("!i")
_H = struct.Struct("!h")
_IH = struct.Struct("!ih")
_HDR = struct.Struct("!ci")
_NULL = b"\xff\xff\xff\xff"  # a NULL parameter: length -1

# Backend message types.
AUTH = b"R"
PARAMETER_STATUS = b"S"
BACKEND_KEY_DATA = b"K"
READY_FOR_QUERY = b"Z"
ROW_DESCRIPTION = b"T"
DATA_ROW = b"D"
COMMAND_COMPLETE = b"C"
EMPTY_QUERY = b"I"
ERROR_RESPONSE = b"E"
NOTICE_RESPONSE = b"N"
NOTIFICATION = b"A"
PARSE_COMPLETE = b"1"
BIND_COMPLETE = b"2"
CLOSE_COMPLETE = b"3"
NO_DATA = b"n"
PARAMETER_DESCRIPTION = b"t"
PORTAL_SUSPENDED = b"s"
COPY_IN = b"G"
COPY_OUT = b"H"
COPY_DATA = b"d"
COPY_DONE = b"c"
COPY_BOTH = b"W"
NEGOTIATE_VERSION = b"v"


def _msg(kind: bytes, body: bytes) -> bytes:
    return kind + _I.pack(len(body) + 4) + body


def _cstr(s: str) -> bytes:
    return s.encode() + b"\0"


def startup(params: dict[str, str]) -> bytes:
    """Builds a StartupMessage carrying `params` (user, database, options...)."""
    body = _I.pack(PROTOCOL_VERSION) + b"".join(
        _cstr(k) + _cstr(v) for k, v in params.items() if v is not None
    ) + b"\0"
    return _I.pack(len(body) + 4) + body


def ssl_request() -> bytes:
    """Builds an SSLRequest."""
    return _I.pack(8) + _I.pack(SSL_REQUEST)


def cancel_request(pid: int, secret: int) -> bytes:
    """Builds a CancelRequest for backend `pid`."""
    return struct.pack("!iiii", 16, CANCEL_REQUEST, pid, secret)


def password(data: bytes) -> bytes:
    """Builds a PasswordMessage (also used for SASL responses)."""
    return _msg(b"p", data)


def sasl_initial(mechanism: str, data: bytes) -> bytes:
    """Builds a SASLInitialResponse."""
    return _msg(b"p", _cstr(mechanism) + _I.pack(len(data)) + data)


def query(sql: str) -> bytes:
    """Builds a simple Query."""
    return _msg(b"Q", _cstr(sql))


def parse(name: str, sql: str, param_oids: Sequence[int]) -> bytes:
    """Builds a Parse for statement `name` with declared parameter types (0 = infer)."""
    oids = struct.pack(f"!h{len(param_oids)}I", len(param_oids), *param_oids)
    return _msg(b"P", _cstr(name) + _cstr(sql) + oids)


def bind(portal: str, stmt: str, formats: Sequence[int], values: Sequence[bytes | None],
         result_formats: Sequence[int]) -> bytes:
    """Builds a Bind of `values` (already encoded; None is NULL) to a portal."""
    pack = _I.pack
    parts = [_cstr(portal), _cstr(stmt), struct.pack(f"!h{len(formats)}h", len(formats), *formats),
             _H.pack(len(values))]
    parts += [_NULL if v is None else pack(len(v)) + v for v in values]
    parts.append(struct.pack(f"!h{len(result_formats)}h", len(result_formats), *result_formats))
    return _msg(b"B", b"".join(parts))


def bind_many(stmt: str, rows: Sequence[Sequence[tuple[int, int, bytes | None]]],
              result_formats: Sequence[int]) -> bytes:
    """Builds Bind (unnamed portal) + Execute (all rows) for each row of encoded parameters
    (oid, format, data); the batch form of `bind` + `execute`, with the parts every row
    shares built once."""
    head = b"\0" + _cstr(stmt)
    tail = struct.pack(f"!h{len(result_formats)}h", len(result_formats), *result_formats)
    run = execute("", 0)
    pack = _I.pack
    formats_of: dict[tuple[int, ...], bytes] = {}
    parts: list[bytes] = []
    for row in rows:
        formats = tuple([e[1] for e in row])
        fh = formats_of.get(formats)
        if fh is None:
            fs = formats[:1] if formats and all(f == formats[0] for f in formats) else formats
            fh = formats_of[formats] = struct.pack(f"!h{len(fs)}hh", len(fs), *fs, len(row))
        body = [head, fh]
        for e in row:
            v = e[2]
            if v is None:
                body.append(b"\xff\xff\xff\xff")
            else:
                body.append(pack(len(v)))
                body.append(v)
        body.append(tail)
        payload = b"".join(body)
        parts.append(b"B" + pack(len(payload) + 4) + payload)
        parts.append(run)
    return b"".join(parts)


def describe(kind: bytes, name: str) -> bytes:
    """Builds a Describe of a statement (b'S') or portal (b'P')."""
    return _msg(b"D", kind + _cstr(name))


def execute(portal: str, max_rows: int = 0) -> bytes:
    """Builds an Execute returning at most `max_rows` rows (0 = all)."""
    return _msg(b"E", _cstr(portal) + _I.pack(max_rows))


def close(kind: bytes, name: str) -> bytes:
    """Builds a Close of a statement (b'S') or portal (b'P')."""
    return _msg(b"C", kind + _cstr(name))


SYNC = _msg(b"S", b"")
FLUSH = _msg(b"H", b"")
TERMINATE = _msg(b"X", b"")
COPY_DONE_MSG = _msg(b"c", b"")


def copy_data(data: bytes) -> bytes:
    """Builds a CopyData message."""
    return _msg(b"d", data)


def copy_fail(reason: str) -> bytes:
    """Builds a CopyFail message."""
    return _msg(b"f", _cstr(reason))


class MessageReader:
    """Cuts a byte stream into backend messages; feed() bytes, then iterate.

    The buffer is an immutable `bytes` so that payloads and values are plain
    slices of it, and so that `take_rows` can decode DataRows in place.
    """

    __slots__ = ("_buf", "_pos")

    def __init__(self) -> None:
        self._buf = b""
        self._pos = 0

    def feed(self, data: bytes) -> None:
        """Appends bytes received from the server."""
        pos = self._pos
        self._buf = self._buf[pos:] + data if pos < len(self._buf) else bytes(data)
        self._pos = 0

    def next(self) -> tuple[bytes, bytes] | None:
        """Returns the next complete message, or None if more bytes are needed."""
        buf, pos = self._buf, self._pos
        if len(buf) - pos < 5:
            return None
        kind, length = _HDR.unpack_from(buf, pos)
        end = pos + 1 + length
        if len(buf) < end:
            return None
        self._pos = end
        return kind, buf[pos + 5 : end]

    def take_rows(self, read: Callable[[bytes, int, int, list], int], out: list) -> None:
        """Decodes the complete DataRows at the front of the buffer into `out` with `read`
        (a compiled reader from `driver/rows.py`)."""
        self._pos = read(self._buf, self._pos, len(self._buf), out)

    def __iter__(self) -> Iterator[tuple[bytes, bytes]]:
        while (m := self.next()) is not None:
            yield m


def parse_fields(payload: bytes) -> dict[str, str]:
    """Decodes ErrorResponse/NoticeResponse fields into {code letter: value}."""
    fields = {}
    for part in payload.split(b"\0"):
        if part:
            fields[chr(part[0])] = part[1:].decode("utf-8", "replace")
    return fields


def parse_parameter_status(payload: bytes) -> tuple[str, str]:
    """Decodes a ParameterStatus into (name, value)."""
    name, value, _ = payload.split(b"\0")
    return name.decode(), value.decode()


def parse_parameter_description(payload: bytes) -> tuple[int, ...]:
    """Decodes a ParameterDescription into parameter type OIDs."""
    (n,) = _H.unpack_from(payload)
    return struct.unpack_from(f"!{n}I", payload, 2)


# A RowDescription column: (name, table oid, column attnum, type oid, typlen, typmod, format).
Column = tuple[str, int, int, int, int, int, int]
_COL = struct.Struct("!IhIhih")


def parse_row_description(payload: bytes) -> list[Column]:
    """Decodes a RowDescription."""
    (n,) = _H.unpack_from(payload)
    pos, cols = 2, []
    for _ in range(n):
        end = payload.index(b"\0", pos)
        name = payload[pos:end].decode()
        cols.append((name, *_COL.unpack_from(payload, end + 1)))
        pos = end + 19
    return cols


def parse_data_row(payload: bytes) -> list[bytes | None]:
    """Splits a DataRow into raw column values (None is NULL)."""
    (n,) = _H.unpack_from(payload)
    pos = 2
    out: list[bytes | None] = []
    unpack = _I.unpack_from
    for _ in range(n):
        (ln,) = unpack(payload, pos)
        pos += 4
        if ln < 0:
            out.append(None)
        else:
            out.append(payload[pos : pos + ln])
            pos += ln
    return out


def parse_command_tag(payload: bytes) -> tuple[str, int]:
    """Returns (tag, row count) from CommandComplete; the count is -1 if the tag has none."""
    tag = payload.rstrip(b"\0").decode()
    parts = tag.split()
    if parts and parts[-1].isdigit() and parts[0] in (
        "INSERT", "UPDATE", "DELETE", "SELECT", "MOVE", "FETCH", "COPY", "MERGE"
    ):
        return tag, int(parts[-1])
    return tag, -1


def parse_auth(payload: bytes) -> tuple[int, bytes]:
    """Splits an Authentication message into (code, data)."""
    (code,) = _I.unpack_from(payload)
    return code, payload[4:]


def parse_backend_key(payload: bytes) -> tuple[int, int]:
    """Decodes BackendKeyData into (pid, secret)."""
    return struct.unpack("!ii", payload[:8])


def parse_copy_response(payload: bytes) -> tuple[int, list[int]]:
    """Decodes Copy{In,Out}Response into (overall format, per-column formats)."""
    fmt, n = struct.unpack_from("!bh", payload)
    return fmt, list(struct.unpack_from(f"!{n}h", payload, 3))
