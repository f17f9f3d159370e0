"""COPY FROM csv's FORCE_NOT_NULL and FORCE_NULL against PostgreSQL 15.

FORCE_NOT_NULL reads an unquoted NULL string as that string, FORCE_NULL a quoted one as
NULL (both on a column: NULL exactly when quoted). Each case loads the same bytes on both
servers through psycopg's copy and compares the rows (NULL or not) or the error's
SQLSTATE, message and CONTEXT; the option errors are compared the same way.
"""

from __future__ import annotations

import psycopg
import pytest

CASES = {
    "force not null, empty null string": (
        ", FORCE_NOT_NULL (b)", '1,,\n2,"",""\n3,x,y\n'),
    "force null, empty null string": (
        ", FORCE_NULL (b, c)", '1,,\n2,"",""\n3,x,y\n'),
    "both on one column": (
        ", FORCE_NOT_NULL (b), FORCE_NULL (b)", '1,,\n2,"",\n3,x,""\n'),
    "force null with a NULL string": (
        ", NULL 'N', FORCE_NULL (c)", '1,N,"N"\n2,"N",N\n3,"a""b",""\n'),
    "force not null with a NULL string": (
        ", NULL 'N', FORCE_NOT_NULL (c)", '1,N,N\n2,"N","N"\n'),
    "force not null into an int column": (", FORCE_NOT_NULL (a)", ',x,y\n'),
    "force null on a mid-field quote block": (
        ", FORCE_NULL (b)", '1,a"b"c,""\n2,"",\n3,"x\ny",z\n'),
    "legacy spelling": (" CSV FORCE NOT NULL b, c", "1,,\n"),
    "legacy force null": (" CSV FORCE NULL b", '1,"",\n'),
    "quote-free block, force not null": (", FORCE_NOT_NULL (c)", "1,a,\n2,,\n"),
}

ERRORS = [
    "COPY fnn FROM STDIN WITH (FORMAT text, FORCE_NOT_NULL (b))",
    "COPY fnn FROM STDIN WITH (FORCE_NULL (b))",
    "COPY fnn FROM STDIN WITH (FORMAT binary, FORCE_NULL (b))",
    "COPY fnn TO STDOUT WITH (FORMAT csv, FORCE_NULL (b))",
    "COPY fnn TO STDOUT WITH (FORMAT csv, FORCE_NOT_NULL (b))",
    "COPY fnn FROM STDIN WITH (FORMAT csv, FORCE_NULL b)",
    "COPY fnn FROM STDIN WITH (FORMAT csv, FORCE_NOT_NULL *)",
    "COPY fnn FROM STDIN WITH (FORMAT csv, FORCE_NULL (zz))",
    "COPY fnn (a, b) FROM STDIN WITH (FORMAT csv, FORCE_NULL (c))",
    "COPY fnn (a, b) FROM STDIN WITH (FORMAT csv, FORCE_NOT_NULL (c))",
    "COPY fnn FROM STDIN FORCE NOT NULL b",
]


def _load(dsn: str, copy: str, data: str) -> tuple:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS fnn")
        conn.execute("CREATE TABLE fnn (a int, b text, c text)")
        try:
            with conn.cursor() as cur, cur.copy(copy) as cp:
                if data:
                    cp.write(data.encode())
        except psycopg.Error as e:
            d = e.diag
            return (e.sqlstate, d.message_primary, d.message_detail, d.context)
        return tuple(conn.execute(
            "SELECT a, b, b IS NULL, c, c IS NULL FROM fnn ORDER BY a, b, c").fetchall())


@pytest.mark.parametrize("case", list(CASES))
def test_force_nulls_match_postgresql(case, cumulo_server, pg15):
    opts, data = CASES[case]
    copy = (f"COPY fnn FROM STDIN{opts}" if opts.startswith(" CSV")
            else f"COPY fnn FROM STDIN WITH (FORMAT csv{opts})")
    assert _load(cumulo_server.dsn(), copy, data) == _load(pg15.dsn(), copy, data)


@pytest.mark.parametrize("copy", ERRORS)
def test_force_null_option_errors_match_postgresql(copy, cumulo_server, pg15):
    got = _load(cumulo_server.dsn(), copy, "1,a,b\n")
    assert got == _load(pg15.dsn(), copy, "1,a,b\n")
