"""COPY against a throwaway PostgreSQL 15: error messages, CONTEXT lines, atomicity, round trips.

Every case loads the same bytes into the same table on both servers through psycopg and
compares SQLSTATE, message, DETAIL and CONTEXT (`COPY products, line 5002, column price:
" "`), and the table afterwards: a failed COPY leaves it exactly as it was. The round trips
copy a table of the common types out and back in, in text, csv and binary, and compare
the rows on both servers. A COPY'd batch rewritten in part, checkpointed and killed -9
reads back as PostgreSQL 15's after the same statements.
"""

from __future__ import annotations

import datetime as dt
import shutil
import signal
import uuid
from decimal import Decimal

import pg8000.dbapi
import psycopg
import pytest
from psycopg.types.json import Jsonb

from tests.server_process import CumuloServer

DDL = ("CREATE TABLE products (id int PRIMARY KEY, name text, price numeric(10,2), "
       "at timestamp, ok boolean)")
GOOD = "".join(f"{i},item {i},{i}.50,2020-01-02 03:04:05,t\n" for i in range(1, 5001))
QUOTED = "".join(f'{i},"item, {i} ""q""",{i}.50,"2020-01-02 03:04:05",t\n'
                 for i in range(1, 30001))

CASES = {
    "unterminated quote": ("csv", GOOD + '5001,"oops,1.00,2020-01-01,t\n5002,x,1,2020-01-01,t\n'),
    "blank numeric": ("csv", GOOD + "5001,x,1,2020-01-01,t\n5002,y, ,2020-01-01,t\n"),
    "quoted bad numeric": ("csv", GOOD + '5001,"a ""q""",abc,2020-01-01,t\n'),
    "multi-line record then bad": ("csv", '1,"a\nb",1,2020-01-01,t\n2,b,x,2020-01-01,t\n'),
    "bad timestamp": ("csv", "1,a,1,notatime,t\n"),
    "bad boolean": ("csv", "1,a,1,2020-01-01,maybe\n"),
    "missing column": ("csv", "1,a,1\n"),
    # NB: the fields there are convert before the missing one is named (pg8000's own suite)
    "short row with a bad value": ("csv", "x,a\n"),
    "quoted short row with a bad value": ("csv", '1,a,1,2020-01-01,t\n"x",a\n'),
    "text short row with a bad value": ("text", "x\ta\n"),
    "extra column": ("csv", "1,a,1,2020-01-01,t,9\n"),
    "first bad row wins": ("csv", "1,a,1,2020-01-01,t\n2,b,1,bad,t\n3,c,zz,2020-01-01,t\n"),
    "first bad column wins": ("csv", "1,a,zz,bad,maybe\n"),
    "text bad numeric": ("text", "1\ta\tx\t2020-01-01\tt\n"),
    "text escapes then bad": ("text", "1\ta\\tb\t1\t2020-01-01\tt\n2\tb\\\\\t1\t2020-01-01\tno\n"),
    "text missing": ("text", "1\ta\n"),
    "text extra": ("text", "1\ta\t1\t2020-01-01\tt\t5\n"),
    "int out of range": ("csv", "99999999999,a,1,2020-01-01,t\n"),
    "numeric overflow": ("csv", "1,a,123456789012,2020-01-01,t\n"),
    "header counts as a line": ("csv header", "id,name,price,at,ok\n1,a,1,2020-01-01,t\n"
                                "2,b,zz,2020-01-01,t\n"),
    "long value is cut": ("csv", "1,a," + "9" * 200 + "x,2020-01-01,t\n"),
    "bad value after many good": ("text", "".join(f"{i}\tn\t{i}\t2020-01-01\tt\n"
                                                  for i in range(1, 40000)) + "40000\tn\t1\t2020\tt\n"),
    "duplicate key": ("csv", "1,a,1,2020-01-01,t\n1,b,1,2020-01-01,t\n"),
    "key already stored": ("text", "".join(f"{i}\tn\t1\t2020-01-01\tt\n" for i in
                                           range(1, 30000)) + "0\tz\t1\t2020-01-01\tt\n"),
    "good": ("csv", GOOD),
    # quoted csv past the 1 MiB block: read a column at a time while every record is one line
    "quoted blocks then bad": ("csv", QUOTED + '60001,"x",zz,2020-01-01,t\n'),
    "quoted blocks then multi-line then bad": (
        "csv", QUOTED + '60001,"a\nb",1,2020-01-01,t\n60002,b,x,2020-01-01,t\n'),
    "quoted blocks with NULLs and empty strings": (
        "csv", QUOTED + "".join(f'{i},{"" if i % 2 else chr(34) * 2},1,2020-01-01,t\n'
                                for i in range(60001, 60100))),
    "quoted blocks then duplicate": ("csv", QUOTED + '7,"again",1,2020-01-01,t\n'),
    "text empty line": ("text", "1\ta\t1\t2020-01-01\tt\n\n2\tb\t1\t2020-01-01\tt\n"),
    "quoted csv empty line": ("csv", '1,"a",1,2020-01-01,t\n\n2,b,1,2020-01-01,t\n'),
}
OPTIONS = {"csv": " (FORMAT csv)", "text": "", "csv header": " (FORMAT csv, HEADER true)"}


