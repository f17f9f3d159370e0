"""COPY FROM's columns with their redo-record forms (`kivi.wirecols.Encoded`).

The text and binary column parsers hand the commit the wire form they already
have (a timestamp column's microseconds from numpy's parse, a fixed-point
numeric column's input text, a date column's ordinals): each is checked here
against the per-value decoders (values and types) and against what
`encode_column` would make of the values, and a COPY is replayed from its redo
log after a restart with every value, type and scale intact. Edge values that
must leave the fast paths (24:00, Feb 30, year 0, datetime.min, a numeric that
rounds or overflows, non-ASCII digits) are decoded or refused as the per-value
decoders do.
"""

from __future__ import annotations

import datetime as dt
import struct
from decimal import Decimal

import numpy as np
import pytest

from cumulo.server.errors import SQLError
from cumulo.server.kivi.wirecols import (
    Encoded,
    decode_column,
    encode_column,
    joined,
    scaled_kind,
)
from cumulo.server.pgtypes import oids as T
from cumulo.server.pgtypes.text import text_decoder
from cumulo.server.sql import copy as copy_module
from cumulo.server.sql.copybatch import column_decoder, split_block
from cumulo.server.sql.copybinary import _chained_starts, _row_starts, walk
from cumulo.server.sql.engine import SQLEngine
from cumulo.server.sql.expr.casts import cast_function
from cumulo.server.txn.embedded import open_embedded

from .helpers import copy_in, copy_out, rows, run

NUM_12_2 = (12 << 16) + 2 + 4


def _same(a: list, b: list) -> None:
    """Equal values of the same types (and, for Decimals, the same digits and scale)."""
    assert [type(v) for v in a] == [type(v) for v in b]
    assert list(map(repr, a)) == list(map(repr, b))


def _check_column(oid: int, raw: list[str], typmod: int = -1) -> list:
    got = column_decoder(oid, None, typmod)(raw)
    if oid == T.NUMERIC and typmod > 4:
        q = Decimal(1).scaleb(-((typmod - 4) & 0xFFFF))
        want = [text_decoder(oid)(v).quantize(q) for v in raw]
    else:
        want = list(map(text_decoder(oid), raw))
    _same(list(got), want)
    kind, wire = encode_column(got)
    _same(decode_column(kind, wire), want)  # the parser's wire form reads back as the values
    _same(decode_column(*encode_column(list(got))), want)  # and as the values' own form
    return got


@pytest.mark.parametrize("oid, raw", [
    (T.TIMESTAMP, ["2024-01-02 03:04:05", "1999-12-31T23:59:59", "0001-01-02 00:00:00",
                   "1969-12-31 23:59:59", "2024-02-29 12:00:00"]),
    (T.TIMESTAMP, ["2024-01-02 03:04:05.123456", "1900-06-30 00:00:00.000001"]),
    (T.TIMESTAMP, ["2024-01-02 03:04:05.5", "2024-01-02 03:04:05.0"]),
    (T.TIMESTAMP, ["2024-01-02 03:04:05", "2024-01-02 03:04:05.25"]),  # two widths: regex path
    (T.TIMESTAMP, ["0001-01-01 00:00:00", "2024-01-01 00:00:00"]),  # datetime.min: kept plain
    (T.TIMESTAMP, ["2024-01-01 24:00:00"]),  # PostgreSQL's midnight of the next day
    (T.TIMESTAMP, ["2024-01-02 03:04:05", "2024-01-02 03:04:60"]),  # a leap second rolls over
    (T.DATE, ["2024-01-02", "0001-01-01", "9999-12-31", "1970-01-01", "2000-02-29"]),
    (T.NUMERIC, ["12.50", "-0.07", "007.00", "-0.00", "9999999999.99", "0.01"]),
    (T.NUMERIC, ["1.5", ".5", "-3", " 4.25 "]),  # not written at the scale: rounded, no form
    (T.INT8, ["1", "-9223372036854775808", "9223372036854775807", " 7 "]),
    (T.INT4, ["0", "-2147483648", "2147483647"]),
    (T.BOOL, ["t", "f", "true", "false"]),
    (T.FLOAT8, ["1.5", "-0", "1e300"]),
    (T.TEXT, ["a", "", "naïve", "x y"]),
])
def test_columns_and_their_wire_forms_equal_the_decoders(oid, raw):
    typmod = NUM_12_2 if oid == T.NUMERIC else -1
    got = _check_column(oid, raw, typmod)
    if oid == T.TIMESTAMP and raw[0].startswith("0001-01-01 00:00:00"):
        assert type(got) is not Encoded  # the redo record's own rule for an old infinity
    if oid in (T.TIMESTAMP, T.DATE) and len(set(map(len, raw))) == 1 and "24:00" not in raw[0] and ":60" not in raw[-1] \
            and not raw[0].startswith("0001-01-01 00"):
        assert type(got) is Encoded  # the numpy path was taken (the case is meant to test it)


