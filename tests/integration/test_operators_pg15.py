"""pg_operator, the operator-class catalogs and regoper/regoperator against PostgreSQL 15 (issue 16).

Cumulo lists PostgreSQL 15's own pg_operator rows for the operators it implements
(`pgcatalog.operators`). Checked here against a throwaway PostgreSQL 15:
- every row Cumulo lists in pg_operator, pg_opclass, pg_opfamily, pg_amop and
  pg_amproc is PostgreSQL's row with the same OID, column for column (regproc and
  reg* columns as text), and the common operators are all there;
- every listed operator binds in Cumulo to the result type PostgreSQL gives it;
- `'+(int4,int4)'::regoperator`, `'||/'::regoper`, their output, to_regoper*, and
  their errors (42725, 42883, 22P02, 42P02, 54023) through psycopg;
- psql's `\\do`, `\\doS+`, `\\dAc`, `\\dAo`, `\\dAf`, `\\dAp` print the same.
"""

from __future__ import annotations

import subprocess

import psycopg
import sqlalchemy

# catalog -> (columns as text, order): compared row for row, over the OIDs Cumulo lists
CATALOGS = {
    "pg_operator": "oid::int8, oprname::text, oprnamespace::regnamespace::text, oprowner::int8,"
                   " oprkind::text, oprcanmerge, oprcanhash, oprleft::regtype::text,"
                   " oprright::regtype::text, oprresult::regtype::text,"
                   " oprcom::regoperator::text, oprnegate::regoperator::text, oprcode::text,"
                   " oprrest::text, oprjoin::text, oprcode::oid::int8",
    "pg_opclass": "oid::int8, opcmethod::int8, opcname::text, opcnamespace::int8,"
                  " opcfamily::int8, opcintype::regtype::text, opcdefault, opckeytype::int8",
    "pg_opfamily": "oid::int8, opfmethod::int8, opfname::text, opfnamespace::int8",
    "pg_amop": "oid::int8, amopfamily::int8, amoplefttype::regtype::text,"
               " amoprighttype::regtype::text, amopstrategy, amoppurpose::text,"
               " amopopr::regoperator::text, amopmethod::int8, amopsortfamily::int8",
    "pg_amproc": "oid::int8, amprocfamily::int8, amproclefttype::regtype::text,"
                 " amprocrighttype::regtype::text, amprocnum, amproc::text",
}
# operators every PostgreSQL client expects to find (psql's \d uses ~, ORMs = and LIKE)
EXPECTED = ["+(integer,integer)", "=(text,text)", "~(text,text)", "~~(text,text)",
            "||(text,text)", "@>(jsonb,jsonb)", "->>(jsonb,text)", "<(date,date)",
            "-(NONE,integer)", "&&(anyarray,anyarray)", "<->(point,point)", "@@(tsvector,tsquery)"]
_STAND_IN = {"anyelement": "int4", "anycompatible": "int4", "anynonarray": "int4",
             "anyarray": "int4[]", "anycompatiblearray": "int4[]", "anyrange": "int4range",
             "anycompatiblerange": "int4range", "anymultirange": "int4multirange",
             "anycompatiblemultirange": "int4multirange"}

REG = [
    "select '+(int4,int4)'::regoperator::oid, '+(int4,int4)'::regoperator::text",
    "select '-(NONE, integer)'::regoperator::text, 'pg_catalog.=(text,text)'::regoperator::oid",
    "select '||/'::regoper::text, '||/'::regoper::oid, 551::regoper::text, 551::regoperator::text",
    "select 0::regoper::text, 0::regoperator::text, 99999::regoperator::text",
    "select to_regoperator('+(int4,text)')::text, to_regoper('+')::text,"
    " to_regoperator('~~(text,text)')::oid",
    "select oprname::text from pg_operator where oid = '@>(jsonb,jsonb)'::regoperator",
    "select o.oid::regoperator::text from pg_amop a join pg_operator o on o.oid = a.amopopr"
    " where a.amopfamily = 1976 and a.amoplefttype = 23 and a.amoprighttype = 23 order by 1",
    "select '+'::regoper", "select '+++'::regoper", "select '+'::regoperator",
    "select '+(int4)'::regoperator", "select '+(int4,int4,int4)'::regoperator",
    "select '+(int4,text)'::regoperator", "select '+(int4,nosuch)'::regoperator",
    "select '+(int4,int4'::regoperator", "select 'nosch.+'::regoper",
]
PSQL = [r"\do", r"\doS ##", r"\doS+ ~~", r"\doS+ ||/", r"\doS <->", r"\doS+ ->>",
        r"\dAc btree text", r"\dAc gin jsonb", r"\dAo btree text_ops", r"\dAf hash int4",
        r"\dAp btree int4_ops", r"\dAo+ gin jsonb_path_ops"]


def _rows(c: psycopg.Connection, catalog: str, oids: list[int]) -> list:
    return c.execute(f"select {CATALOGS[catalog]} from {catalog} where oid = any(%s)"
                     " order by oid", [oids]).fetchall()


