"""What Django 5.2's own test suite found different from PostgreSQL 15, checked against it.

The SQL scripts are the statements Django's ORM sends, reduced; the ORM test runs the
same calls through Django's stock PostgreSQL backend (psycopg 3) on both servers:

- `DISTINCT ON` with no ORDER BY returns its rows sorted by the DISTINCT ON expressions,
  as PostgreSQL's Unique over a Sort does (`.distinct("value__k")`);
- `EXPLAIN (SELECT ...) UNION (SELECT ...)`: a parenthesised query after EXPLAIN is no
  option list (`QuerySet.union(...).explain()`);
- ROLLBACK TO SAVEPOINT puts back the SET CONSTRAINTS modes set since (Django's TestCase
  teardown runs `SET CONSTRAINTS ALL DEFERRED` in the test's transaction);
- ALTER TABLE ADD COLUMN ... PRIMARY KEY (an AutoField added by a migration), and SET NOT
  NULL of a column added in the same transaction (was XX000);
- an UPDATE that keeps a deferred foreign key's columns queues no check (a pending event
  CREATE INDEX refuses): Django's `add_field` + UPDATE + deferred `CREATE INDEX`;
- arrays as GROUP BY, hash-join, IN and NOT IN keys (were XX000), ARRAY(SELECT of arrays)
  of one more dimension, @> and && over multidimensional arrays, bounds in a cast's type
  (`::double precision[3]`, ArrayField(size=...));
- range adjacency `-|-` (and `&<`, `&>`) in an EXCLUDE constraint (ExclusionConstraint
  with RangeOperators.ADJACENT_TO was 0A000);
- a reg* literal in an index expression is a constant (`to_tsvector('english'::regconfig,
  ...)`, SearchVector indexes, was 42P17);
- TRUNCATE of many tables at once (Django's flush after each TransactionTestCase) builds
  one catalog snapshot, not one per table (300 tables: 20 s, now 0.7 s; PG 0.9 s);
- the 'french' text search configuration (SearchVector(config="french") ...);
- the bit_and, bit_or and bit_xor aggregates of integers (contrib.postgres' BitAnd ...);
- CREATE EXTENSION of contrib.postgres' extensions: bloom's access method (its options,
  pg_am), btree_gin's GIN over scalar types, pg_trgm's and unaccent's functions and
  operators;
- ts_headline's choice among the covers of the query (the one with the most matches,
  not the first: SearchHeadline("brave sir robin")), its way back past short words to
  MinWords, and options quoted in '' as Django's SearchHeadline sends them
  (StartSel='<span>', FragmentDelimiter='...<br>'; a bad list is 42601);
- ALTER COLUMN ... TYPE of the same type with another COLLATE (a field's db_collation
  changed by a migration) compares under the new collation: the stored values were
  kept under the old ICU collation (`schema.tests.test_ci_cs_db_collation`).
"""

from __future__ import annotations

import importlib.util

import pytest

from tests.django.test_django_orm import _configure
from tests.integration.stmtdiff import assert_same_outcomes