@pytest.mark.parametrize("oid, raw", [
    (T.TIMESTAMP, ["2024-01-02 03:04:05", "2023-02-29 00:00:00"]),
    (T.TIMESTAMP, ["2024-01-02 03:04:05", "0000-01-01 00:00:00"]),
    (T.TIMESTAMP, ["2024-01-02 03:04:05", "2024-01-02 03:60:00"]),
    (T.DATE, ["2024-01-02", "2024-13-01"]),
    (T.NUMERIC, ["1.00", "99999999999.00"]),  # 11 integer digits for numeric(12,2): 22003
    (T.NUMERIC, ["1.00", "1.0.0"]),
])
def test_bad_values_in_a_column_fail_as_the_decoder_says(oid, raw):
    typmod = NUM_12_2 if oid == T.NUMERIC else -1
    with pytest.raises(SQLError) as col_err:
        column_decoder(oid, None, typmod)(raw)
    with pytest.raises(SQLError) as one_err:
        for v in raw:
            d = text_decoder(oid)(v)
            if typmod > 4:
                cast_function(T.NUMERIC, T.NUMERIC, typmod)(d)
    assert col_err.value.sqlstate == one_err.value.sqlstate
    assert col_err.value.message == one_err.value.message


def test_joined_batches_keep_the_form_only_when_all_have_it():
    dec = column_decoder(T.NUMERIC, None, NUM_12_2)
    a, b = dec(["1.00", "-2.50"]), dec(["3.25"])
    both = joined([a, b])
    # NB: numeric(12, 2)'s fixed-point texts: their coefficients (`wirecols.scaled_kind`)
    assert type(both) is Encoded and both.wire == [100, -250, 325]
    assert both.kind == scaled_kind(2)
    _same(list(both), [Decimal("1.00"), Decimal("-2.50"), Decimal("3.25")])
    mixed = joined([a, [Decimal("4.00")]])
    assert type(mixed) is list and mixed == [Decimal("1.00"), Decimal("-2.50"), Decimal("4.00")]


def test_split_block_counts_fields_per_line():
    assert split_block("1\ta\n2\tb\n3\tc", "\t", 2) == [["1", "2", "3"], ["a", "b", "c"]]
    assert split_block("1\ta\n2\tb\tx\n3", "\t", 2) is None  # total right, lines wrong
    assert split_block("1\ta\n2\t\tb\n3", "\t", 2) is None
    assert split_block("é\ta\n2\tb", "\t", 2) == [["é", "2"], ["a", "b"]]  # the slow way
    assert split_block("é|a\n2|b|c", "|", 2) is None
    assert split_block("x\ny", "\t", 1) == [["x", "y"]]
    assert split_block("x\ny\tz", "\t", 1) is None


ROWS = 2500
DDL = ("CREATE TABLE w (id bigint PRIMARY KEY, g int, amount numeric(12,2), note text, "
       "ts timestamp, flag boolean, d date, tz timestamptz)")


def _text_rows() -> str:
    out = []
    for i in range(1, ROWS + 1):
        frac = "" if i < 1200 else f".{i % 1000:03d}"  # two blocks' widths differ
        out.append(f"{i}\t{i % 7 - 3}\t{'-' if i % 3 else ''}{i % 100000}.{i % 100:02d}\tn {i}\t"
                   f"{1900 + i % 200}-{1 + i % 12:02d}-{1 + i % 28:02d} "
                   f"{i % 24:02d}:{i % 60:02d}:{i % 60:02d}{frac}\t{'tf'[i % 2]}\t"
                   f"{1 + i % 9999:04d}-{1 + i % 12:02d}-{1 + i % 28:02d}\t"
                   f"2024-01-01 00:00:{i % 60:02d}+00\n")
    return "".join(out)


