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

# The operators (issue 16's audit: `box @> point`, `p <-> q`, `~=`, `+` were 42883) and the
# conversions by name: every operator name of pg_operator over the seven types, mixed types,
# an untyped operand, NaN and infinity, overflow and division by zero, and the errors.
OPERATORS = """
select point '(1,1)' <-> point '(4,5)', point '(1,2)' + point '(3,4)', point '(1,2)' - point '(3,4)', point '(1,2)' * point '(3,4)', point '(1,2)' / point '(3,4)'
select box '(0,0),(2,2)' @> point '(1,1)', point '(1,1)' <@ box '(0,0),(2,2)', box '(0,0),(2,2)' @> box '(0.5,0.5),(1,1)', box '(0,0),(1,1)' <@ box '(0,0),(2,2)'
select point '(1,1)' ~= point '(1,1.0000001)', box '(0,0),(1,1)' ~= box '(1,1),(0,0)', circle '<(0,0),1>' ~= circle '<(0,0),1>', polygon '((0,0),(1,1),(1,0))' ~= polygon '((1,1),(1,0),(0,0))'
select box '(0,0),(2,2)' + point '(1,1)', box '(0,0),(2,2)' - point '(1,1)', box '(0,0),(2,2)' * point '(2,1)', box '(0,0),(2,2)' / point '(2,0)'
select circle '<(0,0),1>' + point '(1,1)', circle '<(0,0),2>' * point '(0,1)', circle '<(1,1),2>' / point '(2,0)', path '[(0,0),(1,1)]' + point '(1,0)', path '((0,0),(1,1))' * point '(2,0)'
select path '[(0,0),(1,1)]' + path '[(2,2),(3,3)]', path '((0,0),(1,1))' + path '[(2,2),(3,3)]'
select @-@ lseg '[(0,0),(3,4)]', @-@ path '[(0,0),(3,4),(3,0)]', @-@ path '((0,0),(3,4),(3,0))', @@ box '(0,0),(2,2)', @@ lseg '[(0,0),(2,4)]', @@ circle '<(1,2),3>', @@ polygon '((0,0),(2,0),(2,2),(0,2))'
select # path '[(0,0),(1,1),(2,0)]', # polygon '((0,0),(1,1),(2,0))'
select lseg '[(0,0),(2,2)]' # lseg '[(0,2),(2,0)]', box '(0,0),(2,2)' # box '(1,1),(3,3)', box '(0,0),(1,1)' # box '(2,2),(3,3)', line '{1,-1,0}' # line '{1,1,-2}'
select point '(3,3)' ## lseg '[(0,0),(2,0)]', point '(3,3)' ## box '(0,0),(2,2)', point '(3,3)' ## line '{1,-1,1}', lseg '[(0,0),(2,0)]' ## lseg '[(3,1),(3,5)]', lseg '[(5,5),(6,6)]' ## box '(0,0),(2,2)', line '{1,-1,0}' ## lseg '[(0,3),(1,5)]'
select point '(0,0)' <-> lseg '[(1,1),(2,2)]', point '(0,0)' <-> path '[(1,1),(2,2)]', point '(0,0)' <-> box '(1,1),(2,2)', point '(0,0)' <-> polygon '((1,1),(2,2),(2,1))', point '(0,0)' <-> line '{1,-1,1}', point '(0,0)' <-> circle '<(3,4),1>'
select lseg '[(0,0),(1,0)]' <-> lseg '[(0,1),(1,1)]', lseg '[(0,0),(1,0)]' <-> box '(2,2),(3,3)', lseg '[(0,0),(1,0)]' <-> line '{0,-1,2}', path '[(0,0),(1,0)]' <-> path '[(0,2),(1,2)]', box '(0,0),(1,1)' <-> box '(2,2),(3,3)'
select polygon '((0,0),(1,0),(0,1))' <-> polygon '((2,2),(3,2),(2,3))', polygon '((0,0),(1,0),(0,1))' <-> circle '<(3,3),1>', line '{1,-1,0}' <-> line '{1,-1,2}', circle '<(0,0),1>' <-> circle '<(5,0),1>', circle '<(0,0),1>' <-> point '(3,0)'
select box '(0,0),(1,1)' && box '(1,1),(2,2)', polygon '((0,0),(1,0),(0,1))' && polygon '((0.1,0.1),(3,3),(3,0))', circle '<(0,0),1>' && circle '<(2,0),1>'
select box '(0,0),(1,1)' << box '(2,0),(3,1)', box '(0,0),(1,1)' >> box '(2,0),(3,1)', box '(0,0),(1,1)' &< box '(2,0),(3,1)', box '(0,0),(1,1)' &> box '(2,0),(3,1)', box '(0,0),(1,1)' <<| box '(0,2),(1,3)', box '(0,0),(1,1)' |>> box '(0,2),(1,3)', box '(0,0),(1,1)' &<| box '(0,2),(1,3)', box '(0,0),(1,1)' |&> box '(0,2),(1,3)', box '(0,0),(1,1)' <^ box '(0,1),(1,3)', box '(0,0),(1,1)' >^ box '(0,1),(1,3)'
select point '(0,0)' << point '(1,0)', point '(0,0)' >> point '(1,0)', point '(0,0)' <<| point '(0,1)', point '(0,0)' |>> point '(0,1)', point '(0,0)' <^ point '(0,1)', point '(0,0)' >^ point '(0,1)'
select circle '<(0,0),1>' << circle '<(3,0),1>', circle '<(0,0),1>' &< circle '<(3,0),1>', circle '<(0,0),1>' <<| circle '<(0,3),1>', circle '<(0,0),1>' |&> circle '<(0,3),1>', polygon '((0,0),(1,0),(0,1))' << polygon '((2,2),(3,2),(2,3))', polygon '((0,0),(1,0),(0,1))' &<| polygon '((2,2),(3,2),(2,3))'
select lseg '[(0,0),(2,2)]' ?# lseg '[(0,2),(2,0)]', lseg '[(0,0),(1,1)]' ?# box '(0,0),(2,2)', lseg '[(0,0),(1,1)]' ?# line '{1,1,-1}', path '[(0,0),(2,2)]' ?# path '[(0,2),(2,0)]', box '(0,0),(1,1)' ?# box '(1,1),(2,2)', line '{1,-1,0}' ?# box '(0,0),(1,1)', line '{1,-1,0}' ?# line '{1,-1,1}'
select ?- lseg '[(0,0),(1,0)]', ?| lseg '[(0,0),(0,1)]', ?- line '{0,-1,1}', ?| line '{-1,0,1}', point '(0,0)' ?- point '(1,0)', point '(0,0)' ?| point '(0,1)'
select lseg '[(0,0),(1,0)]' ?-| lseg '[(0,0),(0,1)]', lseg '[(0,0),(1,0)]' ?|| lseg '[(0,1),(1,1)]', line '{0,-1,1}' ?-| line '{-1,0,1}', line '{1,-1,0}' ?|| line '{1,-1,3}'
select box '(0,0),(2,2)' = box '(0,0),(1,4)', box '(0,0),(2,2)' < box '(0,0),(3,3)', box '(0,0),(2,2)' >= box '(0,0),(1,1)', circle '<(0,0),1>' = circle '<(5,5),1>', circle '<(0,0),1>' <> circle '<(5,5),2>', lseg '[(0,0),(1,0)]' < lseg '[(0,0),(2,0)]', path '[(0,0),(1,0)]' = path '[(5,5),(6,6)]', line '{1,-1,0}' = line '{2,-2,0}', point '(1,1)' <> point '(1,2)'
select point '(1,1)' = point '(1,1)'
select polygon '((0,0),(3,0),(3,3),(0,3))' @> point '(1,1)', polygon '((0,0),(3,0),(3,3),(0,3))' @> polygon '((1,1),(2,1),(2,2))', polygon '((1,1),(2,1),(2,2))' <@ polygon '((0,0),(3,0),(3,3),(0,3))', circle '<(0,0),2>' @> point '(1,1)', circle '<(0,0),2>' @> circle '<(0,0),1>', path '((0,0),(3,0),(3,3))' @> point '(2,1)', point '(1,0)' <@ path '[(0,0),(2,0)]'
select point '(1,1)' <@ lseg '[(0,0),(2,2)]', point '(1,1)' <@ line '{1,-1,0}', lseg '[(0,0),(1,1)]' <@ line '{1,-1,0}', lseg '[(0,0),(1,1)]' <@ box '(0,0),(2,2)', point '(1,1)' <@ circle '<(0,0),2>', point '(1,1)' <@ polygon '((0,0),(3,0),(3,3),(0,3))'
select point '(1,1)' <-> '(2,2)', box '(0,0),(2,2)' @> '(1,1),(0,0)', circle '<(0,0),1>' * '(2,0)'
select point '(1,1)' / point '(0,0)'
select box '(0,0),(2,2)' @> 1
select point_distance('(0,0)', '(1,1)'), box_contain_pt('(1,1),(0,0)', '(0.5,0.5)'), dist_pb('(3,3)', '(1,1),(0,0)')
select point '(1e300,1e300)' * point '(1e300,1e300)'
select point '(NaN,1)' ~= point '(NaN,1)', point '(Infinity,1)' <-> point '(0,0)'
select line(point '(0,0)', point '(1,1)'), lseg(box '(0,0),(1,1)'), box(circle '<(0,0),1>'), circle(box '(0,0),(2,2)'), polygon(circle '<(0,0),1>'), polygon(4, circle '<(0,0),1>'), path(polygon '((0,0),(1,1),(1,0))'), point(box '(0,0),(2,2)')
select point(circle '<(1,2),3>'), point(lseg '[(0,0),(2,2)]'), point(polygon '((0,0),(2,0),(2,2),(0,2))'), box(point '(1,1)'), box(polygon '((0,0),(2,0),(2,2))'), circle(polygon '((0,0),(2,0),(2,2),(0,2))'), polygon(path '((0,0),(1,1),(1,0))'), bound_box(box '(0,0),(1,1)', box '(2,2),(3,3)')
select area(path '((0,0),(2,0),(2,2))'), area(path '[(0,0),(2,0),(2,2)]'), length(path '[(0,0),(3,4)]'), slope(point '(0,0)', point '(1,2)'), ishorizontal(lseg '[(0,0),(1,0)]'), isvertical(line '{-1,0,1}'), isparallel(lseg '[(0,0),(1,0)]', lseg '[(0,1),(1,1)]'), isperp(line '{0,-1,1}', line '{-1,0,1}'), ishorizontal(point '(0,0)', point '(1,0)'), isvertical(point '(0,0)', point '(0,1)')
select polygon(path '[(0,0),(1,1)]')
select polygon(1, circle '<(0,0),1>')
select polygon(4, circle '<(0,0),0>')
select line(point '(0,0)', point '(0,0)')
select polygon(8, circle '<(1,1),2>')
select box(circle '<(1,1),2>'), circle(polygon '((0,0),(1,0),(0,1))')
select box '(NaN,1e-300),(1e-06,1e-07)', point '(1e300,1e-07)' ## box '(NaN,1e-300),(1e-06,1e-07)', box '(Infinity,-Infinity),(1e-06,Infinity)' <= box '(-1e300,Infinity),(1e300,1e-300)'
select line '{1e-06,1e-06,-Infinity}'
select point '(1e-300,1e-06)' <-> polygon '((-Infinity,1e300),(-Infinity,1e-06),(1e-06,NaN))', path '[(1e-300,Infinity),(Infinity,-1e300),(1e300,1e-06),(-1e300,-1e300)]' <-> path '((-1e300,NaN),(1e-07,1.4),(1e-300,1e-06),(Infinity,1e-06))'
select circle '<(-Infinity,1e300),Infinity>' && circle '<(2,1e-300),1e300>', box '(Infinity,NaN),(1e300,1e-07)' / point '(2.1,1e-07)', lseg '[(1e-07,1e-07),(-1e300,-1)]' <-> box '(1e-06,Infinity),(-1e300,-1e300)'
select path '((-1e300,1.4),(-1e300,Infinity),(-3.3,-Infinity))' / point '(-1e300,1e-300)'
select polygon '((1e-300,0.1),(Infinity,-1e300),(4.9,-5),(NaN,1e300))' <-> polygon '((1e-300,1e300),(1,-0.4),(NaN,Infinity),(-Infinity,Infinity),(1e-07,NaN))'
select point '(1,1)' + point '(1,1)' <-> point '(0,0)'
select point '(0,0)' <-> point '(3,4)' * point '(1,0)'
select box '(0,0),(1,1)' ~= box '(1,1),(0,0)' and true
select @-@ lseg '[(0,0),(3,4)]' + 1
select # path '[(0,0),(1,1)]' * 2
select point '(0,0)' <-> point '(3,4)' < 6, not point '(0,0)' <^ point '(0,1)'
select point '(1,1)' <@ box '(0,0),(2,2)' = true
select circle '<(0,0),1>' @> point '(0,0)' or false
select - point '(1,1)'
select point '(1,1)' <-> point '(2,2)' <-> point '(0,0)'
select ?- lseg '[(0,0),(1,0)]' and ?| lseg '[(0,0),(0,1)]'
select 'a'::tsquery <-> 'b'::tsquery, to_tsquery('a') <-> to_tsquery('b') <-> 'c'::tsquery
select 1 <-> 2
select 'a' <-> 'b'
create table geo_o (id int primary key, p point, b box)
insert into geo_o values (1, '(1,1)', '(0,0),(2,2)'), (2, '(5,5)', '(0,0),(1,1)'), (3, null, '(4,4),(6,6)')
select id, b @> p, p <-> point '(0,0)', b # box '(1,1),(5,5)', @@ b from geo_o order by id
select id from geo_o where p <@ b order by id
drop table geo_o
""".strip().splitlines()


def test_geometric_operators_match_pg15(pg15, cumulo_server):
    """Each operator and conversion gives PostgreSQL 15's type, text and error."""
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), OPERATORS, False,
                        drops=["drop table if exists geo_o"])


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_geometric_types_match_pg15(binary, pg15, cumulo_server):
    """Every statement gives PostgreSQL 15's column types and bytes."""
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), STATEMENTS,
                        binary, drops=["drop table if exists geo_t"])
