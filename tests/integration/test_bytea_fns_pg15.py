"""bytea input and functions against a throwaway PostgreSQL 15 (issue 16, items 9 and 17; Django's cot).

`'\\000'::bytea` is one NUL byte (escape-format input, not four characters);
get_byte/set_byte/get_bit/set_bit with PostgreSQL's bit numbering and 2202E
index errors; bit_length, position, trims, overlay, `||` on bytea, encode and
decode, md5 and the SHA-2 functions, convert_to/convert_from, and cot/cotd.
Text and binary formats, byte for byte.
"""

from __future__ import annotations

import pytest

from tests.integration.typediff import assert_same_as_pg15

STATEMENTS = r"""
select '\000'::bytea, '\001abc\\x'::bytea, E'\\000'::bytea, 'abc\000'::bytea, '\x'::bytea, ''::bytea
select '\0'::bytea
select get_byte('\x1234'::bytea, 1), set_byte('\x1234'::bytea, 0, 255), get_bit('\x1234'::bytea, 4), set_bit('\x1234'::bytea, 0, 1)
select get_byte('\x1234'::bytea, 5)
select set_bit('\x1234'::bytea, 16, 1)
select length('\x123456'::bytea), octet_length('\x1234'::bytea), bit_length('\x1234'::bytea), substring('\x123456'::bytea from 2 for 1), overlay('\x123456'::bytea placing '\xff'::bytea from 2 for 1)
select position('\x34'::bytea in '\x123456'::bytea), position('\x99'::bytea in '\x12'::bytea), trim('\x12'::bytea from '\x121234'::bytea), btrim('\x1212341212'::bytea, '\x12'::bytea), ltrim('\x1234'::bytea, '\x12'::bytea), rtrim('\x1234'::bytea, '\x34'::bytea)
select encode('\x616263'::bytea, 'base64'), encode('abc'::bytea, 'hex'), encode('a\000b'::bytea, 'escape'), decode('YWJj', 'base64'), decode('616263', 'hex'), decode('a\\000b', 'escape')
select md5('abc'::bytea), sha256('abc'::bytea), sha224('abc'::bytea), sha384('abc'::bytea), sha512('abc'::bytea)
select '\x1234'::bytea || '\x56'::bytea, '\x12'::bytea || '\x34', convert_to('café', 'UTF8'), convert_from('\x636166c3a9'::bytea, 'UTF8'), convert_to('café', 'LATIN1')
select convert_to('€', 'LATIN1')
select cot(1), cot(0.5::float8), cotd(45), cotd(90), cotd(135)
""".strip().splitlines()


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_bytea_functions_match_pg15(binary, pg15, cumulo_server):
    """Every statement gives PostgreSQL 15's column types and bytes."""
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), STATEMENTS, binary)
