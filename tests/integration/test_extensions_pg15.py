"""CREATE EXTENSION for pgcrypto and uuid-ossp, and their functions, against PostgreSQL 15 (issue 16, item 21).

Creating an available extension records it in pg_extension (IF NOT EXISTS
skips with a notice, a second CREATE is 42710, plpgsql always exists); any
other extension fails with PostgreSQL's 0A000 `extension "foo" is not
available`; DROP EXTENSION [IF EXISTS]. Then pgcrypto's digest/hmac/
gen_random_bytes and uuid-ossp's generators (v3 and v5 are deterministic, so
their values must match). Text and binary formats.

The second test covers issue 16's extension leftovers (PostgreSQL 15 here has the hstore,
pgcrypto and uuid-ossp contrib extensions, so it is the oracle for every line):

hstore: `delete()` under its keyword name, `r #= h`, `populate_record` (in the select list
and in FROM, NULLs included), `hstore(record)` (named, anonymous and NULL rows, each field
through its output function), `%%` and `%#`, `tconvert`, `hstore_version_diag`, `hstore_hash(_extended)`, the btree
operators `#<#` `#<=#` `#>#` `#>=#` and `hstore_cmp` (and no `<`, `>` or `~`, which hstore 1.8 lacks), and the errors of each (42804, 0A000,
42883, 22P02). `DROP EXTENSION hstore` refused with PostgreSQL's 2BP01 DETAIL (array
columns first, views through the column they read), `RESTRICT` the same, and `CASCADE`
dropping the columns and views with its NOTICE, transactional. `UPDATE ... SET h['k'] = v`
(several keys of one column in one SET list, a NULL hstore as empty). pgcrypto's and uuid-ossp's
functions are 42883 until CREATE EXTENSION; pgcrypto's crypt() (bf, md5, xdes, des, any
other salt read as DES as pgcrypto does) and gen_salt() with its rounds checks; and a hash
each server makes verifies on the other; encrypt/decrypt(_iv) over aes and 3des (modes,
padding, key sizes, and the legacy ciphers PostgreSQL's OpenSSL 3 refuses). Text search: the two NOTICEs of an empty query
(once per text, as PostgreSQL's plan-time folding gives), websearch_to_tsquery's syntax
(`or`, `-`, quotes, skipped operator characters, word ends, precedence; cases a fuzz run
against PostgreSQL found), ORDER BY a tsquery (CompareTSQ), `!!`, tsquery @> <@,
ts_delete, ts_filter, setweight over some lexemes, ts_rewrite (PostgreSQL's flattened, sorted
shapes), querytree (NOTs dropped), to_tsvector(json / jsonb) and json(b)_to_tsvector with
their filters, ts_lexize and ts_token_type. And an index on
to_tsvector('english', ...) shows `'english'::regconfig` in pg_indexes and
pg_get_indexdef. Rows, SQLSTATEs, messages, DETAIL, HINT and NOTICEs must all match.
"""

from __future__ import annotations

import psycopg
import pytest

from tests.integration.typediff import connect, differences

STATEMENTS = """
create extension foo
create extension if not exists pgcrypto
create extension pgcrypto
create extension if not exists pgcrypto
create extension "uuid-ossp" with schema public
create extension plpgsql
select extname, extversion, extrelocatable from pg_extension order by extname
select digest('abc', 'sha256'), digest('abc'::bytea, 'md5'), hmac('abc', 'key', 'sha1'), encode(digest('x', 'sha1'), 'hex')
select digest('abc', 'nope')
select uuid_nil(), uuid_generate_v5(uuid_ns_url(), 'x'), uuid_generate_v3(uuid_ns_dns(), 'x'), length(gen_random_bytes(4)), uuid_generate_v4() is not null
drop extension foo
drop extension if exists foo
drop extension pgcrypto, "uuid-ossp"
select extname from pg_extension order by extname
""".strip().splitlines()


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_extensions_match_pg15(binary, pg15, cumulo_server):
    """Every statement gives PostgreSQL 15's outcome."""
    with connect(pg15.dsn()) as pc, connect(cumulo_server.dsn()) as cc:
        for c in (pc, cc):
            c.execute('drop extension if exists pgcrypto, "uuid-ossp"')
        mism = differences(pc, cc, STATEMENTS, binary)
    assert not mism, f"{len(mism)} of {len(STATEMENTS)} differ:\n" + "\n".join(mism)


