"""Client encodings (LATIN1, LATIN9, WIN1252, EUC_JP, SQL_ASCII, KOI8R, SJIS...) against PostgreSQL 15 (issue 16, item 4).

The statements are raw bytes in the client encoding, sent through libpq as a
simple Query (text results) and through the extended protocol (binary
results): SET client_encoding, text in both directions (column names too),
characters the client encoding lacks (22P05 from the server, 22P05/22021 for
bytes a client sends that are not valid), SQL_ASCII's no-conversion rule,
SHOW and pg_client_encoding(). Each reply (rows as bytes, or SQLSTATE and
message) must be PostgreSQL's. Then the encoding set at connect time, and
COPY text in and out in LATIN1. psql in KOI8R, from PGCLIENTENCODING.
"""

from __future__ import annotations

import os
import subprocess

import psycopg
import pytest
from psycopg import pq

STATEMENTS = [
    b"set client_encoding to 'LATIN1'", b"select 'caf\xe9' as \"c\xf6l\", length('caf\xe9')",
    b"select chr(8364)", b"select 1", b"select 'x' || chr(233)", b"select chr(233)::bytea",
    b"select '\xe9'::text = chr(233)", b"set client_encoding to 'WIN1252'",
    b"select chr(8364), '\x80'", b"select '\x81'", b"select 2", b"set client_encoding to 'EUC_JP'",
    b"select '\xc6\xfc\xcb\xdc', length('\xc6\xfc\xcb\xdc')", b"select '\xff\xfe'", b"select 3",
    b"select chr(233)", b"set client_encoding to 'SQL_ASCII'", b"select chr(233), '\xe9'",
    b"select 4", b"set client_encoding to 'UTF8'", b"select chr(233)",
    b"set client_encoding to 'latin-9'", b"show client_encoding", b"select pg_client_encoding()",
    b"select chr(8364), 1/0", b"select chr(8364)", b"set client_encoding to 'iso_8859_1'",
    b"show client_encoding",
    # every other client encoding PostgreSQL accepts beside UTF8, aliases, and the errors
    b"set client_encoding to 'KOI8R'", "select 'привет', length('привет')".encode("koi8_r"),
    b"select chr(1046), chr(233)", b"set client_encoding to 'WIN1251'",
    "select 'привет' as \"имя\"".encode("cp1251"), b"set client_encoding to 'LATIN2'",
    "select 'łódź'".encode("iso8859_2"), b"select chr(8364)", b"set client_encoding to 'SJIS'",
    "select '日本語', length('日本語')".encode("shift_jis"), b"set client_encoding to 'EUC_KR'",
    "select '한국어'".encode("euc_kr"), b"set client_encoding to 'GBK'",
    "select '中文'".encode("gbk"), b"set client_encoding to 'BIG5'", "select '中文'".encode("big5"),
    b"set client_encoding to 'EUC_TW'", b"select 'abc', 1", b"show client_encoding",
    b"set client_encoding to 'win'", b"show client_encoding", b"set client_encoding to 'koi8'",
    b"show client_encoding", b"set client_encoding to 'windows-1250'", b"show client_encoding",
    b"set client_encoding to 'klingon'", b"set client_encoding to 'MULE_INTERNAL'",
    b"set client_encoding to 'WIN866'", "select 'ж'".encode("cp866"),
    b"set client_encoding to 'ISO_8859_7'", "select 'αβγ'".encode("iso8859_7"),
    b"set client_encoding to 'EUC_CN'", "select '中文'".encode("gb2312"),
]


def _run(c: psycopg.Connection, sql: bytes, binary: bool) -> tuple:
    pgc = c.pgconn
    res = pgc.exec_params(sql, [], result_format=1) if binary else pgc.exec_(sql)
    if res.status == pq.ExecStatus.FATAL_ERROR:
        return ("error", res.error_field(pq.DiagnosticField.SQLSTATE),
                res.error_field(pq.DiagnosticField.MESSAGE_PRIMARY))
    if res.status == pq.ExecStatus.TUPLES_OK:
        return ([res.fname(i) for i in range(res.nfields)],
                [tuple(res.get_value(r, i) for i in range(res.nfields)) for r in range(res.ntuples)])
    return ("ok", res.command_status)


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_encodings_match_pg15(binary, pg15, cumulo_server):
    """Every statement's bytes, in every client encoding, are PostgreSQL 15's."""
    mism = []
    with psycopg.connect(pg15.dsn(), autocommit=True) as pc, \
            psycopg.connect(cumulo_server.dsn(), autocommit=True) as cc:
        for sql in STATEMENTS:
            want, got = _run(pc, sql, binary), _run(cc, sql, binary)
            if want != got:
                mism.append(f"{sql!r}\n   pg15: {want}\n cumulo: {got}")
    assert not mism, "\n".join(mism)


def _connect_time(dsn: str, encoding: str) -> list:
    out: list = []
    with psycopg.connect(dsn, autocommit=True, client_encoding=encoding) as c:
        out.append(c.info.parameter_status("client_encoding"))
        for b in (False, True):
            out.append(c.execute("select %s::text, length(%s)", ("café naïve", "café"),
                                 binary=b).fetchone())
        c.execute("drop table if exists enc_t")
        c.execute("create table enc_t (id int, s text)")
        with c.cursor().copy("copy enc_t from stdin") as cp:
            cp.write("1\tcafé\n2\tnaïve\n".encode(c.info.encoding))
        data = b""
        with c.cursor().copy("copy enc_t to stdout") as cp:
            for chunk in cp:
                data += bytes(chunk)
        out.append(data)
        out.append(c.execute("select s, octet_length(s) from enc_t order by id").fetchall())
        c.execute("drop table enc_t")
    return out


@pytest.mark.parametrize("encoding", ["LATIN1", "LATIN9", "WIN1252", "EUC_JP"])
def test_encoding_at_connect_and_copy(encoding, pg15, cumulo_server):
    """client_encoding in the startup packet, parameters in both formats, COPY in and out."""
    got = _connect_time(cumulo_server.dsn(), encoding)
    assert got == _connect_time(pg15.dsn(), encoding)
    assert got[0] == encoding


def _psql_koi8(dsn: str) -> tuple[bytes, bytes]:
    env = dict(os.environ, PGCLIENTENCODING="KOI8R")
    res = subprocess.run([b"psql", dsn.encode(), b"-X", b"-A", b"-t", b"-c",
                          "select 'привет', chr(1046)".encode("koi8_r"),
                          b"-c", b"select 'klingon'::text, chr(8364)"],
                         capture_output=True, env=env, timeout=30)
    return res.stdout, res.stderr


def test_psql_in_koi8r(pg15, cumulo_server):
    want = _psql_koi8(pg15.dsn())
    assert "привет".encode("koi8_r") in want[0]
    assert _psql_koi8(cumulo_server.dsn()) == want