def _load(dsn: str, fmt: str, data: str) -> tuple:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS products")
        conn.execute(DDL)
        conn.execute("INSERT INTO products VALUES (0, 'zero', 0, '2020-01-01', true)")
        outcome: tuple = ("ok",)
        try:
            with conn.cursor() as cur, cur.copy("COPY products FROM STDIN" + OPTIONS[fmt]) as cp:
                cp.write(data.encode())
        except psycopg.Error as e:
            d = e.diag
            outcome = (e.sqlstate, d.message_primary, d.message_detail, d.context)
        table = conn.execute("SELECT count(*), sum(price), max(name), count(name) FROM products").fetchone()
        return outcome, table


@pytest.mark.parametrize("case", list(CASES))
def test_copy_errors_match_postgresql(case, cumulo_server, pg15):
    fmt, data = CASES[case]
    ours = _load(cumulo_server.dsn(), fmt, data)
    theirs = _load(pg15.dsn(), fmt, data)
    assert ours == theirs


ROUND_TRIP_DDL = ("CREATE TABLE rt (id bigint PRIMARY KEY, i2 smallint, i4 int, f8 float8, "
                  "f4 real, n numeric(12,2), t text, v varchar(20), c char(3), b boolean, "
                  "d date, ts timestamp, tz timestamptz, tm time, iv interval, u uuid, "
                  "j jsonb, by bytea, ai int[], at text[])")


def _rt_rows(n: int) -> list[tuple]:
    out = []
    for i in range(n):
        odd = i % 7 == 3
        out.append((
            i, i % 300 - 150, i * 1000, i / 7, float(i % 50) / 4, Decimal(i) / 8,
            None if odd else f"tab\there, quote\" comma, back\\slash {i}\nnew line",
            f"v{i}", ("", "a", "ab", "abc", "é")[i % 5], i % 2 == 0, dt.date(2020, 1, 1) + dt.timedelta(days=i),
            dt.datetime(2021, 2, 3, 4, 5, 6, i % 1000 * 1000),
            dt.datetime(2022, 3, 4, 5, 6, 7, tzinfo=dt.UTC),
            dt.time(i % 24, i % 60), dt.timedelta(days=i % 5, seconds=i),
            uuid.UUID(int=i), Jsonb({"k": i, "s": "x y"}), bytes([i % 256, 0, 255]),
            [i, None, -i], ["a", None, "b,c", '"q"'],
        ))
    return out


