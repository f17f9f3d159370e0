"""The xml type and the SQL/XML functions against a throwaway PostgreSQL 15 (issue 16).

Input checked per `xmloption` with libxml's DETAIL lines (2200N / 2200M), the XML
declaration dropped on output but kept by `::text`, no `=` / ORDER BY / DISTINCT for
xml (42883), XMLELEMENT/XMLATTRIBUTES/XMLFOREST with PostgreSQL's value mapping
(booleans, timestamps, bytea and arrays in XML Schema form, text escaped, xml not),
XMLCONCAT/xmlagg merging declarations, XMLPARSE, XMLSERIALIZE, XMLPI, XMLROOT, IS
DOCUMENT, xpath/xpath_exists/XMLEXISTS with namespaces, XMLTABLE; raw bytes in text and binary,
then the errors' fields through psycopg, and asyncpg and pg8000 reading xml columns.
"""

from __future__ import annotations

import asyncio

import asyncpg
import psycopg
import pytest

from tests.integration.typediff import assert_same_as_pg15, pg8000_outcomes
from tests.pg15 import PASSWORD

STATEMENTS = r"""
select '<a>x</a>y'::xml, ''::xml, '&amp;&lt;'::xml, '<!DOCTYPE a [<!ENTITY e "v">]><a>&e;</a>'::xml
select '<?xml version="1.0"?><a/>'::xml, '<?xml version="1.0"?><a/>'::xml::text, '<?xml version="1.1" standalone="yes"?><a/>'::xml
select '<a'::xml
select E'\n<a/>'::xml, E'\n<a/>'::xml::text, xpath('//text()', E'<a> <b/>\n</a>'), xpath('//text()', E'<a> <b/>\n</a>')::text, array['<?xml version="1.0"?><a/>'::xml]::text
select '<a:b/>'::xml, xmlparse(document '<a xmlns:x="u"><x:b/><y:c/></a>')
select '<a/>'::xml = '<a/>'::xml
select '<a/>'::xml order by 1
select distinct '<a/>'::xml
select 1::xml
select '<a/>'::xml::int
select xmlelement(name a, xmlattributes('<&>"' || chr(10) as b, null as c, true as d), true, 1.5, '2024-01-02'::date, '2024-01-02 03:04:05.5'::timestamp, '2024-01-02 03:04:05'::timestamptz, '\x0102'::bytea, array[1,2], '<x/>'::xml, 'a' || chr(13))
select xmlelement(name "A b", xmlattributes(1 as "x:y")), xmlelement(name a, null), xmlelement(name a, ''), xmlelement(name a)
select xmlelement(name a, xmlattributes(1 as b, 2 as b))
select xmlelement(name a, xmlattributes(t.x, y), z), xmlforest(x, y as "Q", null as n) from (values (1, 2, 3)) t(x, y, z)
select xmlforest(a, 2) from (select 1 as a) s
select xmlelement(name r, '<?xml version="1.0"?><c/>'::xml), xmlforest('<?xml version="1.1"?><c/>'::xml as f)
select xmlcomment('abc'), xmlconcat('<a/>', '<b/>'), xmlconcat(null, null), xmlconcat('<?xml version="1.0" standalone="yes"?><a/>', '<?xml version="1.0" standalone="no"?><b/>')
select xmlcomment('a--b')
select xmlconcat('<a/>', 1)
select xmlpi(name foo), xmlpi(name foo, '  bar'), xmlpi(name foo, null)
select xmlpi(name xml, 'a')
select xmlpi(name foo, 'a?>b')
select xmlroot(xml '<a/>', version '1.0', standalone yes), xmlroot(xml '<a/>', version no value), xmlroot('<?xml version="1.1"?><a/>', version no value, standalone no value)
select xmlparse(document '<a/>'), xmlparse(content 'x<a/>'), xmlserialize(content 'x<a/>'::xml as text), xmlserialize(document '<a/>'::xml as varchar(10))
select xmlserialize(document 'x<a/>'::xml as text)
select xmlserialize(content '<a/>'::xml as int)
select '<a/>'::xml is document, 'a<b/>'::xml is document, null::xml is document, '<a/>'::xml is not document
select xml_is_well_formed('<a>'), xml_is_well_formed('a<b/>'), xml_is_well_formed_document('a<b/>'), xml_is_well_formed_content('a<b/>')
select xpath('/a/b/text()', '<a><b>x&amp;y</b><b>2</b></a>'), xpath('/a/b', '<a><b c="1">x</b></a>'), xpath('/a/b/@c', '<a><b c="1&lt;">x</b></a>')
select xpath('count(/a/b)', '<a><b/><b/></a>'), xpath('1=1', '<a/>'), xpath('string(/a)', '<a>x&lt;</a>'), xpath('10 div 3', '<a/>'), xpath('a', '<a/>')
select xpath('//n:b/text()', '<a xmlns="urn:x"><b>1</b></a>', array[array['n','urn:x']])
select xpath('/a', 'x<a/>')
select xpath_exists('/a/b', '<a><b/></a>'), xpath_exists('/a/c', '<a><b/></a>'), xmlexists('//b' passing by ref '<a><b/></a>'), xmlexists('//c' passing '<a><b/></a>' by value)
select xmlagg(x) from (values ('<a/>'::xml), (null), ('<b/>')) v(x)
select g, xmlagg(xmlelement(name i, n) order by n desc) from (values (1, 1), (1, 2), (2, 3)) v(g, n) group by g order by g
select array['<a/>'::xml, '<b>x</b>'], text('<a/>'::xml), pg_typeof(xmlcomment('x'))
select * from xmltable('/r/i' passing '<r><i id="1">a<b>x</b>c<!--q-->d</i><i id="2"/><i id="x">&amp;</i></r>' columns id text path '@id', n for ordinality, v text path '.', e xml path '.', d text default 'z', b int path 'count(b)', t boolean path 'count(b) = 1', s text path 'string(.)', ti int path 'true()')
select * from xmltable('/r/i' passing '<r><i id="1"/><i id="x"/></r>' columns id int path '@id')
select * from xmltable('/r/i' passing '<r><i><b>1</b><b>2</b></i></r>' columns b xml path 'b')
select * from xmltable('/r/i' passing '<r><i><b/><b/></i></r>' columns b text path 'b')
select * from xmltable('/r/i' passing '<r><i/></r>' columns v text not null path 'x')
select * from xmltable('/r/i' passing '<r><i/></r>' columns v text path 'x' default 'd' not null)
select * from xmltable(xmlnamespaces('urn:x' as x), '/x:r/x:i' passing '<r xmlns="urn:x"><i>1</i></r>' columns v int path '.')
select x.* from (values ('<r><i>1</i><i>2</i></r>'::xml)) d(doc), xmltable('/r/i' passing doc columns v int path '.') as x
select * from xmltable('/r/i' passing '<r><i a="1"/></r>' columns a text, "A" text path '@a')
select xmltable.* from xmltable('/r' passing '<r>1.5</r>' columns a numeric path '.', b float8 path '1 div 3', c text path '1 div 3', d date path '"2024-01-02"')
select * from xmltable('/r' passing '<r/>' columns a int, a text)
drop view if exists xml_v
create view xml_v as select xmlelement(name a, xmlattributes(1 as b), 'x') as e, xmlparse(document '<a/>') as p, xml '<a/>' is document as isd, xmlserialize(content xml '<a/>' as text) as s, xmlpi(name p, 'x') as pi, xmlroot(xml '<a/>', version '1.1', standalone yes) as r, xmlexists('/a' passing by ref xml '<a/>') as ex, xmlforest(1 as f) as fo, v, n from xmltable('/r/i' passing '<r><i>1</i></r>' columns v int path '.', n for ordinality) t
select * from xml_v
drop view xml_v
select xmlvalidate('<a/>', 'x')
drop table if exists xml_t
create table xml_t (id int, doc xml)
insert into xml_t values (1, '<r><i>1</i><i>2</i></r>'), (2, 'text only'), (3, null)
insert into xml_t values (4, '<bad')
select id, doc, doc is document, xpath('/r/i/text()', doc) from xml_t where id < 3 order by id
set xmloption = document
select 'x<a/>'::xml
select xml_is_well_formed('a<b/>')
set xmloption = foo
set xmlbinary = hex
select xmlelement(name a, '\x0aff'::bytea), xmlforest('\x00'::bytea as b)
reset xmlbinary
reset xmloption
drop table xml_t
""".strip().splitlines()

