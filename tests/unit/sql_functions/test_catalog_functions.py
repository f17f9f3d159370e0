"""Catalog functions and reg* casts over the sample catalog.

Expected texts were checked against PostgreSQL 15.18 with the same schema (see
conftest.py's docstring); where Cumulo's catalog keeps an expression as the
user wrote it, PostgreSQL's deparsed form (`0::numeric`) differs by design.
"""

from __future__ import annotations

import pytest

from cumulo.server.errors import SQLError
from cumulo.server.pgtypes import oids as T

from .conftest import (
    C_IDX,
    C_PKEY,
    C_UNIQ,
    CON_C_CHECK,
    CON_C_FK,
    CON_C_PKEY,
    CON_C_UNIQ,
    P_SEQ,
    S_T,
    C,
    P,
    call,
)


def test_pg_get_indexdef(ctx):
    assert call("pg_get_indexdef", C_PKEY, ctx=ctx) == (
        "CREATE UNIQUE INDEX c_pkey ON public.c USING btree (id)")
    assert call("pg_get_indexdef", C_UNIQ, 0, True, ctx=ctx) == (
        "CREATE UNIQUE INDEX c_p_id_amount_key ON c USING btree (p_id, amount)")
    assert call("pg_get_indexdef", C_IDX, 0, True, ctx=ctx) == (
        "CREATE INDEX c_amount_desc ON c USING btree (amount DESC)")
    assert call("pg_get_indexdef", C_UNIQ, 2, True, ctx=ctx) == "amount"
    assert call("pg_get_indexdef", 999, ctx=ctx) is None


def test_pg_get_constraintdef(ctx):
    assert call("pg_get_constraintdef", CON_C_PKEY, ctx=ctx) == "PRIMARY KEY (id)"
    assert call("pg_get_constraintdef", CON_C_UNIQ, True, ctx=ctx) == "UNIQUE (p_id, amount)"
    assert call("pg_get_constraintdef", CON_C_FK, True, ctx=ctx) == (
        "FOREIGN KEY (p_id) REFERENCES p(id) ON DELETE CASCADE")
    assert call("pg_get_constraintdef", CON_C_CHECK, ctx=ctx) == "CHECK ((amount > (0)::numeric))"
    assert call("pg_get_constraintdef", CON_C_CHECK, True, ctx=ctx) == "CHECK (amount > 0::numeric)"


def test_fk_to_invisible_table_is_qualified(ctx):
    ctx.settings["search_path"] = "s"
    assert call("pg_get_constraintdef", CON_C_FK, ctx=ctx) == (
        "FOREIGN KEY (p_id) REFERENCES public.p(id) ON DELETE CASCADE")


def test_pg_get_expr_and_serial_sequence(ctx):
    assert call("pg_get_expr", "nextval('p_id_seq'::regclass)", P, True, ctx=ctx) == (
        "nextval('p_id_seq'::regclass)")
    assert call("pg_get_serial_sequence", "p", "id", ctx=ctx) == "public.p_id_seq"
    assert call("pg_get_serial_sequence", "public.p", "name", ctx=ctx) is None
    with pytest.raises(SQLError) as info:
        call("pg_get_serial_sequence", "p", "nope", ctx=ctx)
    assert info.value.sqlstate == "42703"
    with pytest.raises(SQLError) as info:
        call("pg_get_serial_sequence", "nope", "id", ctx=ctx)
    assert info.value.sqlstate == "42P01"


@pytest.mark.parametrize(("text", "oid"), [
    ("p", P), ("public.p", P), ('"p"', P), ('s."T"', S_T), ("pg_class", 1259),
    ("pg_catalog.pg_class", 1259), ("PG_CLASS", 1259), ("information_schema.tables", 13425),
    ("16385", 16385), ("p_id_seq", P_SEQ), ("c_pkey", C_PKEY), ("cumulo.public.c", C),
])
def test_regclass_input(ctx, text, oid):
    assert call("cast:regclass", text, ctx=ctx) == oid


