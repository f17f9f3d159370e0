"""Composite keys built from Arrow columns (`compositekeys`) are byte for byte `encode_key`'s.

A tick stream is keyed by (product text, datetime timestamptz). A key that
differed by one byte from the codec's would hide the row from
`WHERE product = ... AND datetime = ...` and let a later INSERT duplicate
it, so the column encoder is compared with `kivi.keycodec` on random values
and on the edges of each type (negative numbers, empty and non-ASCII
strings, embedded NUL, the first and last microsecond of Python's datetime
range, the epoch), then rows written through the direct API are found by SQL
(psycopg) by key, and a repeated key in a batch or in the table behaves as
the row path does.
"""

from __future__ import annotations

import datetime as dt
import random

import psycopg
import pyarrow as pa
import pytest

import cumulo.driver as cd
from cumulo.server.kivi.keycodec import encode_key
from cumulo.server.pgtypes import oids as T
from cumulo.server.sql.direct.compositekeys import element_keys, key_kinds

UTC = dt.UTC
INTS = [-(1 << 63), -(1 << 31), -256, -1, 0, 1, 255, 256, (1 << 31) - 1, (1 << 63) - 1]
TEXTS = ["", "a", "EURUSD", "ü", "日本語", "emoji 😀", "nul\x00inside", "\x00", "\x00\xff",
         "a\x00", "\x7f", "tab\tnew\nline", "x" * 300]
TS_US = [dt.datetime(1, 1, 1), dt.datetime(1, 1, 1, 0, 0, 0, 1), dt.datetime(1969, 12, 31, 23, 59, 59, 999999),
         dt.datetime(1970, 1, 1), dt.datetime(2000, 2, 29, 12, 0, 0, 500),
         dt.datetime(9999, 12, 31, 23, 59, 59, 999998), dt.datetime.max]


def _rand_text(rnd: random.Random) -> str:
    alphabet = "abcXYZ019 \x00\x01éü€日😀"
    return "".join(rnd.choice(alphabet) for _ in range(rnd.randrange(0, 12)))


