"""Relations' composite row types, seen through SQL as PostgreSQL 15 shows them.

Every table and view has a row type named after it (and an array of it):
pg_class.reltype points at it, pg_type lists both, `'t'::regtype` and
to_regtype resolve the relation's name, and a row type's OID prints back as
the relation (regtype, format_type). System catalogs keep PostgreSQL's own
OIDs (pg_class: 83).
Each statement runs on Cumulo and on the oracle; the outcomes must be equal.
"""

from __future__ import annotations

import psycopg
import pytest

from tests.clients.oracle_diff import fresh_pg15_db, outcome

DDL = ("create table rt_t (a int primary key, b text);"
       " create view rt_v as select a from rt_t;"
       " create schema rt_s; create table rt_s.hidden (x int)")

CASES = [
    "select 'rt_t'::regtype, 'rt_t[]'::regtype, 'public.rt_v'::regtype, 'rt_s.hidden'::regtype",
    "select to_regtype('rt_t'), to_regtype('rt_nope'), to_regtype('rt_s.hidden[]')",
    "select 'pg_class'::regtype::oid, 'information_schema.tables'::regtype::oid,"
    " 83::regtype, 273::regtype, 13427::regtype",
    "select c.relname, t.typname, t.typtype, t.typcategory, t.typrelid = c.oid, t.typlen,"
    " t.typalign, t.typstorage, t.typinput, t.typoutput, t.typreceive, t.typsend,"
    " a.typname, a.typelem = t.oid, a.typcategory, a.typinput, a.typanalyze, a.typsubscript,"
    " t.typowner = c.relowner, t.typnamespace = c.relnamespace"
    " from pg_class c join pg_type t on t.oid = c.reltype join pg_type a on a.oid = t.typarray"
    " where c.relname in ('rt_t', 'rt_v', 'hidden', 'pg_class', 'tables', 'pg_attribute')"
    " order by 1",
    "select relname, reltype = 0 from pg_class where relname in ('rt_t_pkey', 'rt_t') order by 1",
    "select (select reltype from pg_class where relname = 'hidden')::regtype",
    "select c.relname, format_type(c.reltype, null), format_type(t.typarray, -1)"
    " from pg_class c join pg_type t on t.oid = c.reltype"
    " where c.relname in ('rt_t', 'hidden', 'pg_class') order by 1",
    "select 'rt_nope'::regtype",
    "create or replace view rt_v as select a, b from rt_t",
    "select t.typname from pg_class c join pg_type t on t.oid = c.reltype where c.relname = 'rt_v'",
]


@pytest.fixture(scope="module")
def outcomes(cumulo_server, client_db, pg15) -> dict[str, list[tuple]]:
    got: dict[str, list[tuple]] = {}
    try:
        for target, dsn in (("pg15", fresh_pg15_db(pg15, client_db)),
                            ("cumulo", cumulo_server.dsn(dbname=client_db))):
            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute(DDL)
                got[target] = [outcome(conn, sql) for sql in CASES]
    finally:
        pg15.psql(f"drop database if exists {client_db} with (force)")
    return got


@pytest.mark.parametrize("n", range(len(CASES)))
def test_same_as_pg15(outcomes, n):
    assert outcomes["cumulo"][n] == outcomes["pg15"][n]


def test_the_oracle_has_row_types(outcomes):
    """Guards against vacuous equality: the oracle does list six row types."""
    assert len(outcomes["pg15"][3][2]) == 6
