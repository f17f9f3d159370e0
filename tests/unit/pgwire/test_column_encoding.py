"""Whole-column encoders (`pgtypes/vectext.py`, `pgwire/colframe.py`, `pgwire/batchenc.py`)
give exactly the bytes of the per-value encoders they stand in for.

The column forms are separate code from the value encoders (`text.text_encoder`,
`binary.binary_encoder`); these tests hold them to the same output over seeded
random values of every type with a column form, the edges of each (integer
extremes, numeric scales and exponents, -0.00, NaN, timestamps from year 2 to
9998, with and without fractions, narrow and wide day ranges), NULLs, and types
without a column form; then whole DataRow batches against `messages.append_rows`.
"""

from __future__ import annotations

import datetime as dt
import doctest
import random
from decimal import Decimal

import pytest

from cumulo.server.pgtypes import oids as T
from cumulo.server.pgtypes import vectext
from cumulo.server.pgtypes.binary import binary_encoder
from cumulo.server.pgtypes.codecs import column_encoders
from cumulo.server.pgtypes.text import text_encoder
from cumulo.server.pgwire import batchenc, colframe
from cumulo.server.pgwire.messages import append_rows
from cumulo.server.sql import copyout


@pytest.mark.parametrize("module", [vectext, colframe, batchenc, copyout])
def test_doctests(module):
    assert doctest.testmod(module).failed == 0


def _columns() -> dict[int, list]:
    rnd = random.Random(7)
    stamp = dt.datetime(2, 1, 1)
    wide = [stamp + dt.timedelta(microseconds=rnd.randrange(9996 * 365 * 86400 * 10**6))
            for _ in range(800)]
    base = dt.datetime(2024, 2, 27, 23, 59, 58)
    narrow = [base + dt.timedelta(seconds=rnd.randrange(5 * 86400)) for _ in range(800)]
    decimals = [Decimal(rnd.randrange(-10**12, 10**12)).scaleb(-rnd.randrange(8))
                for _ in range(800)]
    decimals += [Decimal(x) for x in ("0.00", "-0.00", "1E+4", "0E-8", "NaN", "-12.5")]
    return {
        T.INT2: [rnd.randint(-2**15, 2**15 - 1) for _ in range(300)] + [-2**15, 2**15 - 1],
        T.INT4: [rnd.randint(-2**31, 2**31 - 1) for _ in range(300)],
        T.INT8: [rnd.randint(-2**63, 2**63 - 1) for _ in range(300)] + [-2**63, 0],
        T.OID: [rnd.randint(0, 2**32 - 1) for _ in range(300)],
        T.BOOL: [rnd.random() < 0.5 for _ in range(300)],
        T.TEXT: ["a", "", "caf\u00e9 \u2603", "tab\there", "x" * 300] * 20,
        T.NUMERIC: decimals,
        T.TIMESTAMP: wide + narrow + [n.replace(microsecond=0) for n in wide[:50]]
        + [dt.datetime(9998, 12, 31, 23, 59, 59, 999999), dt.datetime(2, 1, 1)],
        T.DATE: [w.date() for w in wide],
        T.FLOAT8: [1.5, -0.0, float("nan"), float("inf"), 1e300, 0.1],
        T.INTERVAL: [dt.timedelta(days=1, seconds=5), dt.timedelta(0)],
    }


@pytest.mark.parametrize("oid", list(_columns()))
def test_column_forms_match_the_value_encoders(oid):
    col = _columns()[oid]
    for values in (col, [None, *col[:40], None, *col[40:], None], [None, None]):
        text, send = text_encoder(oid), binary_encoder(oid)
        want_text = [None if v is None else text(v) for v in values]
        want_send = [None if v is None else send(v) for v in values]
        assert vectext.text_array(values, oid, text).to_pylist() == want_text
        assert vectext.binary_array(values, oid, send).to_pylist() == want_send


def test_non_iso_datestyle_takes_the_value_encoder():
    day = [dt.date(2024, 1, 2)]
    assert vectext.text_array(day, T.DATE, lambda v: "02/01/2024", iso=False).to_pylist() == [
        "02/01/2024"]


def test_data_rows_match_row_by_row_encoding():
    cols = _columns()
    oids = [T.INT8, T.TEXT, T.NUMERIC, T.TIMESTAMP, T.BOOL, T.FLOAT8, T.INTERVAL]
    n = 300
    rows = [tuple(None if (i + j) % 7 == 0 else cols[o][i % len(cols[o])]
                  for j, o in enumerate(oids)) for i in range(n)]
    for formats in ([0] * 7, [1] * 7, [0, 1, 0, 1, 0, 1, 0]):
        encoders = column_encoders(oids, formats)
        ours, want = bytearray(), bytearray()
        assert batchenc.append_batch(ours, rows, encoders) == n
        append_rows(want, rows, list(encoders))
        assert ours == want
    keep = [3, 0]
    encoders = column_encoders([oids[k] for k in keep], [0, 1])
    ours, want = bytearray(), bytearray()
    batchenc.append_batch(ours, rows, encoders, keep=keep)
    append_rows(want, [tuple(r[k] for k in keep) for r in rows], list(encoders))
    assert ours == want