SCRIPT = """
create table dj (id int primary key, v jsonb, name varchar(30));
insert into dj values (1, '{"k": {"l": "m"}}', 'Matthew'), (2, null, 'Cat sat on mat.'),
  (3, '{"a": 1}', 'Middlesborough'), (4, '{"k": {"l": "m"}}', 'Crème Brûlée'), (5, '{"k": 1}', 'Łódź');
select distinct on (v -> 'k') v -> 'k', id from dj;
select distinct on (v #> '{k,l}') v #> '{k,l}' from dj;
select distinct on (v -> 'k', id) v -> 'k', id from dj order by v -> 'k' desc;
explain (costs off) (select 1) union all (select 2);
explain(costs off) select 1;
create table dc (id int primary key, shelf text);
alter table dc add constraint dc_shelf unique (shelf) deferrable initially immediate;
insert into dc values (1, 'front'), (2, 'back');
begin;
savepoint s;
set constraints all deferred;
rollback to savepoint s;
update dc set shelf = 'back' where id = 1;
rollback;
begin;
savepoint s;
set constraints dc_shelf deferred;
release savepoint s;
update dc set shelf = 'back' where id = 1;
rollback;
create table dn (id serial primary key, parent_id int references dn deferrable initially deferred);
insert into dn default values;
begin;
alter table dn add column fk2 int constraint dn_fk2 references dn deferrable initially deferred; set constraints dn_fk2 immediate;
update dn set fk2 = 1;
create index dn_fk2_idx on dn (fk2);
commit;
begin;
update dn set parent_id = 1;
create index dn_x2 on dn (parent_id);
rollback;
begin;
insert into dn (parent_id) values (1);
update dn set fk2 = 1;
create index dn_x3 on dn (parent_id);
rollback;
begin;
update dn set parent_id = 7;
update dn set fk2 = null;
commit;
create table ap (a int);
insert into ap values (1), (2);
alter table ap add column id int primary key;
alter table ap add column id bigint generated always as identity constraint ap_mypk primary key;
alter table ap add column id2 int primary key;
select conname, contype, pg_get_constraintdef(oid) from pg_constraint where conrelid = 'ap'::regclass;
select * from ap order by id;
insert into ap (a) values (3) returning *;
create table ap2 (a int);
insert into ap2 values (1), (1);
alter table ap2 add column id2 int primary key default 5;
alter table ap2 add column id serial primary key deferrable initially deferred;
select conname, condeferrable, condeferred from pg_constraint where conrelid = 'ap2'::regclass;
select * from ap2 order by id;
begin;
alter table ap add column c int default 1;
alter table ap alter column c set not null;
update ap set c = null where a = 1;
commit;
begin;
alter table ap add column d int;
alter table ap alter column d set not null;
rollback;
create table ba (i int, s smallint, b bigint, t text);
insert into ba values (5, 3, 12, 'a'), (3, 6, 10, 'b'), (null, null, null, null), (7, 2, 8, 'c');
select bit_and(i), bit_or(i), bit_xor(i), bit_and(s), bit_or(s), bit_xor(b), bit_and(b),
  pg_typeof(bit_and(s)), pg_typeof(bit_or(b)) from ba;
select bit_and(i) from ba where false;
select bit_xor(i) filter (where i > 3), bit_or(distinct i), coalesce(bit_xor(i), 0) from ba;
select t, bit_or(i) over (order by t) from ba order by t;
select bit_and(t) from ba;
select bit_or('1');
select bit_and(1.5);
create table na (id serial primary key, field int[], ord int, ws double precision[3]);
insert into na (field, ord, ws) values ('{1}', 0, '{1.0,2.0}'::float8[]::double precision[3]),
  ('{2}', 1, null), ('{2,3}', 2, null), ('{2,3}', 3, null), (null, 4, null);
select field, count(*) from na group by field order by field;
select a.id, b.id from na a join na b on a.field = b.field order by 1, 2;
select a.id, b.id from na a left join na b on a.field = b.field order by 1, 2;
select id from na where field in (select u0.field from na u0 where u0.ord = 2) order by id;
select id from na where field not in (select u0.field from na u0 where u0.ord = 2) order by id;
select array(select field from na where ord in (1, 0) order by ord);
select array(select field from na where ord < 3);
select id from na where field && (array(select u0.field from na u0 where u0.ord < 2))::integer[] order by id;
select '{{1,2},{3,4}}'::int[] @> '{3}', '{1,9}'::int[] && '{{1,2},{3,4}}', '{1,2}'::integer[3],
  cast('{1}' as text[2][]), ws from na where ord = 0;
create extension btree_gist;
create table rx (id int, ts tstzrange, room int);
alter table rx add constraint rx_adj exclude using gist (ts with -|-, room with =);
insert into rx values (1, '[2024-01-01,2024-01-02)', 1);
insert into rx values (2, '[2024-01-02,2024-01-03)', 1);
insert into rx values (3, '[2024-01-02,2024-01-03)', 2);
select int4range(1,2) operator(pg_catalog.-|-) int4range(2,3),
  int4range(1,5) operator(pg_catalog.&<) int4range(2,3);
select to_tsvector('french', 'Le chat mange les souris et les chevaux étaient rapides'),
  'french'::regconfig::oid, to_tsvector('french', 'Bonjour les amis') @@ plainto_tsquery('french', 'ami'),
  websearch_to_tsquery('french', '"les chevaux" -souris'),
  ts_headline('french', 'Le chat mange la souris', to_tsquery('french', 'souris'));
create table sc (id int, scene varchar(100), setting varchar(100), a text, t timestamptz);
create index sc1 on sc ((to_tsvector('english'::regconfig, coalesce((id)::text, '') || ' ' || coalesce(scene, ''))));
create index sc2 on sc using gist ((to_tsvector('english'::regconfig, coalesce(scene, ''))) tsvector_ops);
create index sc3 on sc ((a::regconfig));
create index sc4 on sc ((t::text));
create index sc5 on sc ((a || 'sc'::regclass::text));
create table tp (id serial primary key, v text);
create table tc (id serial primary key, p int references tp deferrable initially deferred);
create index on tp (v);
insert into tp (v) values ('a'), ('b');
insert into tc (p) values (1), (2);
truncate tp, tp, tc restart identity;
insert into tp (v) values ('x') returning *;
insert into tc (p) values (1) returning *;
begin;
truncate tp cascade;
select count(*) from tp;
rollback;
select count(*) from tp, tc;
truncate tc continue identity;
insert into tc (p) values (1) returning *;
select * from tp where v = 'x';
select similarity('a', 'b');
create index bl0 on dj using bloom (id);
create extension pg_trgm;
create extension unaccent;
create extension bloom;
create extension btree_gin;
select extname, extversion from pg_extension order by 1;
create index bl1 on dj using bloom (name, id) with (length=80, col1=4);
create index bl2 on dj using bloom (id) with (col33=1);
create unique index bl3 on dj using bloom (id);
create index g1 on dj using gin (name) where id is null;
select c.relname, am.amname, c.reloptions, pg_get_indexdef(c.oid) from pg_class c
  join pg_am am on am.oid = c.relam where c.relname in ('bl1', 'g1') order by 1;
select show_trgm('cat'), similarity('word', 'two words'), word_similarity('word', 'two words'),
  strict_word_similarity('word', 'two words'), show_trgm('a-b c,d  ee'), 'a' <-> 'b', 2 % 3;
select id, name % 'Mathew', name <-> 'Mathew', 'mat' <% name, name %> 'mat', 'mat' <<% name,
  name %>> 'mat', 'mat' <<-> name, name <->> 'mat', 'mat' <<<-> name, name <->>> 'mat'
  from dj order by id;
select id from dj where coalesce(name, '') || '' % 'im matt' order by 1;
set pg_trgm.similarity_threshold = 0.1;
select id from dj where name % 'Mathew' order by 1;
select id, unaccent(name), upper(unaccent(name)) from dj order by id;
select unaccent('Hôtel Ærø, straße, ﬁn àéÖ ñ');
create table dv (id int primary key, t text);
insert into dv values (1, 'Bravely bold Sir Robin, rode forth from Camelot. He was not'
  || ' afraid to die, o Brave Sir Robin. He was not at all afraid to be killed in nasty ways. Brave, brave, brave, brave Sir Robin');
select ts_headline('english', t, plainto_tsquery('english', 'brave sir robin')) from dv;
select ts_headline('english', t, plainto_tsquery('english', 'killed')) from dv;
select ts_headline('english', t, to_tsquery('english', 'die | nasty'), 'MaxWords=6, MinWords=3') from dv;
select ts_headline('english', t, to_tsquery('english', 'camelot & killed'), 'MaxWords=8, MinWords=3') from dv;
select ts_headline('english', t, to_tsquery('english', 'zebra'), 'MinWords=3, MaxWords=5') from dv;
select ts_headline('english', t, to_tsquery('english', 'robin & !camelot'), 'MinWords=3, MaxWords=7') from dv;
select ts_headline('english', t, to_tsquery('english', 'brave <-> sir'), 'MinWords=2, MaxWords=4, ShortWord=2') from dv;
select ts_headline('english', 'a b c d e f g h killed', to_tsquery('english', 'killed'), 'MinWords=4, MaxWords=6');
select ts_headline('english', 'the cat sat on the mat with a hat and the cat ran', to_tsquery('english', 'cat & hat'), 'MinWords=3, MaxWords=5');
select ts_headline('english', t, plainto_tsquery('english', 'brave sir robin'), 'StartSel=''<span>'', StopSel=''</span>''') from dv;
select ts_headline('english', t, plainto_tsquery('english', 'brave sir robin'), 'FragmentDelimiter=''...<br>'', MaxFragments=4, MaxWords=3, MinWords=1') from dv;
select ts_headline('english', t, plainto_tsquery('english', 'robin'), 'StartSel=''a''''b'', StopSel="c""d"') from dv;
select ts_headline('english', t, plainto_tsquery('english', 'robin'), 'StartSel = x y , StopSel=''''') from dv
"""


