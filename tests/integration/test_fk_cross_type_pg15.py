"""Foreign keys whose column types differ from the referenced ones, against PostgreSQL 15:
an integer column referencing numeric or float8 keys (PostgreSQL compares after the
implicit cast). The insert check looked the child's integer up with the integer key
encoding and refused a valid row with 23503 (found by H-HTAP3)."""

from __future__ import annotations

from tests.integration.stmtdiff import assert_same_outcomes

SCRIPT = """
create table pn (n numeric primary key, m numeric(10,2) unique, f float8 unique);
insert into pn values (5, 5, 5), (6.5, 6.5, 6.5), (7, 7.25, 8);
create table c1 (a bigint references pn(n));
create table c2 (a int references pn(m));
create table c3 (a int references pn(f));
create table c4 (a numeric references pn(f));
create table c5 (a smallint references pn(n) on delete cascade on update cascade);
insert into c1 values (5);
insert into c1 values (7);
insert into c1 values (8);
insert into c2 values (5);
insert into c2 values (7);
insert into c3 values (5), (8);
insert into c3 values (6);
insert into c4 values (6.5);
insert into c4 values (7);
insert into c5 values (7), (7);
update c1 set a = 6 where a = 5;
delete from pn where n = 5;
update pn set n = 9 where n = 7;
delete from c1;
update pn set n = 9 where n = 7;
select * from c5 order by a;
delete from pn where n = 9;
select count(*) from c5;
select * from c2 order by a;
"""


def test_cross_type_foreign_keys_match_pg15(pg15, module_server):
    assert_same_outcomes(pg15, module_server, "fk_cross_type", SCRIPT)
