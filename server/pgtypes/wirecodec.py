"""Client encodings: converting a connection's messages between its client_encoding and UTF8.

Cumulo works in UTF8 inside, as a PostgreSQL server created with UTF8 does.
A client whose client_encoding is any other of PostgreSQL's (LATIN1, EUC_JP...) sends
and expects text in that encoding; SQL_ASCII means no conversion at all, as
in PostgreSQL. Rather than thread an encoding through every message builder,
`WireRecoder` rewrites whole protocol messages at the connection's edge:
incoming text (Query, Parse's statement, Bind's text-format parameters, text
COPY data) is decoded from the client encoding into UTF8, and outgoing text
(RowDescription names, text-format DataRow fields and binary fields of text
types, CommandComplete, ErrorResponse and NoticeResponse, ParameterStatus,
NotificationResponse, text COPY data) is encoded into it. Message lengths are
recomputed. Binary values other than text are never touched: the recoder
follows the result formats from Bind and the column types from RowDescription.

Errors are PostgreSQL's: a character the client encoding cannot hold fails the
statement with 22P05 (`character with byte sequence 0xe2 0x82 0xac in
encoding "UTF8" has no equivalent in encoding "LATIN1"`), and a Query whose
bytes are not valid in the client encoding fails with 22021.

>>> canonical("latin-1"), canonical("ISO_8859_15"), canonical("utf-8"), canonical("koi8")
('LATIN1', 'LATIN9', 'UTF8', 'KOI8R')
>>> canonical("euc-tw"), canonical("win"), canonical("klingon")
('EUC_TW', 'WIN1251', None)
>>> r = WireRecoder("LATIN1")
>>> r.incoming(b"Q" + (9).to_bytes(4, "big") + b"caf\\xe9\\x00")
b'Q\\x00\\x00\\x00\\ncaf\\xc3\\xa9\\x00'
"""

from __future__ import annotations

import struct

from . import enums

_I32 = struct.Struct("!i")
_I16 = struct.Struct("!h")

# PostgreSQL's encoding name -> Python codec (None: SQL_ASCII, bytes pass unchanged). Every
# client encoding PostgreSQL 15 accepts beside a UTF8 server; EUC_TW has no Python codec and
# passes ASCII only (anything else fails as a character with no equivalent).
CODECS: dict[str, str | None] = {
    "UTF8": "utf-8", "SQL_ASCII": None, "LATIN1": "latin-1", "LATIN2": "iso8859-2",
    "LATIN3": "iso8859-3", "LATIN4": "iso8859-4", "LATIN5": "iso8859-9", "LATIN6": "iso8859-10",
    "LATIN7": "iso8859-13", "LATIN8": "iso8859-14", "LATIN9": "iso8859-15",
    "LATIN10": "iso8859-16", "ISO_8859_5": "iso8859-5", "ISO_8859_6": "iso8859-6",
    "ISO_8859_7": "iso8859-7", "ISO_8859_8": "iso8859-8", "WIN866": "cp866", "WIN874": "cp874",
    "WIN1250": "cp1250", "WIN1251": "cp1251", "WIN1252": "cp1252", "WIN1253": "cp1253",
    "WIN1254": "cp1254", "WIN1255": "cp1255", "WIN1256": "cp1256", "WIN1257": "cp1257",
    "WIN1258": "cp1258", "KOI8R": "koi8-r", "KOI8U": "koi8-u", "EUC_JP": "euc_jp",
    "EUC_JIS_2004": "euc_jis_2004", "EUC_CN": "gb2312", "EUC_KR": "euc_kr", "EUC_TW": "ascii",
    "SJIS": "shift_jis", "SHIFT_JIS_2004": "shift_jis_2004",
    "BIG5": "big5", "GBK": "gbk", "GB18030": "gb18030", "UHC": "cp949", "JOHAB": "johab",
}
# multi-byte encodings: bytes that do not decode are 22021, as PostgreSQL's mbverifystr
_MULTIBYTE = frozenset({"EUC_JP", "EUC_JIS_2004", "EUC_CN", "EUC_KR", "EUC_TW", "SJIS",
                        "SHIFT_JIS_2004", "BIG5", "GBK", "GB18030", "UHC", "JOHAB"})
