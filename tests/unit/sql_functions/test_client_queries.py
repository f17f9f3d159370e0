"""Catalog queries real clients send (psql, JDBC, SQLAlchemy, pgbench, asyncpg), run through the
SQL engine against tables created with DDL. The query texts were captured from the clients
talking to PostgreSQL 15 (psql -E, SQLAlchemy's cursor events, pgJDBC's sources)."""

from __future__ import annotations

import pytest

from cumulo.server.sql.engine import SQLEngine
from cumulo.server.txn.embedded import open_embedded

SETUP = [
    "CREATE TABLE p (id serial PRIMARY KEY, name varchar(50) NOT NULL DEFAULT 'x')",
    "CREATE TABLE c (id int8 PRIMARY KEY, p_id int4 REFERENCES p(id) ON DELETE CASCADE, "
    "amount numeric(10,2) CHECK (amount > 0), UNIQUE (p_id, amount))",
    "CREATE INDEX c_amount_desc ON c (amount DESC)",
    "COMMENT ON TABLE p IS 'parents'",
]


@pytest.fixture(scope="module")
def session():
    eng = SQLEngine(open_embedded(None, gc_interval=None))
    s = eng.open_session("cumulo", "cumulo", {})
    for sql in SETUP:
        list(s.simple_query(sql))
    yield s
    s.close()
    eng.close()


def q(session, sql):
    """Returns the rows of one query."""
    res = list(session.simple_query(sql))[-1]
    return [tuple(r) for r in res.fetch()]


def oid_of(session, name):
    return q(session, f"SELECT oid FROM pg_catalog.pg_class WHERE relname = '{name}'")[0][0]


def test_psql_dt(session):
    rows = q(session, """
        SELECT n.nspname as "Schema", c.relname as "Name",
          CASE c.relkind WHEN 'r' THEN 'table' WHEN 'v' THEN 'view' ELSE 'other' END as "Type",
          pg_catalog.pg_get_userbyid(c.relowner) as "Owner"
        FROM pg_catalog.pg_class c
             LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
             LEFT JOIN pg_catalog.pg_am am ON am.oid = c.relam
        WHERE c.relkind IN ('r','p','')
              AND n.nspname <> 'pg_catalog' AND n.nspname !~ '^pg_toast'
              AND n.nspname <> 'information_schema'
          AND pg_catalog.pg_table_is_visible(c.oid)
        ORDER BY 1,2""")
    assert rows == [("public", "c", "table", "cumulo"), ("public", "p", "table", "cumulo")]


def test_psql_describe_indexes(session):
    c = oid_of(session, "c")
    rows = q(session, f"""
        SELECT c2.relname, i.indisprimary, i.indisunique,
          pg_catalog.pg_get_indexdef(i.indexrelid, 0, true),
          pg_catalog.pg_get_constraintdef(con.oid, true), contype
        FROM pg_catalog.pg_class c, pg_catalog.pg_class c2, pg_catalog.pg_index i
          LEFT JOIN pg_catalog.pg_constraint con ON (conrelid = i.indrelid
            AND conindid = i.indexrelid AND contype IN ('p','u','x'))
        WHERE c.oid = '{c}' AND c.oid = i.indrelid AND i.indexrelid = c2.oid
        ORDER BY i.indisprimary DESC, c2.relname""")
    assert rows[0] == ("c_pkey", True, True, "CREATE UNIQUE INDEX c_pkey ON c USING btree (id)",
                       "PRIMARY KEY (id)", "p")
    assert ("c_amount_desc", False, False,
            "CREATE INDEX c_amount_desc ON c USING btree (amount DESC)", None, None) in rows


def test_psql_describe_columns_and_fks(session):
    c, p = oid_of(session, "c"), oid_of(session, "p")
    cols = q(session, f"""
        SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod),
          (SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid, true)
           FROM pg_catalog.pg_attrdef d
           WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum AND a.atthasdef),
          a.attnotnull
        FROM pg_catalog.pg_attribute a
        WHERE a.attrelid = '{p}' AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY a.attnum""")
    assert [r[:2] for r in cols] == [("id", "integer"), ("name", "character varying(50)")]
    assert cols[0][2].startswith("nextval(") and cols[0][3] is True
    fks = q(session, f"""
        SELECT conname, pg_catalog.pg_get_constraintdef(r.oid, true) as condef,
               conrelid::pg_catalog.regclass::text
        FROM pg_catalog.pg_constraint r
        WHERE r.conrelid = '{c}' AND r.contype = 'f' ORDER BY 1""")
    assert fks == [("c_p_id_fkey", "FOREIGN KEY (p_id) REFERENCES p(id) ON DELETE CASCADE", "c")]


def test_jdbc_primary_keys_and_type_cache(session):
    rows = q(session, """
        SELECT result.TABLE_SCHEM, result.TABLE_NAME, result.COLUMN_NAME, result.KEY_SEQ,
               result.PK_NAME
        FROM (SELECT n.nspname AS TABLE_SCHEM, ct.relname AS TABLE_NAME,
                a.attname AS COLUMN_NAME,
                (information_schema._pg_expandarray(i.indkey)).n AS KEY_SEQ,
                ci.relname AS PK_NAME, information_schema._pg_expandarray(i.indkey) AS KEYS,
                a.attnum AS A_ATTNUM
              FROM pg_catalog.pg_class ct
                JOIN pg_catalog.pg_attribute a ON (ct.oid = a.attrelid)
                JOIN pg_catalog.pg_namespace n ON (ct.relnamespace = n.oid)
                JOIN pg_catalog.pg_index i ON ( a.attrelid = i.indrelid)
                JOIN pg_catalog.pg_class ci ON (ci.oid = i.indexrelid)
              WHERE true AND ct.relname = E'c' AND i.indisprimary) result
        WHERE result.A_ATTNUM = (result.KEYS).x
        ORDER BY result.table_name, result.pk_name, result.key_seq""")
    assert rows == [("public", "c", "id", 1, "c_pkey")]
    arr = q(session, """
        SELECT typinput='pg_catalog.array_in'::regproc as is_array, typtype, typname
        FROM pg_catalog.pg_type WHERE pg_type.oid = 1007""")
    assert arr == [(True, "b", "_int4")]


def test_regclass_casts_and_sqlalchemy_probes(session):
    assert q(session, "SELECT 'pg_class'::regclass::oid, 'p'::regclass::text") == [(1259, "p")]
    assert q(session, "SELECT t.oid FROM pg_type t WHERE t.oid = to_regtype('hstore')") == []
    assert q(session, "SELECT pg_catalog.pg_get_serial_sequence('p', 'id')") == [
        ("public.p_id_seq",)]
    assert q(session, "SELECT current_schema(), current_schemas(true)") == [
        ("public", ["pg_catalog", "public"])]


def test_pgbench_partition_probe(session):
    rows = q(session, """
        select o.n, p.partstrat, pg_catalog.count(i.inhparent)
        from pg_catalog.pg_class as c
        join pg_catalog.pg_namespace as n on (n.oid = c.relnamespace)
        cross join lateral (select pg_catalog.array_position(pg_catalog.current_schemas(true),
                                                             n.nspname)) as o(n)
        left join pg_catalog.pg_partitioned_table as p on (p.partrelid = c.oid)
        left join pg_catalog.pg_inherits as i on (c.oid = i.inhparent)
        where c.relname = 'p' and o.n is not null
        group by 1, 2 order by 1 asc limit 1""")
    assert rows == [(2, None, 0)]
