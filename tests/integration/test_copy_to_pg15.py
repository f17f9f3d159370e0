"""COPY ... TO STDOUT, byte for byte against a throwaway PostgreSQL 15.

COPY TO encodes a batch a column at a time (`server/sql/copyout.py`): fast
paths per type, escaping and quoting only where a column needs it, and all
the CopyData of a batch framed at once. These tests hold the output to
PostgreSQL's own bytes: the same rows (every common type, NULLs in every
column, the characters text and csv must escape or quote) are loaded into
both servers, and COPY TO's output is compared in text, csv with each of its
options, and binary, through three clients: psycopg's copy API, asyncpg's
`copy_from_query` and psql's `\\copy`. psycopg's `rows()` also checks that
each CopyData message still holds exactly one row.
"""

from __future__ import annotations

import asyncio
import io
import os
import shutil
import struct
import subprocess

import psycopg
import pytest

asyncpg = pytest.importorskip("asyncpg")

DDL = ("CREATE TABLE ct (id bigint PRIMARY KEY, i2 smallint, i4 int, f8 float8, f4 real, "
       "n numeric(12,2), nu numeric, t text, v varchar(20), c char(3), b boolean, d date, "
       "ts timestamp, tz timestamptz, tm time, iv interval, u uuid, j jsonb, by bytea, "
       "ai int[], at text[])")
STRINGS = ["plain", "", "tab\there", "new\nline", "cr\rhere", "back\\slash", 'quote"d',
           "comma,here", "semi;colon", "pipe|here", "\\.", "NULL", "\\N", "x", "caf\u00e9 \u2603",
           "bell\b form\f vtab\v", "'single'", " lead and trail "]
NUMERICS = ["0", "-1.5", "12345.67", "0.01", "-0.00", "99999999.99", "NaN", "1e20", "-123.456789"]
TIMESTAMPS = ["2024-01-02 03:04:05", "2024-01-02 03:04:05.5", "2024-01-02 03:04:05.123456",
              "1999-12-31 23:59:59.000001", "infinity", "-infinity", "0002-01-01 00:00:00",
              "2000-02-29 12:00:00"]
DATES = ["2024-01-02", "0999-05-06", "infinity", "-infinity", "2000-02-29"]
ROWS = 300


def _value_rows() -> list[str]:
    """INSERT ... VALUES rows; every column is NULL in some rows."""
    out = []
    for i in range(1, ROWS + 1):
        def lit(v: str) -> str:
            return "'" + v.replace("'", "''") + "'"

        def maybe(col: int, v: str, i: int = i) -> str:
            return "NULL" if (i + col) % 11 == 0 else v

        s = STRINGS[i % len(STRINGS)]
        out.append("(" + ", ".join([
            str(i), maybe(1, str(i % 300 - 150)), maybe(2, str(i * 1000 - 7)),
            maybe(3, repr(i / 7) if i % 5 else "'1e20'"), maybe(4, str(float(i % 50) / 4)),
            maybe(5, lit(NUMERICS[i % len(NUMERICS)] if i % 9 not in (6, 7) else "1.25")),
            maybe(6, lit(NUMERICS[(i + 3) % len(NUMERICS)])),
            maybe(7, lit(s)), maybe(8, lit(s[:20])), maybe(9, lit(s[:3])),
            maybe(10, "true" if i % 2 else "false"),
            maybe(11, lit(DATES[i % len(DATES)])), maybe(12, lit(TIMESTAMPS[i % len(TIMESTAMPS)])),
            maybe(13, lit(TIMESTAMPS[(i + 1) % 4] + "+02")),
            maybe(14, lit(f"{i % 24:02d}:{i % 60:02d}:07")),
            maybe(15, lit(f"{i % 5} days {i} seconds")),
            maybe(16, lit(f"00000000-0000-0000-0000-{i:012d}")),
            maybe(17, lit(f'{{"k": {i}, "s": "x y"}}')),
            maybe(18, "'\\x%02x00ff'::bytea" % (i % 256)),
            maybe(19, f"ARRAY[{i}, NULL, {-i}]"),
            maybe(20, "ARRAY['a', NULL, 'b,c', '\"q\"', " + lit(s) + "]"),
        ]) + ")")
    return out


