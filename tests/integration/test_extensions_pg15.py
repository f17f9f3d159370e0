"""CREATE EXTENSION for pgcrypto and uuid-ossp, and their functions, against PostgreSQL 15 (issue 16, item 21).

Creating an available extension records it in pg_extension (IF NOT EXISTS
skips with a notice, a second CREATE is 42710, plpgsql always exists); any
other extension fails with PostgreSQL's 0A000 `extension "foo" is not
available`; DROP EXTENSION [IF EXISTS]. Then pgcrypto's digest/hmac/
gen_random_bytes and uuid-ossp's generators (v3 and v5 are deterministic, so
their values must match). Text and binary formats.
"""

from __future__ import annotations

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
