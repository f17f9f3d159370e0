"""Fixtures for the function library and pg_catalog tests: a hand-built catalog and a context.

The catalog mirrors what PostgreSQL 15 has after

    CREATE TABLE p (id serial PRIMARY KEY, name varchar(50) NOT NULL DEFAULT 'x');
    CREATE TABLE c (id int8 PRIMARY KEY, p_id int4 REFERENCES p(id) ON DELETE CASCADE,
                    amount numeric(10,2) CHECK (amount > 0), UNIQUE (p_id, amount));
    CREATE INDEX c_amount_desc ON c (amount DESC);
    CREATE SCHEMA s; CREATE TABLE s."T" (x int);   -- not on the search path
    COMMENT ON TABLE p IS 'parents'; COMMENT ON COLUMN p.name IS 'the name';
"""

from __future__ import annotations

import datetime as dt
import threading
from dataclasses import dataclass, field
from typing import Any

import pytest

import cumulo.server.sql.functions  # noqa: F401  (registers the functions)
import cumulo.server.sql.pgcatalog  # noqa: F401  (registers the relations)
from cumulo.server.pgtypes import oids as T
from cumulo.server.sql.catalog import model as M
from cumulo.server.sql.functions.registry import FUNCTIONS
from cumulo.server.sql.pgcatalog import VIRTUAL_TABLES

P, P_PKEY, P_SEQ = 16385, 16390, 16384
C, C_PKEY, C_UNIQ, C_IDX = 16400, 16402, 16404, 16406
S_SCHEMA, S_T = 16410, 16411
CON_P_PKEY, CON_C_PKEY, CON_C_FK, CON_C_CHECK, CON_C_UNIQ = 16391, 16403, 16407, 16408, 16405


def make_catalog() -> M.CatalogSnapshot:
    """Returns the snapshot described in this module's docstring."""
    p = M.Table(P, "p", M.PUBLIC_OID, (
        M.Column("id", T.INT4, attnum=1, not_null=True,
                 default="nextval('p_id_seq'::regclass)"),
        M.Column("name", T.VARCHAR, 54, attnum=2, not_null=True,
                 default="'x'::character varying"),
    ), primary_key=(1,))
    c = M.Table(C, "c", M.PUBLIC_OID, (
        M.Column("id", T.INT8, attnum=1, not_null=True),
        M.Column("gone", T.INT4, attnum=2, dropped=True),
        M.Column("p_id", T.INT4, attnum=3),
        M.Column("amount", T.NUMERIC, 655366, attnum=4),
    ), primary_key=(1,))
    st = M.Table(S_T, "T", S_SCHEMA, (M.Column("x", T.INT4, attnum=1),))
    return M.CatalogSnapshot(
        database=M.Database(16000, "cumulo"),
        databases=(M.Database(5, "postgres"), M.Database(16000, "cumulo")),
        roles=(M.Role(10, "cumulo", superuser=True), M.Role(16001, "app", login=True)),
        schemas=(M.Schema(M.PG_CATALOG_OID, "pg_catalog"), M.Schema(M.PUBLIC_OID, "public"),
                 M.Schema(S_SCHEMA, "s")),
        tables=(p, c, st),
        indexes=(
            M.Index(P_PKEY, "p_pkey", P, (1,), unique=True, primary=True),
            M.Index(C_PKEY, "c_pkey", C, (1,), unique=True, primary=True),
            M.Index(C_UNIQ, "c_p_id_amount_key", C, (3, 4), unique=True, space=7),
            M.Index(C_IDX, "c_amount_desc", C, (4,), descending=(True,), space=8),
        ),
        constraints=(
            M.Constraint(CON_P_PKEY, "p_pkey", P, "p", (1,), index_oid=P_PKEY),
            M.Constraint(CON_C_PKEY, "c_pkey", C, "p", (1,), index_oid=C_PKEY),
            M.Constraint(CON_C_UNIQ, "c_p_id_amount_key", C, "u", (3, 4), index_oid=C_UNIQ),
            M.Constraint(CON_C_FK, "c_p_id_fkey", C, "f", (3,), ref_table_oid=P,
                         ref_columns=(1,), on_delete="c"),
            M.Constraint(CON_C_CHECK, "c_amount_check", C, "c", (4,), check="amount > 0"),
        ),
        sequences=(M.Sequence(P_SEQ, "p_id_seq", M.PUBLIC_OID, type_oid=T.INT4,
                              max_value=2**31 - 1, owned_by=(P, 1)),),
        comments={(P, 0): "parents", (P, 2): "the name"},
    )


@dataclass
class Ctx:
    """A FunctionContext over a snapshot, with settings and sequences kept in dicts."""

    catalog: M.CatalogSnapshot
    user: str = "cumulo"
    database: str = "cumulo"
    backend_pid: int = 4242
    statement_timestamp: dt.datetime = dt.datetime(2024, 3, 1, 12, 30, 45, 123456,
                                                   tzinfo=dt.UTC)
    settings: dict[str, str] = field(default_factory=lambda: {
        "search_path": '"$user", public', "TimeZone": "UTC", "DateStyle": "ISO, MDY",
        "application_name": "psql", "jit": "off"})
    seqs: dict[int, int] = field(default_factory=dict)
    session: None = None  # NB: no session: the views that list sessions show this one alone
    cancel_event: threading.Event = field(default_factory=threading.Event)

    def get_setting(self, name: str) -> str | None:
        return next((v for k, v in self.settings.items() if k.lower() == name.lower()), None)

    def set_setting(self, name: str, value: str, is_local: bool) -> str:
        self.settings[name] = value
        return value

    def search_path(self) -> list[str]:
        return [s.strip() for s in self.settings["search_path"].split(",")]

    def nextval(self, seq_oid: int) -> int:
        self.seqs[seq_oid] = self.seqs.get(seq_oid, 0) + 1
        return self.seqs[seq_oid]

    def currval(self, seq_oid: int) -> int:
        return self.seqs[seq_oid]

    def setval(self, seq_oid: int, value: int, is_called: bool) -> int:
        self.seqs[seq_oid] = value
        return value


@pytest.fixture
def ctx() -> Ctx:
    """A context over the sample catalog."""
    return Ctx(make_catalog())


def call(name: str, *args: Any, ctx: Any = None, types: list[int] | None = None) -> Any:
    """Calls a registered function as compiled code would: overload, strictness, context."""
    defs = FUNCTIONS[name]
    if types is not None:
        cands = [d for d in defs if d.args is not None and list(d.args) == types]
    else:
        cands = [d for d in defs if d.args is None or len(d.args) == len(args)]
    assert cands, f"no overload of {name} for {types or len(args)} arguments"
    f = cands[0]
    if f.strict and any(a is None for a in args):
        return None
    result = f.impl(ctx, *args) if f.needs_context else f.impl(*args)
    return list(result) if f.set_returning else result


def rows(ctx: Any, name: str, schema: str = "pg_catalog") -> list[dict[str, Any]]:
    """Returns a virtual relation's rows as dicts, checking each row's width."""
    vt = VIRTUAL_TABLES[(schema, name)]
    cols = [c for c, _ in vt.columns]
    out = []
    for r in vt.rows(ctx):
        assert len(r) == len(cols), f"{schema}.{name}: row has {len(r)} values, {len(cols)} columns"
        out.append(dict(zip(cols, r, strict=True)))
    return out
