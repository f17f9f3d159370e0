"""Multi-row INSERT ... VALUES of literals (`sql/literalrows.py`) against PostgreSQL 15.

What psycopg2's `execute_values` and literal-rendering loaders send: thousands
of rows of constants in one simple-protocol statement. Cumulo turns the
literals into parameters typed as PostgreSQL types the literals, so every
outcome must be PostgreSQL's: stored values (numeric rounding of `1.5` into
an int column, quotes, NULLs, `-2147483648`, big integers), and the SQLSTATE,
message, detail and position of a bad literal far down the statement, through
ON CONFLICT and RETURNING too. Clients: psycopg2 (`execute_values`, simple
protocol), psycopg (the rendered text through a simple Query) and pg8000.
"""

from __future__ import annotations

import datetime
from typing import Any

import pg8000.native
import psycopg
import psycopg2
import psycopg2.extras
import pytest

from tests.pg15 import PASSWORD

TABLE = ("CREATE TABLE lr (id int PRIMARY KEY, name text, ts timestamp, x numeric(10,2), "
         "i int, b boolean, big bigint)")


def _rows(n: int, start: int = 0) -> list[str]:
    out = []
    for k in range(start, start + n):
        name = "NULL" if k % 7 == 0 else f"'it''s {k}'"
        x = f"-{k}.555" if k % 3 == 0 else f"{k}.125"
        i = "-2147483648" if k == start + 1 else f"{k}.5" if k % 2 else str(-k)
        big = "9223372036854775807" if k == start + 2 else str(k * 1_000_000_007)
        b = "TRUE" if k % 2 else "false"
        ts = "NULL" if k % 5 == 0 else f"'2024-01-{k % 28 + 1:02d} 10:00:{k % 60:02d}'"
        out.append(f"({k}, {name}, {ts}, {x}, {i}, {b}, {big})")
    return out


def _insert(rows: list[str], tail: str = "") -> str:
    return "INSERT INTO lr VALUES " + ", ".join(rows) + tail


def _statements() -> list[str]:
    good = _rows(1500)
    bad = []
    for cell in ("(99999, 'x', NULL, 1, '1.5', NULL, 1)",          # 22P02 at the literal
                 "(99999, 'x', 'notadate', 1, 1, NULL, 1)",         # 22007
                 "(99999, 'x', NULL, 1, 3000000000, NULL, 1)",      # int8 -> int4: 22003
                 "(99999, 'x', NULL, 123456789012, 1, NULL, 1)",    # numeric(10,2): 22003
                 "(99999, 'x', NULL, 1, 1, 'maybe', 1)",            # 22P02 boolean
                 "(99999, 'x', NULL, 1, 1, NULL, 99999999999999999999)",  # numeric -> int8
                 "(5, 'dup', NULL, 1, 1, NULL, 1)"):                # 23505 within the statement
        bad.append(_insert(_rows(1499, 2000) + [cell]))
    return [
        _insert(good),
        _insert(_rows(3, 5000), " ON CONFLICT DO NOTHING RETURNING id, x, i"),
        _insert(_rows(4, 1), " ON CONFLICT (id) DO UPDATE SET name = excluded.name || '!', "
                "x = excluded.x + 1 RETURNING id, name, x, i, big"),
        _insert(["(1, 'a')", "(2, 'b''c')"], " ON CONFLICT (id) DO NOTHING"),
        "INSERT INTO lr (id, i) VALUES (7001, 2.5), (7002, -2.5), (7003, 0.5), (7004, -0.0)",
        "INSERT INTO lr (id, name) VALUES (7005, 1), (7006, 2)",  # int into text: 42804
        "INSERT INTO lr (id, name, i) VALUES (7007, TRUE, 1), (7008, FALSE, 2)",
        "INSERT INTO lr (id, ts, name, x) VALUES " + ", ".join(  # psycopg2's typed literals
            f"({8000 + k}, '2024-03-{k % 28 + 1:02d}'::date, '{k}'::int, '{k}.5'::numeric)"
            for k in range(1500)),
        "INSERT INTO lr (id, ts) VALUES " + ", ".join(
            f"({9000 + k}, '2024-02-{30 if k == 1400 else 1}'::date)" for k in range(1500)),
        *bad,
        "SELECT * FROM lr ORDER BY id",
    ]


