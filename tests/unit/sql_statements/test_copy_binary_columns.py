"""Binary COPY parsed a column at a time (`sql/copybinary.py`) gives exactly the values of
the per-field decoders (`pgtypes.binary`), and refuses (None) whatever they must judge:
NULLs, infinities, NaN, a NUL in text, a bad UTF-8 sequence, a wrong field count."""

from __future__ import annotations

import datetime as dt
import struct
from decimal import Decimal

import pytest

from cumulo.server.pgtypes import oids as T
from cumulo.server.pgtypes.binary import binary_decoder, binary_encoder
from cumulo.server.pgtypes.infdate import InfiniteTimestamp
from cumulo.server.sql.copybinary import supported, walk, whole_rows

from .helpers import copy_in, rows, run

OIDS = [T.INT8, T.INT4, T.INT2, T.NUMERIC, T.TEXT, T.TIMESTAMP, T.TIMESTAMPTZ, T.DATE,
        T.BOOL, T.FLOAT8, T.FLOAT4, T.VARCHAR, T.OID]
NUMERICS = ["0", "0.00", "1", "-1", "12345.67", "-12345.67", "99999999.99", "0.0001",
            "123456789012345678", "1234567890123456789012.5", "1E+12", "-0.5", "10000",
            "0.000000000000000000001", "7.10", "1000000000000000000.00"]


def value_rows(n: int) -> list[tuple]:
    base = dt.datetime(1999, 12, 31, 23, 59, 59, 999_999)
    return [(i * 7919 - 50_000 if i % 3 else 2**62 + i, -i * 31, i % 300 - 150,
             Decimal(NUMERICS[i % len(NUMERICS)]), f"n{i} ünï\tcode {'x' * (i % 40)}",
             base + dt.timedelta(seconds=i * 3601, microseconds=i),
             (base + dt.timedelta(days=i * 37)).replace(tzinfo=dt.UTC),
             dt.date(1970, 1, 1) + dt.timedelta(days=i * 97 - 30_000), i % 2 == 0,
             i / 7 - 3.5, float(struct.unpack("f", struct.pack("f", i / 3))[0]), f"v{i}", i)
            for i in range(n)]


def encode(rows_: list[tuple], oids: list[int] = OIDS) -> bytes:
    encs = [binary_encoder(o) for o in oids]
    out = []
    for r in rows_:
        out.append(struct.pack("!h", len(r)))
        for v, e in zip(r, encs, strict=True):
            if v is None:
                out.append(struct.pack("!i", -1))
            else:
                b = e(v)
                out.append(struct.pack("!i", len(b)) + b)
    return b"".join(out)


def decoded(data: bytes, oids: list[int] = OIDS) -> list[list]:
    """Columns as the per-field decoders read them."""
    decs = [binary_decoder(o) for o in oids]
    cols: list[list] = [[] for _ in oids]
    pos = 0
    while pos < len(data):
        pos += 2
        for col, dec in zip(cols, decs, strict=True):
            (ln,) = struct.unpack_from("!i", data, pos)
            col.append(dec(data[pos + 4:pos + 4 + ln]))
            pos += 4 + ln
    return cols


def test_columns_equal_the_per_field_decoders_with_types_and_scales():
    assert supported(OIDS) and not supported([T.INT8, T.JSONB])
    data = encode(value_rows(400))
    parsed = walk(data, OIDS)
    assert parsed is not None and parsed.count == 400
    cols, exact = parsed.columns(0, 400, [-1] * len(OIDS))
    want = decoded(data)
    for got, exp in zip(cols, want, strict=True):
        assert got == exp
        assert list(map(type, got)) == list(map(type, exp))
    assert [str(v) for v in cols[3]] == [str(v) for v in want[3]]  # scales, signs of zero
    assert [v.tzinfo for v in cols[6]] == [v.tzinfo for v in want[6]]
    assert exact == set()
    part, _ = parsed.columns(100, 150, [-1] * len(OIDS))
    assert part[4] == want[4][100:150]


def test_numeric_typmod_is_exact_only_when_every_value_has_the_scale():
    oids = [T.NUMERIC]
    typmod = ((12 << 16) | 2) + 4  # numeric(12,2)
    fits = walk(encode([(Decimal("1.25"),), (Decimal("-9999999999.99"),)], oids), oids)
    assert fits is not None and fits.columns(0, 2, [typmod])[1] == {0}
    for other in ("1.2", "10000000000.00", "1.250"):
        p = walk(encode([(Decimal("1.25"),), (Decimal(other),)], oids), oids)
        assert p is not None and p.columns(0, 2, [typmod])[1] == set()


