"""CREATE TABLE ... (LIKE src INCLUDING INDEXES) copies every index of src, as PostgreSQL 15
(issue 16): besides the primary key and UNIQUE constraints, the plain, unique, multi-column,
expression and partial indexes, with the names PostgreSQL chooses, and they work (a copied
unique index rejects duplicates). Compared in the bytes each server sends, text and binary
(`typediff`), then through pg8000 and cumulo.driver.
"""

from __future__ import annotations

import pytest

import cumulo.driver as drv
from tests.integration.typediff import assert_same_as_pg15, pg8000_outcomes
from tests.pg15 import PASSWORD

STATEMENTS = """
create table lix (id int primary key, a int, b text, c int, unique (c))
create index on lix (a)
create index lix_named on lix (a, b desc)
create index on lix (lower(b))
create unique index lix_u on lix (b) where a > 0
create table liy (like lix including indexes)
create table liz (like lix including all)
create table liw (like lix)
select c.relname, pg_get_indexdef(i.indexrelid) from pg_index i join pg_class c on c.oid = i.indexrelid where i.indrelid = 'liy'::regclass order by 1
select c.relname, pg_get_indexdef(i.indexrelid) from pg_index i join pg_class c on c.oid = i.indexrelid where i.indrelid = 'liz'::regclass order by 1
select count(*) from pg_index where indrelid = 'liw'::regclass
select conname, contype from pg_constraint where conrelid = 'liy'::regclass order by 1
insert into liy values (1, 1, 'x', 1)
insert into liy values (2, 1, 'x', 2)
insert into liy values (3, -1, 'x', 3)
select * from liy order by id
drop table lix, liy, liz, liw
""".strip().splitlines()


def _clean(c) -> None:
    c.execute("drop table if exists lix, liy, liz, liw")


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_like_indexes_match_pg15(binary, pg15, cumulo_server):
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), STATEMENTS, binary, clean=_clean)


def _p8(port: int, password: str | None) -> list:
    return pg8000_outcomes(port, password, (
        "drop table if exists liq, lir", "create table liq (k int, v text)",
        "create unique index on liq (lower(v))",
        "create table lir (like liq including indexes)",
        "insert into lir values (1, 'Ab')", "insert into lir values (2, 'aB')",
        "select indexrelid::regclass::text from pg_index where indrelid = 'lir'::regclass",
        "drop table liq, lir"))


def test_clients_see_copied_indexes(pg15, cumulo_server):
    """pg8000 gets PostgreSQL's codes and messages; cumulo.driver's error carries the code."""
    want = _p8(pg15.port, PASSWORD)
    assert want[5][0] == "23505" and want[6] == [["lir_lower_idx"]]
    assert _p8(cumulo_server.port, None) == want
    with drv.connect(cumulo_server.dsn()) as c:
        c.autocommit = True
        cur = c.cursor()
        cur.execute("drop table if exists lis, lit")
        cur.execute("create table lis (k int)")
        cur.execute("create unique index on lis (k)")
        cur.execute("create table lit (like lis including indexes)")
        cur.execute("insert into lit values (1)")
        with pytest.raises(drv.DatabaseError) as e:
            cur.execute("insert into lit values (1)")
        assert e.value.sqlstate == "23505"
        cur.execute("drop table lis, lit")
