"""hstore (CREATE EXTENSION hstore) and full-text search against PostgreSQL 15 (issue 16: item 21,
and Django's item 10).

hstore: CREATE / DROP EXTENSION (IF [NOT] EXISTS, 2BP01 while a column uses
the type), its text input (quoting, escapes, NULL, duplicate keys, PG's XX000
syntax errors with byte positions), its canonical output order (key length,
then bytes), the binary format, operators (-> ? ?| ?& @> <@ || - and
subscripts), functions (hstore(...), akeys, avals, skeys, svals, each, exist,
defined, slice, hstore_to_json(b), hstore_to_array, hstore_to_matrix),
equality, GROUP BY, DISTINCT and ORDER BY (hstore's btree order), and pg_type
rows. Full-text search: tsvector
and tsquery text and binary I/O, to_tsvector / to_tsquery / plainto_ /
phraseto_ / websearch_to_tsquery over 'simple' and 'english' (the Snowball
stemmer and PostgreSQL's stop words; every sample here gives PostgreSQL's
lexemes and positions), @@ (with phrases, prefixes and weights), ts_rank, ts_rank_cd,
setweight, ||, &&, <->, strip, length, numnode, ts_headline (fragments, options), GIN indexes (accepted;
queries are answered by a filter), ORDER BY and comparisons of tsvectors in
their btree order, pg_ts_config and regconfig. Every statement
in the text and the binary format, byte for byte. Then psycopg's hstore
adapter (TypeInfo.fetch + register_hstore), asyncpg's hstore codec and
SQLAlchemy's HSTORE / TSVECTOR columns on the stock postgresql dialect, on
both servers.
"""

from __future__ import annotations

import asyncio

import asyncpg
import psycopg
import pytest
import sqlalchemy as sa
from psycopg.types import TypeInfo
from psycopg.types.hstore import register_hstore
from sqlalchemy.dialects import postgresql

from tests.integration.typediff import connect, differences

HSTORE = r"""
select 'a=>1'::hstore
create extension if not exists hstore
create extension hstore
select extname, extversion from pg_extension where extname = 'hstore'
select typname, typlen, typcategory, typinput::text, typreceive::text, typsend::text, typalign, typstorage from pg_type where typname in ('hstore', '_hstore') order by typname
select $$b=>1, a=>2, aa=>NULL, c=>null, d=>"NULL", e=>NuLl, "x y"=>"q\"z", "k\\x"=>v\,w$$::hstore
select ''::hstore, '  a  =>  b  '::hstore, 'a=>b,'::hstore, $$"é"=>1, z=>2, ab=>3$$::hstore, 'a=>1, a=>1'::hstore
select $$"a"=>"1" "b"=>2$$::hstore
select 'a=>'::hstore
select '=>1'::hstore
select 'a=1'::hstore
select 'a=>b'::hstore -> 'a', 'a=>b, c=>d'::hstore -> array['a','x','c'], ('a=>b'::hstore)['a'], 'a=>b'::hstore -> 'z'
select 'a=>1'::hstore ? 'a', 'a=>1'::hstore ?| array['a','z'], 'a=>1'::hstore ?& array['a','z'], 'a=>1'::hstore ? 'b'
select 'a=>1,b=>2'::hstore @> 'a=>1', 'a=>1' <@ 'a=>1,b=>2'::hstore, 'a=>NULL'::hstore @> 'a=>NULL', 'a=>1'::hstore @> 'a=>2'
select 'a=>1'::hstore || 'b=>2', 'a=>1,b=>2'::hstore || 'a=>3', 'a=>1,b=>2'::hstore - 'a'::text, 'a=>1,b=>2'::hstore - array['a'], 'a=>1,b=>2'::hstore - 'a=>1, b=>3'::hstore
select 'a=>1,b=>2'::hstore - 'a'
select hstore('a','b'), hstore('a', NULL), hstore(NULL::text, 'a'), hstore(array['a','1','b','2']), hstore(array[['a','1'],['b','2']]), hstore(array['a','b'], array['1',null]), hstore(array['a','b'], null)
select hstore(array['a'])
select hstore(array['a','b'], array['1'])
select akeys('b=>1,aa=>2,c=>NULL'), avals('b=>1,aa=>2,c=>NULL'), exist('a=>1','a'), defined('a=>NULL','a'), slice('a=>1,b=>2,c=>3', array['a','c','z'])
select hstore_to_json('a=>1, b=>NULL, "q"=>"x\"y"'), hstore_to_jsonb('a=>1, b=>NULL'), hstore_to_array('a=>1,b=>2'), hstore_to_matrix('a=>1,b=>NULL'), hstore_to_json_loose('a=>1, b=>t, c=>x, d=>2.5')
select * from each('a=>1,b=>NULL,cc=>3')
select skeys('b=>1,a=>2')
select svals('b=>1,a=>NULL')
select 'a=>1'::hstore = 'a=>1', 'a=>1, b=>2'::hstore = 'b=>2,a=>1'::hstore, 'a=>1'::hstore <> 'a=>2', 'a=>1'::hstore::text, 'a=>1'::hstore::json
create table hs_t (id int primary key, h hstore, hs hstore[])
create index hs_t_gin on hs_t using gin (h)
insert into hs_t values (1, 'x=>1, y=>2', array['a=>1'::hstore]), (2, 'y=>2, x=>1', null), (3, 'z=>NULL', '{}'), (4, null, null)
select id, h, hs::text from hs_t order by id
select h, count(*) from hs_t group by h order by h::text
select h from (values ('b=>1'::hstore), ('a=>1'), (''), ('a=>NULL'), ('a=>1, b=>2'), ('aa=>1'), ('a=>2'), ('""=>NULL'), ('a=>""')) v(h) order by h
select id, h from hs_t order by h desc nulls last, id
select distinct h from hs_t where h is not null order by h::text
select id from hs_t where h @> 'x=>1' order by id
select id, h -> 'x', h ? 'z' from hs_t order by id
update hs_t set h = h || 'w=>0' where id = 1
select h from hs_t where id = 1
drop extension hstore
drop table hs_t
drop extension hstore
select 'a=>1'::hstore !~* 'x'
select 'a=>1'::hstore !~ 'x'
select 'abc' !~ 'b', 'abc' !~* 'B', 'abc' !~ 'x', null::text !~ 'a', not 'abc' ~ 'b', 'ABC' !~* 'x'
select max(h) from (values ('a=>1'::hstore)) t(h)
select min(h) from (values ('a=>1'::hstore)) t(h)
drop extension if exists hstore
create extension nope
""".strip().splitlines()