def test_statements_django_sends_match_pg15(cumulo_server, pg15):
    assert_same_outcomes(pg15, cumulo_server, "django_orm", SCRIPT)


DB_COLLATION = """
create collation dj_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
create table au (id int primary key, name varchar(255));
alter table au alter column name type varchar(255) collate "dj_ci";
insert into au values (1, 'ANDREW');
select count(*) from au where name = 'Andrew';
alter table au alter column name type varchar(255) collate "en-x-icu";
select count(*) from au where name = 'Andrew';
select name = 'Andrew', name < 'andrew' from au;
create table ap (name varchar(20) primary key, n int);
create index ap_n on ap (name, n);
insert into ap values ('ANDREW', 1), ('bob', 2);
alter table ap alter column name type varchar(20) collate dj_ci;
select * from ap where name = 'andrew';
select * from ap where name = 'BOB' order by name;
insert into ap values ('Andrew', 3);
alter table ap alter column name type text;
select * from ap where name = 'andrew';
insert into ap values ('Andrew', 3);
select * from ap order by name;
delete from ap where n = 3;
alter table ap alter column name type varchar(30) collate dj_ci;
select * from ap where name = 'andrew' order by n;
select * from ap where name > 'B' order by name
"""


@pytest.mark.skipif(importlib.util.find_spec("icu") is None,
                    reason="PyICU (pip install 'cumulo[icu]') is not installed")