@pytest.mark.parametrize(("text", "state"), [
    ("nosuch", "42P01"), ('"P"', "42P01"), ("T", "42P01"), ("nosch.t", "3F000"),
    ("a.b.c.d", "42601"), ('"', "42602"), ("other.public.p", "0A000"),
])
def test_regclass_errors(ctx, text, state):
    with pytest.raises(SQLError) as info:
        call("cast:regclass", text, ctx=ctx)
    assert info.value.sqlstate == state
    if state == "42P01":
        assert info.value.message == f'relation "{text}" does not exist'


def test_regclass_output_qualifies_invisible_relations(ctx):
    assert call("format:regclass", P, ctx=ctx) == "p"
    assert call("format:regclass", S_T, ctx=ctx) == 's."T"'
    assert call("format:regclass", 1259, ctx=ctx) == "pg_class"
    assert call("format:regclass", 99999, ctx=ctx) == "99999"
    ctx.settings["search_path"] = "s"
    assert call("format:regclass", P, ctx=ctx) == "public.p"
    assert call("format:regclass", S_T, ctx=ctx) == '"T"'


@pytest.mark.parametrize(("text", "oid"), [
    ("int4", 23), ("integer", 23), ("character varying", 1043), ("varchar(10)", 1043),
    ('"char"', 18), ("pg_catalog.int4", 23), ("int4[]", 1007), ("text[]", 1009), ("2950", 2950),
    ("timestamp with time zone", 1184), ("double precision", 701),
])
def test_regtype_input(ctx, text, oid):
    assert call("cast:regtype", text, ctx=ctx) == oid


def test_regtype_output_and_errors(ctx):
    assert [call("format:regtype", o, ctx=ctx) for o in (23, 1043, 1042, 18, 1007)] == [
        "integer", "character varying", "character", '"char"', "integer[]"]
    with pytest.raises(SQLError) as info:
        call("cast:regtype", "nosuch", ctx=ctx)
    assert (info.value.sqlstate, info.value.message) == ("42704", 'type "nosuch" does not exist')
    assert call("to_regtype", "nosuch", ctx=ctx) is None
    assert call("to_regtype", "hstore", ctx=ctx) is None
    assert call("to_regtype", "int8", ctx=ctx) == 20
    assert str(call("to_regtype", "int8", ctx=ctx)) == "bigint"
    assert str(call("to_regclass", "public.p", ctx=ctx)) == "p"


def test_regproc_regnamespace_regrole(ctx):
    assert call("cast:regproc", "pg_catalog.array_in", ctx=ctx) == 750
    assert call("cast:regproc", "array_in", ctx=ctx) == 750
    assert call("format:regproc", 750, ctx=ctx) == "array_in"
    assert call("format:regproc", 0, ctx=ctx) == "-"
    assert call("cast:regproc", "version", ctx=ctx) == call("cast:regproc", "version", ctx=ctx)
    with pytest.raises(SQLError) as info:
        call("cast:regproc", "nosuch", ctx=ctx)
    assert info.value.sqlstate == "42883"
    assert call("cast:regnamespace", "public", ctx=ctx) == 2200
    assert call("format:regnamespace", 11, ctx=ctx) == "pg_catalog"
    with pytest.raises(SQLError) as info:
        call("cast:regnamespace", "nosuch", ctx=ctx)
    assert info.value.sqlstate == "3F000"
    assert call("cast:regrole", "app", ctx=ctx) == 16001
    assert call("format:regrole", 10, ctx=ctx) == "cumulo"
    with pytest.raises(SQLError) as info:
        call("cast:regrole", "nosuch", ctx=ctx)
    assert (info.value.sqlstate, info.value.message) == ("42704", 'role "nosuch" does not exist')
    assert call("to_regclass", "nosuch", ctx=ctx) is None
    assert call("to_regclass", "nosch.t", ctx=ctx) is None
    assert call("to_regnamespace", "s", ctx=ctx) == 16410
    assert call("to_regrole", "nobody", ctx=ctx) is None


def test_visibility(ctx):
    assert call("pg_table_is_visible", P, ctx=ctx) is True
    assert call("pg_table_is_visible", S_T, ctx=ctx) is False
    assert call("pg_table_is_visible", 1259, ctx=ctx) is True
    assert call("pg_table_is_visible", 424242, ctx=ctx) is None
    assert call("pg_type_is_visible", 23) is True