def _round_trip(dsn: str, fmt: str, n: int) -> list[tuple]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("SET TimeZone = 'UTC'")
        conn.execute("DROP TABLE IF EXISTS rt, rt2")
        conn.execute(ROUND_TRIP_DDL)
        conn.execute(ROUND_TRIP_DDL.replace("rt (", "rt2 ("))
        with conn.cursor() as cur:
            with cur.copy("COPY rt FROM STDIN") as cp:
                for row in _rt_rows(n):
                    cp.write_row(row)
            opts = {"text": "", "csv": " (FORMAT csv)", "binary": " (FORMAT binary)"}[fmt]
            with cur.copy("COPY rt TO STDOUT" + opts) as cp:
                data = b"".join(bytes(b) for b in cp)
            with cur.copy("COPY rt2 FROM STDIN" + opts) as cp:
                cp.write(data)
        back = conn.execute("SELECT * FROM rt2 ORDER BY id").fetchall()
        assert back == conn.execute("SELECT * FROM rt ORDER BY id").fetchall()
        assert len(back) == n
        return back


@pytest.mark.parametrize("fmt", ["text", "csv", "binary"])
def test_copy_round_trips_all_common_types(fmt, cumulo_server, pg15):
    n = 500
    ours = _round_trip(cumulo_server.dsn(), fmt, n)
    theirs = _round_trip(pg15.dsn(), fmt, n)
    assert ours == theirs


SPELLINGS = ["+5", " 6 ", "007", "-0", "-8", "1_000", "0x1F", "0X1f", "\u0663", "", "1 2", "--1",
             "32768", "-32769", "2147483648", "9223372036854775808", "1.5", "1e3", "-Infinity",
             "nan", "1_0.5", " 5e-3 ", "1e400", "-1e-400", "0e-400", "+inf"]
# float8 spellings of the shapes Arrow's cast reads (and some it must not)
FLOATS = ["5.", "-.5", "1E5", "+1.5e+2", "4.9e-324", "2.4703282292062328e-324",
          "1.7976931348623159e308", "e5", "1e", "1.2.3", "0.30000000000000004441"]


def test_number_spellings_match_postgresql(cumulo_server, pg15):
    """Each spelling COPYed alone into smallint, int, bigint and float8 columns (the text
    format's column parsers: Arrow's cast and int()/float() accept spellings PostgreSQL 15
    refuses, such as 0x1F and 1_000): the same value or the same error on both servers.
    (float8 leaves hexadecimal out: PostgreSQL's strtod reads 0x1F as 31, Cumulo refuses it.)"""
    outcomes = []
    for dsn in (cumulo_server.dsn(), pg15.dsn()):
        got = []
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("DROP TABLE IF EXISTS spell")
            conn.execute("CREATE TABLE spell (s smallint, i int, b bigint, f float8)")
            for col in ("s", "i", "b", "f"):
                for text in SPELLINGS if col != "f" else [
                        t for t in SPELLINGS + FLOATS if "x" not in t.lower()]:
                    try:
                        with conn.cursor() as cur, cur.copy(f"COPY spell ({col}) FROM STDIN") as cp:
                            cp.write(("1\n2\n" + text + "\n").encode())
                    except psycopg.Error as e:  # NB: the table stays empty
                        got.append((e.sqlstate, e.diag.message_primary, e.diag.context))
                        continue
                    got.append(conn.execute(f"DELETE FROM spell RETURNING {col}::text").fetchall())
        outcomes.append(got)
    assert outcomes[0] == outcomes[1]

RESTART_ROWS = 5000  # per COPY: above the bulk thresholds (4,096 keys; 8,192 young objects)

RDDL = ("CREATE TABLE restarted (id bigint PRIMARY KEY, g int, amount numeric(12,2), note text,"
       " ts timestamp, flag boolean)")