def _rand_ts(rnd: random.Random) -> dt.datetime:
    return dt.datetime(1, 1, 1) + dt.timedelta(microseconds=rnd.randrange(
        (dt.datetime.max - dt.datetime(1, 1, 1)) // dt.timedelta(microseconds=1)))


def _arrow(values, typ):
    return pa.chunked_array([values[:3], values[3:]], typ)  # NB: more than one chunk


def _check(columns, types, kinds):
    keys = element_keys([_arrow(v, t) for v, t in zip(columns, types, strict=True)], kinds)
    assert keys is not None
    want = []
    for row in zip(*columns, strict=True):
        vals = tuple(v.replace(tzinfo=UTC) if k == "timestamptz" else v
                     for v, k in zip(row, kinds, strict=True))
        want.append(encode_key(vals))
    assert keys == want


def test_text_timestamptz_keys_equal_the_codec():
    rnd = random.Random(13)
    texts = TEXTS + [_rand_text(rnd) for _ in range(1500)]
    stamps = (TS_US * 200)[:len(TEXTS)] + [_rand_ts(rnd) for _ in range(1500)]
    rnd.shuffle(stamps)
    _check([texts, stamps], [pa.string(), pa.timestamp("us", tz="UTC")],
           ["text", "timestamptz"])
    _check([stamps, texts], [pa.timestamp("us"), pa.large_string()], ["timestamp", "text"])


def test_text_timestamp_int_keys_equal_the_codec():
    rnd = random.Random(29)
    n = 2000
    ints = INTS + [rnd.randrange(-(1 << 63), 1 << 63) for _ in range(n - len(INTS))]
    small = [v for v in INTS if -(1 << 15) <= v < 1 << 15]
    smalls = small + [rnd.randrange(-(1 << 15), 1 << 15) for _ in range(n - len(small))]
    texts = TEXTS + [_rand_text(rnd) for _ in range(n - len(TEXTS))]
    stamps = TS_US + [_rand_ts(rnd) for _ in range(n - len(TS_US))]
    _check([texts, stamps, ints], [pa.string(), pa.timestamp("us"), pa.int64()],
           ["text", "timestamp", "int"])
    _check([smalls, texts, stamps, ints],
           [pa.int16(), pa.string(), pa.timestamp("us", tz="UTC"), pa.int64()],
           ["int", "text", "timestamptz", "int"])


def test_other_timestamp_units_and_zones_match_the_codec():
    """A ns or s column, or one in another zone, is the same instant in the key."""
    stamps = [dt.datetime(2024, 3, 1, 9, 30, 0, 123456, tzinfo=UTC), dt.datetime(1970, 1, 1, tzinfo=UTC)]
    for typ in (pa.timestamp("ns", tz="UTC"), pa.timestamp("us", tz="Europe/Madrid")):
        keys = element_keys([pa.chunked_array([["p", "q"]]), pa.chunked_array([stamps], typ)],
                            ["text", "timestamptz"])
        assert keys == [encode_key(("p", stamps[0])), encode_key(("q", stamps[1]))]


def test_the_row_path_keeps_what_it_decides():
    """NULLs, types the row path casts and kinds without a column encoder give None."""
    text, ts = pa.chunked_array([["a", "b"]]), pa.chunked_array([[0, 1]], pa.timestamp("us"))
    assert element_keys([pa.chunked_array([["a", None]]), ts], ["text", "timestamp"]) is None
    assert element_keys([pa.chunked_array([[1, 2]]), ts], ["text", "timestamp"]) is None
    assert element_keys([text, pa.chunked_array([[0, 1]], pa.timestamp("us", tz="UTC"))],
                        ["text", "timestamp"]) is None  # aware -> naive: the row path converts
    huge = pa.chunked_array([[0, 10**18 * 9]], pa.timestamp("us"))  # beyond year 9999
    assert element_keys([text, huge], ["text", "timestamp"]) is None
    assert key_kinds([T.TEXT, T.NUMERIC], [True, True]) is None
    assert key_kinds([T.TEXT, T.TIMESTAMPTZ], [True, False]) is None  # a typmod converter
    assert key_kinds([T.VARCHAR, T.TIMESTAMPTZ, T.INT4], [True] * 3) == [
        "text", "timestamptz", "int"]


def test_composite_upserts_are_found_by_sql(cumulo_server):
    dsn = cumulo_server.dsn()
    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute("DROP TABLE IF EXISTS d_ckeys")
        c.execute("CREATE TABLE d_ckeys (product text, datetime timestamptz, seq int, "
                  "px double precision, PRIMARY KEY (product, datetime, seq))")
    t0 = dt.datetime(2026, 1, 1, tzinfo=UTC)
    prods = ["EURUSD", "", "ü€", "EURUSD", "AUDJPY", "EURUSD"]
    stamps = [t0, t0, dt.datetime(1, 1, 1, tzinfo=UTC), t0, dt.datetime(1969, 12, 31, tzinfo=UTC), t0]
    seqs = [1, -1, 0, 1, 2, 2]
    conn = cd.connect(dsn)
    t = conn.table("d_ckeys")
    batch = pa.table({"product": prods, "datetime": pa.array(stamps, pa.timestamp("us", tz="UTC")),
                      "seq": pa.array(seqs, pa.int32()), "px": [float(i) for i in range(6)]})
    assert t.upsert(batch) == 5  # (EURUSD, t0, 1) twice: the last row wins
    conn.commit()
    with psycopg.connect(dsn, autocommit=True) as c:
        for p, ts, s, px in ((prods[3], t0, 1, 3.0), ("", t0, -1, 1.0), ("ü€", stamps[2], 0, 2.0),
                             ("AUDJPY", stamps[4], 2, 4.0), ("EURUSD", t0, 2, 5.0)):
            rows = c.execute("SELECT px FROM d_ckeys WHERE product = %s AND datetime = %s "
                             "AND seq = %s", (p, ts, s)).fetchall()
            assert rows == [(px,)], (p, ts, s)
        assert c.execute("SELECT count(*) FROM d_ckeys").fetchone() == (5,)
        # the SQL path sees the direct path's keys as taken
        with pytest.raises(psycopg.errors.UniqueViolation):
            c.execute("INSERT INTO d_ckeys VALUES ('ü€', '0001-01-01 00:00+00', 0, 9)")
    again = pa.table({"product": ["ü€"], "datetime": pa.array([stamps[2]], pa.timestamp("us", tz="UTC")),
                      "seq": pa.array([0], pa.int32()), "px": [7.0]})
    assert t.upsert(again) == 1  # replaces, no second row
    with pytest.raises(cd.IntegrityError) as e:
        t.insert(again)
    assert e.value.sqlstate == "23505"
    conn.rollback()
    assert t.upsert(again) == 1
    conn.commit()
    with psycopg.connect(dsn, autocommit=True) as c:
        assert c.execute("SELECT count(*), sum(px) FROM d_ckeys").fetchone() == (5, 3.0 + 1 + 7 + 4 + 5)
    conn.close()