TSEARCH = r"""
select $$b:3 a:1,2B 'x y':4C z c:5A,1$$::tsvector, $$a:1 a:3 a$$::tsvector, $$'it''s' "q\'x"$$::tsvector, ''::tsvector, $$a:99999$$::tsvector, $$a:1D$$::tsvector
select 'a:0'::tsvector
select 'a:1,'::tsvector
select $$a & b | !c$$::tsquery, $$(a | b) & c$$::tsquery, $$a <-> b <2> c$$::tsquery, $$a:* & b:AB & c:*A$$::tsquery, $$!(a & b)$$::tsquery, $$a & (b | c)$$::tsquery, $$a <-> (b <-> c)$$::tsquery, '!!a'::tsquery
select 'a & '::tsquery
select typname, typlen, typcategory, typinput, typreceive, typarray from pg_type where oid in (3614, 3615, 3643, 3645) order by oid
select to_tsvector('english', 'The quick brown foxes jumped over the lazy dogs; running, runs, ran.'), to_tsvector('simple', 'The Quick-brown fox, 3.14 e-mail foo@bar.com http://x.org/a?b')
select to_tsvector('english', 'Generously generating generalizations; national nationalism rationalization conditional sensibility')
select to_tsvector('english', 'I''m happily running and swimming in the skies, dying ties, news agencies')
select to_tsvector('english', 'Café naïve résumé über Straße'), to_tsvector('simple', 'Hello, World! HELLO world'), to_tsvector('simple', '')
select to_tsvector('english', 'version 1.2.3, -42 and 3.5e10, x86-64 and a-b-c, user_name snake_case CamelCase')
select to_tsvector('english', 'Visit https://www.example.com/path/to?x=1 or mail john.doe+tag@example.co.uk now!')
select to_tsvector('english', 'The 3 little pigs: 10.5% of 2024''s profits. e.g. U.S.A. won''t')
select to_tsvector('english', 'consigned consigning consignment consist consisted consistency consistent consistently knackeries knackered kneeling')
select to_tsquery('english', 'running & !dogs | (the & quick)'), plainto_tsquery('english', 'The running dogs'), phraseto_tsquery('english', 'The running of dogs'), websearch_to_tsquery('english', '"quick fox" -dog or cat')
select to_tsquery('english', 'fat:AB & rats:*'), to_tsquery('english', 'supernovae <-> stars'), to_tsquery('simple', 'a <3> b'), to_tsquery('english', 'the & over'), to_tsquery('english', 'quick-brown')
select plainto_tsquery('english', 'the over'), phraseto_tsquery('english', 'the quick and the dead'), websearch_to_tsquery('english', 'signal -"segmentation fault"'), websearch_to_tsquery('english', 'or cats or')
select 'english'::regconfig, to_tsvector('english'::regconfig, 'cats'), current_setting('default_text_search_config'), get_current_ts_config()
select cfgname, cfgparser from pg_ts_config where cfgname in ('simple', 'english') order by cfgname
select to_tsvector('english', 'cats') @@ to_tsquery('english', 'cat'), 'a b'::tsvector @@ 'a & c'::tsquery, 'fat cats' @@ 'cat', to_tsquery('cat') @@ 'cat'::tsvector, 'a:1 b:2'::tsvector @@ '!a'::tsquery
select 'a:1,2,3 b:2 c:3'::tsvector @@ 'a <-> b'::tsquery, 'a:1,2,3 b:2 c:3'::tsvector @@ 'b <-> a'::tsquery, 'a:1 b:3'::tsvector @@ 'a <2> b', 'abc:1A'::tsvector @@ 'ab:*A', 'abc:1A'::tsvector @@ 'ab:*B', 'a b'::tsvector @@ 'a <-> b'::tsquery
select ts_rank(to_tsvector('english','the cat sat on the cat mat'), to_tsquery('cat')), ts_rank('cat:2,6 mat:7 sat:3'::tsvector, 'cat & mat'::tsquery), ts_rank('cat:2,6A mat:7 sat:3'::tsvector, 'cat <-> sat'::tsquery), ts_rank('cat mat'::tsvector, 'cat & mat'::tsquery), ts_rank('cat:2,6 mat:7 sat:3'::tsvector, 'cat & mat'::tsquery, 1)
select ts_rank(to_tsvector('english', 'a fat cat sat on a mat and ate a fat rat'), to_tsquery('english', 'fat | cat | dog')), ts_rank('{0.1,0.2,0.4,1.0}', setweight(to_tsvector('x y z'), 'A'), 'x & z'::tsquery)
select ts_rank(setweight(to_tsvector('english', 'Cats'), 'A') || setweight(to_tsvector('english', 'The cat sat'), 'B'), plainto_tsquery('english'::regconfig, 'cat')), ts_rank('cat:1B,3A'::tsvector, 'cat'::tsquery), ts_rank('cat:1A,3B sat:4B'::tsvector, 'cat & sat'::tsquery)
select setweight('a:1 b:2'::tsvector, 'A'), 'a:1 b:2'::tsvector || 'c:1 a:3'::tsvector, strip('a:1,2 b:3A'::tsvector), length('a:1 b:2'::tsvector), numnode('a & b | c'::tsquery)
select 'a'::tsquery && 'b'::tsquery, 'a'::tsquery || 'b'::tsquery, 'a'::tsquery <-> 'b'::tsquery, 'a:1'::tsvector = 'a:1'::tsvector, 'a & b'::tsquery = 'a & b'::tsquery
select ts_headline('english', 'The quick brown fox jumps over the lazy dog', to_tsquery('english', 'fox & dog'))
select ts_headline('The cat sat', 'cat'::tsquery, 'StartSel=[, StopSel=]')
select ts_headline('english', 'The quick-brown foxes, running quickly! Over the lazy dog.', to_tsquery('english', 'fox | run:* | quick'))
select ts_headline('english', repeat('lorem ipsum dolor ', 20) || 'the cat sat on the mat ' || repeat('sit amet ', 20), to_tsquery('english', 'cat'))
select ts_headline('english', repeat('lorem ipsum dolor ', 20) || 'the cat sat on the mat ' || repeat('sit amet ', 20), to_tsquery('english', 'cat'), 'MaxWords=10, MinWords=5')
select ts_headline('english', 'no match here at all', to_tsquery('english', 'cat'))
select ts_headline('english', 'a cat and not a dog', to_tsquery('english', 'cat & !dog'))
select ts_headline('english', repeat('lorem ipsum dolor ', 20), to_tsquery('english', 'cat'))
select ts_headline('english', repeat('word ', 50) || 'cat', to_tsquery('english', 'cat'), 'HighlightAll=true')
select ts_headline('english', 'In the beginning there was a cat. ' || repeat('The story goes on and on. ', 10) || 'Then a dog came.', to_tsquery('english', 'cat & dog'))
select ts_headline('english', 'x y z', to_tsquery('english', 'x'), 'MaxWords=5, MinWords=5')
select ts_rank_cd('cat:2,6 mat:7 sat:3'::tsvector, 'cat & mat'::tsquery), ts_rank_cd('cat:2,6 mat:7'::tsvector, 'cat'::tsquery), ts_rank_cd('cat mat'::tsvector, 'cat & mat'::tsquery)
select ts_rank_cd(to_tsvector('english', 'a fat cat sat on a mat and ate a fat rat'), to_tsquery('english', 'fat & rat')), ts_rank_cd(to_tsvector('english', 'a fat cat sat on a mat and ate a fat rat'), to_tsquery('english', 'fat | cat | dog')), ts_rank_cd(to_tsvector('english', 'a fat cat sat on a mat and ate a fat rat'), to_tsquery('english', 'fat <-> rat'))
select ts_rank_cd(setweight(to_tsvector('english', 'Cats'), 'A') || setweight(to_tsvector('english', 'The cat sat with a dog'), 'B'), to_tsquery('english', 'cat & dog')), ts_rank_cd('{0.1,0.2,0.4,1.0}', 'a:1A b:3 a:5'::tsvector, 'a & b'), ts_rank_cd('a:1 b:3 c:9'::tsvector, 'a & !c')
select ts_rank_cd(to_tsvector('english', 'the cat sat on the cat mat with another cat and a mat'), to_tsquery('english', 'cat & mat'), 0), ts_rank_cd(to_tsvector('english', 'the cat sat on the cat mat with another cat and a mat'), to_tsquery('english', 'cat & mat'), 1), ts_rank_cd(to_tsvector('english', 'the cat sat on the cat mat with another cat and a mat'), to_tsquery('english', 'cat & mat'), 2), ts_rank_cd(to_tsvector('english', 'the cat sat on the cat mat with another cat and a mat'), to_tsquery('english', 'cat & mat'), 4), ts_rank_cd(to_tsvector('english', 'the cat sat on the cat mat with another cat and a mat'), to_tsquery('english', 'cat & mat'), 32)
select v from (values ('b'::tsvector), ('a b'), ('a:1'), ('a'), ('a:2'), ('a:1A'), ('aa'), ('z'), ('a:1,2'), ('ab:1'), ('a:1 b'), ('a b:1'), ('')) v(v) order by v
select v from (values ('b'::tsvector), ('a b'), ('a:1'), ('a'), ('a:2'), ('a:1A'), ('aa'), ('z'), ('a:1,2'), ('ab:1'), ('a:1 b'), ('a b:1'), ('')) v(v) order by v desc
select 'a'::tsvector < 'b'::tsvector, 'aa'::tsvector > 'b'::tsvector, 'a:1'::tsvector = 'a:1'::tsvector
select * from ts_parse('default', 'The quick-brown fox 123 a@b.com http://x.org/p 1.5')
select * from ts_parse(3722, 'a  b, c!')
select * from ts_parse('default', '<b>bold</b> &amp; x-1 -5 v1.2.3 foo.example.com/a/b')
select * from ts_parse('nope', 'a')
select alias, description, token, dictionaries::text, dictionary::text, lexemes from ts_debug('english', 'The quick-brown fox 123 a@b.com')
select alias, token, dictionaries::text, dictionary::text, lexemes from ts_debug('The Fox')
select alias, token, dictionaries::text, dictionary::text, lexemes from ts_debug('simple', 'The http://x.org/p <b>')
create table ts_docs (id int primary key, body text, tv tsvector)
create index ts_docs_tv on ts_docs using gin (tv)
create index ts_docs_body on ts_docs using gin (to_tsvector('english', body))
insert into ts_docs select g, 'doc number ' || g || case when g % 3 = 0 then ' about cats' else ' about dogs' end, to_tsvector('english', 'cats ' || g) from generate_series(1, 30) g
select count(*) from ts_docs where to_tsvector('english', body) @@ to_tsquery('english', 'cat')
select id, ts_rank(to_tsvector('english', body), plainto_tsquery('english', 'cats')) r from ts_docs where to_tsvector('english', body) @@ plainto_tsquery('english', 'cats') order by r desc, id limit 3
select tv, count(*) from ts_docs where tv @@ '7 | 8' group by tv order by tv::text
drop table ts_docs
""".strip().splitlines()


