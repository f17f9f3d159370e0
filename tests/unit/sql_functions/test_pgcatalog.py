"""pg_catalog relations computed from a hand-built snapshot: shapes and rows."""

from __future__ import annotations

import pytest

from cumulo.server.pgtypes import oids as T
from cumulo.server.sql.catalog import model as M
from cumulo.server.sql.pgcatalog import VIRTUAL_TABLES
from cumulo.server.sql.pgcatalog.shapes import SHAPES

from .conftest import (
    C_IDX,
    C_PKEY,
    C_UNIQ,
    CON_C_CHECK,
    CON_C_FK,
    CON_C_UNIQ,
    P_SEQ,
    S_T,
    C,
    P,
    rows,
)


@pytest.mark.parametrize("key", sorted(VIRTUAL_TABLES))
def test_every_relation_yields_rows_of_its_width(ctx, key):
    rows(ctx, key[1], key[0])  # asserts each row's width


def test_shapes_follow_postgres_column_order():
    cols = [c for c, _ in VIRTUAL_TABLES[("pg_catalog", "pg_index")].columns]
    assert cols[:6] == ["indexrelid", "indrelid", "indnatts", "indnkeyatts", "indisunique",
                        "indnullsnotdistinct"]
    assert VIRTUAL_TABLES[("pg_catalog", "pg_class")].oid == 1259
    assert dict(SHAPES[("pg_catalog", "pg_index")][2])["indkey"] == T.INT2VECTOR
    assert dict(SHAPES[("pg_catalog", "pg_constraint")][2])["conkey"] == T.ARRAY_OF[T.INT2]


def test_pg_namespace_has_system_and_user_schemas(ctx):
    got = {r["nspname"]: r["oid"] for r in rows(ctx, "pg_namespace")}
    assert got["pg_catalog"] == 11 and got["public"] == 2200
    assert got["information_schema"] == M.INFORMATION_SCHEMA_OID and got["pg_toast"] == 99
    assert got["s"] == 16410
    assert len(got) == 5


def test_pg_class_rows(ctx):
    by_name = {r["relname"]: r for r in rows(ctx, "pg_class")}
    p = by_name["p"]
    assert (p["oid"], p["relnamespace"], p["relkind"], p["relhasindex"], p["relnatts"]) == (
        P, 2200, "r", True, 2)
    assert by_name["c"]["relnatts"] == 4  # dropped columns still count
    assert by_name["c"]["relchecks"] == 1
    assert by_name["c_pkey"]["relkind"] == "i" and by_name["c_pkey"]["relam"] == 403
    assert by_name["p_id_seq"]["relkind"] == "S"
    assert by_name["pg_class"]["oid"] == 1259 and by_name["pg_class"]["relnamespace"] == 11
    assert by_name["pg_roles"]["relkind"] == "v"
    assert by_name["pg_database"]["relisshared"] is True
    assert by_name["T"]["relnamespace"] == 16410
    # As in PostgreSQL 15 for the same DDL (checked on a throwaway server):
    assert by_name["c"]["relhastriggers"] and by_name["p"]["relhastriggers"]  # FK triggers
    assert not by_name["T"]["relhastriggers"]
    assert (by_name["pg_class"]["relhasindex"], by_name["pg_class"]["relreplident"]) == (True, "n")


def test_pg_attribute_rows(ctx):
    system = [(r["attnum"], r["attname"]) for r in rows(ctx, "pg_attribute")
              if r["attrelid"] == C and r["attnum"] < 0]  # a table's system columns, as PG
    assert system == [(-6, "tableoid"), (-5, "cmax"), (-4, "xmax"), (-3, "cmin"),
                      (-2, "xmin"), (-1, "ctid")]
    attrs = [r for r in rows(ctx, "pg_attribute") if r["attrelid"] == C and r["attnum"] > 0]
    assert [(a["attnum"], a["attname"], a["attisdropped"]) for a in attrs] == [
        (1, "id", False), (2, "........pg.dropped.2........", True), (3, "p_id", False),
        (4, "amount", False)]
    amount = attrs[3]
    assert (amount["atttypid"], amount["atttypmod"], amount["attnotnull"]) == (
        T.NUMERIC, 655366, False)
    assert attrs[0]["attlen"] == 8 and attrs[0]["attbyval"] is True and attrs[0]["attnotnull"]
    gone = attrs[1]  # PostgreSQL keeps a dropped column's storage facts, not its type
    assert (gone["atttypid"], gone["attlen"], gone["attbyval"], gone["attstorage"],
            gone["attstattarget"]) == (0, 4, True, "p", 0)
    pname = next(r for r in rows(ctx, "pg_attribute") if r["attrelid"] == P and r["attnum"] == 2)
    assert pname["atthasdef"] and pname["atttypmod"] == 54 and pname["attcollation"] == 100
    idx = [r["attname"] for r in rows(ctx, "pg_attribute") if r["attrelid"] == C_UNIQ]
    assert idx == ["p_id", "amount"]
    sys_cols = [r["attname"] for r in rows(ctx, "pg_attribute") if r["attrelid"] == 2615]
    assert sys_cols == ["oid", "nspname", "nspowner", "nspacl"]


