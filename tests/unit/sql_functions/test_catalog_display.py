"""What psql and reflection show from the catalog: defaults as pg_get_expr prints them,
predefined roles, public's owner, temporary relations, generated columns.

Every expected string was printed by PostgreSQL 15 for the same DDL.
"""

from __future__ import annotations

import dataclasses

import pytest

from cumulo.server.pgtypes import oids as T
from cumulo.server.sql.catalog import model as M
from cumulo.server.sql.pgcatalog.checktext import check_text
from cumulo.server.sql.pgcatalog.exprtext import default_text
from cumulo.server.sql.pgcatalog.viewtext import view_text

from .conftest import Ctx, P, call, make_catalog, rows


@pytest.mark.parametrize("stored, type_oid, shown", [
    ("0", T.INT4, "0"),
    ("-1", T.INT4, "'-1'::integer"),
    ("-5", T.INT8, "'-5'::integer"),
    ("1.5", T.NUMERIC, "1.5"),
    ("-2.5", T.NUMERIC, "'-2.5'::numeric"),
    ("'x'", T.TEXT, "'x'::text"),
    ("'y'", T.VARCHAR, "'y'::character varying"),
    ("'ab'", T.BPCHAR, "'ab'::bpchar"),
    ("'2020-01-01'", T.DATE, "'2020-01-01'::date"),
    ("TRUE", T.BOOL, "true"),
    ("false", T.BOOL, "false"),
    ("now()", T.TIMESTAMPTZ, "now()"),
    ("CURRENT_TIMESTAMP", T.TIMESTAMP, "CURRENT_TIMESTAMP"),
    ("current_date", T.DATE, "CURRENT_DATE"),
    ("'it''s'", T.TEXT, "'it''s'::text"),
    ("1 + 2", T.INT4, "(1 + 2)"),
    ("2 * 3.5", T.NUMERIC, "((2)::numeric * 3.5)"),
    ("abs(-3) + 1", T.INT4, "(abs('-3'::integer) + 1)"),
    ("now() + interval '1 day'", T.TIMESTAMPTZ, "(now() + '1 day'::interval)"),
    ("'a' || 'b'", T.TEXT, "('a'::text || 'b'::text)"),
    ("'{}'", T.JSONB, "'{}'::jsonb"),
    ("gen_random_uuid()", T.UUID, "gen_random_uuid()"),
    ("upper('a')", T.TEXT, "upper('a'::text)"),
    ("'{1,2}'", T.ARRAY_OF[T.INT4], "'{1,2}'::integer[]"),
    ("'1 day'", T.INTERVAL, "'1 day'::interval"),
    ("nextval('t_id_seq'::regclass)", T.INT4, "nextval('t_id_seq'::regclass)"),
    ("nextval(CAST('t_id_seq' AS REGCLASS))", T.INT8, "nextval('t_id_seq'::regclass)"),
    ("'x'::character varying", T.VARCHAR, "'x'::character varying"),
])
def test_default_text_matches_pg_get_expr(stored, type_oid, shown):
    assert default_text(stored, type_oid) == shown


@pytest.mark.parametrize("plain, pretty", [
    ("(1 + 2)", "1 + 2"),
    ("((2)::numeric * 3.5)", "2::numeric * 3.5"),
    ("(abs('-3'::integer) + 1)", "abs('-3'::integer) + 1"),
    ("(now() + '1 day'::interval)", "now() + '1 day'::interval"),
    ("(NOT true)", "NOT true"),
    ("nextval('t_id_seq'::regclass)", "nextval('t_id_seq'::regclass)"),
    ("'x'::character varying", "'x'::character varying"),
])
def test_pg_get_expr_pretty(ctx, plain, pretty):
    args = [T.PG_NODE_TREE, T.OID, T.BOOL]
    assert call("pg_get_expr", plain, 16385, True, types=args, ctx=ctx) == pretty
    assert call("pg_get_expr", plain, 16385, False, types=args, ctx=ctx) == plain


def test_null_default_is_no_default():
    assert default_text("NULL", T.TEXT) is None
    assert default_text(None, T.TEXT) is None