LEFTOVERS = r"""
drop extension if exists pgcrypto
drop extension if exists "uuid-ossp"
select digest('abc', 'sha256')
select hmac('abc', 'key', 'sha1')
select uuid_nil()
select uuid_generate_v5(uuid_ns_url(), 'x')
create extension pgcrypto
select encode(digest('abc', 'sha256'), 'hex')
select crypt('password', '$1$saltsalt'), crypt('password', '$2a$06$abcdefghijklmnopqrstuu'), crypt('password', 'ab'), crypt('password', '_J9..salt'), crypt('password', '$5$abc'), crypt('pässword', 'ab')
select crypt('password', 'x')
select crypt('password', '$2$ab')
select crypt('password', '$6$x')
select length(gen_salt('bf')), length(gen_salt('bf', 8)), length(gen_salt('md5')), length(gen_salt('des')), length(gen_salt('xdes')), length(gen_salt('xdes', 1001)), left(gen_salt('bf', 10), 7), left(gen_salt('md5'), 3), left(gen_salt('xdes'), 1)
select gen_salt('nope')
select gen_salt('bf', 3)
select gen_salt('xdes', 2)
select gen_salt('md5', 5)
select crypt(NULL, 'ab'), crypt('a', NULL), s = crypt('pw', s) from (select crypt('pw', gen_salt('bf', 4)) s) x
select encode(encrypt('abc', 'key', 'aes'), 'hex'), encode(encrypt('0123456789abcdef', 'key', 'aes/pad:none'), 'hex'), encode(encrypt('abc', 'key', '3des'), 'hex'), encode(encrypt('abc', 'key', 'AES'), 'hex'), encode(encrypt('abc', '', 'aes'), 'hex')
select encode(encrypt('abc', '123456789012345678901234567890123', 'aes'), 'hex'), encode(encrypt('abc', '12345678901234567', 'aes'), 'hex'), encode(encrypt('abc', '1234567890123456789012345', 'aes'), 'hex')
select encode(encrypt('abcdefghijklmnopq', 'key', 'aes-ecb'), 'hex'), encode(encrypt('abcdefghijklmnopq', 'key', 'aes'), 'hex'), encode(encrypt_iv('abc', 'key', 'iv', 'aes'), 'hex'), encode(encrypt_iv('abc', 'key', '0123456789abcdefgh', 'aes-cbc'), 'hex')
select convert_from(decrypt(encrypt('hello', 'k', 'aes'), 'k', 'aes'), 'utf8'), convert_from(decrypt_iv(encrypt_iv('hello', 'k', 'v', 'aes'), 'k', 'v', 'aes'), 'utf8'), encode(encrypt('', 'k', 'aes'), 'hex'), encrypt(NULL, 'k', 'aes')
select encrypt('abc', 'key', 'aes/pad:none')
select encrypt('abc', 'key', 'des3')
select encrypt('abc', 'key', 'aes-cbc-ecb')
select encrypt('abc', 'key', 'aes/pad:zero')
select encrypt('abc', 'key', 'bf')
select decrypt('\x00112233'::bytea, 'k', 'aes')
select decrypt(encrypt('hello', 'k', 'aes'), 'wrong', 'aes')
drop extension pgcrypto
create extension hstore
create extension if not exists hstore
create table hx_r (a int, b text)
insert into hx_r values (7, 'seven')
select delete('a=>1,b=>2'::hstore, 'a'), delete('a=>1,b=>2'::hstore, array['a']), delete('a=>1,b=>2'::hstore, 'a=>1'::hstore), delete('a=>1,b=>2', 'a'), delete('a=>1'::hstore, NULL::text)
select 'a=>1,b=>2'::hstore #= 'a=>3'
select populate_record(null::hx_r, 'a=>5, b=>q'), populate_record(row(1,'x')::hx_r, ''), populate_record(row(3,'k')::hx_r, 'c=>1'), populate_record(null::hx_r, null) is null, populate_record(null::hx_r, '')
select * from populate_record(null::hx_r, 'a=>5, b=>q')
select * from populate_record(null::hx_r, null)
select populate_record(row(1,'x'), 'f1=>2')
select populate_record(1, 'a=>2')
select populate_record(null::hx_r, 'a=>x')
select (row(1,'z')::hx_r) #= 'b=>k'::hstore, t #= 'b=>NULL' from hx_r t
select hstore(t), hstore(t.*), %% hstore(t), %# hstore(t) from hx_r t
select hstore(row(1, 2.5, null::text, true, '2020-01-01'::date)), hstore(null::hx_r), hstore(t) from (values (1, 'x')) t(a, b)
select hstore('a=>1'), hstore(''), tconvert('a', 'b'), hstore_version_diag('a=>1')
select %% 'a=>1,b=>2'::hstore, %# 'a=>1,b=>NULL'::hstore, %% NULL::hstore
select hstore_hash(''), hstore_hash('a=>1'), hstore_hash('a=>NULL'), hstore_hash('b=>2, aa=>1'), hstore_hash('kkkkk=>vvvvvvvvv, xyz=>NULL, "é"=>ü'), hstore_hash_extended('a=>1', 0), hstore_hash_extended('a=>1', 42), hstore_hash_extended('', -7)
select 'a=>1'::hstore #<# 'b=>1', 'a=>1'::hstore #<=# 'a=>1', 'a=>1'::hstore #># 'a=>0', 'a=>1'::hstore #>=# 'b=>1', hstore_cmp('a=>1', 'b=>2'), hstore_lt('a=>1', 'b=>2'), hstore_eq('a=>1', 'a=>1')
select 'a=>1'::hstore > 'b=>1'
select 'a=>1'::hstore <= 'a=>1'::hstore
select 'a=>1'::hstore ~ 'a=>1'
select h from (values ('b=>1'::hstore), ('a=>1')) v(h) where h between 'a=>0' and 'z=>1'
create table hx_dep (h hstore, x int, hs hstore[])
insert into hx_dep values ('a=>1', 1, null)
create view hx_v as select h from hx_dep
create view hx_v2 as select * from hx_v
drop extension hstore
drop extension hstore restrict
begin
drop extension hstore cascade
select * from hx_dep
rollback
select * from hx_dep
drop extension hstore cascade
select * from hx_dep
select * from hx_v
select 'a=>1'::hstore
drop table hx_dep
create extension hstore
create table hx_set (id int primary key, h hstore)
insert into hx_set values (1, 'a=>1'), (2, NULL)
update hx_set set h['b'] = 2, h['a'] = NULL where id = 1 returning h
update hx_set set h['z'] = 'q' || id where id = 2 returning *
update hx_set set h['z'] = 'q' || id where id = 1 returning *
select id, h, h['z'], h['a'] from hx_set order by id
select key, value from hx_set, each(h) order by 1, 2
update hx_set set nope['x'] = '1'
drop table hx_r
drop table hx_set
drop extension hstore
select to_tsquery('english', 'the'), to_tsquery('english', '!the'), to_tsquery('english', 'the | a'), to_tsquery('simple', ' ')
select plainto_tsquery('simple', ''), plainto_tsquery('simple', ' , '), phraseto_tsquery('english', 'the')
select websearch_to_tsquery('simple', ''), websearch_to_tsquery('simple', '-'), websearch_to_tsquery('english', 'the')
select to_tsvector('english', 'x') @@ to_tsquery('english', 'the') from generate_series(1, 3)
select to_tsquery('english', x) from (values ('the'), ('a')) v(x)
select websearch_to_tsquery('simple', 'a or or b'), websearch_to_tsquery('simple', 'a or'), websearch_to_tsquery('simple', 'a -or b'), websearch_to_tsquery('simple', 'a "b c'), websearch_to_tsquery('simple', 'a - b'), websearch_to_tsquery('simple', 'a --b'), websearch_to_tsquery('simple', 'or or a')
select websearch_to_tsquery('english', 'cat or the or dog'), websearch_to_tsquery('simple', 'a OR -b'), websearch_to_tsquery('simple', '-a or b'), websearch_to_tsquery('simple', 'a-b c'), websearch_to_tsquery('simple', 'a "b -c" d'), websearch_to_tsquery('simple', E'a\'b')
select websearch_to_tsquery('english', '&cat | <->b '), websearch_to_tsquery('simple', '-- & 1.5 <-> a x:*'), websearch_to_tsquery('simple', '1.5 or- '), websearch_to_tsquery('english', 'the or-cator- or '), websearch_to_tsquery('simple', 'foo@bar.com)-  a-b '), websearch_to_tsquery('english', 'a-b&OR &   dogs '), websearch_to_tsquery('english', 'cat dogs    or-   1.5 '), websearch_to_tsquery('simple', E'a ) x:*or- catb \' '), websearch_to_tsquery('simple', '-- ) a ab"cd( (')
select to_tsvector('english', 'a.b /usr/local/bin The e-mail state-of-the-art it''s'), to_tsvector('simple', 'v1.2.3 123abc x.y1 ab1.5 1.5ab a-b.c/d foo.bar/baz ./x.txt ~/f C:/dir/f'), to_tsvector('simple', '&amp; <b>fox''s</b> &#39; e.g. U.S.A. a..b .hidden 1e-5 12.5kg 3.14abc www.site.com foo.txt a.b.c')
select q from (values ('a & b'::tsquery), ('a'), ('b | c'), ('!a'), ('a <-> b'), ('z'), ('x'), ('m'), ('ab'), ('ba'), ('q1'), ('a <2> b'), ('a & bb'), ('a & !b'), ('a & b & c')) v(q) order by q
select q from (values ('dog'::tsquery), ('cat'), ('mzg'), ('aaa'), ('dpy'), ('xzh'), ('woi')) v(q) order by q desc
select !! 'a & b'::tsquery, !!'a'::tsquery, 'a & b'::tsquery @> 'a', 'a'::tsquery <@ 'a & b', 'a | b'::tsquery @> 'b & a', 'a'::tsquery @> 'b'
select ts_delete('a:1 b:2 c'::tsvector, array['a', null]), ts_delete('a:1 b:2 c'::tsvector, 'z'), ts_delete('a:1'::tsvector, '{}'::text[])
select ts_filter('a:1A,2B b:2B c'::tsvector, '{a,b}'), ts_filter('a:1,2A'::tsvector, '{d}')
select ts_filter('a:1A b:2B c'::tsvector, '{a,null}')
select ts_filter('a:1A b:2B c'::tsvector, '{x}')
select setweight('a:1 b:2 c'::tsvector, 'A', '{a,c,z}'), setweight('a:1 b:2'::tsvector, 'A', '{a,null}')
select ts_rewrite('a & b'::tsquery, 'a'::tsquery, 'c'::tsquery), ts_rewrite('a & b & c'::tsquery, 'a & c'::tsquery, 'z'::tsquery), ts_rewrite('a | b'::tsquery, 'b'::tsquery, 'x & y'::tsquery), ts_rewrite('a & b'::tsquery, 'a & b'::tsquery, 'q'::tsquery)
select ts_rewrite('supernovae & crab'::tsquery, 'supernovae'::tsquery, 'sn | supernovae'::tsquery), ts_rewrite('(a | b) & c & !d'::tsquery, 'b'::tsquery, 'e <-> f'::tsquery), ts_rewrite('a <-> b & c'::tsquery, 'a <-> b'::tsquery, 'z'::tsquery)
select ts_rewrite('a & b & c & d & e'::tsquery, 'b & d'::tsquery, 'x | y'::tsquery), ts_rewrite('a | b | c'::tsquery, 'a | c'::tsquery, 'q & r & s'::tsquery), ts_rewrite('!a & b'::tsquery, 'a'::tsquery, 'c'::tsquery), ts_rewrite('a:* & b'::tsquery, 'a'::tsquery, 'c'::tsquery)
select ts_rewrite('a & b'::tsquery, 'z'::tsquery, 'c'::tsquery), ts_rewrite('cat & dog & mouse & bird'::tsquery, 'dog & bird'::tsquery, 'pet'::tsquery)
select querytree('!a'::tsquery), querytree('a & !b'), querytree('a | !b'), querytree('a <-> !b'), querytree('!a <-> !b'), querytree('a & b'), querytree('!(a & b) & c'), querytree('!!a'), querytree('a:* & !b:A | c')
select to_tsvector('english', '{"a":"the cats", "b": ["dogs run", 5, true], "c": {"d": "mice"}}'::jsonb), to_tsvector('english', '{"b":"x", "a":"the cats"}'::json), to_tsvector('{"a":"x y", "b":"z"}'::jsonb), to_tsvector('simple', '[]'::jsonb)
select json_to_tsvector('english', '{"a":"the cats", "b": ["dogs run", 5, true]}', '["all"]'), jsonb_to_tsvector('english', '{"a":"the cats", "b": ["dogs run", 5, true]}', '["numeric","key"]'), jsonb_to_tsvector('simple', '{"a":"x", "bb": false, "c": null, "d": 1.5e3}', '["boolean", "numeric", "string", "key"]'), jsonb_to_tsvector('{"a":"x y"}'::jsonb, '"string"')
select jsonb_to_tsvector('english', '{"a":"x"}', '["nope"]')
select ts_lexize('english_stem', 'cats'), ts_lexize('english_stem', 'the'), ts_lexize('simple', 'The'), ts_lexize('english_stem', 'Running'), ts_lexize('english_stem', ''), ts_lexize('simple', 'a b')
select ts_lexize('nope', 'x')
select * from ts_token_type('default')
select * from ts_token_type(3722) limit 2
select * from ts_token_type('x')
create table hx_ts (a text)
create index hx_ts_i on hx_ts using gin (to_tsvector('english', a))
select indexdef from pg_indexes where indexname = 'hx_ts_i'
select pg_get_indexdef('hx_ts_i'::regclass)
drop table hx_ts
""".strip().splitlines()

