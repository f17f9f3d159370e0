"""Type input and output details a client's own type tests check, against PostgreSQL 15.

- a schema-qualified user type (`'s.r'::regtype`) is that schema's type, not the one of the
  same name on the search path, and prints schema-qualified outside it;
- a composite type of no columns reads `()` as its one value;
- timetz input takes `Z` and zone offsets with seconds (timetz_in's syntax, as time's);
- box[] separates its elements with `;` (pg_type.typdelim), in input and output;
- a minus folds into an integer literal, which is then typed by its value (`- -2147483648`
  is bigint), as PostgreSQL's grammar does;
- array input text casts to an array of a table's row type (`'{"(1)"}'::t[]`), typed `t[]`;
- a bound parameter of an enum type is checked against the type's labels (22P02), in the
  text and the binary format, before any cast (`$1::text`) could pass a bad label on.

Statements compare raw bytes in both formats (typediff); pg8000 and asyncpg check what
their users see.
"""

from __future__ import annotations

import asyncio

import asyncpg
import psycopg
import pytest

from tests.integration.typediff import assert_same_as_pg15, pg8000_outcomes
from tests.pg15 import PASSWORD

STATEMENTS = """
create schema tiof_s
create type tiof_r as range (subtype = text, collation = "C")
create type tiof_s.tiof_r as range (subtype = float8)
create type tiof_c as (foo text, bar int8)
create type tiof_s.tiof_c as (foo text, qux bool)
select 'tiof_s.tiof_r'::regtype::text, 'tiof_r'::regtype::text, 'tiof_s.tiof_c'::regtype::text
select rngsubtype::regtype::text from pg_range where rngtypid = 'tiof_s.tiof_r'::regtype
select attname from pg_attribute a join pg_type t on t.typrelid = a.attrelid where t.oid = 'tiof_s.tiof_c'::regtype and attnum > 0 order by attnum
select '[1.5,2]'::tiof_s.tiof_r::text, '[a,b]'::tiof_r::text
select 'nosuch_schema.tiof_r'::regtype
create type tiof_e as ()
select '()'::tiof_e::text, '(,)'::tiof_c::text
select '()'::tiof_c::text
select '()'::tiof_e
select '10:20:30.000040Z'::timetz, '10:20:30+01:02:03'::timetz, '01:02Z'::timetz
select '{(2,2),(1,1);(5,6),(3,4)}'::box[]
select ('{(2,2),(1,1);(5,6),(3,4)}'::box[])::text, array_to_string('{(2,2),(1,1);(5,6),(3,4)}'::box[], '|')
select array['(1,2),(3,4)'::box, '(5,6),(7,8)'::box]
select '{"(1,2),(3,4)"}'::box[]
select -9223372036854775808, - -9223372036854775808, -(-2147483648), - -2147483647, -(-(5))
select pg_typeof(- -9223372036854775808), pg_typeof(- -2147483648), pg_typeof(-(-(5)))
select -(2147483647 + 1)
create table tiof_t (data text, n int)
select '(foo,1)'::tiof_t
""".strip().splitlines()

# arrays of a table's row type: their binary form embeds the element's OID, a user OID
TEXT_ONLY = """
select '{"(foo,1)","(,)"}'::tiof_t[], array['(foo,2)'::tiof_t], ('{"(bar,3)"}'::tiof_t[])[1]
select '{"(foo,1)"}'::tiof_t[]::text, 'x'::tiof_t[]
select pg_typeof('{"(foo,1)"}'::tiof_t[])
""".strip().splitlines()

DROPS = ["drop schema if exists tiof_s cascade", "drop table if exists tiof_t",
         "drop type if exists tiof_r, tiof_c, tiof_e, tiof_mood cascade"]


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_type_io_matches_pg15(binary, pg15, cumulo_server):
    """Every statement gives PostgreSQL 15's outcome, byte for byte."""
    todo = STATEMENTS if binary else STATEMENTS + TEXT_ONLY
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), todo, binary, drops=DROPS)


