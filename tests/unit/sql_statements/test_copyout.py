"""COPY TO's column encoders (`server/sql/copyout.py`) on their own, and through COPY TO."""

from __future__ import annotations

import datetime as dt
import doctest
from decimal import Decimal

from cumulo.server.pgtypes import oids as T
from cumulo.server.pgtypes.text import text_encoder
from cumulo.server.sql import copyout

from .helpers import copy_out, run


def test_doctests():
    result = doctest.testmod(copyout)
    assert result.attempted and not result.failed


def test_fast_paths_agree_with_the_value_encoders():
    cols = {
        T.TIMESTAMP: [dt.datetime(2024, 1, 2, 3, 4, 5), dt.datetime(2024, 1, 2, 3, 4, 5, 500000),
                      dt.datetime(999, 1, 1, 0, 0, 0, 1)],
        T.NUMERIC: [Decimal("1.50"), Decimal("-0.00"), Decimal("1E+3"), Decimal("NaN")],
        T.DATE: [dt.date(2024, 2, 29), dt.date(5, 1, 1)],
        T.INT8: [0, -1, 2**62],
        T.BOOL: [True, False],
    }
    for oid, col in cols.items():
        enc = text_encoder(oid)
        assert copyout.column_strings(col, enc, oid) == list(map(enc, col))
        with_nulls = [None, *col, None]
        assert copyout.column_strings(with_nulls, enc, oid) == [
            None if v is None else enc(v) for v in with_nulls]


def test_csv_quoting_rules():
    vals = ["a", "", None, "x,y", 'q"', "e\\", "\\.", "n\r"]
    assert copyout.csv_column(vals, "", ",", '"', "\\") == [
        "a", '""', "", '"x,y"', '"q\\""', "e\\", "\\.", '"n\r"']
    assert copyout.csv_column(vals, "N", ",", '"', '"', single=True) == [
        "a", "", "N", '"x,y"', '"q"""', "e\\", '"\\."', '"n\r"']
    assert copyout.csv_column(["a", None], "", ",", '"', '"', forced=True) == ['"a"', ""]


def test_copy_to_frames_match_chunks(session):
    run(session, "create table t (a int, b text, c numeric)")
    run(session, "insert into t values (1, 'x\ty', 1.5), (2, null, null), (3, '', -2)")
    for opts in ("", " (format csv, header)", " (format binary)"):
        data, tag = copy_out(session, "copy t to stdout" + opts)
        gen = session.simple_query("copy t to stdout" + opts)
        res = next(gen)
        framed = b"".join(res.copy_out.frames())
        for _ in gen:
            pass
        assert tag == "COPY 3"
        chunks = []
        while framed:
            assert framed[:1] == b"d"
            n = int.from_bytes(framed[1:5], "big")
            chunks.append(framed[5:1 + n])
            framed = framed[1 + n:]
        assert b"".join(chunks) == data and len(chunks) == (4 if opts else 3)


def test_timestamp_text_for_every_second_of_a_day():
    """COPY TO's whole-second timestamps come from a table of the day's clock strings."""
    day = [dt.datetime(2024, 2, 29) + dt.timedelta(seconds=s) for s in range(0, 86_400, 7)]
    assert copyout._timestamps(day) == [v.isoformat(" ") for v in day]