# each: SQLSTATE, message, DETAIL as psycopg reports them
ERRORS = [
    "select '<a'::xml",
    "select '<a></b>'::xml",
    "select '<a>&foo;</a>'::xml",
    "select '</a>'::xml",
    "select '<a x=1/>'::xml",
    "select '<a>\n<b>\n</c>\n</a>'::xml",
    "select '<?xml version=1.0?><a/>'::xml",
    "select xmlparse(document 'abc')",
    "select xmlparse(document '<a/><b/>')",
    "select xmlparse(document '<a>')",
    "select xmlparse(document '<a><b></a>')",
    "select xmlparse(document '<1a/>')",
    "select '<a><![CDATA[x]></a>'::xml",
    "select '<a>" + "x" * 100 + "</b>'::xml",
    "select xmlparse(document '<?xml version=\"1.0\" encoding=\"bogus\"?><a/>')",
    "select '<a x=\"é\" y=\"1\" y=\"2\"/>'::xml",
    "select xmlpi(name xml, 'a')",
    "select xpath('//c', '<a><y:c>1</y:c></a>')",
    "select xpath('/a', '<a/>', array['x'])",
    "select '<a/>'::xml in ('<a/>', '<b/>')",
    "select '<a/>'::xml in ('<a/>')",
]


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_xml_matches_pg15(binary, pg15, cumulo_server):
    """Every statement gives PostgreSQL 15's column types and bytes (or SQLSTATE, message)."""
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), STATEMENTS, binary)


