"""Reflection through `cumulo://` of what SQLAlchemy users declare: the issue's checklist.

Tables, views, columns with defaults, identity and generated expressions,
primary keys, unique constraints, foreign keys across schemas, indexes,
comments and check constraints, then a full `MetaData.reflect` round trip.
"""

from __future__ import annotations

import pytest
from sqlalchemy import (
    CheckConstraint,
    Column,
    Computed,
    ForeignKey,
    Identity,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    UniqueConstraint,
    create_engine,
    inspect,
    text,
)

SCHEMA = "dlg_refl"


@pytest.fixture(scope="module")
def engine(sync_url):
    eng = create_engine(sync_url)
    md = MetaData()
    Table("dlg_r_parent", md,
          Column("id", Integer, Identity(start=100, increment=5), primary_key=True),
          Column("code", String(10), nullable=False, comment="short code"),
          Column("qty", Integer, server_default=text("7")),
          Column("double_qty", Integer, Computed("qty * 2", persisted=True)),
          UniqueConstraint("code", name="dlg_r_parent_code_uq"),
          CheckConstraint("qty >= 0", name="dlg_r_parent_qty_ck"),
          comment="parents")
    child = Table("dlg_r_child", md,
                  Column("id", Integer, primary_key=True),
                  Column("parent_id", Integer,
                         ForeignKey("dlg_r_parent.id", name="dlg_r_child_fk", ondelete="CASCADE")),
                  Column("label", String(30)),
                  schema=SCHEMA)
    Index("dlg_r_child_label_ix", child.c.label, unique=True)
    with eng.begin() as conn:
        conn.execute(text(f"drop schema if exists {SCHEMA} cascade"))
        conn.execute(text("drop view if exists dlg_r_view"))
        conn.execute(text("drop table if exists dlg_r_parent cascade"))
        conn.execute(text(f"create schema {SCHEMA}"))
        md.create_all(conn)
        conn.execute(text("create view dlg_r_view as select id, code from dlg_r_parent"))
    yield eng
    with eng.begin() as conn:
        conn.execute(text("drop view if exists dlg_r_view"))
        md.drop_all(conn)
        conn.execute(text(f"drop schema if exists {SCHEMA} cascade"))
    eng.dispose()


def test_tables_views_and_schemas(engine):
    insp = inspect(engine)
    assert "dlg_r_parent" in insp.get_table_names()
    assert "dlg_r_view" in insp.get_view_names()
    assert "dlg_r_view" not in insp.get_table_names()
    assert SCHEMA in insp.get_schema_names()
    assert insp.get_table_names(schema=SCHEMA) == ["dlg_r_child"]
    assert "dlg_r_parent" in insp.get_view_definition("dlg_r_view")
    assert [c["name"] for c in insp.get_columns("dlg_r_view")] == ["id", "code"]


def test_columns_defaults_identity_computed_comments(engine):
    cols = {c["name"]: c for c in inspect(engine).get_columns("dlg_r_parent")}
    ident = cols["id"]["identity"]
    assert (ident["start"], ident["increment"], ident["always"]) == (100, 5, False)
    assert cols["code"]["nullable"] is False and cols["code"]["comment"] == "short code"
    assert cols["qty"]["default"] == "7"
    assert cols["double_qty"]["computed"]["persisted"] is True
    assert "qty" in cols["double_qty"]["computed"]["sqltext"]
    assert inspect(engine).get_table_comment("dlg_r_parent")["text"] == "parents"


