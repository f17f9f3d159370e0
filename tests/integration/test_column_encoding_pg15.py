"""Whole-column encoding (COPY TO and result rows), byte for byte against PostgreSQL 15.

COPY TO and the result path encode a batch a column at a time through Arrow
(`pgtypes/vectext.py`, `pgwire/colframe.py`, `sql/copyout.py`): integers,
numerics, booleans, strings, dates and timestamps have column forms, the other
types go value by value. These tests load the same 9,000 rows (more than one
8,192-row batch) into both servers with COPY FROM and compare what comes back:

- COPY TO in text, csv and binary, in a non-UTC TimeZone with summer time, and
  under four DateStyles (which change dates and timestamps, and only in text);
- result rows of `SELECT` in text and binary format, cell by cell as libpq
  hands them over (the bytes of each DataRow field), through psycopg;
- psql's `\\copy ... to` of the same table.

The values: NULLs in every column, negative and zero numbers, the extremes of
each integer type, special floats, numerics of several scales (and NaN, -0.00,
exponents), timestamps with and without fractions and zones, dates far from
now, text needing every escape (tab, newline, carriage return, backslash,
\\b \\f \\v, the delimiter, quotes) and non-ASCII, and arrays.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess

import psycopg
import pytest

DDL = ("CREATE TABLE colenc (id bigint PRIMARY KEY, i2 smallint, i4 int, i8 bigint, f4 real, "
       "f8 float8, n numeric(12,2), nu numeric, t text, v varchar(12), b boolean, d date, "
       "ts timestamp, tz timestamptz, ai int[], at text[])")
ROWS = 9000
TEXTS = ["plain", "", "tab\there", "new\nline", "cr\rhere", "back\\slash", 'quote"d',
         "comma,here", "pipe|here", "\\.", "\\N", "caf\u00e9 \u2603 \U0001F600",
         "bell\b form\f vtab\v", "'single'", " lead and trail ", "NULL"]
NUMERICS = ["0", "-1.5", "12345.67", "0.01", "-0.00", "99999999.99", "NaN", "1e20", "-123.456789",
            "0.000000001", "1.10", "-42"]
FLOATS = ["0", "-0", "1.5", "-2.25", "NaN", "Infinity", "-Infinity", "1e300", "1.7976931348623157e308",
          "5e-324", "0.1", "123456789.125"]
TIMESTAMPS = ["2024-01-02 03:04:05", "2024-07-02 03:04:05.5", "1999-12-31 23:59:59.000001",
              "2000-02-29 12:00:00", "0002-01-01 00:00:00", "9998-12-31 23:59:59.999999",
              "infinity", "-infinity", "1970-01-01 00:00:00", "2024-03-10 02:30:00"]
DATES = ["2024-01-02", "0999-05-06", "infinity", "-infinity", "2000-02-29", "9998-12-31"]
SETTINGS = "SET TimeZone = 'America/New_York'"


def _field(v: str | None) -> str:
    if v is None:
        return "\\N"
    return v.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def _rows() -> bytes:
    """The COPY text of ROWS rows; every column is NULL in some rows."""
    rnd = random.Random(12)
    out = []
    for i in range(1, ROWS + 1):
        def maybe(col: int, v: str, i: int = i) -> str | None:
            return None if (i * 7 + col) % 13 == 0 else v

        t = TEXTS[i % len(TEXTS)] if i % 3 else f"row {i}"
        out.append("\t".join(_field(x) for x in [
            str(i),
            maybe(1, str(rnd.choice([-32768, 32767, 0, i % 600 - 300]))),
            maybe(2, str(rnd.choice([-2**31, 2**31 - 1, -i, i * 1000]))),
            maybe(3, str(rnd.choice([-2**63, 2**63 - 1, -i * 10**12, i]))),
            maybe(4, rnd.choice(FLOATS[:7]) if i % 4 == 0 else str(i / 8)),
            maybe(5, FLOATS[i % len(FLOATS)] if i % 2 else repr(i / 7)),
            maybe(6, f"{rnd.randrange(-10**10, 10**10) / 100:.2f}" if i % 5 else "-0.00"),
            maybe(7, NUMERICS[i % len(NUMERICS)] if i % 4 else str(i * 3 - 5000)),
            maybe(8, t), maybe(9, t[:12]),
            maybe(10, "t" if i % 3 else "f"),
            maybe(11, DATES[i % len(DATES)] if i % 5 == 0 else
                  f"{1900 + i % 200}-{1 + i % 12:02d}-{1 + i % 28:02d}"),
            maybe(12, TIMESTAMPS[i % len(TIMESTAMPS)] if i % 4 == 0 else
                  f"20{i % 30:02d}-{1 + i % 12:02d}-{1 + i % 28:02d} {i % 24:02d}:{i % 60:02d}:"
                  f"{(i * 7) % 60:02d}" + (f".{i % 1000:03d}" if i % 3 == 0 else "")),
            maybe(13, TIMESTAMPS[(i + 1) % 6] + ("+05:30" if i % 2 else "-02")),
            maybe(14, f"{{{i},NULL,{-i}}}"),
            maybe(15, '{a,NULL,"b,c","q\\"x",' + '"' + t.replace("\\", "\\\\").replace('"', '\\"')
                  + '"}'),
        ]))
    return ("\n".join(out) + "\n").encode()


def _load(dsn: str, data: bytes) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(SETTINGS)
        conn.execute("DROP TABLE IF EXISTS colenc")
        conn.execute(DDL)
        with conn.cursor() as cur, cur.copy("COPY colenc FROM STDIN") as cp:
            cp.write(data)


@pytest.fixture(scope="module")
def both(cumulo_server, pg15):
    data = _rows()
    dsns = cumulo_server.dsn(), pg15.dsn()
    for dsn in dsns:
        _load(dsn, data)
    with psycopg.connect(pg15.dsn(), autocommit=True) as conn:
        # PostgreSQL's COPY FROM fills free space in earlier pages, so its heap is not in
        # load order; in key order, as Cumulo's table is, a table's COPY TO compares whole
        conn.execute("CLUSTER colenc USING colenc_pkey")
    yield dsns
    for dsn in dsns:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("DROP TABLE IF EXISTS colenc")


def _copy_out(dsn: str, sql: str, datestyle: str) -> tuple[bytes, int, str]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(SETTINGS)
        conn.execute(f"SET DateStyle = '{datestyle}'")
        with conn.cursor() as cur:
            with cur.copy(sql) as cp:
                blocks = [bytes(b) for b in cp]
            return b"".join(blocks), len(blocks), cur.statusmessage or ""


CASES = [
    ("COPY colenc TO STDOUT", "ISO, MDY"),
    ("COPY (SELECT * FROM colenc ORDER BY id) TO STDOUT (FORMAT csv, HEADER)", "ISO, DMY"),
    ("COPY colenc TO STDOUT (FORMAT binary)", "ISO, MDY"),
    ("COPY colenc (id, d, ts, tz) TO STDOUT", "SQL, DMY"),
    ("COPY colenc (id, d, ts, tz) TO STDOUT (FORMAT csv)", "German"),
    ("COPY colenc (id, d, ts, tz) TO STDOUT (DELIMITER '|')", "Postgres, MDY"),
    ("COPY colenc (id, t, v, at) TO STDOUT (DELIMITER ',', NULL 'NULL')", "ISO, MDY"),
    ("COPY colenc (id, n, ts, b, t) TO STDOUT (FORMAT csv, FORCE_QUOTE *)", "ISO, MDY"),
    ("COPY colenc (id, t, n, nu) TO STDOUT (FORMAT csv, QUOTE '''', ESCAPE '\\', "
     "FORCE_QUOTE (t, nu))", "ISO, MDY"),
]


@pytest.mark.parametrize("sql, datestyle", CASES)
def test_copy_to_matches_postgresql(both, sql, datestyle):
    ours, theirs = (_copy_out(dsn, sql, datestyle) for dsn in both)
    assert ours[1:] == theirs[1:]  # one CopyData per row, the same tag
    if ours[0] != theirs[0]:
        diff = [(a, b) for a, b in zip(ours[0].split(b"\n"), theirs[0].split(b"\n"), strict=False)
                if a != b]
        pytest.fail(f"{len(diff)} lines differ, first: {diff[:3]}")


def _cells(dsn: str, sql: str, fmt: int) -> list[list[bytes | None]]:
    """Every field of every DataRow, as libpq received it."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(SETTINGS)
        res = conn.pgconn.exec_params(sql.encode(), [], result_format=fmt)
        assert res.status == psycopg.pq.ExecStatus.TUPLES_OK, res.error_message
        return [[res.get_value(r, c) for c in range(res.nfields)] for r in range(res.ntuples)]


@pytest.mark.parametrize("fmt", [0, 1])
def test_result_rows_match_postgresql(both, fmt):
    sql = "SELECT * FROM colenc ORDER BY id"
    ours, theirs = (_cells(dsn, sql, fmt) for dsn in both)
    assert len(ours) == len(theirs) == ROWS
    bad = [(i, a, b) for i, (a, b) in enumerate(zip(ours, theirs, strict=True)) if a != b]
    assert not bad, f"{len(bad)} rows differ, first: {bad[:2]}"


def _psql() -> str:
    for path in ("/usr/lib/postgresql/15/bin/psql", shutil.which("psql")):
        if path and os.path.exists(path):
            return path
    pytest.fail("psql is missing: tests/run.sh installs it")


def test_psql_backslash_copy_to_matches(both, tmp_path):
    outs = []
    for k, dsn in enumerate(both):
        path = tmp_path / f"out{k}"
        subprocess.run([_psql(), dsn, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", SETTINGS,
                        "-c", f"\\copy colenc to '{path}' with (format csv)"],
                       check=True, capture_output=True, timeout=120)
        outs.append(path.read_bytes())
    assert outs[0] == outs[1] and outs[0].count(b"\n") >= ROWS