def _errors(dsn: str) -> list:
    out = []
    with psycopg.connect(dsn, autocommit=True) as c:
        for sql in ERRORS:
            try:
                c.execute(sql)
                out.append(("ok", sql))
            except psycopg.Error as e:
                out.append((e.sqlstate, e.diag.message_primary, e.diag.message_detail))
    return out


def test_xml_error_details_match_pg15(pg15, cumulo_server):
    """libxml's DETAIL lines: `line N: message`, the source line, a caret under the column."""
    want = _errors(pg15.dsn())
    assert want[0] == ("2200N", "invalid XML content",
                       "line 1: Couldn't find end of Start Tag a line 1\n<a\n  ^")
    assert _errors(cumulo_server.dsn()) == want


async def _asyncpg(dsn: str) -> list:
    conn = await asyncpg.connect(dsn)
    try:
        rows = await conn.fetch("select xmlelement(name a, $1::text) as x, "
                                "xpath('/a/text()', xmlelement(name a, $1::text)) as p", "<&>")
        try:
            await conn.fetch("select $1::xml", "<a")
        except asyncpg.PostgresError as e:
            return [tuple(r) for r in rows] + [(e.sqlstate, e.detail)]
        return [tuple(r) for r in rows]
    finally:
        await conn.close()


def test_xml_clients_match_pg15(pg15, cumulo_server):
    """asyncpg (binary xml, a text parameter) and pg8000 (text) read what PostgreSQL sends."""
    want = asyncio.run(_asyncpg(pg15.dsn()))
    assert want[0] == ("<a>&lt;&amp;&gt;</a>", ["&lt;&amp;&gt;"])
    assert asyncio.run(_asyncpg(cumulo_server.dsn())) == want
    stmts = ("select xmlforest(1 as a, 'x' as b), xpath('//b', '<a><b/><b>1</b></a>')",
             "select '<a'::xml")
    assert pg8000_outcomes(cumulo_server.port, None, stmts) == \
        pg8000_outcomes(pg15.port, PASSWORD, stmts)