def test_constraints_and_indexes(engine):
    insp = inspect(engine)
    assert insp.get_pk_constraint("dlg_r_parent")["constrained_columns"] == ["id"]
    assert insp.get_unique_constraints("dlg_r_parent") == [
        {"name": "dlg_r_parent_code_uq", "column_names": ["code"], "comment": None,
         "dialect_options": {"cumulo_include": [], "cumulo_nulls_not_distinct": False}}]
    checks = insp.get_check_constraints("dlg_r_parent")
    assert [(c["name"], c["sqltext"]) for c in checks] == [("dlg_r_parent_qty_ck", "qty >= 0")]
    fks = insp.get_foreign_keys("dlg_r_child", schema=SCHEMA)
    assert [(f["name"], f["referred_schema"], f["referred_table"], f["options"]) for f in fks] == [
        ("dlg_r_child_fk", None, "dlg_r_parent", {"ondelete": "CASCADE"})]  # public: in path
    idx = insp.get_indexes("dlg_r_child", schema=SCHEMA)
    assert [(i["name"], i["column_names"], i["unique"]) for i in idx] == [
        ("dlg_r_child_label_ix", ["label"], True)]


def test_metadata_reflect_round_trip(engine):
    md = MetaData()
    md.reflect(engine, only=["dlg_r_parent"])
    parent = md.tables["dlg_r_parent"]
    assert [c.name for c in parent.columns] == ["id", "code", "qty", "double_qty"]
    child = Table("dlg_r_child", md, autoload_with=engine, schema=SCHEMA)
    fk = next(iter(child.c.parent_id.foreign_keys))
    assert fk.column is parent.c.id
    with engine.begin() as conn:
        conn.execute(parent.insert(), {"code": "a", "qty": 2})
        conn.execute(parent.insert(), {"code": "b"})
        rows = conn.execute(parent.select().order_by(parent.c.id)).all()
        conn.execute(parent.delete())
    assert [tuple(r) for r in rows] == [(100, "a", 2, 4), (105, "b", 7, 14)]


def test_dialect_options_keyed_by_our_name_round_trip(engine):
    """Reflected options say `cumulo_*` only, and a reflected index re-creates itself from them."""
    with engine.begin() as conn:
        conn.execute(text("drop table if exists dlg_r_opts"))
        conn.execute(text("create table dlg_r_opts (a int, b int, c int)"))
        conn.execute(text("create index dlg_r_opts_ix on dlg_r_opts (a) include (b) where c > 0"))
    try:
        (ix,) = inspect(engine).get_indexes("dlg_r_opts")
        opts = ix["dialect_options"]
        assert not [k for k in opts if not k.startswith("cumulo_")], opts
        assert opts["cumulo_include"] == ["b"] and "c > 0" in opts["cumulo_where"]
        md = MetaData()
        Table("dlg_r_opts", md, autoload_with=engine)
        with engine.begin() as conn:
            conn.execute(text("drop table dlg_r_opts"))
            md.create_all(conn)  # NB: the DDL compiler must read the reflected cumulo_* options
            made = conn.execute(text("select pg_get_indexdef('dlg_r_opts_ix'::regclass)")).scalar()
        assert made == ("CREATE INDEX dlg_r_opts_ix ON public.dlg_r_opts USING btree (a) "
                        "INCLUDE (b) WHERE (c > 0)")
    finally:
        with engine.begin() as conn:
            conn.execute(text("drop table if exists dlg_r_opts"))


def test_array_columns_keep_their_element_typmods(engine):
    """`varchar(10)[]` reflects as ARRAY(VARCHAR(10)), numeric(5,2)[] with its precision and scale:
    the element typmod lives in atttypmod, as in PostgreSQL (SQLAlchemy reads no dimensions from
    PostgreSQL 15 either: format_type prints `integer[]` for `int[][]`)."""
    with engine.begin() as conn:
        conn.execute(text("drop table if exists dlg_r_arr"))
        conn.execute(text("create table dlg_r_arr (w varchar(10)[], n numeric(5,2)[], m int[][])"))
    try:
        cols = {c["name"]: c["type"] for c in inspect(engine).get_columns("dlg_r_arr")}
        assert cols["w"].item_type.length == 10
        assert (cols["n"].item_type.precision, cols["n"].item_type.scale) == (5, 2)
        assert repr(cols["m"]) == "ARRAY(INTEGER())"
    finally:
        with engine.begin() as conn:
            conn.execute(text("drop table dlg_r_arr"))