# encodings PostgreSQL knows but cannot convert from UTF8 (0A000, not 22023)
UNCONVERTIBLE = frozenset({"MULE_INTERNAL"})
# PostgreSQL's encnames.c, keys without '-' and '_'
_ALIASES = {
    **{k.replace("_", ""): k for k in CODECS}, "MULEINTERNAL": "MULE_INTERNAL",
    "UNICODE": "UTF8", "ISO88591": "LATIN1", "ISO88592": "LATIN2", "ISO88593": "LATIN3",
    "ISO88594": "LATIN4", "ISO88599": "LATIN5", "ISO885910": "LATIN6", "ISO885913": "LATIN7",
    "ISO885914": "LATIN8", "ISO885915": "LATIN9", "ISO885916": "LATIN10", "ISO88595":
    "ISO_8859_5", "ISO88596": "ISO_8859_6", "ISO88597": "ISO_8859_7", "ISO88598": "ISO_8859_8",
    "ALT": "WIN866", "KOI8": "KOI8R", "MSKANJI": "SJIS", "SHIFTJIS": "SJIS", "TCVN": "WIN1258",
    "TCVN5712": "WIN1258", "VSCII": "WIN1258", "ABC": "WIN1258", "WIN": "WIN1251",
    "WIN932": "SJIS", "WIN936": "GBK", "WIN949": "UHC", "WIN950": "BIG5",
    **{f"WINDOWS{n}": f"WIN{n}" for n in (866, 874, *range(1250, 1259))},
    "WINDOWS932": "SJIS", "WINDOWS936": "GBK", "WINDOWS949": "UHC", "WINDOWS950": "BIG5",
}
_SIGNATURE = b"PGCOPY\n\xff\r\n\x00"  # binary COPY's file header starts so
# text-like types whose binary form is their text (textsend): converted in binary fields too
_TEXT_TYPES = frozenset({25, 1043, 1042, 19, 114, 142, 705})


def _texty(oid: int) -> bool:
    """Is a binary value of this type its text (textrecv, enum_recv), converted as text is?"""
    return oid in _TEXT_TYPES or oid in enums.LABELS


def canonical(name: str) -> str | None:
    """PostgreSQL's spelling of a client encoding Cumulo supports ('utf-8' -> 'UTF8'), or None."""
    key = name.strip().strip("'\"").upper().replace("-", "").replace("_", "")
    return _ALIASES.get(key)


def recoder_for(name: str | None) -> WireRecoder | None:
    """The recoder of a client_encoding, None when no conversion is needed (UTF8, SQL_ASCII)."""
    enc = canonical(name or "UTF8")
    return None if enc is None or CODECS.get(enc) in (None, "utf-8") else WireRecoder(enc)


def _error(code: str, message: str) -> bytes:
    body = b"SERROR\x00VERROR\x00C" + code.encode() + b"\x00M" + message.encode("utf-8") + b"\x00\x00"
    return b"E" + _I32.pack(len(body) + 4) + body


def _hex(b: bytes) -> str:
    return " ".join(f"0x{x:02x}" for x in b)