def _shaped_statements() -> list[str]:
    """Rows that declare the same types, in statements of several row counts: one plan per
    shape serves them all (`LiteralRows.shape`), errors far down included."""
    def rows(start: int, n: int, bad: int = -1, cell: str = "") -> str:
        return ", ".join(cell if k == start + bad else
                         f"({k}, 'n''{k}', '2024-01-{k % 28 + 1:02d} 10:00', {k}.25, {k % 9})"
                         for k in range(start, start + n))
    head = "INSERT INTO lr (id, name, ts, x, i) VALUES "
    return [
        "CREATE FUNCTION lr_up() RETURNS trigger LANGUAGE plpgsql AS "
        "$$BEGIN NEW.name := upper(NEW.name); RETURN NEW; END$$",
        "CREATE TRIGGER lr_up BEFORE INSERT ON lr FOR EACH ROW EXECUTE FUNCTION lr_up()",
        "ALTER TABLE lr ALTER COLUMN b SET DEFAULT true",
        head + rows(0, 2),
        head + rows(10, 7) + " RETURNING id, name, x, b",
        head + rows(100, 300),
        head + rows(1000, 400, 350, "(1350, 'x', '1x', 1.25, 1)"),          # 22007
        head + rows(2000, 400, 399, "(2399, 'x', '2024-01-01', 1.25, 'y')"),  # 22P02
        head + rows(3000, 400, 250, "(3250, 'x', '2024-01-01', 123456789.25, 1)"),  # 22003
        head + rows(4000, 400, 300, "(1, 'x', '2024-01-01', 1.25, 1)"),       # 23505
        head + rows(0, 5) + " ON CONFLICT (id) DO UPDATE SET i = excluded.i + 100 "
        "RETURNING id, name, i",
        head + rows(5, 3, 0, "(5, 'a', NULL, NULL, NULL)") + " ON CONFLICT DO NOTHING",
        head + rows(5000, 30),
        "INSERT INTO lr (id, big) VALUES (6000, 1), (6001, 3000000000), (6002, 2)",
        "INSERT INTO lr (id, big) VALUES (6003, 3000000000), (6004, 3000000001)",
        "SELECT * FROM lr ORDER BY id",
    ]


def _simple(dsn: str, statements: list[str]) -> list[Any]:
    """Runs each statement through a simple Query (libpq's PQexec) and records its outcome."""
    out: list[Any] = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS lr")
        conn.execute(TABLE)
        pgc = conn.pgconn
        for sql in statements:
            res = pgc.exec_(sql.encode())
            f = res.error_field
            err = f(psycopg.pq.DiagnosticField.SQLSTATE)
            if err is not None:
                out.append((err, f(psycopg.pq.DiagnosticField.MESSAGE_PRIMARY),
                            f(psycopg.pq.DiagnosticField.MESSAGE_DETAIL),
                            f(psycopg.pq.DiagnosticField.STATEMENT_POSITION)))
                continue
            out.append((res.command_status,
                        [tuple(res.get_value(r, c) for c in range(res.nfields))
                         for r in range(res.ntuples)]))
    return out


def _extended(dsn: str, statements: list[str]) -> list[Any]:
    """The statements through the extended protocol without parameters: psycopg's prepared
    statements (named Parse, Bind, Execute) and its pipeline (unnamed), as JDBC sends them."""
    out: list[Any] = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS lr")
        conn.execute(TABLE)
        for k, sql in enumerate(statements):
            try:
                if k % 2:
                    with conn.pipeline():
                        cur = conn.execute(sql)
                else:
                    cur = conn.execute(sql, prepare=True)
                out.append((cur.statusmessage, cur.fetchall() if cur.description else None))
            except psycopg.Error as e:
                out.append((e.sqlstate, e.diag.message_primary, e.diag.statement_position))
        # the same statements again, prepared once and executed twice after DDL
        sql = "INSERT INTO lr (id, name) VALUES (90001, 'a'), (90002, 'b') RETURNING id, name"
        out.append(conn.execute(sql, prepare=True).fetchall())
        conn.execute("DELETE FROM lr WHERE id > 90000")
        conn.execute("ALTER TABLE lr ADD COLUMN extra int DEFAULT 7")
        out.append(conn.execute(sql, prepare=True).fetchall())
        out.append(conn.execute("SELECT id, extra FROM lr WHERE id > 90000").fetchall())
    return out