@pytest.mark.parametrize("row", [
    (1, None), (None, "a"),  # NULLs
])
def test_nulls_leave_the_block_to_the_per_field_parser(row):
    oids = [T.INT8, T.TEXT]
    assert walk(encode([(1, "x"), row], oids), oids) is None


@pytest.mark.parametrize("oid,value", [
    (T.TEXT, "a\x00b"), (T.NUMERIC, Decimal("NaN")), (T.NUMERIC, Decimal("Infinity")),
    (T.TIMESTAMP, InfiniteTimestamp(1, None)), (T.NUMERIC, Decimal("-0.00")),
])
def test_values_the_decoders_must_judge_are_refused_or_decoded_alike(oid, value):
    oids = [oid]
    data = encode([(value,)], oids)
    parsed = walk(data, oids)
    got = None if parsed is None else parsed.columns(0, 1, [-1])
    if got is not None:  # decoded here: exactly as the decoder does
        assert str(got[0][0][0]) == str(decoded(data, oids)[0][0])
    else:
        assert oid != T.NUMERIC or not value.is_finite()


def test_bad_shapes_are_refused():
    oids = [T.INT4, T.TEXT]
    good = encode([(1, "a"), (2, "bb")], oids)
    assert walk(good, oids) is not None
    assert walk(good[:-1], oids) is None  # cut short
    assert walk(good + b"\x00", oids) is None  # trailing garbage
    assert walk(encode([(1, "a", 3)], [T.INT4, T.TEXT, T.INT4]), oids) is None
    bad_utf8 = good.replace(b"bb", b"\xff\xfe")
    p = walk(bad_utf8, oids)
    assert p is not None and p.columns(0, 2, [-1, -1]) is None


def test_binary_copy_loads_columnwise_and_falls_back_with_the_decoders_errors(session):
    run(session, "CREATE TABLE cb (id bigint PRIMARY KEY, g int, amount numeric(12,2), "
                 "note text, ts timestamp, flag boolean)")
    oids = [T.INT8, T.INT4, T.NUMERIC, T.TEXT, T.TIMESTAMP, T.BOOL]
    t0 = dt.datetime(2024, 1, 1)
    data = [(i, i % 10, Decimal(f"{i}.{i % 100:02d}"), f"n{i}", t0 + dt.timedelta(minutes=i),
             i % 2 == 0) for i in range(1, 20_001)]
    data[17_000] = (17_001, None, Decimal("1.005"), None, t0, None)  # NULLs, rounding
    head = b"PGCOPY\n\xff\r\n\x00" + struct.pack("!ii", 0, 0)
    payload = head + encode(data, oids) + b"\xff\xff"
    tag = copy_in(session, "COPY cb FROM STDIN (FORMAT binary)",
                  [payload[i:i + 65536] for i in range(0, len(payload), 65536)])
    assert tag == "COPY 20000"
    assert rows(session, "SELECT count(*), sum(id), sum(amount), count(note), "
                         "min(ts), max(ts), count(*) FILTER (WHERE flag) FROM cb") == [
        (20_000, 200_010_000, sum(r[2] for r in data) - Decimal("1.005") + Decimal("1.01"),
         19_999, t0, t0 + dt.timedelta(minutes=20_000), 10_000)]
    assert rows(session, "SELECT amount::text, g, note FROM cb WHERE id = 17001") == [
        ("1.01", None, None)]
    bad = head + encode([(1, 1, Decimal("1"), "x", t0, True)] * 2, oids) + b"\xff\xff"
    from cumulo.server.errors import SQLError

    with pytest.raises(SQLError) as e:
        copy_in(session, "COPY cb FROM STDIN (FORMAT binary)", [bad])
    assert e.value.sqlstate == "23505"
    over = head + encode([(50_001, 1, Decimal("12345678901.5"), "x", t0, True)], oids) \
        + b"\xff\xff"
    with pytest.raises(SQLError) as e:
        copy_in(session, "COPY cb FROM STDIN (FORMAT binary)", [over])
    assert e.value.sqlstate == "22003"


