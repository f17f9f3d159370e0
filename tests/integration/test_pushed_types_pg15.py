"""Filters pushed into KiVi scans compare as SQL over their bound types, diffed with
PostgreSQL 15 with `cumulo.columnar` off and on.

`bigint_key = 9223372036854775808` once found the int8 maximum: the literal is a numeric
parameter of the cached plan, the pushed filter ran in the vector code, and 2**63 as a
float equals 2**63 - 1 as a float. Integer and numeric columns here meet values at the
edges of int4 and int8, past them, between two integers, NaN and the infinities, as
literals (the simple protocol), as parameters of a server-side prepared statement
(psycopg `prepare=True`, asyncpg) and of PREPARE; counts and groups make the node's
pushed aggregate run the filter over its columnar copy.

The other producers of filter IR type their leaves too: foreign-key cascades whose child
column type differs from the parent's (int4 and int8), and runtime
filters, the IN set a hash join's build side pushes into the probe side's scan.
(A bigint child of a numeric parent key is refused with 23503 where PostgreSQL accepts
it: the parent key is looked up by the child's value's key encoding, an int's, not the
numeric's; not a pushed filter, left out here.)
"""

from __future__ import annotations

import asyncio
from decimal import Decimal

import asyncpg
import psycopg
import pytest

from tests.integration.columnar_diff import (
    assert_on_off_match_pg,
    assert_vector_ran,
    columnar,
    connect_pair,
)
from tests.integration.stmtdiff import assert_same_outcomes

SETUP = [
    "create table pte (id bigint primary key, i int, n numeric, g int, b bigint)",
    "insert into pte select k, (k % 1000)::int, k / 7.0, (k % 5)::int, k * 3 "
    "from generate_series(1, 3000) k",
    "insert into pte values (9223372036854775807, 2147483647, 9223372036854775807, 1, "
    "9223372036854775807), (-9223372036854775808, -2147483648, -9223372036854775808, 2, "
    "-9223372036854775808), (9223372036854775806, null, 'NaN', 3, null), (0, 0, null, 4, 0)",
    "create table ptd (k bigint primary key, name text)",
    "insert into ptd values (5, 'five'), (9223372036854775807, 'max'), (-9223372036854775808, 'min')",
]
EDGES = ["9223372036854775808", "9223372036854775807", "-9223372036854775809",
         "-9223372036854775808", "18446744073709551616", "9223372036854775807.5",
         "9223372036854775806.5", "1e30", "-1e30", "2147483648", "2147483647.5", "5.0"]
QUERIES = [
    *(f"select count(*), min(id), max(id) from pte where id {op} {v}"
      for v in EDGES for op in ("=", "<>", "<", ">=")),
    *(f"select count(*), min(b), max(b) from pte where b {op} {v}"
      for v in EDGES for op in ("=", "<>", "<=", ">")),
    *(f"select count(*) from pte where i {op} {v}" for v in EDGES[-3:] for op in ("=", ">")),
    "select count(*) from pte where n = 9223372036854775807",
    "select count(*) from pte where n >= 9223372036854775806",
    "select count(*) from pte where n = 'NaN'",
    "select g, count(*) from pte where id in (9223372036854775808, 5, -9223372036854775809) "
    "group by g order by g",
    "select g, count(*) from pte where id not in (9223372036854775808, 5) group by g order by g",
    "select id from pte where id = 9223372036854775808",
    "select id from pte where id >= 9223372036854775806.5 order by id",
    # a hash join whose build side's keys become an IN set in the probe side's scan
    "select d.name, count(*) from pte p join ptd d on p.id = d.k group by d.name order by 1",
    "select count(*) from pte p where p.id in (select k from ptd)",
]


@pytest.fixture(scope="module")
def conns(cumulo_server, pg15):
    yield from connect_pair(cumulo_server, pg15, ("pte", "ptd"), SETUP)


@pytest.mark.parametrize("sql", QUERIES)
def test_on_off_and_pg15_agree(conns, sql: str) -> None:
    assert_on_off_match_pg(*conns, sql)


@pytest.mark.parametrize("sql", [
    "select count(*), min(b), max(b) from pte where b = 9223372036854775808",
    "select count(*), min(b), max(b) from pte where b < -9223372036854775808.5"])
def test_the_vector_form_decides_them(conns, sql: str) -> None:
    """(A filter on the key's first column stays on the row plan, whose pushed aggregate
    the node computes over its copy: the same kernels, not observable here.)"""
    assert_vector_ran(conns[0], sql)


PREPARED = ["select count(*), max(id) from pte where id = %s",
            "select count(*), max(id) from pte where id <> %s",
            "select count(*), min(id) from pte where id > %s",
            "select count(*) from pte where i <= %s"]
VALUES = [Decimal("9223372036854775808"), Decimal("9223372036854775807"),
          Decimal("-9223372036854775809"), Decimal("9223372036854775806.5"), Decimal("5"),
          Decimal("NaN"), 9223372036854775807, 5]


def _prepared(conn: psycopg.Connection) -> list:
    """Each query with each value bound server-side (numeric or int8 parameters), more
    than five times, so that a generic plan runs too."""
    out = []
    for sql in PREPARED:
        for _ in range(2):
            for v in VALUES:
                try:
                    out.append(conn.execute(sql, (v,), prepare=True).fetchall())
                except psycopg.Error as ex:
                    out.append(ex.sqlstate)
    return out


def test_prepared_parameters_as_pg15(conns) -> None:
    cu, pg = conns
    want = _prepared(pg)
    assert [(1, 9223372036854775807)] in want  # NB: the maximum is found, by its own value
    for mode in ("off", "on"):
        with columnar(cu, mode):
            assert _prepared(cu) == want, mode


def test_asyncpg_numeric_parameters_as_pg15(conns, cumulo_server, pg15) -> None:
    async def run(dsn: str) -> list:
        c = await asyncpg.connect(dsn)
        try:
            out = []
            for mode in ("off", "on"):
                await c.execute(f"set cumulo.columnar = {mode}")
                st = await c.prepare("select count(*), max(id) from pte where id = $1::numeric")
                for v in VALUES[:5]:
                    out.append(tuple(await st.fetchrow(v)))
            return out
        finally:
            await c.close()

    want = asyncio.run(run(pg15.dsn()))
    assert asyncio.run(run(cumulo_server.dsn())) == want
    assert want[0] == (0, None)


FK_SCRIPT = """
create table fkp8 (k bigint primary key, v text);
create table fkc4 (id int primary key, p int references fkp8 on delete cascade on update cascade);
create table fkcr (id int primary key, p int references fkp8 on delete restrict);
insert into fkp8 values (1, 'a'), (2147483647, 'b'), (3, 'c');
insert into fkc4 values (10, 1), (11, 2147483647), (12, 3), (13, null);
insert into fkcr values (30, 3);
insert into fkc4 values (14, 2);
delete from fkp8 where k = 2147483647;
update fkp8 set k = 100 where k = 1;
select * from fkc4 order by id;
delete from fkp8 where k = 3;
delete from fkcr;
delete from fkp8 where k = 3;
select * from fkc4 order by id
"""


def test_foreign_key_cascades_across_types_as_pg15(cumulo_server, pg15) -> None:
    assert_same_outcomes(pg15, cumulo_server, "pushed_fk_types", FK_SCRIPT)
