"""Catalog queries real clients send (psql, pgbench, JDBC, asyncpg, SQLAlchemy), planned and run
over the pg_catalog virtual tables of `server.sql.pgcatalog`."""

from __future__ import annotations

import dataclasses
import re

import pytest

from cumulo.server.sql.catalog.model import Index

from .harness import DB

PGBENCH_PROBE = """
select o.n, p.partstrat, pg_catalog.count(i.inhparent)
from pg_catalog.pg_class as c
join pg_catalog.pg_namespace as n on (n.oid = c.relnamespace)
cross join lateral (select pg_catalog.array_position(pg_catalog.current_schemas(true), n.nspname))
  as o(n)
left join pg_catalog.pg_partitioned_table as p on (p.partrelid = c.oid)
left join pg_catalog.pg_inherits as i on (c.oid = i.inhparent)
where c.relname = 'pgbench_accounts' and o.n is not null
group by 1, 2 order by 1 asc limit 1"""

PSQL_DT = """
SELECT c.oid, n.nspname, c.relname FROM pg_catalog.pg_class c
LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relname OPERATOR(pg_catalog.~) '^(t)$' COLLATE pg_catalog.default
  AND pg_catalog.pg_table_is_visible(c.oid) ORDER BY 2, 3"""

JDBC_PK = """
SELECT result.TABLE_CAT, result.TABLE_SCHEM, result.TABLE_NAME, result.COLUMN_NAME,
  result.KEY_SEQ, result.PK_NAME
FROM (SELECT NULL AS TABLE_CAT, n.nspname AS TABLE_SCHEM, ct.relname AS TABLE_NAME,
  a.attname AS COLUMN_NAME, (information_schema._pg_expandarray(i.indkey)).n AS KEY_SEQ,
  ci.relname AS PK_NAME, information_schema._pg_expandarray(i.indkey) AS KEYS,
  a.attnum AS A_ATTNUM
  FROM pg_catalog.pg_class ct JOIN pg_catalog.pg_attribute a ON (ct.oid = a.attrelid)
  JOIN pg_catalog.pg_namespace n ON (ct.relnamespace = n.oid)
  JOIN pg_catalog.pg_index i ON ( a.attrelid = i.indrelid)
  JOIN pg_catalog.pg_class ci ON (ci.oid = i.indexrelid)
  WHERE true AND ct.relname = E't' AND i.indisprimary) result
where result.A_ATTNUM = (result.KEYS).x ORDER BY result.table_name, result.pk_name, result.key_seq"""

JDBC_COLUMNS = """
SELECT * FROM (SELECT n.nspname,c.relname,a.attname,a.atttypid,
  row_number() OVER (PARTITION BY a.attrelid ORDER BY a.attnum) AS attnum,
  pg_catalog.pg_get_expr(def.adbin, def.adrelid) AS adsrc
  FROM pg_catalog.pg_namespace n JOIN pg_catalog.pg_class c ON (c.relnamespace = n.oid)
  JOIN pg_catalog.pg_attribute a ON (a.attrelid=c.oid)
  JOIN pg_catalog.pg_type t ON (a.atttypid = t.oid)
  LEFT JOIN pg_catalog.pg_attrdef def ON (a.attrelid=def.adrelid AND a.attnum = def.adnum)
  WHERE c.relkind in ('r','p','v','f','m') and a.attnum > 0 AND NOT a.attisdropped
  AND c.relname LIKE E't') c WHERE true ORDER BY nspname,c.relname,attnum"""


@pytest.fixture(scope="module")
def db() -> DB:
    d = DB()
    pk = Index(16430, "t_pkey", 16384, (1,), unique=True, primary=True)
    d.catalog = dataclasses.replace(d.catalog, indexes=(*d.catalog.indexes, pk))
    return d


def test_pgbench_partition_probe_returns_a_row(db: DB) -> None:
    assert db.rows(PGBENCH_PROBE) == [(2, None, 0)]


def test_psql_describe_lookup(db: DB) -> None:
    assert db.rows(PSQL_DT) == [(16384, "public", "t")]


def test_jdbc_primary_keys(db: DB) -> None:
    assert db.rows(JDBC_PK) == [(None, "public", "t", "a", 1, "t_pkey")]
    assert [c for c, _ in db.cols(JDBC_PK)][:3] == ["table_cat", "table_schem", "table_name"]


def test_jdbc_columns_with_row_number(db: DB) -> None:
    rows = db.rows(JDBC_COLUMNS)
    assert [(r[2], r[3], r[4]) for r in rows] == [("a", 23, 1), ("b", 25, 2), ("c", 1700, 3)]


def test_jdbc_table_type_lookup(db: DB) -> None:
    sql = ("SELECT c.relname FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_description d "
           "ON (c.oid = d.objoid AND d.objsubid = 0 and d.classoid = 'pg_class'::regclass) "
           "WHERE c.relname LIKE 't%' AND c.relnamespace = 2200 ORDER BY 1")
    assert db.rows(sql) == [("t",), ("t_pkey",), ("tv",)]


def test_asyncpg_type_introspection(db: DB) -> None:
    asyncpg_intro = pytest.importorskip("asyncpg.introspection")
    # sqlglot cannot parse `::oid[]`; the statement layer spells it `::_oid` before parsing
    sql = re.sub(r"::(\w+)\[\]", r"::_\1", asyncpg_intro.INTRO_LOOKUP_TYPES_13)
    plan, params = db.plan(sql)
    assert params.oids == [1028]
    rows = [r for b in plan.execute(db.ctx([[1007]])) for r in b]
    by_oid = {r[0]: r for r in rows}
    assert by_oid[1007][2] == "_int4" and by_oid[23][2] == "int4"


def test_sqlalchemy_probes(db: DB) -> None:
    assert db.rows("select pg_catalog.version()")[0][0].startswith("PostgreSQL")
    plan, params = db.plan("SELECT t.oid, typarray FROM pg_type t WHERE t.oid = to_regtype($1)")
    assert [r for b in plan.execute(db.ctx(["hstore"])) for r in b] == []
    assert db.rows("select relname from pg_class where relkind = ANY (ARRAY['v']) "
                   "and relnamespace = 'public'::regnamespace") == [("tv",)]


def test_information_schema_needs_qualification(db: DB) -> None:
    rows = db.rows("select table_name from information_schema.tables "
                   "where table_schema = 'public' order by 1")
    assert ("t",) in rows
    from cumulo.server.errors import UndefinedTable

    with pytest.raises(UndefinedTable):
        db.rows("select * from tables")
