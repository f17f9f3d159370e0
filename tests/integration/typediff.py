"""Raw differential runs for type tests: the exact bytes each server sends, text and binary.

`raw_outcome` runs one statement through libpq (psycopg's `pgconn`) and keeps
what the wire carried: each column's type OID and typmod, and every value's
bytes, in the text format (a simple Query) or in the binary format (an
extended-protocol Execute with result format 1). Comparing these with
PostgreSQL 15's checks the type's output function, its send function and its
RowDescription at once, with no client library reinterpreting anything.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pg8000.native
import psycopg
from psycopg import pq


def raw_outcome(conn: psycopg.Connection, sql: str, binary: bool = False) -> tuple:
    """("rows", [(oid, typmod)...], rows of bytes) | ("ok", tag) | ("error", sqlstate, message).

    The OIDs of user-made types (16384 and up) differ between two servers by construction, so
    a column of such a type reports "user" instead.
    """
    pgc = conn.pgconn
    res = pgc.exec_params(sql.encode(), [], result_format=1) if binary else pgc.exec_(sql.encode())
    st = res.status
    if st == pq.ExecStatus.FATAL_ERROR:
        code = res.error_field(pq.DiagnosticField.SQLSTATE)
        msg = res.error_field(pq.DiagnosticField.MESSAGE_PRIMARY)
        return ("error", code and code.decode(), msg and msg.decode())
    if st == pq.ExecStatus.TUPLES_OK:
        cols = [(res.ftype(i) if res.ftype(i) < 16384 else "user", res.fmod(i))
                for i in range(res.nfields)]
        rows = [tuple(res.get_value(r, c) for c in range(res.nfields)) for r in range(res.ntuples)]
        return ("rows", cols, rows)
    tag = res.command_status
    return ("ok", tag and tag.decode())


def differences(pg: psycopg.Connection, cu: psycopg.Connection, statements: list[str],
                binary: bool = False) -> list[str]:
    """Runs each statement on both connections; the ones whose raw outcomes differ."""
    out = []
    for sql in statements:
        want, got = raw_outcome(pg, sql, binary), raw_outcome(cu, sql, binary)
        if want != got:
            out.append(f"{sql}\n   pg15: {want}\n cumulo: {got}")
    return out


def connect(dsn: str) -> psycopg.Connection:
    return psycopg.connect(dsn, autocommit=True)


def assert_same_as_pg15(pg_dsn: str, cu_dsn: str, statements: Sequence[str],
                        binary: bool = False, drops: Sequence[str] = (),
                        clean: Callable[[psycopg.Connection], None] | None = None) -> None:
    """Runs a script on PostgreSQL 15 and on Cumulo, each from a clean slate (`drops`,
    then `clean`, on both), and fails listing every statement whose raw outcome differs."""
    with connect(pg_dsn) as pc, connect(cu_dsn) as cc:
        for c in (pc, cc):
            for sql in drops:
                c.execute(sql)
            if clean is not None:
                clean(c)
        mism = differences(pc, cc, list(statements), binary)
    assert not mism, f"{len(mism)} of {len(statements)} differ:\n" + "\n".join(mism)


def pg8000_outcomes(port: int, password: str | None, statements: Sequence[str]) -> list:
    """What a pg8000 user sees of each statement: its rows, or its (SQLSTATE, message).

    The same list from PostgreSQL 15 and from Cumulo means pg8000's own decoding
    and error fields agree too, not only the bytes `raw_outcome` compares.
    """
    c = pg8000.native.Connection("cumulo", host="127.0.0.1", port=port, database="cumulo",
                                 password=password)
    out: list = []
    try:
        for sql in statements:
            try:
                out.append(c.run(sql))
            except pg8000.native.DatabaseError as e:
                out.append((e.args[0]["C"], e.args[0]["M"]))
        return out
    finally:
        c.close()
