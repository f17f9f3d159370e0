"""COPY FROM's column parsers against PostgreSQL 15: edge values of each type, text and binary.

The text blocks below are loaded into the same table on both servers; each block is
one column shape the column parsers take (ISO timestamps of one width, with 1 to 6
fraction digits or a `T`; dates from year 1 to 9999; numeric(12,2) written at its
scale, negative, zero with a sign, leading zeros) or must leave to the per-value
decoders (mixed widths, 24:00:00, a leap second, values that round). The rows read
back as text must be identical, and so must the binary COPY of PostgreSQL's own rows
loaded back into both. Bad values fail with PostgreSQL's SQLSTATE, message and CONTEXT
line, whichever row of a block they are in.
"""

from __future__ import annotations

import asyncio

import asyncpg
import psycopg

DDL = ("CREATE TABLE cc (id bigint PRIMARY KEY, g int, amount numeric(12,2), note text, "
       "ts timestamp, flag boolean, d date)")
TS = [
    ["2024-01-02 03:04:05", "1999-12-31T23:59:59", "0001-01-01 00:00:01", "1969-12-31 23:59:59",
     "2024-02-29 12:00:00", "9999-12-31 23:59:59"],
    ["2024-01-02 03:04:05.1", "2024-01-02 03:04:05.9"],
    ["2024-01-02 03:04:05.123456", "1900-06-30 00:00:00.000001", "2000-01-01 00:00:00.500000"],
    ["2024-01-02 03:04:05", "2024-01-02 03:04:05.25", "2024-01-01 24:00:00",
     "2024-01-02 03:04:60"],
]
DATES = ["2024-01-02", "0001-01-01", "9999-12-31", "1970-01-01", "2000-02-29", "0999-05-06"]
NUMS = [["12.50", "-0.07", "007.00", "-0.00", "9999999999.99", "0.01"],
        ["1.5", ".5", "-3", " 4.25 ", "1.005", "-2.675"]]
BAD = {
    "day out of range": ("ts", "2023-02-29 00:00:00", "22008"),
    "year zero": ("ts", "0000-01-01 00:00:00", "22008"),
    "minute 60": ("ts", "2024-01-02 03:60:00", "22008"),
    "bad date": ("d", "2024-13-01", "22008"),
    "numeric overflow": ("amount", "99999999999.00", "22003"),
    "two dots": ("amount", "1.0.0", "22P02"),
}
COLUMNS = ["id", "g", "amount", "note", "ts", "flag", "d"]


def _blocks() -> list[str]:
    """Text COPY blocks, one per shape; ids continue across blocks."""
    out, i = [], 0
    shapes = [(ts, DATES, NUMS[0]) for ts in TS] + [(TS[0], DATES, NUMS[1])]
    for ts, dates, nums in shapes:
        lines = []
        for k in range(max(len(ts), len(dates), len(nums))):
            i += 1
            lines.append(f"{i}\t{i % 5 - 2}\t{nums[k % len(nums)]}\tnote {i}\t{ts[k % len(ts)]}\t"
                         f"{'tf'[i % 2]}\t{dates[k % len(dates)]}\n")
        out.append("".join(lines))
    return out


def _load(dsn: str) -> tuple[list, bytes, list]:
    with psycopg.connect(dsn, autocommit=True) as conn, conn.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS cc, cc2")
        cur.execute(DDL)
        cur.execute(DDL.replace("cc (", "cc2 ("))
        for block in _blocks():  # NB: one COPY per block: each is one column shape
            with cur.copy("COPY cc FROM STDIN") as cp:
                cp.write(block.encode())
        text = cur.execute("SELECT id::text, g::text, amount::text, note, ts::text, "
                           "flag::text, d::text FROM cc ORDER BY id").fetchall()
        with cur.copy("COPY cc TO STDOUT (FORMAT BINARY)") as cp:
            binary = b"".join(bytes(b) for b in cp)
        errors = []
        good = "1\t1\t1.00\tx\t2024-01-02 03:04:05\tt\t2024-01-02\n"
        for col, value, _ in BAD.values():
            pos = COLUMNS.index(col)
            fields = good.rstrip("\n").split("\t")
            rows = []
            for r in range(1, 6):
                f = list(fields)
                f[0] = str(1000 + r)
                if r == 4:
                    f[pos] = value
                rows.append("\t".join(f) + "\n")
            try:
                with cur.copy("COPY cc2 FROM STDIN") as cp:
                    cp.write("".join(rows).encode())
                errors.append(("ok",))
            except psycopg.Error as e:
                errors.append((e.sqlstate, e.diag.message_primary, e.diag.context))
        return text, binary, errors


def _load_binary(dsn: str, binary: bytes) -> list:
    with psycopg.connect(dsn, autocommit=True) as conn, conn.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS cc2")
        cur.execute(DDL.replace("cc (", "cc2 ("))
        with cur.copy("COPY cc2 FROM STDIN (FORMAT BINARY)") as cp:
            cp.write(binary)
        return cur.execute("SELECT id::text, g::text, amount::text, note, ts::text, "
                           "flag::text, d::text FROM cc2 ORDER BY id").fetchall()


def test_column_parsers_match_postgresql_text_and_binary(cumulo_server, pg15):
    ours, _, our_errors = _load(cumulo_server.dsn())
    theirs, pg_binary, their_errors = _load(pg15.dsn())
    assert len(theirs) == 6 * 5
    assert ours == theirs
    assert our_errors == their_errors
    assert [e[0] for e in their_errors] == [sqlstate for _, _, sqlstate in BAD.values()]
    assert all(", line 4, column " in e[2] for e in their_errors)
    assert _load_binary(cumulo_server.dsn(), pg_binary) == _load_binary(pg15.dsn(), pg_binary)


NOTES = ["héllo wörld", "", "日本語のテキスト", "x" * 300, "tab\there", "line\nbreak", "back\\slash",
         "emoji \U0001F600", "'quoted'", "end"]


async def _asyncpg_binary(dsn: str) -> tuple:
    """asyncpg's copy_records_to_table (binary COPY): text columns of every shape the
    column-wise binary parser gathers, then the same with a NULL (the per-field parser)
    and with a NUL character (22021)."""
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute("DROP TABLE IF EXISTS cb; CREATE TABLE cb (id bigint, s text, t text)")
        rows = [(i, NOTES[i % len(NOTES)], NOTES[(i * 7) % len(NOTES)]) for i in range(2000)]
        await conn.copy_records_to_table("cb", records=rows)
        await conn.copy_records_to_table("cb", records=[(5000, None, "a"), (5001, "b", "")])
        try:
            await conn.copy_records_to_table("cb", records=[(6000, "a\x00b", "c")])
            err: tuple = ("ok",)
        except asyncpg.PostgresError as e:
            err = (e.sqlstate, e.message)
        got = await conn.fetch("SELECT id, s, t, s IS NULL FROM cb ORDER BY id")
        return [tuple(r) for r in got], err
    finally:
        await conn.close()


def test_asyncpg_binary_text_columns_match_postgresql(cumulo_server, pg15):
    ours = asyncio.run(_asyncpg_binary(cumulo_server.dsn()))
    theirs = asyncio.run(_asyncpg_binary(pg15.dsn()))
    assert len(theirs[0]) == 2002
    assert ours == theirs