def test_pg_attrdef_holds_default_text(ctx):
    got = {(r["adrelid"], r["adnum"]): r["adbin"] for r in rows(ctx, "pg_attrdef")}
    assert got == {(P, 1): "nextval('p_id_seq'::regclass)", (P, 2): "'x'::character varying"}


def test_pg_index_rows(ctx):
    got = {r["indexrelid"]: r for r in rows(ctx, "pg_index")}
    pk = got[C_PKEY]
    assert (pk["indrelid"], pk["indisprimary"], pk["indisunique"], pk["indkey"]) == (
        C, True, True, [1])
    u = got[C_UNIQ]
    assert (u["indisprimary"], u["indisunique"], u["indkey"], u["indnkeyatts"]) == (
        False, True, [3, 4], 2)
    assert u["indclass"] == [1978, 3125] and u["indcollation"] == [0, 0]
    assert got[C_IDX]["indoption"] == [3] and got[C_IDX]["indisunique"] is False
    assert pk["indpred"] is None and pk["indexprs"] is None


def test_pg_constraint_rows(ctx):
    got = {r["oid"]: r for r in rows(ctx, "pg_constraint")}
    fk = got[CON_C_FK]
    assert (fk["contype"], fk["conrelid"], fk["confrelid"], fk["conkey"], fk["confkey"]) == (
        "f", C, P, [3], [1])
    assert (fk["confdeltype"], fk["confupdtype"], fk["confmatchtype"]) == ("c", "a", "s")
    assert fk["conindid"] == 16390  # p_pkey, the index the foreign key relies on
    assert got[CON_C_CHECK]["conbin"] == "amount > 0"
    assert got[CON_C_UNIQ]["conindid"] == C_UNIQ and got[CON_C_UNIQ]["confkey"] is None
    assert got[CON_C_UNIQ]["connamespace"] == 2200
    assert [got[o]["connoinherit"] for o in (CON_C_FK, CON_C_UNIQ, CON_C_CHECK)] == [
        True, True, False]


def test_pg_type_builtins(ctx):
    got = {r["typname"]: r for r in rows(ctx, "pg_type")}
    i4 = got["int4"]
    assert (i4["oid"], i4["typlen"], i4["typbyval"], i4["typtype"], i4["typcategory"]) == (
        23, 4, True, "b", "N")
    assert i4["typarray"] == 1007 and got["_int4"]["typelem"] == 23
    assert got["_int4"]["typinput"] == 750  # array_in, as PostgreSQL numbers it
    assert str(got["_int4"]["typinput"]) == "array_in" and str(got["int4"]["typmodin"]) == "-"
    assert got["any"]["typtype"] == "p" and got["int4range"]["typtype"] == "r"
    rowtypes = {n for n, r in got.items() if r["typtype"] == "c"}  # relations' (rowtypes.py)
    builtins = [r for n, r in got.items() if n not in rowtypes and n[1:] not in rowtypes]
    assert all(r["typnamespace"] == 11 and r["typbasetype"] == 0 for r in builtins)
    assert got["varchar"]["typcollation"] == 100
    assert (got["pg_class"]["oid"], got["pg_class"]["typrelid"], got["_pg_class"]["typelem"]) == (
        83, 1259, 83)


def test_pg_database_roles_and_friends(ctx):
    dbs = {r["datname"]: r for r in rows(ctx, "pg_database")}
    assert dbs["cumulo"]["encoding"] == 6 and dbs["cumulo"]["datlocprovider"] == "c"
    assert dbs["cumulo"]["datcollate"] == "C" and dbs["cumulo"]["datacl"] is None
    roles = {r["rolname"]: r for r in rows(ctx, "pg_roles")}
    assert roles["cumulo"]["rolsuper"] is True and roles["app"]["oid"] == 16001
    assert roles["app"]["rolpassword"] == "********"
    assert {r["usename"] for r in rows(ctx, "pg_user")} == {"cumulo", "app"}
    assert [r["amname"] for r in rows(ctx, "pg_am")] == [
        "heap", "btree", "hash", "gist", "gin", "brin", "spgist"]
    assert [r["spcname"] for r in rows(ctx, "pg_tablespace")] == ["pg_default", "pg_global"]
    assert [r["collname"] for r in rows(ctx, "pg_collation")][:5] == [
        "default", "C", "POSIX", "ucs_basic", "C.utf8"]  # then one per ICU locale, with PyICU
    assert [r["extname"] for r in rows(ctx, "pg_extension")] == ["plpgsql"]