def test_text_copy_column_keys_and_length_typmods_match_the_row_path(session):
    """Keys built a column at a time (int, text, timestamp, timestamptz) are the row
    path's: point lookups and a row-path INSERT of the same key see them; varchar(n) and
    char(n) keep their checks and padding when a column does not fit as it is."""
    from cumulo.server.errors import SQLError
    from cumulo.server.kivi.keycodec import encode_key
    from cumulo.server.sql.copy import CopyIn

    run(session, "CREATE TABLE ck (a int, b varchar(8), t timestamp, z timestamptz, "
                 "c char(3), PRIMARY KEY (a, b, t, z))")
    lines = "".join(f"{i}\tk{i}\t2024-01-02 03:04:{i % 60:02d}\t2024-01-02 03:04:05+00\t"
                    f"{'ab' if i % 2 else 'abc'}\n" for i in range(1, 3001))
    assert copy_in(session, "COPY ck FROM STDIN", [lines.encode()]) == "COPY 3000"
    assert rows(session, "SELECT c, length(c::text) FROM ck WHERE a = 7 AND b = 'k7' AND "
                         "t = '2024-01-02 03:04:07' AND z = '2024-01-02 03:04:05+00'") == [
        ("ab ", 2)]
    with pytest.raises(SQLError) as e:
        run(session, "INSERT INTO ck VALUES (8, 'k8', '2024-01-02 03:04:08', "
                     "'2024-01-02 03:04:05+00', 'x')")
    assert e.value.sqlstate == "23505"
    with pytest.raises(SQLError) as e:
        copy_in(session, "COPY ck FROM STDIN", [lines.replace("k2999", "k2999-too-long")
                                                .encode()])
    assert e.value.sqlstate == "22001" and "line 2999" in (e.value.where or "")
    # the keys of a batch: the same bytes as encode_key's
    gen = session.simple_query("COPY ck FROM STDIN")
    copy = next(gen).copy_in
    assert isinstance(copy, CopyIn)
    import datetime as _dt
    t0, z0 = _dt.datetime(2020, 1, 1), _dt.datetime(2020, 1, 1, tzinfo=_dt.UTC)
    batch = [(5, "x", t0, z0, "abc"), (-6, "", t0, z0, "abc")]
    assert copy._column_keys(batch, None) == [encode_key(r[:4]) for r in batch]
    with pytest.raises(SQLError):
        copy.fail("done")


@pytest.mark.parametrize("odd", ["none", "null text", "null int", "nan", "short row"])
def test_binary_copy_streamed_in_blocks_loads_the_rows_of_one_block(session, monkeypatch, odd):
    """Binary input converted as it arrives (`CopyIn._stream`, blocks cut at row ends by
    `whole_rows`) loads exactly what the whole input loads: a NULL, a NaN or a bad row
    halfway ends the streaming and the rest takes the per-field parser, with its error."""
    from cumulo.server.errors import SQLError
    from cumulo.server.sql import copy as copy_mod

    monkeypatch.setattr(copy_mod, "BINARY_CHUNK", 3000)
    oids = [T.INT8, T.INT4, T.NUMERIC, T.TEXT, T.TIMESTAMP, T.BOOL]
    t0 = dt.datetime(2024, 1, 1)
    data = [(i, i % 10, Decimal(f"{i}.{i % 100:02d}"), f"n{i}" * (i % 5), t0 + dt.timedelta(
        seconds=i), i % 3 == 0) for i in range(1, 2_001)]
    if odd == "null text":
        data[1_500] = (1_501, 1, Decimal("1.00"), None, t0, True)
    elif odd == "null int":
        data[700] = (701, None, Decimal("1.00"), "x", t0, None)
    elif odd == "nan":
        data[1_200] = (1_201, 1, Decimal("NaN"), "x", t0, True)
    head = b"PGCOPY\n\xff\r\n\x00" + struct.pack("!ii", 0, 0)
    body = encode(data, oids)
    if odd == "short row":
        body = body[:40_000] + struct.pack("!h", 2) + body[40_000:]
    payload = head + body + b"\xff\xff"
    table = "cs_" + odd.replace(" ", "_")
    run(session, f"CREATE TABLE {table} (id bigint PRIMARY KEY, g int, amount numeric, "
                 "note text, ts timestamp, flag boolean)")
    sql = f"COPY {table} FROM STDIN (FORMAT binary)"
    parts = [payload[i:i + 777] for i in range(0, len(payload), 777)]
    if odd == "short row":
        errors = []
        for chunk in (1 << 30, 3000):  # NB: the whole input at the end, then streamed
            monkeypatch.setattr(copy_mod, "BINARY_CHUNK", chunk)
            with pytest.raises(SQLError) as e:
                copy_in(session, sql, parts)
            errors.append((e.value.sqlstate, str(e.value)))
        assert errors[0] == errors[1]
        return
    cuts: list[int | None] = []
    monkeypatch.setattr(copy_mod, "whole_rows", lambda *a: cuts.append(whole_rows(*a)) or cuts[-1])
    assert copy_in(session, sql, parts) == "COPY 2000"
    assert len([c for c in cuts if c]) > 5  # NB: it did stream
    got = rows(session, f"SELECT id, g, amount, note, ts, flag FROM {table} ORDER BY id")
    assert [tuple(r) for r in got] == data or odd == "nan" and \
        str(got[1_200][2]) == "NaN" and got[:1_200] == data[:1_200]
