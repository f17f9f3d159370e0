"""Index operator classes against a throwaway PostgreSQL 15 (issue 16, Django item 3).

`CREATE INDEX … (col varchar_pattern_ops)` (Django's `_like` index) keeps its
class: pg_index.indclass, pg_get_indexdef and psql's \\d show it as PostgreSQL
does; a default class named explicitly is omitted, as PostgreSQL's deparse
does; an unknown class is 42704 and a class for another type 42804. Django's
own constraint introspection query finds the `_like` index with its column.
Checked through psycopg and psql.
"""

from __future__ import annotations

import subprocess

import psycopg

SETUP = [
    "drop table if exists opc_t",
    "create table opc_t (id int primary key, a varchar(10), b text, c int, d char(3))",
    "create index opc_t_a_like on opc_t (a varchar_pattern_ops)",
    "create index opc_t_b_like on opc_t (b text_pattern_ops desc, a, lower(b) text_pattern_ops)",
    "create index opc_t_d on opc_t (d bpchar_pattern_ops)",
    "create index opc_t_a2 on opc_t (a text_ops)",
    "create index opc_t_b2 on opc_t (b varchar_pattern_ops)",
    "create index opc_t_c on opc_t (c int4_ops)",
    "insert into opc_t values (1, 'abc', 'abd', 1, 'x'), (2, 'xyz', 'ab', 2, 'y')",
]
ERRORS = [
    "create index opc_bad1 on opc_t (c text_pattern_ops)",
    "create index opc_bad2 on opc_t (c foo_ops)",
    "create index opc_bad3 on opc_t (c int8_ops)",
]
QUERIES = [
    "select indexrelid::regclass::text, indkey::text, indclass::text, indexprs is not null"
    " from pg_index where indrelid = 'opc_t'::regclass order by 1",
    "select indexrelid::regclass::text, pg_get_indexdef(indexrelid), pg_get_indexdef(indexrelid, 1, false)"
    " from pg_index where indrelid = 'opc_t'::regclass order by 1",
    "select o.opcname, o.opcdefault, o.opcintype::regtype::text from pg_index i,"
    " unnest(i.indclass) k(c) join pg_opclass o on o.oid = k.c"
    " where i.indexrelid = 'opc_t_a_like'::regclass",
    "select id from opc_t where a like 'ab%' and b like 'ab%' order by id",
    # Django 5.2's DatabaseIntrospection.get_constraints, its index half
    """SELECT indexname, array_agg(attname ORDER BY arridx), indisunique, indisprimary,
        array_agg(ordering ORDER BY arridx), amname, exprdef
    FROM (
        SELECT c2.relname as indexname, idx.*, attr.attname, am.amname,
            CASE WHEN idx.indexprs IS NOT NULL THEN pg_get_indexdef(idx.indexrelid) END AS exprdef,
            CASE am.amname WHEN 'btree' THEN
                CASE (option & 1) WHEN 1 THEN 'DESC' ELSE 'ASC' END END as ordering
        FROM (SELECT * FROM pg_index i, unnest(i.indkey, i.indoption)
              WITH ORDINALITY koi(key, option, arridx)) idx
        LEFT JOIN pg_class c ON idx.indrelid = c.oid
        LEFT JOIN pg_class c2 ON idx.indexrelid = c2.oid
        LEFT JOIN pg_am am ON c2.relam = am.oid
        LEFT JOIN pg_attribute attr ON attr.attrelid = c.oid AND attr.attnum = idx.key
        WHERE c.relname = 'opc_t' AND pg_catalog.pg_table_is_visible(c.oid)
    ) s2
    GROUP BY indexname, indisunique, indisprimary, amname, exprdef ORDER BY indexname""",
]


def _observe(dsn: str) -> list:
    out: list = []
    with psycopg.connect(dsn, autocommit=True) as c:
        for q in SETUP:
            c.execute(q)
        for q in ERRORS:
            try:
                c.execute(q)
                out.append("ok")
            except psycopg.Error as e:
                out.append((e.sqlstate, str(e.diag.message_primary)))
        for q in QUERIES:
            out.append(c.execute(q).fetchall())
    return out


def test_opclasses_introspect_as_pg15(pg15, cumulo_server):
    want = _observe(pg15.dsn())
    got = _observe(cumulo_server.dsn())
    for w, g in zip(want, got, strict=True):
        assert g == w
    assert ("opc_t_a_like", ["a"], False, False, ["ASC"], "btree", None) in want[-1]


def _psql_d(dsn: str) -> str:
    res = subprocess.run(["psql", "-X", dsn, "-c", r"\d opc_t"], capture_output=True, text=True,
                         timeout=60, check=True)
    return "\n".join(line for line in res.stdout.splitlines() if "pattern_ops" in line)


def test_psql_describe_shows_opclass_as_pg15(pg15, cumulo_server):
    _observe(pg15.dsn())
    _observe(cumulo_server.dsn())
    want = _psql_d(pg15.dsn())
    assert '"opc_t_a_like" btree (a varchar_pattern_ops)' in want
    assert _psql_d(cumulo_server.dsn()) == want
