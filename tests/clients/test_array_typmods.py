"""Array columns keep their element's typmod and declared dimensions, as in PostgreSQL 15.

`varchar(10)[]`, `char(3)[]`, `numeric(5,2)[]` and `timestamp(1)[]` store the
element typmod in atttypmod (14, 7, 327686, 1), so every element is checked or
rounded on the way in (INSERT, UPDATE, COPY), `format_type` / psql's `\\d` /
RowDescription show it, and attndims records the declared `[][]` count. Each
statement runs on Cumulo and on a throwaway PostgreSQL 15 and the outcomes
(rows, or SQLSTATE and message) must be equal.
"""

from __future__ import annotations

import psycopg
import pytest

from tests.clients.oracle_diff import fresh_pg15_db, outcome

DDL = (
    "create table arr (id int primary key, w varchar(10)[], n numeric(5,2)[], c char(3)[],"
    " m int[][], d numeric(5,2)[][], t timestamp(1)[], ch char[], tz timestamptz(0)[][])"
)

# (label, SQL): every statement's outcome is compared between the two servers.
CASES = [
    ("varchar too long", "insert into arr (id, w) values (1, ARRAY['bbbbbbbbbbbbbbbbbbb'])"),
    ("varchar too long, text form", "insert into arr (id, w) values (1, '{ok,bbbbbbbbbbbbbbb}')"),
    ("varchar trailing blanks", "insert into arr (id, w) values (2, ARRAY['abc          '])"),
    ("elements rounded", "insert into arr (id, n, c, d, t, ch, tz) values (3, ARRAY[1.234, 2.345],"
     " ARRAY['a', 'bb', null], '{{1.555,null},{2,3}}',"
     " ARRAY['2020-01-01 10:00:00.37'::timestamp], '{x,y}',"
     " ARRAY[ARRAY['2020-01-01 10:00:00.6+00'::timestamptz]])"),
    ("numeric overflow", "insert into arr (id, n) values (4, array[12345.1])"),
    ("update checked", "update arr set w = array['x', 'yyyyyyyyyyyyyyyyyyyyy'] where id = 2"),
    ("update rounded", "update arr set n = array[9.999] where id = 2"),
    ("char too long", "insert into arr (id, c) values (5, '{abcd}')"),
    ("stored", "select id, w, n, c, d, t, ch, tz, c[1] || '|' from arr order by id"),
    ("catalog", "select attname, atttypid, atttypmod, attndims, format_type(atttypid, atttypmod)"
     " from pg_attribute where attrelid = 'arr'::regclass and attnum > 0 order by attnum"),
    ("information_schema", "select column_name, data_type, udt_name, character_maximum_length,"
     " numeric_precision from information_schema.columns where table_name = 'arr'"
     " order by ordinal_position"),
    ("explicit casts truncate", "select ARRAY['abcdef']::varchar(3)[], '{abcdef,x}'::char(2)[],"
     " ARRAY[1.555]::numeric(3,2)[], '{{1.555}}'::numeric(3,1)[]"),
    ("add column", "alter table arr add column z varchar(4)[][]"),
    ("alter type", "alter table arr alter column w type varchar(20)[]"),
    ("after alter", "select attname, atttypmod, attndims, format_type(atttypid, atttypmod)"
     " from pg_attribute where attrelid = 'arr'::regclass and attname in ('w', 'z')"
     " order by attname"),
    ("view columns", "create view arr_v as select w, m from arr"),
    ("view attndims", "select attname, attndims, atttypmod from pg_attribute"
     " where attrelid = 'arr_v'::regclass order by attnum"),
]


@pytest.fixture(scope="module")
def outcomes(cumulo_server, client_db, pg15) -> dict[str, dict[str, tuple]]:
    got: dict[str, dict[str, tuple]] = {}
    try:
        for target, dsn in (("pg15", fresh_pg15_db(pg15, client_db)),
                            ("cumulo", cumulo_server.dsn(dbname=client_db))):
            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute(DDL)
                got[target] = {label: outcome(conn, sql) for label, sql in CASES}
                cur = conn.execute("select w, n, c, tz from arr limit 0")
                got[target]["rowdescription"] = tuple(
                    (d.name, d.type_code, d.display_size, d.precision, d.scale)
                    for d in cur.description)
                got[target]["copy"] = _copy(conn)
    finally:
        pg15.psql(f"drop database if exists {client_db} with (force)")
    return got


def _copy(conn: psycopg.Connection) -> tuple:
    out = []
    for line in ("10\t{abc,defghijklmnopqrstuv}\t{1.999}\n", "11\t{abc,defgh}\t{1.999}\n"):
        try:
            with conn.cursor().copy("copy arr (id, w, n) from stdin") as cp:
                cp.write(line)
            out.append("ok")
        except psycopg.Error as e:
            out.append((e.sqlstate, e.diag.message_primary))
    out.append(conn.execute("select w, n from arr where id >= 10 order by id").fetchall())
    return tuple(out)


@pytest.mark.parametrize("label", [c[0] for c in CASES] + ["rowdescription", "copy"])
def test_same_as_pg15(outcomes, label):
    assert outcomes["cumulo"][label] == outcomes["pg15"][label]


def test_the_checks_bite(outcomes):
    """The differential cases do exercise errors and rounding (a guard against vacuous equality)."""
    pg = outcomes["pg15"]
    assert pg["varchar too long"][:2] == ("error", "22001")
    assert pg["numeric overflow"][:2] == ("error", "22003")
    assert pg["catalog"][2][1][2:] == (14, 1, "character varying(10)[]")