_CLEAN = ("drop view if exists hx_v2", "drop view if exists hx_v", "drop table if exists hx_dep",
          "drop table if exists hx_set",
          "drop table if exists hx_r", "drop table if exists hx_ts",
          "drop extension if exists hstore cascade")


def _outcome(conn: psycopg.Connection, notes: list[str], sql: str) -> tuple:
    """(rows or status or error fields, the NOTICEs it sent); `notes` is the connection's."""
    notes.clear()
    try:
        cur = conn.execute(sql)
        got: object = cur.fetchall() if cur.description else cur.statusmessage
    except psycopg.Error as e:
        d = e.diag
        got = ("error", e.sqlstate, d.message_primary, d.message_detail, d.message_hint)
    return got, list(notes)


def test_extension_leftovers_match_pg15(pg15, cumulo_server):
    """Every statement gives PostgreSQL 15's rows or error fields, and its NOTICEs."""
    with connect(pg15.dsn()) as pc, connect(cumulo_server.dsn()) as cc:
        pnotes: list[str] = []
        cnotes: list[str] = []
        for c, notes in ((pc, pnotes), (cc, cnotes)):
            c.add_notice_handler(lambda d, notes=notes: notes.append(
                f"{d.severity} {d.sqlstate} {d.message_primary} | {d.message_detail}"))
            for sql in _CLEAN:
                c.execute(sql)
        try:
            mism = []
            for sql in LEFTOVERS:
                want, got = _outcome(pc, pnotes, sql), _outcome(cc, cnotes, sql)
                if want != got:
                    mism.append(f"{sql}\n   pg15: {want}\n cumulo: {got}")
        finally:
            for c in (pc, cc):
                c.rollback()
                for sql in _CLEAN:
                    c.execute(sql)
    assert not mism, f"{len(mism)} of {len(LEFTOVERS)} differ:\n" + "\n".join(mism)


def test_crypt_hashes_verify_across_servers(pg15, cumulo_server):
    """A password hash made by one server's crypt(pw, gen_salt(kind)) verifies on the other."""
    with connect(pg15.dsn()) as pc, connect(cumulo_server.dsn()) as cc:
        for c in (pc, cc):
            c.execute("create extension if not exists pgcrypto")
        try:
            for kind in ("bf', 4", "md5'", "xdes'", "des'"):
                for maker, checker in ((pc, cc), (cc, pc)):
                    h = maker.execute(f"select crypt('s3cret', gen_salt('{kind}))").fetchone()[0]
                    ok = checker.execute("select crypt('s3cret', %s) = %s, crypt('x', %s) = %s",
                                         (h, h, h, h)).fetchone()
                    assert ok == (True, False), (kind, h)
        finally:
            for c in (pc, cc):
                c.execute("drop extension if exists pgcrypto")