def _with_columns(*cols: M.Column) -> Ctx:
    cat = make_catalog()
    t = M.Table(17000, "g", M.PUBLIC_OID, cols)
    return Ctx(dataclasses.replace(cat, tables=(*cat.tables, t)))


def test_attrdef_and_atthasdef_follow_the_rendered_default():
    ctx = _with_columns(M.Column("a", T.INT4, attnum=1, default="NULL"),
                        M.Column("b", T.VARCHAR, 54, attnum=2, default="'v'"))
    defs = {r["adnum"]: r["adbin"] for r in rows(ctx, "pg_attrdef") if r["adrelid"] == 17000}
    assert defs == {2: "'v'::character varying"}
    has = {r["attname"]: r["atthasdef"] for r in rows(ctx, "pg_attribute")
           if r["attrelid"] == 17000 and r["attnum"] > 0}
    assert has == {"a": False, "b": True}


def test_generated_column_is_shown_as_generated():
    ctx = _with_columns(M.Column("a", T.INT4, attnum=1),
                        M.Column("b", T.INT4, attnum=2, generated="a * 2"))
    att = {r["attname"]: r for r in rows(ctx, "pg_attribute") if r["attrelid"] == 17000}
    assert (att["b"]["attgenerated"], att["b"]["atthasdef"]) == ("s", True)
    assert att["a"]["attgenerated"] == ""
    defs = [r["adbin"] for r in rows(ctx, "pg_attrdef") if r["adrelid"] == 17000]
    assert defs == ["(a * 2)"]
    col = next(r for r in rows(ctx, "columns", "information_schema")
               if r["table_name"] == "g" and r["column_name"] == "b")
    assert (col["is_generated"], col["generation_expression"], col["column_default"],
            col["is_updatable"]) == ("ALWAYS", "(a * 2)", None, "YES")


def test_public_belongs_to_pg_database_owner(ctx):
    nsp = {r["nspname"]: r["nspowner"] for r in rows(ctx, "pg_namespace")}
    assert nsp["public"] == 6171
    assert nsp["s"] == M.BOOTSTRAP_SUPERUSER_OID
    names = {r["oid"]: r["rolname"] for r in rows(ctx, "pg_roles")}
    assert names[6171] == "pg_database_owner" and names[10] == "cumulo"
    assert {r["rolname"] for r in rows(ctx, "pg_authid") if r["rolcanlogin"]} == {"cumulo", "app"}
    assert "pg_monitor" not in {r["usename"] for r in rows(ctx, "pg_user")}


def test_temporary_relations_have_persistence_t():
    cat = make_catalog()
    tmp = M.Schema(17100, "pg_temp_3")
    t = M.Table(17101, "tt", tmp.oid, (M.Column("a", T.INT4, attnum=1),))
    ctx = Ctx(dataclasses.replace(cat, schemas=(*cat.schemas, tmp), tables=(*cat.tables, t)))
    kinds = {r["relname"]: r["relpersistence"] for r in rows(ctx, "pg_class")}
    assert (kinds["tt"], kinds["p"], kinds["p_pkey"]) == ("t", "p", "p")


def test_information_schema_ordinal_position_is_attnum(ctx):
    pos = {r["column_name"]: r["ordinal_position"] for r in rows(ctx, "columns",
                                                                 "information_schema")
           if r["table_name"] == "c"}
    assert pos == {"id": 1, "p_id": 3, "amount": 4}


_CHECK_TYPES = {"x": T.INT4, "y": T.TEXT, "v": T.VARCHAR, "b": T.BPCHAR, "n": T.NUMERIC,
                "f": T.FLOAT8, "g": T.INT8, "flag": T.BOOL}