def _clean(c: psycopg.Connection) -> None:
    for sql in ("drop table if exists hs_t", "drop table if exists ts_docs",
                "drop table if exists hc_t", "drop extension if exists hstore"):
        c.execute(sql)


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_hstore_and_tsearch_match_pg15(binary, pg15, cumulo_server):
    """Every statement gives PostgreSQL 15's column types and bytes, or its error."""
    with connect(pg15.dsn()) as pc, connect(cumulo_server.dsn()) as cc:
        for c in (pc, cc):
            _clean(c)
        try:
            mism = differences(pc, cc, HSTORE + TSEARCH, binary)
        finally:
            for c in (pc, cc):
                _clean(c)
    assert not mism, f"{len(mism)} of {len(HSTORE + TSEARCH)} differ:\n" + "\n".join(mism)


def _psycopg_side(dsn: str) -> list:
    out: list = []
    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute("create extension hstore")
        c.execute("create table hc_t (id int primary key, h hstore, v tsvector, q tsquery)")
        info = TypeInfo.fetch(c, "hstore")
        assert info is not None and info.array_oid > 0
        out.append((info.name, info.oid > 16383))
        register_hstore(info, c)
        for binary in (False, True):
            cur = c.cursor(binary=binary)
            h = {"a": "1", "b": None, 'q"x': "y\\z", "é": ""}
            cur.execute("insert into hc_t values (%s, %s, %s, %s)",
                        (1 + binary, h, "a:1 b:2A", "a & !b"))
            cur.execute("select h, v::text, q::text, h -> 'a', %s::hstore = h from hc_t "
                        "where id = %s", (h, 1 + binary))
            out.append(cur.fetchall())
    return out