RESTART_BEFORE = [RDDL, "CREATE INDEX restarted_g ON restarted (g)"]
RESTART_AFTER = [
    "UPDATE restarted SET amount = amount + 1, note = note || '!' WHERE id % 97 = 0",
    "DELETE FROM restarted WHERE id BETWEEN 4000 AND 4100 OR id % 501 = 7",
    "UPDATE restarted SET g = -g WHERE id IN (1, 5000, 5001, 9999)",
    "INSERT INTO restarted VALUES (50000, 1, -0.00, 'late', '2026-01-01 00:00:00', NULL)",
    "CHECKPOINT",
    "UPDATE restarted SET flag = NOT flag, ts = ts + interval '1 day' WHERE id % 13 = 5",
    "DELETE FROM restarted WHERE id % 1000 = 999",
]
RESTART_READS = [
    "SELECT id, g, amount::text, note, ts::text, flag FROM restarted ORDER BY id",
    "SELECT id, g, amount::text, note FROM restarted WHERE id IN (1, 97, 4050, 5001, 9999, 50000)"
    " ORDER BY id",
    "SELECT count(*), sum(id), sum(amount)::text FROM restarted WHERE g = -1 OR g BETWEEN 3 AND 5",
]


def _restart_text(lo: int) -> bytes:
    return "".join(
        f"{i}\t{i % 10}\t{i * 7 % 100000 / 100:.2f}\tnote {i % 37}"
        f"\t2025-03-{i % 28 + 1:02d} 12:{i % 60:02d}:00.{i % 1000:03d}\t{'tf'[i % 2]}\n"
        for i in range(lo, lo + RESTART_ROWS)).encode()


def _restart_load(conn: psycopg.Connection, binary: bytes) -> None:
    for sql in RESTART_BEFORE:
        conn.execute(sql)
    with conn.cursor().copy("COPY restarted FROM STDIN") as cp:
        cp.write(_restart_text(1))
    with conn.cursor().copy("COPY restarted FROM STDIN (FORMAT BINARY)") as cp:
        cp.write(binary)
    for sql in RESTART_AFTER:
        conn.execute(sql)


def _reads_psycopg(dsn: str) -> list[list[tuple]]:
    with psycopg.connect(dsn) as conn:
        return [conn.execute(q).fetchall() for q in RESTART_READS]


def _reads_pg8000(port: int) -> list[list[tuple]]:
    conn = pg8000.dbapi.connect(user="cumulo", host="127.0.0.1", port=port, database="cumulo")
    try:
        out = []
        for q in RESTART_READS:
            cur = conn.cursor()
            cur.execute(q)
            out.append([tuple(r) for r in cur.fetchall()])
        return out
    finally:
        conn.close()


def test_copied_batch_rewritten_checkpointed_and_killed_reads_as_pg15(pg15):
    """A COPY'd bulk batch (text and binary), rows of it updated and deleted, a checkpoint,
    more writes, and a kill -9: the restarted server reads back what PostgreSQL 15 holds,
    by scan, primary key and secondary index, through psycopg and pg8000. Why: bulk batches
    are appended in one pass under a collector pause that freezes them (`kivi.bulkgc`),
    logged as columns and indexed in bulk; the row path must see them as any rows."""
    with psycopg.connect(pg15.dsn(), autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS restarted, src")
        conn.execute(RDDL.replace(" restarted ", " src "))
        with conn.cursor().copy("COPY src FROM STDIN") as cp:
            cp.write(_restart_text(RESTART_ROWS + 1))
        binary = bytearray()
        with conn.cursor().copy("COPY src TO STDOUT (FORMAT BINARY)") as cp:
            for block in cp:
                binary += block
        conn.execute("DROP TABLE src")
        _restart_load(conn, bytes(binary))
    want = _reads_psycopg(pg15.dsn())
    assert len(want[0]) > 9000 and len(want[1]) == 4
    server = CumuloServer().start()
    try:
        with psycopg.connect(server.dsn(), autocommit=True) as conn:
            _restart_load(conn, bytes(binary))
        assert _reads_psycopg(server.dsn()) == want
        server.stop(signal.SIGKILL)
        server.start()
        assert _reads_psycopg(server.dsn()) == want
        assert _reads_pg8000(server.port) == want
    finally:
        server.stop(signal.SIGKILL)
        shutil.rmtree(server.data_dir, ignore_errors=True)