@pytest.mark.parametrize("stored, plain, pretty", [
    ("x + 1 > 2", "((x + 1) > 2)", "(x + 1) > 2"),
    ("x * 2 + 1 > 0 or x < -5 and y = 'a'",
     "((((x * 2) + 1) > 0) OR ((x < '-5'::integer) AND (y = 'a'::text)))",
     "(x * 2 + 1) > 0 OR x < '-5'::integer AND y = 'a'::text"),
    ("(x > 0 or x < 5) and y is not null", "(((x > 0) OR (x < 5)) AND (y IS NOT NULL))",
     "(x > 0 OR x < 5) AND y IS NOT NULL"),
    ("not (x > 0)", "(NOT (x > 0))", "NOT x > 0"),
    ("v <> 'q'", "((v)::text <> 'q'::text)", "v::text <> 'q'::text"),
    ("b = 'ab'", "(b = 'ab'::bpchar)", "b = 'ab'::bpchar"),
    ("n > 1.5", "(n > 1.5)", "n > 1.5"),
    ("x not in (1, 2)", "(x <> ALL (ARRAY[1, 2]))", "x <> ALL (ARRAY[1, 2])"),
    ("y like 'a%'", "(y ~~ 'a%'::text)", "y ~~ 'a%'::text"),
    ("upper(y) <> lower(y)", "(upper(y) <> lower(y))", "upper(y) <> lower(y)"),
    ("x is null or x <> 3", "((x IS NULL) OR (x <> 3))", "x IS NULL OR x <> 3"),
    ("y ~ '^a'", "(y ~ '^a'::text)", "y ~ '^a'::text"),
    ("coalesce(x, 0) >= 0", "(COALESCE(x, 0) >= 0)", "COALESCE(x, 0) >= 0"),
    ("((x > 0))", "(x > 0)", "x > 0"),
    ("y IN ('a', 'b')", "(y = ANY (ARRAY['a'::text, 'b'::text]))",
     "y = ANY (ARRAY['a'::text, 'b'::text])"),
    ("x BETWEEN 1 AND 5", "((x >= 1) AND (x <= 5))", "x >= 1 AND x <= 5"),
    ("NOT x IS NULL", "(x IS NOT NULL)", "x IS NOT NULL"),
    ("n >= 0", "(n >= (0)::numeric)", "n >= 0::numeric"),
    ("x > 1.5", "((x)::numeric > 1.5)", "x::numeric > 1.5"),
    ("f < 2", "(f < (2)::double precision)", "f < 2::double precision"),
    ("NOT flag IS TRUE", "(flag IS NOT TRUE)", "flag IS NOT TRUE"),
    ("flag is false", "(flag IS FALSE)", "flag IS FALSE"),
    ("g > 0", "(g > 0)", "g > 0"),
    ("x in (1, 2.5)", "((x)::numeric = ANY (ARRAY[(1)::numeric, 2.5]))",
     "x::numeric = ANY (ARRAY[1::numeric, 2.5])"),
])
def test_check_text_matches_pg_get_constraintdef(stored, plain, pretty):
    assert check_text(stored, _CHECK_TYPES, False) == plain
    assert check_text(stored, _CHECK_TYPES, True) == pretty


def test_psql_helpers_for_backslash_commands(ctx):
    assert call("getdatabaseencoding") == "UTF8"
    assert call("pg_get_ruledef", 16385, True, types=[T.OID, T.BOOL]) is None
    assert call("obj_description", M.PUBLIC_OID, "pg_namespace", ctx=ctx) == "standard public schema"
    assert call("obj_description", 13559, "pg_extension", ctx=ctx) == "PL/pgSQL procedural language"
    assert call("obj_description", M.PUBLIC_OID, "pg_class", ctx=ctx) is None
    assert rows(ctx, "pg_db_role_setting") == []
    acl = {r["nspname"]: r["nspacl"] for r in rows(ctx, "pg_namespace")}
    assert acl["public"] == ["pg_database_owner=UC/pg_database_owner", "=U/pg_database_owner"]


def test_pg_notify_checks_like_postgres(ctx):
    from cumulo.server.errors import InvalidParameterValue

    assert call("pg_notify", "chan", "payload", ctx=ctx) == ""  # void's text output
    assert call("pg_notify", "chan", None, ctx=ctx) == ""
    with pytest.raises(InvalidParameterValue, match="channel name cannot be empty"):
        call("pg_notify", "", "x", ctx=ctx)
    with pytest.raises(InvalidParameterValue, match="payload string too long"):
        call("pg_notify", "chan", "x" * 8000, ctx=ctx)