def test_copy_text_and_binary_replay_from_the_redo_log(tmp_path, monkeypatch):
    monkeypatch.setattr(copy_module, "BATCH", 512)
    monkeypatch.setattr(copy_module, "FEED_CHUNK", 1 << 14)
    eng = SQLEngine(open_embedded(str(tmp_path), gc_interval=None))
    s = eng.open_session("cumulo", "cumulo", {})
    run(s, DDL)
    data = _text_rows().encode()
    assert copy_in(s, "COPY w FROM STDIN", [data[i:i + 5000] for i in range(0, len(data), 5000)]
                   ) == f"COPY {ROWS}"
    binary, _ = copy_out(s, "COPY w TO STDOUT (FORMAT BINARY)")
    run(s, DDL.replace(" w ", " wb "))
    assert copy_in(s, "COPY wb FROM STDIN (FORMAT BINARY)", [binary]) == f"COPY {ROWS}"
    want = rows(s, "SELECT * FROM w ORDER BY id")
    assert rows(s, "SELECT * FROM wb ORDER BY id") == want
    s.close()
    eng.close()
    eng = SQLEngine(open_embedded(str(tmp_path), gc_interval=None))  # replays the redo log
    s = eng.open_session("cumulo", "cumulo", {})
    for table in ("w", "wb"):
        got = rows(s, f"SELECT * FROM {table} ORDER BY id")
        assert len(got) == ROWS
        for g, w in zip(got, want, strict=True):
            _same(list(g), list(w))
    first = want[0]
    assert first[2] == Decimal("-1.01") and str(first[2]) == "-1.01"
    assert first[4] == dt.datetime(1901, 2, 2, 1, 1, 1) and first[6] == dt.date(2, 2, 2)
    assert want[1500][4].microsecond == 501000
    s.close()
    eng.close()


def test_binary_rows_beyond_the_fast_range_take_the_decoders(session):
    run(session, "CREATE TABLE bt (ts timestamp, d date)")
    head = b"PGCOPY\n\xff\r\n\x00" + struct.pack("!ii", 0, 0)
    us_min = -63_082_281_600_000_000  # 0001-01-01 00:00:00 from 2000-01-01
    body = b"".join(struct.pack("!hiqii", 2, 8, us_min + k, 4, -730_119 + k) for k in range(3))
    copy_in(session, "COPY bt FROM STDIN (FORMAT BINARY)", [head + body + b"\xff\xff"])
    got = rows(session, "SELECT ts, d FROM bt ORDER BY ts")
    assert got[0] == (dt.datetime(1, 1, 1), dt.date(1, 1, 1))
    assert got[2] == (dt.datetime(1, 1, 1, 0, 0, 0, 2), dt.date(1, 1, 3))


def test_null_strings_found_or_ruled_out_per_block(session):
    run(session, "CREATE TABLE nn (id int, a text, b text)")
    copy_in(session, "COPY nn FROM STDIN (FORMAT csv)", [b"1,,x\n2,a,\n3,b,c\n"])
    copy_in(session, "COPY nn FROM STDIN (NULL '')", [b"4\t\ty\n5\tvanilla\tz\n"])
    copy_in(session, "COPY nn FROM STDIN (NULL 'nil')", [b"6\tvanilla\tnil\n7\tnil\tnils\n"])
    copy_in(session, "COPY nn FROM STDIN", [b"8\t\\\\N\tq\n9\ta\\N\tr\n"])  # escaped: not NULL
    # quoted csv blocks: a quoted field is never NULL, an unquoted one equal to NULL is
    copy_in(session, "COPY nn FROM STDIN (FORMAT csv)", [b'10,"a,b",\n11,"",x\n'])
    copy_in(session, "COPY nn FROM STDIN (FORMAT csv)", [b'12,"a,b",c\n13,"d",e\n'])
    copy_in(session, "COPY nn FROM STDIN (FORMAT csv, NULL 'nil')",
            [b'14,"nil",nil\n15,"x,y",vanilla\n'])
    assert rows(session, "SELECT * FROM nn ORDER BY id") == [
        (1, None, "x"), (2, "a", None), (3, "b", "c"), (4, None, "y"), (5, "vanilla", "z"),
        (6, "vanilla", None), (7, None, "nils"), (8, "\\N", "q"), (9, "aN", "r"),
        (10, "a,b", None), (11, "", "x"), (12, "a,b", "c"), (13, "d", "e"), (14, "nil", None),
        (15, "x,y", "vanilla")]