class _Unconvertible(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


class WireRecoder:
    """Rewrites one connection's message streams between UTF8 and its client encoding."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self.codec = CODECS[encoding] or "utf-8"
        self._in = bytearray()  # a partial incoming message
        self._formats: list[int] | None = None  # the latest Bind's result formats
        self._param_types: dict[bytes, list[int]] = {}  # a statement's Parse parameter types
        self._types: list[int] = []  # the latest RowDescription's column types
        self._row_formats: list[int] = []
        self._copy_text = True
        self._copy_types: list[int] = []  # the binary COPY TO under way's column types
        self._next_copy_types: list[int] = []  # `binary_copy`'s, taken at its CopyOutResponse
        self._failed = False  # a result failed to convert: drop its rows until ReadyForQuery
        self._pending: list[bytes] = []  # errors found in incoming messages, sent first
        self._skip_empty = 0  # EmptyQueryResponses that stand for rejected Queries
        self._to_sync = False  # an extended-protocol message failed: drop messages until Sync

    # -- text ------------------------------------------------------------------------------

    def _to_utf8(self, b: bytes) -> bytes:
        try:
            return b.decode(self.codec).encode("utf-8")
        except UnicodeDecodeError as e:
            multibyte = self.encoding in _MULTIBYTE
            bad = b[e.start:e.end + (1 if multibyte else 0)][:2]
            if multibyte:
                raise _Unconvertible("22021", f"invalid byte sequence for encoding "
                                              f'"{self.encoding}": {_hex(bad)}') from None
            raise _Unconvertible("22P05", f"character with byte sequence {_hex(bad)} in encoding "
                                          f'"{self.encoding}" has no equivalent in encoding '
                                          f'"UTF8"') from None

    def _from_utf8(self, b: bytes) -> bytes:
        try:
            return b.decode("utf-8").encode(self.codec)
        except UnicodeEncodeError as e:
            ch = e.object[e.start].encode("utf-8")
            raise _Unconvertible("22P05", f"character with byte sequence {_hex(ch)} in encoding "
                                          f'"UTF8" has no equivalent in encoding '
                                          f'"{self.encoding}"') from None
        except UnicodeDecodeError:
            return b

    def _cstrings(self, payload: bytes, count: int, conv: object) -> tuple[list[bytes], int]:
        out, pos = [], 0
        for _ in range(count):
            end = payload.index(b"\x00", pos)
            out.append(conv(payload[pos:end]) + b"\x00")  # type: ignore[operator]
            pos = end + 1
        return out, pos

    # -- incoming ----------------------------------------------------------------------------

    def incoming(self, data: bytes | bytearray | memoryview) -> bytes:
        """Converts the whole messages in `data` (a partial one waits for the rest)."""
        buf = self._in
        buf += data
        out = bytearray()
        pos, n = 0, len(buf)
        while n - pos >= 5:
            end = pos + 1 + _I32.unpack_from(buf, pos + 1)[0]
            if end > n or end < pos + 5:
                break
            kind, payload = buf[pos], bytes(buf[pos + 5:end])
            out += self._in_message(kind, payload)
            pos = end
        del buf[:pos]
        return bytes(out)

    def _frame(self, kind: int, body: bytes) -> bytes:
        return bytes((kind,)) + _I32.pack(len(body) + 4) + body

    def _in_message(self, kind: int, payload: bytes) -> bytes:
        if self._to_sync:
            if kind != 83:  # S
                return b""
            self._to_sync = False
        try:
            if kind == 81:  # Q
                self._formats = None
                return self._frame(kind, self._to_utf8(payload))
            if kind == 80:  # P: name, query, parameter types
                parts, pos = self._cstrings(payload, 2, self._to_utf8)
                (n,) = _I16.unpack_from(payload, pos)
                self._param_types[parts[0]] = [_I32.unpack_from(payload, pos + 2 + 4 * i)[0]
                                               for i in range(n)]
                return self._frame(kind, b"".join(parts) + payload[pos:])
            if kind == 66:  # B
                return self._frame(kind, self._bind(payload))
            if kind in (100, 102) and self._copy_text:  # d, f (CopyFail's message)
                return self._frame(kind, self._to_utf8(payload))
        except _Unconvertible as e:
            self._pending.append(_error(e.code, e.message))
            if kind != 81:  # as PostgreSQL after an error in the extended protocol
                self._to_sync = True
                return b""
            self._skip_empty += 1
            return self._frame(kind, b"\x00")  # an empty query keeps the protocol in step
        return self._frame(kind, payload)

    def _bind(self, p: bytes) -> bytes:
        """Bind's text-format parameters, and binary ones of a text type (as Parse declared
        them: textrecv converts from the client encoding too), into UTF8."""
        names, pos = self._cstrings(p, 2, lambda b: b)
        types = self._param_types.get(names[1], [])
        (nf,) = _I16.unpack_from(p, pos)
        fmts = [_I16.unpack_from(p, pos + 2 + 2 * i)[0] for i in range(nf)]
        pos += 2 + 2 * nf
        (np_,) = _I16.unpack_from(p, pos)
        head, pos = [p[:pos + 2]], pos + 2
        for i in range(np_):
            (ln,) = _I32.unpack_from(p, pos)
            pos += 4
            if ln < 0:
                head.append(_I32.pack(ln))
                continue
            v = p[pos:pos + ln]
            pos += ln
            fmt = fmts[i] if nf > 1 else fmts[0] if nf == 1 else 0
            if fmt == 0 or (i < len(types) and _texty(types[i])):
                v = self._to_utf8(v)
            head.append(_I32.pack(len(v)) + v)
        (nr,) = _I16.unpack_from(p, pos)
        self._formats = [_I16.unpack_from(p, pos + 2 + 2 * i)[0] for i in range(nr)]
        head.append(p[pos:])
        return b"".join(head)

    # -- outgoing ----------------------------------------------------------------------------

    def outgoing(self, data: bytes) -> bytes:
        """Converts the server's whole messages in `data` into the client encoding."""
        out = bytearray()
        for err in self._pending:
            out += err
        self._pending.clear()
        pos, n = 0, len(data)
        while n - pos >= 5:
            kind = data[pos]
            end = pos + 1 + _I32.unpack_from(data, pos + 1)[0]
            payload = data[pos + 5:end]
            pos = end
            out += self._out_message(kind, payload)
        return bytes(out)

    def _out_message(self, kind: int, payload: bytes) -> bytes:
        if kind == 90:  # Z: the end of a statement's output
            self._failed = False
            self._copy_types = []
            return self._frame(kind, payload)
        if kind == 73 and self._skip_empty:  # I standing for a rejected Query
            self._skip_empty -= 1
            return b""
        if self._failed and kind in (68, 67, 115, 100, 99):  # D C s d c of a failed result
            return b""
        try:
            if kind == 84:  # T
                return self._frame(kind, self._row_description(payload))
            if kind == 68:  # D
                return self._frame(kind, self._data_row(payload))
            if kind in (67, 69, 78, 83, 65):  # C E N S A
                return self._frame(kind, self._from_utf8(payload))
            if kind in (71, 72):  # G H: CopyIn/CopyOutResponse, overall format
                self._copy_text = payload[:1] == b"\x00"
                self._copy_types, self._next_copy_types = self._next_copy_types, []
            elif kind == 100 and self._copy_text:  # d
                return self._frame(kind, self._from_utf8(payload))
            elif kind == 100 and any(_texty(t) for t in self._copy_types):  # d, binary
                return self._frame(kind, self._binary_copy_data(payload))
            elif kind == 99:  # c: CopyDone
                self._copy_types = []
        except _Unconvertible as e:
            self._failed = True
            return _error(e.code, e.message)
        return self._frame(kind, payload)

    def binary_copy(self, types: list[int]) -> None:
        """The column types of the binary COPY TO whose CopyData follows: its fields of text
        types are converted as textsend converts them (the types are not on the wire).
        Called before the CopyOutResponse goes out; output still queued ahead of it (an
        earlier statement's ReadyForQuery) does not reset them."""
        self._next_copy_types = types

    def _binary_copy_data(self, p: bytes) -> bytes:
        """One CopyData of binary COPY: whole tuples (the first after the file header), each
        text field converted; anything else (the trailer) passes unchanged."""
        pos, out = 0, []
        if p.startswith(_SIGNATURE):
            pos = len(_SIGNATURE) + 8 + _I32.unpack_from(p, len(_SIGNATURE) + 4)[0]
            out.append(p[:pos])
        types, n = self._copy_types, len(p)
        while pos + 2 <= n:
            (nf,) = _I16.unpack_from(p, pos)
            if nf < 0:
                break
            out.append(p[pos:pos + 2])
            pos += 2
            for i in range(nf):
                (ln,) = _I32.unpack_from(p, pos)
                if ln < 0 or i >= len(types) or not _texty(types[i]):
                    end = pos + 4 + max(ln, 0)
                    out.append(p[pos:end])
                else:
                    end = pos + 4 + ln
                    v = self._from_utf8(p[pos + 4:end])
                    out.append(_I32.pack(len(v)) + v)
                pos = end
        out.append(p[pos:])
        return b"".join(out)

    def _row_description(self, p: bytes) -> bytes:
        (n,) = _I16.unpack_from(p, 0)
        out, pos = [p[:2]], 2
        types, fmts = [], []
        for _ in range(n):
            end = p.index(b"\x00", pos)
            out.append(self._from_utf8(p[pos:end]) + b"\x00")
            fixed = p[end + 1:end + 19]
            types.append(struct.unpack_from("!i", fixed, 6)[0])
            fmts.append(struct.unpack_from("!h", fixed, 16)[0])
            out.append(fixed)
            pos = end + 19
        self._types, self._row_formats = types, fmts
        return b"".join(out)

    def _data_row(self, p: bytes) -> bytes:
        (n,) = _I16.unpack_from(p, 0)
        bind = self._formats
        out, pos = [p[:2]], 2
        for i in range(n):
            (ln,) = _I32.unpack_from(p, pos)
            pos += 4
            if ln < 0:
                out.append(_I32.pack(ln))
                continue
            v = p[pos:pos + ln]
            pos += ln
            if bind is not None:
                fmt = bind[i] if len(bind) > 1 else bind[0] if bind else 0
            else:
                fmt = self._row_formats[i] if i < len(self._row_formats) else 0
            typ = self._types[i] if i < len(self._types) else 25
            if fmt == 0 or _texty(typ):
                v = self._from_utf8(v)
            out.append(_I32.pack(len(v)) + v)
        return b"".join(out)