def test_attribute_collation_and_catalog_not_null(ctx):
    att = {(r["attrelid"], r["attname"]): r for r in rows(ctx, "pg_attribute")}
    relname, reloptions, relacl = (att[(1259, n)] for n in ("relname", "reloptions", "relacl"))
    assert (relname["attcollation"], relname["attnotnull"]) == (950, True)
    assert (reloptions["attcollation"], reloptions["attnotnull"]) == (950, False)
    assert relacl["attnotnull"] is False
    assert att[(2610, "indkey")]["attnotnull"] is True  # int2vector counts as fixed-width
    assert att[(P, "name")]["attcollation"] == 100


_VB = M.Table(1, "vb", M.PUBLIC_OID, (M.Column("id", T.INT4, attnum=1),
                                      M.Column("g", T.TEXT, attnum=2),
                                      M.Column("x", T.NUMERIC, attnum=3)))
_VC = M.Table(2, "vc", M.PUBLIC_OID, (M.Column("vid", T.INT4, attnum=1),
                                      M.Column("note", T.VARCHAR, 14, attnum=2)))


@pytest.mark.parametrize("stored, pretty, plain", [
    ("SELECT id, g AS grp, x * 2 AS dbl FROM vb WHERE x > 0 ORDER BY id",
     " SELECT vb.id,\n    vb.g AS grp,\n    vb.x * 2::numeric AS dbl\n   FROM vb\n"
     "  WHERE vb.x > 0::numeric\n  ORDER BY vb.id;",
     " SELECT vb.id,\n    vb.g AS grp,\n    (vb.x * (2)::numeric) AS dbl\n   FROM vb\n"
     "  WHERE (vb.x > (0)::numeric)\n  ORDER BY vb.id;"),
    ("SELECT b.g, COUNT(*) AS n, SUM(c.vid) FROM vb AS b JOIN vc AS c ON c.vid = b.id "
     "GROUP BY b.g HAVING COUNT(*) > 1",
     " SELECT b.g,\n    count(*) AS n,\n    sum(c.vid) AS sum\n   FROM vb b\n"
     "     JOIN vc c ON c.vid = b.id\n  GROUP BY b.g\n HAVING count(*) > 1;",
     " SELECT b.g,\n    count(*) AS n,\n    sum(c.vid) AS sum\n   FROM (vb b\n"
     "     JOIN vc c ON ((c.vid = b.id)))\n  GROUP BY b.g\n HAVING (count(*) > 1);"),
    ("SELECT * FROM vb", " SELECT vb.id,\n    vb.g,\n    vb.x\n   FROM vb;",
     " SELECT vb.id,\n    vb.g,\n    vb.x\n   FROM vb;"),
])
def test_view_text_matches_pg_get_viewdef(stored, pretty, plain):
    tables = {"vb": _VB, "vc": _VC}
    assert view_text(stored, tables, True) == pretty
    assert view_text(stored, tables, False) == plain


def test_view_text_gives_up_on_shapes_it_does_not_know():
    assert view_text("SELECT 1 UNION SELECT 2", {}, True) is None
    assert view_text("SELECT x FROM (SELECT 1 AS x) AS s", {}, True) is None


@pytest.mark.parametrize("fn, args, want", [  # printed by PostgreSQL 15
    ("ln", ["2.0"], "0.6931471805599453"),
    ("ln", ["1.05"], "0.048790164169432003"),
    ("ln", ["0.001"], "-6.9077552789821371"),
    ("exp", ["1.0"], "2.7182818284590452"),
    ("exp", ["50"], "5184705528587072464087"),
    ("exp", ["-10"], "0.00004539992976248485"),
    ("log", ["100.0"], "2.0000000000000000"),
    ("log", ["0.5"], "-0.3010299956639812"),
    ("log", ["2", "1024"], "10.0000000000000000"),
])
def test_numeric_logarithms_keep_postgres_scale(fn, args, want):
    from decimal import Decimal

    got = call(fn, *(Decimal(a) for a in args), types=[T.NUMERIC] * len(args))
    assert str(got) == want
