"""COPY FROM csv of typed columns with quoted fields, NULLs and quoted empty strings, against
PostgreSQL 15.

Blocks of one-line csv records are split by Arrow's CSV reader (`copybatch.arrow_csv_block`):
an unquoted field equal to the NULL string is NULL, a quoted one is that string. Each case
loads the same bytes on both servers (enough of them to span several input blocks) and
compares every row, or the error's SQLSTATE, message and CONTEXT (the line number).
"""

from __future__ import annotations

import random

import psycopg
import pytest

COLUMNS = ("id int, big bigint, amount numeric(12,2), day date, at timestamp, note text,"
           " tag varchar(12), flag boolean, ratio float8")


def _field(rng: random.Random, value: str, null: str) -> str:
    """The value, sometimes quoted (always when it holds a quote or a comma, as csv writers
    do: a quote inside an unquoted field is `test_copy_csv_quotes_pg15`'s matter); sometimes
    NULL (the NULL string, unquoted)."""
    roll = rng.random()
    if roll < 0.08:
        return null
    if roll < 0.3 or '"' in value or "," in value:  # NB: as a csv writer quotes
        return '"' + value.replace('"', '""') + '"'
    return value


def _rows(count: int, null: str = "", seed: int = 7) -> str:
    rng = random.Random(seed)
    words = ["plain", "comma, inside", 'a "quote"', "", "naïve ünïcode", "N", " spaced "]
    out = []
    for i in range(1, count + 1):
        note = rng.choice(words)
        # NB: a text field that is empty or equal to the NULL string must be quoted to be a
        # value; unquoted it is NULL on both servers, which the comparison covers too
        fields = [
            str(i),
            _field(rng, str(rng.randrange(-2**62, 2**62)), null),
            _field(rng, f"{rng.randrange(-10**9, 10**9) / 100:.2f}", null),
            _field(rng, f"{rng.randrange(1990, 2030)}-{rng.randrange(1, 13):02d}-"
                        f"{rng.randrange(1, 29):02d}", null),
            _field(rng, f"2024-0{rng.randrange(1, 10)}-1{rng.randrange(0, 10)} "
                        f"{rng.randrange(0, 24):02d}:{rng.randrange(0, 60):02d}:07.25", null),
            _field(rng, note, null) if note not in ("", null) or rng.random() < 0.5
            else '"' + note + '"',
            _field(rng, rng.choice(["x", "yy", "a,b", 'q"'])[:12], null),
            _field(rng, rng.choice(["t", "f", "true", "no"]), null),
            _field(rng, rng.choice(["1.5", "-2e3", "0.1", "NaN", "Infinity"]), null),
        ]
        out.append(",".join(fields) + "\n")
    return "".join(out)


BIG = _rows(30000)
# NB: without a quote character a csv block is split as text is; its NULLs still count
UNQUOTED = "".join(f"{i},{i * 7 if i % 3 else ''},{i}.25,,,{'' if i % 5 else 'w'},t,,\n"
                   for i in range(1, 20001))
CASES = {
    "unquoted with NULLs": ("", UNQUOTED),
    "unquoted with NULLs, then a bad value": ("", UNQUOTED + "20001,x,1,,,,,,\n"),
    "mixed quoted and NULL fields": ("", BIG),
    "NULL string N": (", NULL 'N'", _rows(3000, null="N", seed=11)),
    "quoted empty string is a value, unquoted empty is NULL": ("", '1,,,,,"",,,\n2,,,,,,"",,\n'),
    # NB: the last field of the data, unquoted and empty right after a quoted one (pgJDBC's
    # CopyManager test): Arrow read it as "" unless the line is ended
    "unquoted empty last field after a quoted one": ("", '1,2,3.00,,,"n","t","t",\n'
                                                         '2,2,3.00,,,"n","t","t",\n'),
    "bad integer deep in a quoted block": ("", BIG + '30001,"12x",1.00,2020-01-01,,,,,\n'),
    "bad date in a quoted field": ("", '1,2,"3.00","2020-13-01",,"a",,,\n'),
    "varchar too long, quoted": ("", '1,2,3.00,,,,"abcdefghijklmnop",,\n'),
    "numeric out of range": ("", '1,2,"12345678901.00",,,,,,\n'),
    "short record": ("", '1,2,"3"\n'),
}


def _load(dsn: str, opts: str, data: str) -> tuple:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS csvt")
        conn.execute(f"CREATE TABLE csvt ({COLUMNS})")
        try:
            with conn.cursor() as cur, \
                    cur.copy(f"COPY csvt FROM STDIN WITH (FORMAT csv{opts})") as cp:
                for at in range(0, len(data), 1 << 16):
                    cp.write(data[at:at + (1 << 16)].encode())
        except psycopg.Error as e:
            d = e.diag
            return (e.sqlstate, d.message_primary, d.message_detail, d.context)
        return tuple(conn.execute(
            "SELECT id, big, amount, day, at, note, note IS NULL, tag, flag, ratio::text"
            " FROM csvt ORDER BY id").fetchall())


@pytest.mark.parametrize("case", list(CASES))
def test_typed_csv_matches_postgresql(case, cumulo_server, pg15):
    opts, data = CASES[case]
    mine = _load(cumulo_server.dsn(), opts, data)
    theirs = _load(pg15.dsn(), opts, data)
    assert len(mine) == len(theirs)
    assert mine == theirs


EMPTY_LINES = {
    "text": "x\ty\n\nz\tw\n",
    "csv": "x,y\n\nz,w\n",
    "quoted csv": 'x,"y"\n\nz,w\n',
    "quoted csv, empty last line": 'x,"y"\nz,w\n\n',
    "text, empty first line": "\nx\ty\n",
}


@pytest.mark.parametrize("case", list(EMPTY_LINES))
def test_empty_line_of_a_text_table_matches_postgresql(case, cumulo_server, pg15):
    """An empty line is a row of one empty field: PostgreSQL says the second column's data is
    missing (22P04). Arrow reads it as a row of empty fields, which must not get through."""
    fmt = "text" if case.startswith("text") else "csv"

    def load(dsn: str) -> tuple:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("DROP TABLE IF EXISTS el")
            conn.execute("CREATE TABLE el (a text, b text)")
            try:
                with conn.cursor() as cur, cur.copy(f"COPY el FROM STDIN (FORMAT {fmt})") as cp:
                    cp.write(EMPTY_LINES[case].encode())
            except psycopg.Error as e:
                return (e.sqlstate, e.diag.message_primary, e.diag.context)
            return tuple(conn.execute("SELECT a, b FROM el ORDER BY a, b").fetchall())

    assert load(cumulo_server.dsn()) == load(pg15.dsn())
