"""COPY FROM csv quoting against PostgreSQL 15: quotes that open and close inside a field.

PostgreSQL reads a csv field as a toggle (a quote opens a quoted section anywhere, text
after the closing quote goes on in the same field); Python's csv module does not, so
Cumulo reads blocks where the two could differ with PostgreSQL's own state machine. Each
case loads the same bytes on both servers and compares rows (NULL or not) or the error's
SQLSTATE, message and CONTEXT.
"""

from __future__ import annotations

import psycopg
import pytest

BIG = "".join(f'{i},"plain ""quoted"" value, number {i:08d}"\n' for i in range(1, 24001))
# quoted line breaks all through ~1.3 MB: some block of input ends inside a record
LINES = "".join(f'{i},"a\nb\nc\nd\ne {i:06d}"\n' for i in range(2, 60001))

CASES = {
    "quote inside a field": ("", '1,a"b"c\n2,"x""y"\n3,a"b,c"d\n4,""\n5,\n6,"a\nb"\n9,a""b\n'),
    "quote left open": ("", '7,ab"\n'),
    "open on a middle line": ("", '1,x\n2,"ab\n3,c\n'),
    "text after the closing quote": ("", '8,"q"r\n10,"q" \n11,"a"",b"c""\n'),
    "quote after a multi-line field": ("", '1,"a\nb"c\n2,x"y"\n3,bad,z\n'),
    "field count after a mid-field quote": ("", '1,a"b,c"d,e\n'),
    "quoted NULL string is a value": (", NULL 'N'", '1,N\n2,"N"\n3,N"N"\n4,\n'),
    "other quote, escape and delimiter": (
        ", QUOTE '''', ESCAPE '\\', DELIMITER ';'", "1;a'b;c'd\n2;'x\\'y\\\\z\\q'\n3;'p''q'\n"),
    "header then mid-field quote": (", HEADER true", 'id,s\n1,a"b"\n2,zz"\n'),
    "crlf line ends": ("", '1,a"b"\r\n2,"c\r\nd"\r\n'),
    "end marker": ("", '1,a"b"\n\\.\n'),
    "big quoted blocks then a mid-field quote": ("", BIG + '24001,a"b,c"\n24002,q"\n'),
    "a mid-field quote then big quoted blocks": ("", '0,a"b"c\n' + BIG),
    "quoted line breaks across blocks": ("", '1,x\n' + LINES),
    "quoted line breaks across blocks, then a bad value": ("", '1,x\n' + LINES + 'z,"q\n"\n'),
}


def _load(dsn: str, opts: str, data: str) -> tuple:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS csvq")
        conn.execute("CREATE TABLE csvq (id int, s text)")
        try:
            with conn.cursor() as cur, \
                    cur.copy(f"COPY csvq FROM STDIN WITH (FORMAT csv{opts})") as cp:
                cp.write(data.encode())
        except psycopg.Error as e:
            d = e.diag
            return (e.sqlstate, d.message_primary, d.message_detail, d.context)
        return tuple(conn.execute("SELECT id, s, s IS NULL FROM csvq ORDER BY id, s"
                                  " LIMIT 20 OFFSET (SELECT greatest(count(*) - 20, 0) FROM csvq)"
                                  ).fetchall())


@pytest.mark.parametrize("case", list(CASES))
def test_csv_quotes_match_postgresql(case, cumulo_server, pg15):
    opts, data = CASES[case]
    assert _load(cumulo_server.dsn(), opts, data) == _load(pg15.dsn(), opts, data)
