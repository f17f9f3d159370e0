"""The type matrix every client test round-trips: one column per supported type.

Each case names the column's SQL type, the Python value a client binds and
expects back, and the text PostgreSQL 15 prints for it (`col::text`), so the
same table checks the binary path (asyncpg, psycopg 3), the text path
(psycopg2, pg8000) and the server's own output functions. The values avoid
what the drivers themselves disagree on (json comes back parsed in some and
as a string in others, asyncpg maps "char" to bytes, pg8000 leaves timetz as
text: `normalise` hides that), not what servers get wrong.
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

UTC = dt.UTC


@dataclass(frozen=True)
class TypeCase:
    column: str
    sql_type: str
    value: Any
    text: str


CASES: tuple[TypeCase, ...] = (
    TypeCase("c_bool", "boolean", True, "true"),
    TypeCase("c_int2", "smallint", -32768, "-32768"),
    TypeCase("c_int4", "integer", 2147483647, "2147483647"),
    TypeCase("c_int8", "bigint", -9223372036854775808, "-9223372036854775808"),
    TypeCase("c_numeric", "numeric(12,3)", Decimal("-123456789.125"), "-123456789.125"),
    TypeCase("c_float4", "real", 1.5, "1.5"),
    TypeCase("c_float8", "double precision", 0.1, "0.1"),
    TypeCase("c_text", "text", "héllo 'wörld'\n\"tab\"\t", "héllo 'wörld'\n\"tab\"\t"),
    TypeCase("c_varchar", "varchar(20)", "vc", "vc"),
    TypeCase("c_bpchar", "char(5)", "ab   ", "ab"),
    TypeCase("c_bytea", "bytea", b"\x00\x01\xfe\xff", "\\x0001feff"),
    TypeCase("c_date", "date", dt.date(2024, 2, 29), "2024-02-29"),
    TypeCase("c_time", "time", dt.time(13, 45, 6, 789000), "13:45:06.789"),
    TypeCase("c_timestamp", "timestamp", dt.datetime(1999, 12, 31, 23, 59, 59, 500000),
             "1999-12-31 23:59:59.5"),
    TypeCase("c_timestamptz", "timestamptz", dt.datetime(2021, 6, 1, 12, 0, tzinfo=UTC),
             "2021-06-01 12:00:00+00"),
    TypeCase("c_interval", "interval", dt.timedelta(days=3, hours=4, minutes=5),
             "3 days 04:05:00"),
    TypeCase("c_uuid", "uuid", uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"),
             "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"),
    TypeCase("c_json", "json", {"a": [1, 2, None]}, '{"a": [1, 2, null]}'),
    TypeCase("c_jsonb", "jsonb", {"k": "v", "n": 1}, '{"k": "v", "n": 1}'),
    TypeCase("c_timetz", "timetz", dt.time(1, 2, 3, 500000, tzinfo=UTC), "01:02:03.5+00"),
    TypeCase("c_name", "name", "a_name", "a_name"),
    TypeCase("c_char1", '"char"', "q", "q"),
    TypeCase("c_int4arr", "integer[]", [1, None, 3], "{1,NULL,3}"),
    TypeCase("c_textarr", "text[]", ["a", "b c", ""], '{a,"b c",""}'),
)

# Cumulo gaps a client trips over, per client: column -> reason. Each client test round-trips
# the other cases together and these one by one as strict xfails, so a fix shows up as XPASS
# (then delete the entry) and a gap never hides the cases that work. No gaps are known today;
# when adding one, add to that client's module a test parametrized with `gap_params(client)`
# that round-trips the one case (`_round_trip(conn, table, (case,))`).
KNOWN_GAPS: dict[str, dict[str, str]] = {
    "psycopg3": {},
    "psycopg2": {},
    "asyncpg": {},
    "pg8000": {},
}

# Gaps in the server's text output (`col::text`), checked once, by test_psycopg3.
TEXT_GAPS: dict[str, str] = {}


def working(client: str) -> tuple[TypeCase, ...]:
    """The cases `client` round-trips in one row."""
    gaps = KNOWN_GAPS[client]
    return tuple(c for c in CASES if c.column not in gaps)


def gap_params(client: str) -> list[Any]:
    """pytest params of `client`'s known gaps, each a strict xfail naming its cause."""
    return _params(KNOWN_GAPS[client], only_gaps=True)


def text_params() -> list[Any]:
    """pytest params of every case, the text-output gaps marked as strict xfails."""
    return _params(TEXT_GAPS, only_gaps=False)


def _params(gaps: dict[str, str], only_gaps: bool) -> list[Any]:
    import pytest

    return [pytest.param(c, id=c.column, marks=[pytest.mark.xfail(
        strict=True, reason=f"{gaps[c.column]} (issue 4)")] if c.column in gaps else [])
        for c in CASES if c.column in gaps or not only_gaps]


def columns(cases: tuple[TypeCase, ...] = CASES) -> str:
    """The cases' column names, comma-separated."""
    return ", ".join(c.column for c in cases)


def create_sql(table: str, cases: tuple[TypeCase, ...] = CASES) -> str:
    """CREATE TABLE with an id and one column per case."""
    cols = ", ".join(f"{c.column} {c.sql_type}" for c in cases)
    return f"create table {table} (id integer primary key, {cols})"


def text_sql(table: str, cases: tuple[TypeCase, ...] = CASES) -> str:
    """SELECT every column as text, in PostgreSQL's output format."""
    return f"select {', '.join(c.column + '::text' for c in cases)} from {table} order by id"


def normalise(case: TypeCase, got: Any) -> Any:
    """Maps what a driver returns onto the case's Python value (json text is parsed)."""
    if case.sql_type in ("json", "jsonb") and isinstance(got, str):
        return json.loads(got)
    if isinstance(got, memoryview | bytearray):
        return bytes(got)
    if case.sql_type == '"char"' and isinstance(got, bytes):
        return got.decode()  # asyncpg maps "char" to bytes
    if case.sql_type == "timetz" and isinstance(got, str):
        return dt.time.fromisoformat(got)  # pg8000 returns timetz as text
    if case.sql_type == "timestamptz" and isinstance(got, dt.datetime):
        return got.astimezone(UTC)
    return got


def check_row(row: Any, cases: tuple[TypeCase, ...] = CASES) -> None:
    """Asserts that a row of native values (in `cases` order) equals the matrix."""
    got = {c.column: normalise(c, v) for c, v in zip(cases, row, strict=True)}
    assert got == {c.column: c.value for c in cases}


def check_text_row(row: Any, cases: tuple[TypeCase, ...] = CASES) -> None:
    """Asserts that a row from text_sql equals PostgreSQL's text output."""
    assert dict(zip([c.column for c in cases], row, strict=True)) == {
        c.column: c.text for c in cases}
