"""inet, cidr, macaddr and macaddr8 against a throwaway PostgreSQL 15 (issue 16, item 5).

Input in PostgreSQL's spellings (abbreviated cidr, every macaddr separator
style, IPv4-mapped IPv6), output, the errors (bits right of a cidr's mask),
casts between the types, the functions (masklen, network, broadcast, abbrev,
set_masklen, trunc ...), containment operators, table columns, and the
pg_type rows: each statement in the text and the binary format (inet's binary
layout: family, bits, is_cidr, length, address), byte for byte. Then psycopg's
ipaddress objects and asyncpg's network codecs as parameters and results.
"""

from __future__ import annotations

import asyncio
import ipaddress

import asyncpg
import psycopg
import pytest

from tests.integration.typediff import assert_same_as_pg15

STATEMENTS = """
select '192.168.1.5/24'::inet, '10.0.0.1'::inet, '::1'::inet, '2001:db8::/32'::inet, '::ffff:1.2.3.4'::inet, '10.0.0.1/32'::inet
select '192.168.1.0/24'::cidr, '10'::cidr, '128'::cidr, '192.168'::cidr, '224'::cidr, '10.1.2'::cidr, '2001:db8::/32'::cidr
select '192.168.1.5/24'::cidr
select 'x'::inet
select '1.2.3.4/33'::inet
select '08:00:2b:01:02:03'::macaddr, '08-00-2b-01-02-03'::macaddr, '08002b:010203'::macaddr, '0800.2b01.0203'::macaddr, '08002b010203'::macaddr, '0800-2b01-0203'::macaddr
select '08:00:2b:01:02:03:04:05'::macaddr8, '08:00:2b:01:02:03'::macaddr8, '08002b0102030405'::macaddr8
select 'zz:00:2b:01:02:03'::macaddr
select '08:00:2b:01:02:03'::macaddr::macaddr8, '08:00:2b:ff:fe:01:02:03'::macaddr8::macaddr
select '08:00:2b:01:02:03:04:05'::macaddr8::macaddr
select '192.168.1.5/24'::inet::cidr, '10.1.0.0/16'::cidr::inet, '10.0.0.1'::inet::text, '10.0.0.0/8'::cidr::text
select '10.0.0.1'::inet = '10.0.0.1/32', '10.0.0.1'::inet <> '10.0.0.2'
select pg_typeof('1.2.3.4'::cidr), array['1.2.3.4'::inet, '::1'], array['08:00:2b:01:02:03'::macaddr]
create table net_t (id int primary key, a inet, c cidr, m macaddr, m8 macaddr8)
insert into net_t values (1, '10.0.0.1/8', '10.0.0.0/8', '08:00:2b:01:02:03', '08:00:2b:01:02:03:04:05'), (2, '::1', '::/0', 'ff:ff:ff:ff:ff:ff', '00:00:00:00:00:00:00:00'), (3, null, null, null, null)
select * from net_t order by id
select id from net_t where m = '08:00:2b:01:02:03' order by id
select id, m from net_t order by m, id
drop table net_t
select format_type('cidr'::regtype, -1), format_type(829, -1), format_type(774, -1)
select typname, typlen, typcategory, typinput, typreceive from pg_type where oid in (650, 651, 829, 774, 1040, 775) order by oid
select masklen('10.1.0.0/16'::cidr), family('::1'), network('192.168.1.5/24'), netmask('192.168.1.5/24'), hostmask('192.168.1.5/24'), broadcast('192.168.1.5/24')
select text('10.0.0.1'::inet), abbrev('10.1.0.0/16'::cidr), abbrev('10.1.0.1/16'::inet), set_masklen('192.168.1.5/24'::inet, 16), set_masklen('192.168.1.0/24'::cidr, 16), host('10.1.2.3/8')
select '192.168.1.5'::inet << '192.168.1.0/24', '192.168.1.0/24'::cidr >> '192.168.1.5'::inet, '192.168.1.0/24'::inet << '192.168.1.0/24', '10.0.0.0/8'::inet && '10.1.0.0/16', '::1'::inet << '10.0.0.0/8'
select trunc('08:00:2b:01:02:03'::macaddr), trunc('08:00:2b:01:02:03:04:05'::macaddr8), macaddr8_set7bit('08:00:2b:01:02:03:04:05'), inet_same_family('1.2.3.4', '::1')
select set_masklen('1.2.3.4'::inet, 40)
""".strip().splitlines()


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_network_types_match_pg15(binary, pg15, cumulo_server):
    """Every statement gives PostgreSQL 15's column types and bytes."""
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), STATEMENTS,
                        binary, drops=["drop table if exists net_t"])


VALUES = [ipaddress.ip_interface("192.168.1.5/24"), ipaddress.ip_address("::1"),
          ipaddress.ip_network("10.0.0.0/8")]


def _psycopg(dsn: str, binary: bool) -> list:
    with psycopg.connect(dsn, autocommit=True) as c:
        return [c.execute("select %s, %s::text", (v, v), binary=binary).fetchone() for v in VALUES]


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_psycopg_network_parameters(binary, pg15, cumulo_server):
    """psycopg's ipaddress values bound and loaded: PG 15's answers."""
    assert _psycopg(cumulo_server.dsn(), binary) == _psycopg(pg15.dsn(), binary)


async def _asyncpg(dsn: str) -> list:
    c = await asyncpg.connect(dsn)
    try:
        return [tuple(await c.fetchrow(
            "select $1::inet, $2::cidr, $3::macaddr, '08:00:2b:01:02:03:04:05'::macaddr8",
            ipaddress.ip_interface("10.1.2.3/16"), ipaddress.ip_network("10.1.0.0/16"),
            "08:00:2b:01:02:03"))]
    finally:
        await c.close()


def test_asyncpg_network_codecs(pg15, cumulo_server):
    """asyncpg's binary inet/cidr/macaddr codecs agree with PG 15 both ways."""
    assert asyncio.run(_asyncpg(cumulo_server.dsn())) == asyncio.run(_asyncpg(pg15.dsn()))