def _execute_values(dsn: str) -> list[Any]:
    """psycopg2's execute_values (pages of literal rows), then what was stored."""
    conn = psycopg2.connect(dsn)
    conn.autocommit = True
    try:
        cur = conn.cursor()
        cur.execute("DROP TABLE IF EXISTS ev")
        cur.execute("CREATE TABLE ev (id bigint PRIMARY KEY, name text, x numeric(8,3), "
                    "f float8, ok boolean, d date, t timestamptz)")
        data = [(k, None if k % 11 == 0 else f"o'k \"{k}\"", k / 8, k * 0.1, k % 2 == 0,
                 datetime.date(2024, 1, 1) + datetime.timedelta(days=k),
                 datetime.datetime(2024, 5, 1, 12, k % 60, tzinfo=datetime.UTC))
                for k in range(2500)]
        psycopg2.extras.execute_values(cur, "INSERT INTO ev VALUES %s", data, page_size=1000)
        out: list[Any] = [cur.rowcount]
        got = psycopg2.extras.execute_values(
            cur, "INSERT INTO ev VALUES %s ON CONFLICT (id) DO UPDATE SET x = excluded.x * 2 "
            "RETURNING id, x", [(k, "z", k + 0.0005, 0.5, None, None, None) for k in range(2490, 2510)],
            fetch=True)
        out.append(sorted(got))
        try:
            psycopg2.extras.execute_values(cur, "INSERT INTO ev (id, x) VALUES %s",
                                           [(9000 + k, "abc" if k == 1800 else k)
                                            for k in range(2000)], page_size=2000)
        except psycopg2.Error as e:
            out.append((e.pgcode, e.diag.message_primary, e.diag.statement_position))
        cur.execute("SELECT id, name, x, f, ok, d, t FROM ev ORDER BY id")
        out.append(cur.fetchall())
        return out
    finally:
        conn.close()


def _pg8000(port: int, password: str | None) -> list[Any]:
    conn = pg8000.native.Connection("cumulo", host="127.0.0.1", port=port, database="cumulo",
                                    password=password)
    try:
        conn.run("DROP TABLE IF EXISTS p8")
        conn.run("CREATE TABLE p8 (id int PRIMARY KEY, v text, n numeric)")
        rows = ", ".join(f"({k}, 'v''{k}', {k}.{k})" for k in range(1200))
        conn.run(f"INSERT INTO p8 VALUES {rows}")
        return conn.run("SELECT count(*), sum(n), max(v) FROM p8")
    finally:
        conn.close()


@pytest.mark.parametrize("client", ["simple", "shaped", "extended", "execute_values", "pg8000"])
def test_literal_rows_match_pg15(client: str, cumulo_server: Any, pg15: Any) -> None:
    if client == "extended":
        statements = _shaped_statements()[3:]
        assert _extended(cumulo_server.dsn(), statements) == _extended(pg15.dsn(), statements)
    elif client in ("simple", "shaped"):
        statements = _statements() if client == "simple" else _shaped_statements()
        assert _simple(cumulo_server.dsn(), statements) == _simple(pg15.dsn(), statements)
    elif client == "execute_values":
        ours, theirs = _execute_values(cumulo_server.dsn()), _execute_values(pg15.dsn())
        assert ours[-1] and len(ours) == 4
        assert ours == theirs
    else:
        ours = _pg8000(cumulo_server.port, None)  # NB: trust auth
        assert ours == _pg8000(pg15.port, PASSWORD)
