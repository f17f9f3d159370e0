"""Geometric types' input, output and binary formats against PostgreSQL 15 (issue 16, item 17).

point, lseg, box (normalised to its high and low corners), line (from
{A,B,C} or two points), circle, path (open and closed) and polygon: the
spellings PostgreSQL accepts, float8 output of the coordinates (-0 kept),
errors, table columns, and the pg_type rows. Text and binary formats.
"""

from __future__ import annotations

import pytest

from tests.integration.typediff import assert_same_as_pg15

STATEMENTS = """
select '(1,2)'::point, ' ( 3 , 4 ) '::point, '1,2'::point, '(0.1,1e20)'::point, '(-0,1.5)'::point
select '(1,2),(3,4)'::box, '((3,4),(1,2))'::box, '[(1,2),(3,4)]'::lseg, '(1,2),(3,4)'::lseg
select '<(1,2),3>'::circle, '((1,2),3)'::circle, '1,2,3'::circle, '{1,-1,0}'::line, '[(0,0),(1,1)]'::line, '[(1,0),(1,5)]'::line
select '((1,2),(3,4))'::path, '[(1,2),(3,4)]'::path, '(1,2),(3,4)'::path, '((1,2),(3,4),(5,0))'::polygon, '(1,2),(3,4)'::polygon
select 'x'::point
select '(1,2,3)'::point
create table geo_t (id int primary key, p point, b box, c circle, g polygon, pa path, l lseg, li line)
insert into geo_t values (1, '(1,2)', '(0,0),(2,2)', '<(0,0),1>', '((0,0),(1,1),(1,0))', '[(0,0),(3,3)]', '[(0,0),(1,1)]', '{1,2,3}'), (2, null, null, null, null, null, null, null)
select * from geo_t order by id
drop table geo_t
select typname, typlen, typcategory, typdelim from pg_type where oid in (600, 601, 602, 603, 604, 628, 718) order by oid
""".strip().splitlines()


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_geometric_types_match_pg15(binary, pg15, cumulo_server):
    """Every statement gives PostgreSQL 15's column types and bytes."""
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), STATEMENTS,
                        binary, drops=["drop table if exists geo_t"])