def _binary_rows(values: list[tuple[int, str, int]]) -> bytes:
    """Binary COPY rows of (bigint, text, int)."""
    out = []
    for i, t, g in values:
        b = t.encode()
        out.append(struct.pack("!hiq", 3, 8, i) + struct.pack("!i", len(b)) + b
                   + struct.pack("!ii", 4, g))
    return b"".join(out)


def test_binary_row_starts_found_at_once_or_walked(session):
    oids = [T.INT8, T.TEXT, T.INT4]
    plain = _binary_rows([(i, "x" * (i % 5), -i) for i in range(1, 300)])
    u8 = np.frombuffer(plain, dtype=np.uint8)
    starts, lens = _chained_starts(u8, 3, 8, [14], 8)
    want, want_lens = _row_starts(plain, [14], 8, len(plain))
    assert starts.tolist() == want and lens.ravel().tolist() == want_lens
    # a bigint whose bytes look like a row start (count 3, length 8): walked row by row
    tricky = _binary_rows([(1, "a", 1), (0x0003_0000_0008_0001, "b", 2), (3, "", 3)])
    assert _chained_starts(np.frombuffer(tricky, dtype=np.uint8), 3, 8, [14], 8) is None
    assert walk(tricky, oids) is not None
    run(session, "CREATE TABLE br (id bigint, t text, g int)")
    head = b"PGCOPY\n\xff\r\n\x00" + struct.pack("!ii", 0, 0)
    copy_in(session, "COPY br FROM STDIN (FORMAT BINARY)", [head + tricky + b"\xff\xff"])
    copy_in(session, "COPY br FROM STDIN (FORMAT BINARY)", [head + plain + b"\xff\xff"])
    got = rows(session, "SELECT id, t, g FROM br ORDER BY id")
    assert got[:3] == [(1, "a", 1), (1, "x", -1), (2, "xx", -2)]
    assert got[-1] == (0x0003_0000_0008_0001, "b", 2) and len(got) == 302


def test_numeric_coefficients_as_the_redo_form_keep_each_value(tmp_path):
    """numeric(p, s) columns go to the redo record as coefficients (`scaled_kind`); a
    negative zero, or a column of several scales, keeps the Decimals' own form."""
    eng = SQLEngine(open_embedded(str(tmp_path), gc_interval=None))
    s = eng.open_session("cumulo", "cumulo", {})
    ddl = "CREATE TABLE {} (id int PRIMARY KEY, a numeric(12,2), b numeric, c numeric(4,1))"
    text = "".join(f"{i}\t{'-0.00' if i == 7 else f'-{i}.{i % 100:02d}'}\t"
                   f"{f'{i}.25' if i % 11 == 0 else f'{i % 50}.{i % 10}'}\t{i % 999}.5\n"
                   for i in range(1, 600)).encode()
    run(s, ddl.format("nz"))
    copy_in(s, "COPY nz FROM STDIN", [text])
    binary, _ = copy_out(s, "COPY nz TO STDOUT (FORMAT BINARY)")
    run(s, ddl.format("nzb"))
    copy_in(s, "COPY nzb FROM STDIN (FORMAT BINARY)", [binary])
    want = {t: rows(s, f"SELECT * FROM {t} ORDER BY id") for t in ("nz", "nzb")}
    s.close()
    eng.close()
    eng = SQLEngine(open_embedded(str(tmp_path), gc_interval=None))  # replays the redo log
    s = eng.open_session("cumulo", "cumulo", {})
    for t, w in want.items():
        got = rows(s, f"SELECT * FROM {t} ORDER BY id")
        assert [tuple(map(str, r)) for r in got] == [tuple(map(str, r)) for r in w]
    assert [str(v) for v in want["nz"][0][1:]] == ["-1.01", "1.1", "1.5"]
    assert str(want["nzb"][10][2]) == "11.25"
    s.close()
    eng.close()
