"""The FunctionCall message ('F'): PostgreSQL's "fast-path" call of a function by OID.

libpq's large-object API (psql's `\\lo_import`, psycopg2's `lobject`) and pgJDBC's
`Fastpath` (its `LargeObjectManager`) call functions this way: they look the OIDs
up in pg_proc by name, then send `F` with the OID, the arguments (text or binary,
like Bind's) and the result format; the server answers FunctionCallResponse ('V')
and ReadyForQuery, like a one-statement simple Query.

Here a call runs as the statement `SELECT schema.name($1, ..., $n)` prepared with
the function's own argument types, so overloads, argument decoding, privileges,
errors and the transaction all work as for SQL. The function's row in pg_proc is
read once per OID and connection (through the session, like any query), and the
prepared call is kept with it.

    >>> read_function_call(b"\\0\\0\\3\\xb8\\0\\1\\0\\1\\0\\2\\0\\0\\0\\4\\0\\0\\x40\\0"
    ...                    b"\\0\\0\\0\\4\\0\\4\\0\\0\\0\\1")
    (952, [1], [b'\\x00\\x00@\\x00', b'\\x00\\x04\\x00\\x00'], 1)
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidParameterValue, ProtocolViolation, SQLError, UndefinedFunction
from ..pgtypes.codecs import wire_decoder, wire_encoder
from . import messages as M
from .backend import Prepared

_LOOKUP = ("SELECT p.proname::text, n.nspname::text, p.proargtypes::oid[], p.prorettype "
           "FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace "
           "WHERE p.oid = $1")
_OID = 26


def read_function_call(payload: bytes) -> tuple[int, list[int], list[bytes | None], int]:
    """Reads a FunctionCall: function OID, argument format codes, raw arguments (None for
    NULL), result format code."""
    size = len(payload)
    if size < 8:
        raise ProtocolViolation(M.INSUFFICIENT)
    (oid,) = M.I32.unpack_from(payload, 0)
    (nf,) = M.I16.unpack_from(payload, 4)
    pos = 6
    if nf < 0 or pos + 2 * nf + 2 > size:
        raise ProtocolViolation(M.INSUFFICIENT)
    fmts = [M.I16.unpack_from(payload, pos + 2 * i)[0] for i in range(nf)]
    pos += 2 * nf
    (na,) = M.I16.unpack_from(payload, pos)
    pos += 2
    args: list[bytes | None] = []
    for _ in range(max(na, 0)):
        if pos + 4 > size:
            raise ProtocolViolation(M.INSUFFICIENT)
        (n,) = M.I32.unpack_from(payload, pos)
        pos += 4
        if n == -1:
            args.append(None)
            continue
        if n < 0 or pos + n > size:
            raise ProtocolViolation(M.INSUFFICIENT)
        args.append(payload[pos:pos + n])
        pos += n
    if pos + 2 != size:
        raise ProtocolViolation(
            "invalid message format" if pos + 2 < size else M.INSUFFICIENT)
    return oid & 0xFFFFFFFF, fmts, args, M.I16.unpack_from(payload, pos)[0]


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class FunctionCalls:
    """The FunctionCall half of `protocol.Connection` (mixed into it)."""

    session: Any
    out: bytearray
    tz: Any
    _in_extended: bool

    # hooks provided by Connection
    def _error(self, exc: BaseException, notify: bool = False) -> None: ...
    def _ready(self) -> None: ...
    def _notices(self) -> None: ...
    def _release(self) -> bool:
        return False

    _fp_lookup: Prepared | None = None
    _fp_calls: dict[int, tuple[Prepared, list[int]]] | None = None

    def _function_call(self, payload: bytes) -> None:
        """Runs one FunctionCall and answers it, then ReadyForQuery (errors included)."""
        self._release()
        self._in_extended = False
        session = self.session
        raised = False  # whether the session raised (and so recorded) the error
        try:
            oid, fmts, args, rfmt = read_function_call(payload)
            raised = True
            prepared, argtypes = self._fp_prepared(oid)
            raised = False
            if len(args) != len(argtypes):
                raise ProtocolViolation(f"function call message contains {len(args)} arguments "
                                        f"but function requires {len(argtypes)}")
            if len(fmts) > 1 and len(fmts) != len(args):
                raise ProtocolViolation(f"function call message contains {len(fmts)} argument "
                                        f"formats but {len(args)} arguments")
            for f in (*fmts, rfmt):
                if f not in (0, 1):
                    raise InvalidParameterValue(f"unsupported format code: {f}")
            codes = fmts * len(args) if len(fmts) == 1 else fmts or [0] * len(args)
            params = [None if v is None else wire_decoder(t, f, self.tz)(v)
                      for v, t, f in zip(args, argtypes, codes, strict=True)]
            raised = True
            res = session.execute(prepared, params)
            rows = res.fetch()
            raised = False
            value = rows[0][0] if rows else None
            col = res.columns[0].type_oid if res.columns else 0
            data = None if value is None else wire_encoder(col, rfmt, self.tz)(value)
        except Exception as e:
            self._notices()
            self._error(e, notify=not raised or not isinstance(e, SQLError))
        else:
            self._notices()
            body = M.I32.pack(-1) if data is None else M.I32.pack(len(data)) + data
            self.out += M.message(b"V", body)
        try:
            session.sync()
        except Exception as e:
            self._notices()
            self._error(e)
        self._ready()

    def _fp_prepared(self, oid: int) -> tuple[Prepared, list[int]]:
        """The prepared `SELECT f($1, ...)` of function `oid` and its argument types; 42883 if
        pg_proc has no such function."""
        calls = self._fp_calls
        if calls is None:
            calls = self._fp_calls = {}
        hit = calls.get(oid)
        if hit is not None:
            return hit
        session = self.session
        if self._fp_lookup is None:
            self._fp_lookup = session.prepare(_LOOKUP, [_OID])
        rows = session.execute(self._fp_lookup, [oid]).fetch()
        if not rows:
            err = UndefinedFunction(f"function with OID {oid} does not exist")
            session.statement_failed(err)
            raise err
        name, schema, argtypes, _ret = rows[0]
        argtypes = [int(t) for t in argtypes or ()]
        params = ", ".join(f"${i + 1}" for i in range(len(argtypes)))
        sql = f"SELECT {_quote(schema)}.{_quote(name)}({params})"
        hit = calls[oid] = (session.prepare(sql, argtypes), argtypes)
        return hit