def _load(dsn: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("SET TimeZone = 'UTC'")
        conn.execute("DROP TABLE IF EXISTS ct, one")
        conn.execute(DDL)
        conn.execute("INSERT INTO ct VALUES " + ", ".join(_value_rows()))
        conn.execute("CREATE TABLE one (s text)")
        conn.execute("INSERT INTO one VALUES " + ", ".join(
            "(NULL)" if s == "NULL" else "('" + s.replace("'", "''") + "')" for s in STRINGS))


@pytest.fixture(scope="module")
def both(cumulo_server, pg15):
    _load(cumulo_server.dsn())
    _load(pg15.dsn())
    return cumulo_server.dsn(), pg15.dsn()


STATEMENTS = {
    "text": "COPY ct TO STDOUT",
    "text options": "COPY ct TO STDOUT (DELIMITER '|', NULL 'NULL', HEADER)",
    "text control delimiter": "COPY ct (id, t, at) TO STDOUT (DELIMITER E'\\x01')",
    "text colon delimiter": "COPY ct (id, n, ts, tz, tm, iv) TO STDOUT (DELIMITER ':')",
    "csv": "COPY ct TO STDOUT (FORMAT csv)",
    "csv digit quote": "COPY ct (id, i4, n, d, ts) TO STDOUT (FORMAT csv, QUOTE '5', DELIMITER '-')",
    "csv null digit": "COPY ct (id, i2, b) TO STDOUT (FORMAT csv, NULL '0')",
    "csv header": "COPY ct TO STDOUT (FORMAT csv, HEADER true)",
    "csv quote escape": "COPY ct TO STDOUT (FORMAT csv, QUOTE '''', ESCAPE '\\')",
    "csv force quote": "COPY ct TO STDOUT (FORMAT csv, FORCE_QUOTE (t, v, n), NULL 'x')",
    "csv force quote all": "COPY ct TO STDOUT (FORMAT csv, FORCE_QUOTE *, DELIMITER ';')",
    "csv null string": "COPY ct TO STDOUT (FORMAT csv, NULL 'NULL')",
    "csv legacy": "COPY ct TO STDOUT WITH CSV HEADER DELIMITER '|' FORCE QUOTE t",
    "csv one column": "COPY one TO STDOUT (FORMAT csv)",
    "text one column": "COPY one TO STDOUT",
    "binary": "COPY ct TO STDOUT (FORMAT binary)",
    "query csv": "COPY (SELECT id, n * 2 AS twice, upper(t) AS up, d + 1 AS next FROM ct "
                 "WHERE id % 3 = 0 ORDER BY id DESC) TO STDOUT (FORMAT csv, HEADER)",
    "query binary": "COPY (SELECT id, t, n, ts FROM ct ORDER BY id) TO STDOUT (FORMAT binary)",
    "empty": "COPY (SELECT * FROM ct WHERE false) TO STDOUT (FORMAT csv, HEADER)",
    "empty binary": "COPY (SELECT * FROM ct WHERE false) TO STDOUT (FORMAT binary)",
}


def _psycopg(dsn: str, sql: str) -> tuple[bytes, int, str]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("SET TimeZone = 'UTC'")
        with conn.cursor() as cur:
            with cur.copy(sql) as cp:
                blocks = [bytes(b) for b in cp]
            return b"".join(blocks), len(blocks), cur.statusmessage or ""


@pytest.mark.parametrize("case", list(STATEMENTS))
def test_copy_to_bytes_match_postgresql(case, both):
    ours, theirs = (_psycopg(dsn, STATEMENTS[case]) for dsn in both)
    assert ours[0].split(b"\n") == theirs[0].split(b"\n")  # (a diff by line when not)
    assert ours[1:] == theirs[1:]  # one CopyData per row (and per header), the same tag


def test_copy_to_rows_parse_one_message_per_row(both):
    """psycopg's rows() parses each CopyData as one row: the same rows from both servers."""
    got = []
    for dsn in both:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("SET TimeZone = 'UTC'")
            with conn.cursor() as cur:
                with cur.copy("COPY ct (id, t, n, ts, at) TO STDOUT") as cp:
                    got.append(list(cp.rows()))
    assert got[0] == got[1] and len(got[0]) == ROWS


@pytest.mark.parametrize("fmt, opts", [
    ("text", {}), ("csv", {"header": True, "force_quote": ["t"]}), ("binary", {}),
    ("csv", {"delimiter": ";", "null": "-", "quote": "'", "escape": "\\"}),
])
def test_asyncpg_copy_from_query_matches(fmt, opts, both):
    sql = "SELECT * FROM ct ORDER BY id"
    ours, theirs = (_asyncpg_run(dsn, sql, fmt, opts) for dsn in both)
    assert ours == theirs and len(ours) > 1000


def _asyncpg_run(dsn: str, sql: str, fmt: str, opts: dict) -> bytes:
    async def run() -> bytes:
        conn = await asyncpg.connect(dsn)
        try:
            await conn.execute("SET TimeZone = 'UTC'")
            out = io.BytesIO()
            await conn.copy_from_query(sql, output=out, format=fmt, **opts)
            return out.getvalue()
        finally:
            await conn.close()

    return asyncio.run(run())


def _psql() -> str:
    for path in ("/usr/lib/postgresql/15/bin/psql", shutil.which("psql")):
        if path and os.path.exists(path):
            return path
    pytest.fail("psql is missing: tests/run.sh installs it")


@pytest.mark.parametrize("opts", ["", "WITH (FORMAT csv, HEADER)", "WITH (FORMAT binary)"])
def test_psql_backslash_copy_matches(opts, both, tmp_path):
    outs = []
    for k, dsn in enumerate(both):
        path = tmp_path / f"out{k}"
        subprocess.run([_psql(), dsn, "-X", "-q", "-v", "ON_ERROR_STOP=1",
                        "-c", "SET TimeZone = 'UTC'",
                        "-c", f"\\copy ct TO '{path}' {opts}"],
                       check=True, capture_output=True, timeout=120,
                       env={**os.environ, "PGTZ": "UTC"})
        outs.append(path.read_bytes())
    assert outs[0] == outs[1] and len(outs[0]) > 1000


def test_error_in_the_middle_of_copy_to(both):
    """A failing row ends the COPY with the error, and the session goes on, as in PG."""
    outcomes = []
    for dsn in both:
        with psycopg.connect(dsn, autocommit=True) as conn:
            with pytest.raises(psycopg.Error) as info:
                with conn.cursor() as cur:
                    with cur.copy("COPY (SELECT id, 1 / (id - 250) FROM ct ORDER BY id) "
                                  "TO STDOUT (FORMAT csv)") as cp:
                        for _ in cp:
                            pass
            after = conn.execute("SELECT count(*) FROM ct").fetchone()
            outcomes.append((info.value.sqlstate, after))
    assert outcomes[0] == outcomes[1] == ("22012", (ROWS,))


ALTERED = [
    "DROP TABLE IF EXISTS alt, nokey",
    "CREATE TABLE alt (a int PRIMARY KEY, b text, c numeric(6,2), d timestamp)",
    "INSERT INTO alt VALUES (1, 'x\ty', -0.00, '2024-01-02 03:04:05.25'), (2, NULL, 1.5, NULL)",
    "ALTER TABLE alt ADD COLUMN e numeric DEFAULT 'NaN'",
    "ALTER TABLE alt DROP COLUMN b",
    "INSERT INTO alt VALUES (3, 7.25, '1999-12-31 23:59:59.999999', -0.0), (4, NULL, NULL, NULL)",
    "ALTER TABLE alt ADD COLUMN f text",
    "CREATE TABLE nokey (x int, y text)",
    "INSERT INTO nokey VALUES (2, 'b'), (NULL, NULL), (1, 'a\\b')",
]


def test_copy_to_of_altered_and_keyless_tables(both):
    """`COPY t TO` encodes the scan's rows without the SELECT *'s projection (copy.rows_plan):
    rows stored before an ADD or DROP COLUMN, a table without a primary key (its hidden row
    id), a column list and a query come out as PostgreSQL's."""
    statements = ["COPY alt TO STDOUT", "COPY alt TO STDOUT (FORMAT csv, HEADER)",
                  "COPY alt TO STDOUT (FORMAT binary)", "COPY alt (f, a) TO STDOUT",
                  "COPY (SELECT * FROM alt) TO STDOUT", "COPY nokey TO STDOUT",
                  "COPY nokey TO STDOUT (FORMAT binary)"]
    outs = []
    for dsn in both:
        with psycopg.connect(dsn, autocommit=True) as conn:
            for sql in ALTERED:
                conn.execute(sql)
        outs.append([_psycopg(dsn, sql) for sql in statements])
    assert outs[0] == outs[1]


# -- a table whose rows went cold------------------------------------------------------------
# COPY TO and SELECT * of a table whose rows went cold, against a throwaway PostgreSQL 15.
#
# Why: a bare scan of a table reads its cold segments as columns (`VersionStore.column_chunks`)
# and hands them to COPY TO's and the DataRow encoders with timestamps, numerics and dates
# still in their stored form (`pgtypes.coded`); hot rows (updated, inserted, deleted after
# the freeze) merge in by key under the reader's snapshot, and a transaction with its own
# writes reads by rows. `VACUUM` runs a collection, which freezes the settled rows. Every
# common type, NULLs, NaN and infinities, numeric scales, zoned timestamps, arrays and the
# characters text and csv escape or quote are compared byte for byte, row by row (sorted:
# PostgreSQL's heap order is not the key order), through psycopg, asyncpg and psql.

COLD_DDL = ("CREATE TABLE cold_out (id bigint PRIMARY KEY, i4 int, n numeric(12,2), "
            "nu numeric, f8 float8, t text, ts timestamp, tz timestamptz, d date, b boolean, ai int[], "
            "at text[])")
COLD_STRINGS = "ARRAY['plain', '', E'tab\\there', E'new\\nline', E'back\\\\slash', 'quote\"d', " \
               "'comma,here', 'NULL', E'\\\\N', 'caf\u00e9 \u2603', '|pipe', E'\\\\.']"
COLD_LOAD = f"""INSERT INTO cold_out SELECT i,
  CASE WHEN i % 11 = 0 THEN NULL ELSE i * 1000 - 7 END,
  CASE WHEN i % 13 = 0 THEN NULL WHEN i % 17 = 0 THEN -0.00 ELSE (i * 37 % 100000) / 100.0 - 300
    END,
  CASE i % 9 WHEN 0 THEN 'NaN'::numeric WHEN 1 THEN NULL WHEN 2 THEN 1e20 WHEN 3 THEN 'Infinity'
    WHEN 4 THEN -0.000 ELSE i / 7.0 END,
  CASE i % 8 WHEN 0 THEN 'NaN'::float8 WHEN 1 THEN 'Infinity' WHEN 2 THEN '-Infinity'
    WHEN 3 THEN NULL ELSE i / 3.0 END,
  CASE WHEN i % 7 = 0 THEN NULL ELSE ({COLD_STRINGS})[i % 12 + 1] || i END,
  CASE i % 10 WHEN 0 THEN NULL WHEN 1 THEN 'infinity'::timestamp WHEN 2 THEN '-infinity'
    ELSE timestamp '2024-01-01 00:00:00.5' + i * interval '61.25 seconds' END,
  CASE WHEN i % 6 = 0 THEN NULL ELSE timestamptz '2026-03-29 00:30:00+00' + i * interval '7 min'
    END,
  CASE i % 12 WHEN 0 THEN NULL WHEN 1 THEN 'infinity'::date ELSE date '1999-12-25' + i END,
  CASE WHEN i % 5 = 0 THEN NULL ELSE i % 2 = 0 END,
  CASE WHEN i % 4 = 0 THEN NULL ELSE ARRAY[i, NULL, -i] END,
  ARRAY['a', NULL, 'b,c', ({COLD_STRINGS})[i % 12 + 1]]
FROM generate_series(1, 5000) i"""  # NB: > the hot cache, so the rows reach the base and freeze

COLD_STATEMENTS = {
    "text": "COPY cold_out TO STDOUT",
    "text options": "COPY cold_out TO STDOUT (DELIMITER '|', NULL 'NULL', HEADER)",
    "csv force quote": "COPY cold_out TO STDOUT (FORMAT csv, FORCE_QUOTE (t, n), NULL 'x')",
    "csv header": "COPY cold_out TO STDOUT (FORMAT csv, HEADER, DELIMITER ';')",
    "binary": "COPY cold_out TO STDOUT (FORMAT binary)",
    "columns": "COPY cold_out (ts, id, n, d) TO STDOUT (FORMAT csv)",
    "columns binary": "COPY cold_out (nu, ts, d) TO STDOUT (FORMAT binary)",
    "query": "COPY (SELECT * FROM cold_out) TO STDOUT",
}


def _zoned(dsn: str) -> psycopg.Connection:
    conn = psycopg.connect(dsn, autocommit=True)
    conn.execute("SET TimeZone = 'Europe/Berlin'")  # NB: the zoned values cross a DST change
    return conn


@pytest.fixture(scope="module")
def cold(cumulo_server, pg15):
    dsns = cumulo_server.dsn(), pg15.dsn()
    for dsn in dsns:
        with _zoned(dsn) as conn:
            conn.execute("DROP TABLE IF EXISTS cold_out, cold_moved")
            conn.execute(COLD_DDL)
            conn.execute(COLD_LOAD)
            conn.execute("VACUUM")  # NB: Cumulo: a collection freezes the rows
    return dsns


def _copy_rows(conn: psycopg.Connection, sql: str) -> tuple[bytes, int, str]:
    with conn.cursor() as cur:
        with cur.copy(sql) as cp:
            blocks = [bytes(b) for b in cp]
        return b"".join(blocks), len(blocks), cur.statusmessage or ""


def _rows(data: bytes, sql: str) -> list[bytes]:
    """A COPY's rows, sorted (a header line stays first)."""
    if "binary" in sql:
        return sorted(_binary_rows(data))
    lines = data.split(b"\n")
    return lines[:1] + sorted(lines[1:]) if "HEADER" in sql else sorted(lines)


@pytest.mark.parametrize("case", list(COLD_STATEMENTS))
def test_copy_to_of_cold_rows_matches_postgresql(case, cold):
    sql = COLD_STATEMENTS[case]
    ours, theirs = (_copy_rows(_zoned(dsn), sql) for dsn in cold)
    assert _rows(ours[0], sql) == _rows(theirs[0], sql)
    assert ours[1:] == theirs[1:]  # one CopyData per row, the same tag


class _Raw(psycopg.adapt.Loader):
    """Each field as the bytes on the wire (the values' text or binary form)."""

    def load(self, data: bytes) -> bytes:
        return bytes(data)


class _RawBinary(_Raw):
    format = psycopg.pq.Format.BINARY


def _raw(conn: psycopg.Connection) -> psycopg.Connection:
    for name in ("int4", "int8", "numeric", "float8", "text", "timestamp", "timestamptz", "date",
                 "bool", 1007, 1009):  # NB: int4[] and text[] by oid
        conn.adapters.register_loader(name, _Raw)
        conn.adapters.register_loader(name, _RawBinary)
    return conn


def _select(dsn: str, binary: bool) -> list[tuple]:
    with _raw(_zoned(dsn)) as conn:
        return conn.cursor(binary=binary).execute("SELECT * FROM cold_out").fetchall()


@pytest.mark.parametrize("binary", [False, True])
def test_select_star_of_cold_rows_matches_postgresql(binary, cold):
    ours, theirs = (_select(dsn, binary) for dsn in cold)
    assert sorted(map(repr, ours)) == sorted(map(repr, theirs))  # NB: NaN != NaN


def test_asyncpg_reads_cold_rows_as_postgresql(cold):
    async def run(dsn: str) -> tuple[bytes, list]:
        conn = await asyncpg.connect(dsn)
        try:
            await conn.execute("SET TimeZone = 'UTC'")
            out: list[bytes] = []

            async def sink(chunk: bytes) -> None:
                out.append(chunk)
            await conn.copy_from_table("cold_out", output=sink, format="csv")
            rows = await conn.fetch("SELECT id, n, ts, d, ai FROM cold_out")
            return b"".join(out), [tuple(r) for r in rows]
        finally:
            await conn.close()

    ours, theirs = (asyncio.run(run(dsn)) for dsn in cold)
    assert sorted(ours[0].split(b"\n")) == sorted(theirs[0].split(b"\n"))
    assert sorted(map(repr, ours[1])) == sorted(map(repr, theirs[1]))


def test_cursors_portals_and_pg8000_over_cold_rows(cold):
    """A result read by columns, fetched in parts instead: a psycopg named cursor (DECLARE,
    FETCH), asyncpg's cursor (Execute with a row limit), pg8000, and a select list of
    no columns."""
    pg8000 = pytest.importorskip("pg8000.native")

    def run(dsn: str) -> list:
        out: list = []
        with _raw(_zoned(dsn)) as conn:
            conn.autocommit = False
            with conn.cursor("named") as cur:
                cur.execute("SELECT * FROM cold_out")
                out += [cur.fetchmany(7), len(cur.fetchall())]
            conn.rollback()
            out.append(conn.execute("SELECT FROM cold_out").fetchall()[:3])
            out.append(conn.execute("SELECT count(*) FROM (SELECT FROM cold_out) s").fetchone())

        async def cursor() -> list:
            c = await asyncpg.connect(dsn)
            try:
                async with c.transaction():
                    rows = [tuple(r) async for r in c.cursor("SELECT id, t, n FROM cold_out",
                                                             prefetch=300)]
                return sorted(map(repr, rows))
            finally:
                await c.close()
        out.append(asyncio.run(cursor()))
        u = psycopg.conninfo.conninfo_to_dict(dsn)
        c8 = pg8000.Connection(u["user"], host=u["host"], port=int(u["port"]),
                               database=u["dbname"], password=u.get("password"))
        try:
            out.append(sorted(map(repr, c8.run("SELECT id, t, d, i4 FROM cold_out"))))
        finally:
            c8.close()
        return out

    ours, theirs = (run(dsn) for dsn in cold)
    assert len(ours[0]) == 7 and ours[1] == 4993
    assert ours[2:] == theirs[2:] and sorted(ours[0]) != []


def test_psql_copy_of_cold_rows(cold, tmp_path):
    psql = _psql()
    outs = []
    for k, dsn in enumerate(cold):
        path = tmp_path / f"out{k}"
        subprocess.run([psql, dsn, "-X", "-q", "-v", "ON_ERROR_STOP=1",
                        "-c", f"\\copy cold_out TO '{path}' WITH (FORMAT csv, HEADER)"],
                       check=True, capture_output=True, timeout=120,
                       env={**os.environ, "PGTZ": "UTC"})
        outs.append(_rows(path.read_bytes(), "HEADER"))
    assert outs[0] == outs[1] and len(outs[0]) > 5000


def _binary_rows(data: bytes) -> list[bytes]:
    """The rows of a binary COPY, each as its bytes (header and trailer cut off)."""
    rows, at = [], 19
    while True:
        (count,) = struct.unpack_from("!h", data, at)
        if count < 0:
            return rows
        start, at = at, at + 2
        for _ in range(count):
            (n,) = struct.unpack_from("!i", data, at)
            at += 4 + max(n, 0)
        rows.append(data[start:at])


def _reads(conn: psycopg.Connection) -> list:
    """What a reader sees of the changed table: COPY in three formats and SELECT *, each
    sorted (PostgreSQL's heap order moves updated rows to the end)."""
    text = sorted(_copy_rows(conn, "COPY cold_moved TO STDOUT")[0].split(b"\n"))
    csv = sorted(_copy_rows(conn, "COPY cold_moved (id, t, ts, n) TO STDOUT (FORMAT csv)")[0]
                 .split(b"\n"))
    binary = sorted(_binary_rows(_copy_rows(conn, "COPY cold_moved TO STDOUT (FORMAT binary)")[0]))
    rows = sorted(map(repr, _raw(conn).execute("SELECT * FROM cold_moved").fetchall()))
    return [text, csv, binary, rows]


def test_changes_after_the_freeze_and_own_writes_read_as_in_postgresql(cold):
    """Updates and deletes after the freeze (rows hot again inside a segment's range, keys
    killed), inserts past the end; then a transaction's own uncommitted writes, and a
    REPEATABLE READ snapshot that must not see another session's later commit."""
    seen: list[list] = []
    for dsn in cold:
        with _zoned(dsn) as conn, _zoned(dsn) as other:
            conn.execute("CREATE TABLE cold_moved AS SELECT * FROM cold_out")
            conn.execute("ALTER TABLE cold_moved ADD PRIMARY KEY (id)")
            conn.execute("VACUUM")
            conn.execute("UPDATE cold_moved SET t = t || E'\\t!', n = -n, ts = NULL "
                         "WHERE id % 97 = 3")
            conn.execute("DELETE FROM cold_moved WHERE id BETWEEN 2000 AND 2100 OR id % 89 = 0")
            conn.execute("INSERT INTO cold_moved (id, t, n) VALUES (9001, 'late', 1.5), "
                         "(2050, 'back', NULL)")
            out = _reads(conn)
            conn.execute("BEGIN")
            conn.execute("UPDATE cold_moved SET b = NOT b, d = d + 1 WHERE id % 50 = 7")
            conn.execute("DELETE FROM cold_moved WHERE id % 61 = 5")
            conn.execute("INSERT INTO cold_moved (id, at) VALUES (9002, ARRAY['own'])")
            out += _reads(conn)
            conn.execute("ROLLBACK")
            conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
            before = _reads(conn)
            other.execute("UPDATE cold_moved SET i4 = -1 WHERE id % 10 = 1")
            other.execute("DELETE FROM cold_moved WHERE id % 10 = 2")
            assert _reads(conn) == before  # the snapshot holds
            conn.execute("COMMIT")
            out += before + _reads(conn)
            seen.append(out)
            conn.execute("DROP TABLE cold_moved")
    for i, (ours, theirs) in enumerate(zip(*seen, strict=True)):
        assert ours == theirs, i


# -- columns without NULLs (the binary fields built with their lengths in place) ---------------
# A column with no NULL in a batch takes `vectext.framed_binary`: fixed-width types and
# numerics of at most 15 digits get their int32 lengths written beside the values in one
# numpy pass. The columns below hold no NULL, each with the values that decide the form:
# integer extremes, numerics of every digit-group layout (leading and trailing zero groups,
# -0, 15 digits), one column with a value too wide for the fast form and one with NaN
# (the per-value encoder for its whole batch), timestamps before 2000 and with fractions,
# dates before 2000, BC dates, infinite timestamps, timestamptz. Read hot (right after the
# load) and cold (after VACUUM's freeze), by COPY binary, binary DataRows (psycopg) and
# asyncpg.

DENSE_DDL = ("CREATE TABLE dense_out (id bigint PRIMARY KEY, i2 smallint NOT NULL, "
             "i4 int NOT NULL, n numeric(12,2) NOT NULL, nu numeric NOT NULL, nw numeric NOT NULL, "
             "nn numeric NOT NULL, f4 real NOT NULL, f8 float8 NOT NULL, ts timestamp NOT NULL, "
             "d date NOT NULL, dbc date NOT NULL, tsi timestamp NOT NULL, b boolean NOT NULL, "
             "tz timestamptz NOT NULL)")
DENSE_LOAD = """INSERT INTO dense_out SELECT i,
  (ARRAY[-32768, 32767, 0, -1])[i % 4 + 1] + (i % 4 = 2)::int * (i % 1000),
  (ARRAY[-2147483648, 2147483647, 0, 7])[i % 4 + 1] + (i % 4 = 3)::int * i,
  (i * 7919 % 2000000001 - 1000000000) / 100.0,
  (ARRAY[0, -0.000, 1, 10000, 100000000, 0.0001, 0.00001, 12345.6789, -99999999999999,
         0.000000000000001, 1.5, -0.5, 999999999999999, 1000000.00000001, 20000])[i % 15 + 1]
    * (CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END),
  CASE WHEN i = 4321 THEN 1234567890123456789.5 ELSE i / 8.0 END,
  CASE WHEN i = 77 THEN 'NaN'::numeric ELSE i * 3 END,
  i / 4.0, i / 3.0,
  timestamp '1999-12-31 23:59:58' + i * interval '1 hour 1.000125 seconds',
  date '1999-12-25' + i - 3000,
  date '0044-03-15 BC' + i,
  CASE WHEN i = 9 THEN 'infinity'::timestamp ELSE timestamp '2001-02-03 04:05:06' + i * interval '1 day' END,
  i % 3 = 0,
  timestamptz '2026-03-29 00:30:00+00' + i * interval '7 min 0.25 s'
FROM generate_series(1, 5000) i"""


@pytest.fixture(scope="module")
def dense(cumulo_server, pg15):
    dsns = cumulo_server.dsn(), pg15.dsn()
    for dsn in dsns:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("DROP TABLE IF EXISTS dense_out")
            conn.execute(DENSE_DDL)
            conn.execute(DENSE_LOAD)
    return dsns


def _dense_reads(dsn: str) -> list:
    with psycopg.connect(dsn, autocommit=True) as conn:
        data = _copy_rows(conn, "COPY dense_out TO STDOUT (FORMAT binary)")[0]
        rows = _raw(conn).cursor(binary=True).execute("SELECT * FROM dense_out").fetchall()

    async def fetch() -> list:
        c = await asyncpg.connect(dsn)
        try:
            return [tuple(r) for r in await c.fetch(  # NB: asyncpg makes no BC dates
                "SELECT id, i2, i4, n, nu, nw, nn, f4, f8, ts, d, tsi, b, tz FROM dense_out")]
        finally:
            await c.close()
    return [sorted(_binary_rows(data)), sorted(map(repr, rows)),
            sorted(map(repr, asyncio.run(fetch())))]


def test_columns_without_nulls_hot_then_cold_match_postgresql(dense):
    hot = [_dense_reads(dsn) for dsn in dense]
    assert hot[0] == hot[1] and len(hot[0][0]) == 5000
    with psycopg.connect(dense[0], autocommit=True) as conn:
        conn.execute("VACUUM")  # NB: freezes the rows into cold segments
    assert _dense_reads(dense[0]) == hot[1]


# -- filters over cold rows: a mask per column batch (`exec.scan.filtered`) ------------------
# The pushed filter of a scan is evaluated over each batch's columns by the SQL layer's
# vector code (`expr.vectorize`, three-valued logic); what the kernels cannot decide exactly
# (a constant of another kind) runs the row code (`codegen`) over that batch instead.

COLD_FILTERS = [
    "i4 > 2000000",
    "n < 0 OR n IS NULL",
    "NOT (n >= -100.5) AND id % 3 = 0",
    "ts >= '2024-01-02 12:00:00' AND ts < '2024-01-03'",
    "ts = 'infinity' OR d = 'infinity'",
    "tz < '2026-03-30 00:00:00+02'",
    "d BETWEEN '2000-01-10' AND '2000-03-01'",
    "t > 'q' AND b",
    "f8 > 100",
    "f8 = 'NaN' OR f8 < 5",
    "nu > 100 OR nu = 'NaN'",
    "i4 IN (6993, 9993, 123) OR t IN ('plain7', 'x')",
    "b IS NULL",
    "id > 4990",
    "i4 < 0",
]


@pytest.mark.parametrize("where", COLD_FILTERS)
def test_filters_over_cold_rows_match_postgresql(where, cold):
    sql = f"COPY (SELECT * FROM cold_out WHERE {where}) TO STDOUT"
    ours, theirs = (_copy_rows(_zoned(dsn), sql) for dsn in cold)
    assert _rows(ours[0], sql) == _rows(theirs[0], sql)
    assert ours[1:] == theirs[1:]
    sel = f"SELECT id, n, ts, t FROM cold_out WHERE {where}"
    ours, theirs = (sorted(map(repr, _raw(_zoned(dsn)).cursor(binary=True).execute(sel)
                               .fetchall())) for dsn in cold)
    assert ours == theirs


def test_filters_with_parameters_over_cold_rows_match_postgresql(cold):
    """A prepared filter's parameters are read by the vector code at each execution (psycopg
    sends them by the extended protocol; binary results)."""
    sql = "SELECT id, i4, n, ts, d FROM cold_out WHERE i4 > %s AND (ts < %s OR n < %s)"
    args = (1000000, "2024-01-02 00:00:00", -100)
    ours, theirs = (sorted(map(repr, _raw(_zoned(dsn)).cursor(binary=True).execute(sql, args)
                               .fetchall())) for dsn in cold)
    assert ours == theirs and len(ours) > 100