def _outcomes(dsn: str) -> list:
    out: list = []
    with psycopg.connect(dsn, autocommit=True) as c:
        for q in REG:
            try:
                out.append(c.execute(q).fetchall())
            except psycopg.Error as e:
                out.append((e.sqlstate, e.diag.message_primary, e.diag.message_hint))
    return out


def test_catalog_rows_are_pg15s(pg15, cumulo_server):
    with psycopg.connect(cumulo_server.dsn(), autocommit=True) as cu, \
            psycopg.connect(pg15.dsn(), autocommit=True) as pg:
        for catalog in CATALOGS:
            oids = [r[0] for r in cu.execute(f"select oid::int8 from {catalog}")
                    if catalog != "pg_operator" or r[0] < 9000]  # NB: not an extension's
            assert len(oids) > 50, catalog
            got, want = _rows(cu, catalog, oids), _rows(pg, catalog, oids)
            assert len(want) == len(oids), f"{catalog}: OIDs PostgreSQL 15 lacks"
            for g, w in zip(got, want, strict=True):
                assert g == w
        listed = {r[0] for r in cu.execute("select oid::regoperator::text from pg_operator")}
        assert set(EXPECTED) <= listed
        # each listed operator binds in Cumulo to PostgreSQL's result type
        ops = cu.execute("select oprname::text, oprkind::text, oprleft::regtype::text,"
                         " oprright::regtype::text from pg_operator where oprnamespace = 11"
                         " order by oid").fetchall()
        exprs = []
        for name, kind, left, right in ops:
            r = f"NULL::{_STAND_IN.get(right, right)}"
            lhs = f"NULL::{_STAND_IN.get(left, left)}" if kind == "b" else ""
            exprs.append(f"pg_typeof({lhs} {name} {r})::text")
        query = "select " + ", ".join(exprs)
        assert cu.execute(query).fetchone() == pg.execute(query).fetchone()


def test_regoper_as_pg15(pg15, cumulo_server):
    want = _outcomes(pg15.dsn())
    got = _outcomes(cumulo_server.dsn())
    assert want[0] == [(551, "+(integer,integer)")]
    for q, w, g in zip(REG, want, got, strict=True):
        assert g == w, q


def _psql(dsn: str) -> list[str]:
    """Each command's output, from one psql run."""
    args = [a for cmd in PSQL for a in ("-c", r"\echo ====", "-c", cmd)]
    res = subprocess.run(["psql", "-X", dsn, *args], capture_output=True, text=True,
                         timeout=60, check=False)
    return (res.stdout + res.stderr).split("====\n")[1:]


def test_psql_operator_commands_as_pg15(pg15, cumulo_server):
    want, got = _psql(pg15.dsn()), _psql(cumulo_server.dsn())
    assert len(want) == len(PSQL)
    for cmd, w, g in zip(PSQL, want, got, strict=True):
        assert "rows)" in w or "(1 row)" in w, w
        assert g == w, cmd


INDEX_SETUP = [
    "drop table if exists opr_ix",
    "create table opr_ix (id int, j jsonb, a int[], t text, r int4range, v varchar(5))",
    "create index opr_ix_g on opr_ix using gin (j)",
    "create index opr_ix_gp on opr_ix using gin (j jsonb_path_ops)",
    "create index opr_ix_ga on opr_ix using gin (a)",
    "create index opr_ix_gr on opr_ix using gist (r)",
    "create index opr_ix_h on opr_ix using hash (t)",
    "create index opr_ix_hv on opr_ix using hash (v text_ops)",
    "create index opr_ix_hp on opr_ix using hash (t text_pattern_ops)",
    "create index opr_ix_b on opr_ix (t varchar_ops, v varchar_pattern_ops)",
    "create index opr_ix_x on opr_ix using gin (t jsonb_path_ops)",
    "create index opr_ix_y on opr_ix using gin (j int4_ops)",
]
INDEX_QUERIES = [
    "select c.relname::text, o.opcname::text, a.amname::text, o.opcdefault from pg_index i"
    " join pg_class c on c.oid = i.indexrelid, unnest(i.indclass) k(x)"
    " join pg_opclass o on o.oid = k.x join pg_am a on a.oid = o.opcmethod"
    " where i.indrelid = 'opr_ix'::regclass order by 1, 2",
    "select pg_get_indexdef(indexrelid) from pg_index where indrelid = 'opr_ix'::regclass"
    " order by 1",
]


def _indexes(dsn: str) -> list:
    out: list = []
    with psycopg.connect(dsn, autocommit=True) as c:
        for q in INDEX_SETUP:
            try:
                c.execute(q)
            except psycopg.Error as e:
                out.append((e.sqlstate, e.diag.message_primary))
        out.extend(c.execute(q).fetchall() for q in INDEX_QUERIES)
    engine = sqlalchemy.create_engine(dsn.replace("postgresql://", "postgresql+psycopg://"))
    try:
        out.append(sorted((ix["name"], ix.get("dialect_options", {}).get("postgresql_ops"))
                          for ix in sqlalchemy.inspect(engine).get_indexes("opr_ix")))
    finally:
        engine.dispose()
    return out