def test_descriptions(ctx):
    assert call("obj_description", P, "pg_class", ctx=ctx) == "parents"
    assert call("obj_description", C, "pg_class", ctx=ctx) is None
    assert call("col_description", P, 2, ctx=ctx) == "the name"
    assert call("col_description", P, 1, ctx=ctx) is None


def test_search_path_functions(ctx):
    assert call("current_schema", ctx=ctx) == "public"
    assert call("current_schemas", False, ctx=ctx) == ["public"]
    assert call("current_schemas", True, ctx=ctx) == ["pg_catalog", "public"]
    ctx.settings["search_path"] = "nosuch"
    assert call("current_schema", ctx=ctx) is None
    ctx.settings["search_path"] = "s, pg_catalog, public"
    assert call("current_schemas", True, ctx=ctx) == ["s", "pg_catalog", "public"]


def test_session_functions(ctx):
    assert call("version").startswith("PostgreSQL 15.6 (Cumulo")
    assert call("current_database", ctx=ctx) == "cumulo"
    assert call("current_user", ctx=ctx) == "cumulo" == call("session_user", ctx=ctx)
    assert call("pg_backend_pid", ctx=ctx) == 4242
    assert call("pg_get_userbyid", 16001, ctx=ctx) == "app"
    assert call("pg_get_userbyid", 12345, ctx=ctx) == "unknown (OID=12345)"
    assert call("current_setting", "jit", ctx=ctx) == "off"
    with pytest.raises(SQLError) as info:
        call("current_setting", "nosuch", ctx=ctx)
    assert (info.value.sqlstate, info.value.message) == (
        "42704", 'unrecognized configuration parameter "nosuch"')
    assert call("current_setting", "nosuch", True, ctx=ctx) is None
    assert call("set_config", "jit", "on", False, ctx=ctx) == "on"
    assert call("current_setting", "jit", ctx=ctx) == "on"
    assert call("has_table_privilege", "p", "SELECT", ctx=ctx) is True  # a superuser
    assert call("has_table_privilege", "app", "p", "SELECT", ctx=ctx) is False  # not granted
    assert call("pg_is_in_recovery") is False


def test_keywords_and_partitions(ctx):
    words = {r[0]: r for r in call("pg_get_keywords")}
    assert words["select"][1:] == ("R", True, "reserved", "can be bare label")
    assert words["abort"][1] == "U" and len(words) > 400
    assert list(call("pg_partition_ancestors", P, ctx=ctx)) == []  # P is no partition


def test_format_type_oid_arrays():
    assert call("format_type", T.ARRAY_OF[T.VARCHAR], 54) == "character varying(50)[]"
    assert call("format_type", None, 5) is None


def test_zero_oids_print_as_dash(ctx):
    for kind in ("regclass", "regtype", "regnamespace", "regrole", "regproc"):
        assert call(f"format:{kind}", 0, ctx=ctx) == "-"


def test_function_signatures(ctx):
    # NB: 'array_to_string'::regproc is 42725 as in PostgreSQL: two functions have the name
    oid = call("cast:regprocedure", "array_to_string(anyarray, text, text)", ctx=ctx)  # 384
    assert call("pg_get_function_result", oid, ctx=ctx) == "text"
    assert call("pg_get_function_arguments", oid, ctx=ctx) == "anyarray, text, text"
    oid = call("cast:regprocedure", "array_to_string(anyarray, text)", ctx=ctx)
    assert oid == 395 and call("pg_get_function_arguments", oid, ctx=ctx) == "anyarray, text"
    srf = call("cast:regproc", "pg_get_keywords", ctx=ctx)
    assert call("pg_get_function_result", srf, ctx=ctx).startswith("TABLE(word text, catcode \"char\"")
    assert call("pg_get_function_result", 1, ctx=ctx) is None
    assert call("pg_get_triggerdef", 1, True, ctx=ctx) is None  # NB: no such trigger
    assert call("pg_relation_is_publishable", P, ctx=ctx) is True