def _enum_params(dsn: str, port: int, password: str | None) -> list:
    """A bad label sent for an enum-typed parameter, through psycopg (text and binary),
    asyncpg (binary) and pg8000, then a good one."""
    out: list = []
    with psycopg.connect(dsn, autocommit=True) as c:
        for sql in DROPS:
            c.execute(sql)
        c.execute("create type tiof_mood as enum ('sad', 'ok')")
        oid = c.execute("select 'tiof_mood'::regtype::oid").fetchone()[0]
        for fmt in (0, 1):
            res = c.pgconn.exec_params(b"select $1::text", [b"happy"], [oid], [fmt])
            out.append((res.error_field(psycopg.pq.DiagnosticField.SQLSTATE),
                        res.error_field(psycopg.pq.DiagnosticField.MESSAGE_PRIMARY)))
            res = c.pgconn.exec_params(b"select $1::text", [b"ok"], [oid], [fmt])
            out.append(res.get_value(0, 0))

    async def via_asyncpg() -> list:
        conn = await asyncpg.connect(dsn)
        try:
            got: list = [await conn.fetchval("select $1::tiof_mood::text", "ok")]
            try:
                await conn.fetchval("select $1::tiof_mood::text", "happy")
            except asyncpg.PostgresError as e:
                got.append((e.sqlstate, e.args[0]))
            return got
        finally:
            await conn.close()

    out.append(asyncio.run(via_asyncpg()))
    out.append(pg8000_outcomes(port, password, ["select 'happy'::tiof_mood",
                                                "select array['ok', 'sad']::tiof_mood[]::text"]))
    return out


def test_enum_parameters_are_checked_like_pg15(pg15, cumulo_server):
    want = _enum_params(pg15.dsn(), pg15.port, PASSWORD)
    assert want[0] == (b"22P02", b'invalid input value for enum tiof_mood: "happy"')
    assert _enum_params(cumulo_server.dsn(), cumulo_server.port, None) == want


def _latin9_binary(dsn: str) -> list:
    """Binary-format text and enum parameters, results and COPY TO fields under client_encoding
    LATIN9 (then LATIN1): their bytes are the client encoding's, converted as text-format ones
    are (textrecv, textsend), and a character LATIN1 lacks fails as in text (22P05)."""
    out: list = []
    eur = "\u20ac"
    with psycopg.connect(dsn, autocommit=True) as c:
        for sql in DROPS:
            c.execute(sql)
        c.execute("create type tiof_mood as enum ('x\u00e0', 'foo,bar')")
        c.execute("set client_encoding to latin9")
        oid = c.execute("select 'tiof_mood'::regtype::oid").fetchone()[0]
        pg = c.pgconn
        for sql, typ in ((b"select ascii($1), $1 || '!'", 25), (b"select $1::text", oid)):
            value = (eur if typ == 25 else "x\u00e0").encode("iso8859-15")
            res = pg.exec_params(sql, [value], [typ], [1], result_format=1)
            out.append([res.get_value(0, i) for i in range(res.nfields)])
        with c.cursor().copy("copy (select chr(8364), 7, ('x' || chr(224))::tiof_mood) to stdout "
                             "(format binary)") as copy:
            copy.set_types(["text", "int4", "text"])
            out.append(list(copy.rows()))
        out.append(c.execute("select %b::text, %b", [eur, eur], binary=True).fetchone())
        c.execute("set client_encoding to latin1")
        try:
            with c.cursor().copy("copy (select chr(8364)) to stdout (format binary)") as copy:
                out.append(list(copy.rows()))
        except psycopg.Error as e:
            out.append(e.sqlstate)
    return out


def test_binary_text_parameters_in_client_encoding_like_pg15(pg15, cumulo_server):
    want = _latin9_binary(pg15.dsn())
    assert want[3] == ("\u20ac", "\u20ac") and want[-1] == "22P05"
    assert _latin9_binary(cumulo_server.dsn()) == want