def test_db_collation_change_matches_pg15(cumulo_server, pg15):
    assert_same_outcomes(pg15, cumulo_server, "django_coll", DB_COLLATION, detail=True)


_MODEL: list[type] = []


def _model() -> type:
    if not _MODEL:
        from django.db import models

        class Doc(models.Model):
            name = models.CharField(max_length=40)
            value = models.JSONField(null=True)

            class Meta:
                app_label = "ormdiff"
                db_table = "django_orm_doc"

        _MODEL.append(Doc)
    return _MODEL[0]


def _run(port: int, password: str | None) -> list:
    _configure(port, password)
    from django.contrib.postgres.search import TrigramSimilarity
    from django.db import IntegrityError, connection, transaction

    doc = _model()
    with connection.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS django_orm_doc")
        cur.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    with connection.schema_editor() as editor:
        editor.create_model(doc)
    doc.objects.bulk_create([doc(name="Matthew", value={"k": {"l": "m"}}),
                             doc(name="Mathew", value=None), doc(name="Bat", value={"k": 1})])
    out: list = [list(doc.objects.distinct("value__k__l").values_list("value__k__l"))]
    out.append(list(doc.objects.annotate(s=TrigramSimilarity("name", "Mathew"))
                    .order_by("-s", "name").values_list("name", "s")))
    q = doc.objects.filter(name="Bat").values("id").union(doc.objects.values("id"))
    out.append(bool(q.explain()))
    with transaction.atomic():
        with connection.cursor() as cur:
            cur.execute("ALTER TABLE django_orm_doc ADD CONSTRAINT dj_name UNIQUE (name) "
                        "DEFERRABLE INITIALLY IMMEDIATE")
        try:
            with transaction.atomic(), connection.cursor() as cur:
                cur.execute("SET CONSTRAINTS ALL DEFERRED")
                raise IntegrityError("roll back to the savepoint")
        except IntegrityError:
            pass
        try:
            with transaction.atomic():
                doc.objects.filter(name="Bat").update(name="Matthew")
            out.append("deferred")
        except IntegrityError:
            out.append("checked")
        transaction.set_rollback(True)
    # NB: the session server's database is every later module's: pg_trgm left there adds
    # operators (<->, %) that change what their differential scripts resolve
    with connection.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS django_orm_doc")
        cur.execute("DROP EXTENSION IF EXISTS pg_trgm")
    connection.close()
    return out


def test_orm_calls_match_pg15(cumulo_server, pg15):
    theirs = _run(pg15.port, "cumulo-pw")
    assert theirs[0] == [("m",), (None,)] and theirs[-1] == "checked"
    assert _run(cumulo_server.port, None) == theirs