def test_sequences_descriptions_depend(ctx):
    seq = rows(ctx, "pg_sequence")
    assert seq == [{"seqrelid": P_SEQ, "seqtypid": 23, "seqstart": 1, "seqincrement": 1,
                    "seqmax": 2**31 - 1, "seqmin": 1, "seqcache": 1, "seqcycle": False}]
    desc = {(r["objoid"], r["objsubid"]): (r["classoid"], r["description"])
            for r in rows(ctx, "pg_description")}
    assert {k: v for k, v in desc.items() if k[0] >= 16384} == {
        (P, 0): (1259, "parents"), (P, 2): (1259, "the name")}
    assert desc[(M.PUBLIC_OID, 0)] == (2615, "standard public schema")  # PostgreSQL's own
    depend = rows(ctx, "pg_depend")
    owned = [r for r in depend if r["objid"] == P_SEQ and r["refobjid"] == P]
    assert owned == [{"classid": 1259, "objid": P_SEQ, "objsubid": 0,
                      "refclassid": 1259, "refobjid": P, "refobjsubid": 1, "deptype": "a"}]
    # the column default that calls nextval depends on the sequence (pg_dump orders by it)
    attrdef = {r["oid"]: (r["adrelid"], r["adnum"]) for r in rows(ctx, "pg_attrdef")}
    default, = [r for r in depend if r["classid"] == 2604 and r["refobjid"] == P_SEQ]
    assert attrdef[default["objid"]] == (P, 1)
    assert (default["refclassid"], default["refobjid"], default["deptype"]) == (1259, P_SEQ, "n")


def test_system_views(ctx):
    tables = {(r["schemaname"], r["tablename"]): r for r in rows(ctx, "pg_tables")}
    assert set(tables) == {("public", "p"), ("public", "c"), ("s", "T")}
    assert tables[("public", "p")]["tableowner"] == "cumulo"
    idx = {r["indexname"]: r["indexdef"] for r in rows(ctx, "pg_indexes")}
    assert idx["c_amount_desc"] == "CREATE INDEX c_amount_desc ON public.c USING btree (amount DESC)"
    assert rows(ctx, "pg_matviews") == [] and rows(ctx, "pg_locks") == []


def test_pg_settings_and_activity(ctx):
    settings = {r["name"]: r["setting"] for r in rows(ctx, "pg_settings")}
    assert settings["search_path"] == '"$user", public' and settings["jit"] == "off"
    act = rows(ctx, "pg_stat_activity")
    assert act[0]["pid"] == 4242 and act[0]["datname"] == "cumulo"


def test_pg_proc_lists_functions(ctx):
    procs = {r["proname"]: r for r in rows(ctx, "pg_proc")}
    assert procs["array_in"]["oid"] == 750
    assert procs["version"]["prorettype"] == T.TEXT and procs["version"]["pronargs"] == 0
    assert procs["generate_series"]["proretset"] is True
    assert "cast:regclass" not in procs
    oids = [r["oid"] for r in rows(ctx, "pg_proc")]
    assert len(oids) == len(set(oids))


def test_user_table_not_on_path_is_listed(ctx):
    assert any(r["oid"] == S_T for r in rows(ctx, "pg_class"))


def test_vectors_have_element_types(ctx):
    got = {r["oid"]: r for r in rows(ctx, "pg_type")}
    assert got[T.INT2VECTOR]["typelem"] == T.INT2 and got[T.OIDVECTOR]["typelem"] == T.OID
    assert got[T.INT2VECTOR]["typcategory"] == "A"


class _Session:
    """The parts of a session pg_stat_activity reads (`sql.sessionview.SessionView`)."""

    def __init__(self, pid, user, status, engine=None):
        self.backend_pid, self.user, self.database = pid, user, "cumulo"
        self.transaction_status, self.engine = status, engine
        self.txn_started_at = self.query_start = self.client_addr = self.client_port = None
        self.running = self.terminated = False
        self.backend_start = self.state_change = 1_700_000_000.0
        self.last_query, self.wait_event, self.txn = "", None, None

    def get_setting(self, name):
        return "app" if name == "application_name" else None


class _Engine:
    def __init__(self):
        self.list = []

    def sessions(self):
        return self.list


def test_pg_stat_activity_lists_engine_sessions(ctx):
    engine = _Engine()
    me = _Session(4242, "cumulo", "I", engine)
    engine.list = [_Session(4300, "app", "T"), me]
    ctx.session = me  # the statement layer's FunctionContext exposes its session
    got = [(r["pid"], r["usename"], r["state"], r["usesysid"], r["application_name"])
           for r in rows(ctx, "pg_stat_activity")]
    assert got == [(4242, "cumulo", "active", 10, "app"),
                   (4300, "app", "idle in transaction", 16001, "app")]


def test_statistics_views_have_a_row_per_object(ctx):
    tables = {r["relname"]: r for r in rows(ctx, "pg_stat_user_tables")}
    assert set(tables) == {"p", "c", "T"}
    assert tables["p"]["relid"] == P and tables["p"]["seq_scan"] == 0
    assert tables["p"]["last_vacuum"] is None and tables["T"]["schemaname"] == "s"
    idx = {r["indexrelname"]: r["relname"] for r in rows(ctx, "pg_stat_user_indexes")}
    assert idx == {"p_pkey": "p", "c_pkey": "c", "c_p_id_amount_key": "c", "c_amount_desc": "c"}
    dbs = {r["datname"]: r["numbackends"] for r in rows(ctx, "pg_stat_database")}
    assert dbs == {"cumulo": 1, "postgres": 0}
    assert rows(ctx, "pg_stat_replication") == [] and rows(ctx, "pg_prepared_xacts") == []
