"""COPY FROM STDIN / TO STDOUT in the text, csv and binary formats."""

from __future__ import annotations

import struct

from cumulo.server.sql.copy import parse_options

from .helpers import copy_in, copy_out, fails, rows, run


def test_parse_options():
    assert parse_options("with (freeze on)") == {"format": "text", "freeze": "on"}
    assert parse_options("(FORMAT csv, HEADER true, DELIMITER ';', NULL 'x')") == {
        "format": "csv", "header": "true", "delimiter": ";", "null": "x"}
    assert parse_options("with csv header delimiter as '|' quote '\"'") == {
        "format": "csv", "header": True, "delimiter": "|", "quote": '"'}
    assert parse_options("binary")["format"] == "binary"


def test_pgbench_style_copy(session):
    run(session, "create table pgbench_accounts (aid int not null, bid int, abalance int, "
         "filler char(84)) with (fillfactor=100)")
    run(session, "begin")
    lines = [f"{i}\t1\t0\t\n".encode() for i in range(1, 1001)] + [b"\\.\n"]
    assert copy_in(session, "copy pgbench_accounts from stdin with (freeze on)", lines) == \
        "COPY 1000"
    run(session, "commit")
    assert rows(session, "select count(*), sum(aid) from pgbench_accounts") == [(1000, 500500)]
    assert rows(session, "select filler from pgbench_accounts where aid = 1") == [(" " * 84,)]


def test_text_escapes_and_nulls(session):
    run(session, "create table t (a int, b text, c bytea)")
    data = b"1\ta\\tb\\\\c\\n\t\\\\x41\n2\t\\N\t\\N\n3\t\\101\\x42\t\\\\x00ff\n"
    assert copy_in(session, "copy t from stdin", [data[:7], data[7:]]) == "COPY 3"
    assert rows(session, "select a, b, c from t order by a") == [
        (1, "a\tb\\c\n", b"A"), (2, None, None), (3, "AB", b"\x00\xff")]
    out, tag = copy_out(session, "copy t (a, b) to stdout")
    assert tag == "COPY 3"
    assert out == b"1\ta\\tb\\\\c\\n\n2\t\\N\n3\tAB\n"


def test_column_list_and_defaults(session):
    run(session, "create table t (id serial primary key, a int, b text default 'z')")
    assert copy_in(session, "copy t (a) from stdin", [b"5\n6\n"]) == "COPY 2"
    assert rows(session, "select * from t order by id") == [(1, 5, "z"), (2, 6, "z")]
    fails(session, "copy t (nope) from stdin", "42703")


def test_csv_in_out(session):
    run(session, "create table t (a int, b text)")
    data = b'a,b\n1,"x,y"\n2,\n3,""\n4,"multi\nline"\n'
    assert copy_in(session, "copy t from stdin with (format csv, header true)", [data]) == \
        "COPY 4"
    assert rows(session, "select a, b from t order by a") == [
        (1, "x,y"), (2, None), (3, ""), (4, "multi\nline")]
    out, tag = copy_out(session, "copy (select a, b from t order by a) to stdout with csv header")
    assert tag == "COPY 4"
    assert out == b'a,b\n1,"x,y"\n2,\n3,""\n4,"multi\nline"\n'


def test_binary_in_out(session):
    run(session, "create table t (a int, b text, c bigint)")
    sig = b"PGCOPY\n\xff\r\n\x00" + struct.pack("!ii", 0, 0)
    row1 = struct.pack("!hi", 3, 4) + struct.pack("!i", 7) + struct.pack("!i", 2) + b"hi" + \
        struct.pack("!i", -1)
    payload = sig + row1 + struct.pack("!h", -1)
    assert copy_in(session, 'copy "t"(a, b, c) from stdin (format binary)', [payload[:9],
                                                                            payload[9:]]) == \
        "COPY 1"
    assert rows(session, "select * from t") == [(7, "hi", None)]
    out, tag = copy_out(session, "copy t to stdout (format binary)")
    assert tag == "COPY 1" and out == payload


def test_copy_errors(session):
    run(session, "create table t (a int not null, b int)")
    fails(session, "copy nope from stdin", "42P01")
    gen = session.simple_query("copy t from stdin")
    res = next(gen)
    res.copy_in.feed(b"1\t2\n")
    import pytest

    from cumulo.server.errors import SQLError

    res.copy_in.feed(b"1\t2\t3\n")
    with pytest.raises(SQLError) as info:
        res.copy_in.finish()  # NB: lines are parsed in blocks; the error may come at CopyDone
    assert info.value.sqlstate == "22P04"
    assert info.value.where.startswith("COPY t, line 2:")  # CONTEXT, as in PostgreSQL
    gen.close()
    assert rows(session, "select count(*) from t") == [(0,)]
    gen = session.simple_query("copy t from stdin")
    res = next(gen)
    with pytest.raises(SQLError) as info:
        res.copy_in.fail("client gave up")
    assert info.value.sqlstate == "57014"
    gen.close()
    fails(session, "copy t from '/etc/passwd'", "0A000")


def test_copy_out_sends_one_row_per_chunk(session):
    run(session, "create table t (a int)")
    run(session, "insert into t values (1), (2), (3)")
    gen = session.simple_query("copy t to stdout with csv header")
    res = next(gen)
    chunks = list(res.copy_out.chunks())
    assert chunks == [b"a\n", b"1\n", b"2\n", b"3\n"] and res.copy_out.tag == "COPY 3"
    for _ in gen:
        pass


def test_large_copy_split_anywhere(session):
    run(session, "create table t (a int, b text)")
    data = b"".join(f"{i}\tv\\\\{i}\n".encode() for i in range(40000)) + b"\\.\n"
    payloads = [data[i:i + 7777] for i in range(0, len(data), 7777)]  # cuts lines in half
    assert copy_in(session, "copy t from stdin", payloads) == "COPY 40000"
    assert rows(session, "select count(*), min(b), max(a) from t") == [(40000, "v\\0", 39999)]