def test_index_operator_classes_per_method_as_pg15(pg15, cumulo_server):
    """indclass names the method's class (gin jsonb_ops, gist range_ops, hash text_ops), a
    non-btree key may name its class, and SQLAlchemy reflects the non-default ones."""
    want = _indexes(pg15.dsn())
    assert ("opr_ix_gp", "jsonb_path_ops", "gin", False) in want[2]
    assert ("opr_ix_gp", {"j": "jsonb_path_ops"}) in want[-1]
    assert _indexes(cumulo_server.dsn()) == want


DESCRIBE_SETUP = [
    "drop table if exists opr_dd cascade",
    "create table opr_dd (a int constraint opr_dd_c check (a > 0), b text)",
    "create index opr_dd_i on opr_dd (a)",
    "create or replace view opr_dv as select 1 as x",
]
DESCRIBE = [
    "select pg_describe_object('pg_class'::regclass, 'opr_dd'::regclass, 0),"
    " pg_describe_object('pg_class'::regclass, 'opr_dd'::regclass, 2),"
    " pg_describe_object(1259, 'opr_dd_i'::regclass, 0), pg_describe_object(1259, 'opr_dv'::regclass, 0),"
    " pg_describe_object(1259, 1259, 0), pg_describe_object(1259, 'opr_dd'::regclass, 9)",
    "select pg_describe_object(1247, 23, 0), pg_describe_object(1247, 1007, 0),"
    " pg_describe_object(1255, 'lower(text)'::regprocedure, 0), pg_describe_object(2615, 2200, 0),"
    " pg_describe_object(2617, 558, 0), pg_describe_object(2616, 3126, 0),"
    " pg_describe_object(2753, 1976, 0), pg_describe_object(2601, 403, 0),"
    " pg_describe_object(3079, 13559, 0)",
    "select pg_describe_object(2606, oid, 0) from pg_constraint where conname = 'opr_dd_c'",
    "select pg_describe_object(2617, 99999, 0) is null, pg_describe_object(1259, 99999, 0) is null",
]


def _described(dsn: str, amop: list[int], amproc: list[int]) -> list:
    with psycopg.connect(dsn, autocommit=True) as c:
        for q in DESCRIBE_SETUP:
            c.execute(q)
        out = [c.execute(q).fetchall() for q in DESCRIBE]
        out.append(c.execute("select pg_describe_object(2602, o, 0) from unnest(%s::oid[]) o",
                             [amop]).fetchall())
        out.append(c.execute("select pg_describe_object(2603, o, 0) from unnest(%s::oid[]) o",
                             [amproc]).fetchall())
    return out


def test_describe_object_as_pg15(pg15, cumulo_server):
    with psycopg.connect(cumulo_server.dsn(), autocommit=True) as c:
        amop = [r[0] for r in c.execute("select oid::int8 from pg_amop order by oid limit 40")]
        amproc = [r[0] for r in c.execute("select oid::int8 from pg_amproc order by oid limit 40")]
    want = _described(pg15.dsn(), amop, amproc)
    assert want[1][0][4] == "operator -(NONE,integer)"
    assert _described(cumulo_server.dsn(), amop, amproc) == want


HSTORE = [
    "select oprname::text, oprkind::text, oprcanmerge, oprcanhash, oprleft::regtype::text,"
    " oprright::regtype::text, oprresult::regtype::text, oprcom::regoperator::text,"
    " oprnegate::regoperator::text, oprcode::text, oprrest::text, oprjoin::text,"
    " oprnamespace::regnamespace::text from pg_operator"
    " where 'hstore'::regtype in (oprleft, oprright) order by 1, 5, 6",
    "select '=(hstore,hstore)'::regoperator::text, '%%'::regoper::text,"
    " pg_describe_object(2617, '@>(hstore,hstore)'::regoperator, 0)",
]


def _hstore(server: object, dsn: str, db_dsn: str) -> list:
    with psycopg.connect(dsn, autocommit=True) as admin:
        admin.execute("drop database if exists opr_hs")
        admin.execute("create database opr_hs")
    with psycopg.connect(db_dsn, autocommit=True) as c:
        before = c.execute("select count(*) from pg_operator").fetchone()
        c.execute("create extension hstore")
        out = [c.execute(q).fetchall() for q in HSTORE]
        c.execute("drop extension hstore")
        out.append(c.execute("select count(*) from pg_operator").fetchone() == before)
    with psycopg.connect(dsn, autocommit=True) as admin:
        admin.execute("drop database opr_hs")
    return out


def test_hstore_operators_after_create_extension_as_pg15(pg15, cumulo_server):
    """CREATE EXTENSION hstore adds its operators (all but #=, which Cumulo does not bind
    for any record), with hstore's type; DROP EXTENSION removes them."""
    want = _hstore(pg15, pg15.dsn(), pg15.dsn(db="opr_hs"))
    got = _hstore(cumulo_server, cumulo_server.dsn(), cumulo_server.dsn(dbname="opr_hs"))
    want[0] = [r for r in want[0] if r[0] != "#="]
    assert len(want[0]) == 19 and want[2] is True
    assert got == want