async def _asyncpg_side(port: int, password: str | None) -> list:
    conn = await asyncpg.connect(host="127.0.0.1", port=port, user="cumulo", password=password,
                                 database="cumulo")
    try:
        await conn.set_builtin_type_codec("hstore", codec_name="pg_contrib.hstore")
        rows = await conn.fetch("select id, h from hc_t order by id")
        back = await conn.fetchval("select $1::hstore", {"x": "1", "y": None})
        tsv = await conn.fetchval("select $1::tsvector || 'z'", "a:1")
        st = await conn.prepare("select 'a=>1'::hstore, 'a'::tsquery, 'english'::regconfig")
        names = [a.name for a in st.get_attributes()]  # FigureColname: the type's name
        return [[tuple(r) for r in rows], back, tsv, names]
    finally:
        await conn.close()


def _sqlalchemy_side(url: str) -> list:
    eng = sa.create_engine(url)
    md = sa.MetaData()
    t = sa.Table("sa_hs", md, sa.Column("id", sa.Integer, primary_key=True),
                 sa.Column("data", postgresql.HSTORE), sa.Column("tv", postgresql.TSVECTOR))
    try:
        with eng.begin() as cx:
            md.drop_all(cx)
            md.create_all(cx)
            cx.execute(t.insert(), [{"id": 1, "data": {"a": "1", "b": None}, "tv": "x y"},
                                    {"id": 2, "data": {"c": "3"}, "tv": "z"}])
            q = sa.select(t.c.id, t.c.data, t.c.data["a"], t.c.data.has_key("b"),
                          t.c.data.keys(), t.c.data.contains({"a": "1"}), t.c.tv)
            rows = cx.execute(q.order_by(t.c.id)).all()
            hit = cx.execute(sa.select(t.c.id).where(t.c.tv.match("x"))).all()
            md.drop_all(cx)
        return [[tuple(r) for r in rows], [tuple(r) for r in hit]]
    finally:
        eng.dispose()


def test_hstore_clients_match_pg15(pg15, cumulo_server):
    """psycopg's hstore adapter (text and binary), asyncpg's hstore codec and SQLAlchemy's
    HSTORE and TSVECTOR columns see the same values on both servers."""
    sides = []
    for dsn, port, pw, url in (
            (pg15.dsn(), pg15.port, "cumulo-pw",
             f"postgresql+psycopg://cumulo:cumulo-pw@127.0.0.1:{pg15.port}/cumulo"),
            (cumulo_server.dsn(), cumulo_server.port, None,
             f"postgresql+psycopg://cumulo@127.0.0.1:{cumulo_server.port}/cumulo")):
        with connect(dsn) as c:
            _clean(c)
        try:
            side = _psycopg_side(dsn) + asyncio.run(_asyncpg_side(port, pw))
            side += _sqlalchemy_side(url)
        finally:
            with connect(dsn) as c:
                _clean(c)
        sides.append(side)
    assert sides[0] == sides[1]
    assert sides[1][1] == [({"a": "1", "b": None, 'q"x': "y\\z", "é": ""}, "'a':1 'b':2A",
                            "'a' & !'b'", "1", True)]
