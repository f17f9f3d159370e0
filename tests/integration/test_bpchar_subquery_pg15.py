"""char(n) against char(m) through IN, NOT IN, op ANY/ALL over a subquery and = ANY over an
array, against PostgreSQL 15: bpchar's comparisons ignore trailing blanks, so 'x1' stored
as char(4) ('x1  ') equals 'x1' stored as char(6). Before, the decorrelated semi join and
the array/subquery paths compared the padded strings and found nothing (0 rows, PG 1000).
Each script runs with the columnar path on and off."""

from __future__ import annotations

import pytest

from tests.integration.stmtdiff import assert_same_outcomes

SCRIPT = """
set cumulo.columnar = {mode};
create table a4 (k char(4), v int);
create table a6 (k char(6), n numeric primary key);
insert into a4 select 'x' || (g % 50), g from generate_series(1, 1000) g;
insert into a4 values (null, 0), ('x1  ', -1);
insert into a6 select 'x' || g, g from generate_series(0, 60) g;
insert into a6 values (null, 100);
select count(*) from a4 where k in (select k from a6);
select count(*) from a4 where k not in (select k from a6 where k is not null);
select count(*) from a4 where k not in (select k from a6);
select count(*) from a4 where k = any(array(select k from a6));
select count(*) from a4 where k = any(select k from a6);
select count(*) from a4 where k <> all(select k from a6 where n < 10);
select count(*) from a4 where k < any(select k from a6 where n < 3);
select count(*) from a4 where k = any('{x1,"x2    "}'::char(6)[]);
select k, k in (select k from a6) from a4 where v < 3 order by v;
select count(*) from a4 where k in (select k from a6 where a6.n < a4.v);
select count(*) from a4 where exists (select from a6 where a6.k = a4.k);
"""


@pytest.mark.parametrize("mode", ["on", "off"])
def test_char_subqueries_match_pg15(mode, pg15, module_server):
    assert_same_outcomes(pg15, module_server, f"bpchar_sub_{mode}", SCRIPT.replace("{mode}", mode))
