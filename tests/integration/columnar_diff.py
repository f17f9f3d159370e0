"""Shared pieces of the columnar differential tests (tests/integration/test_columnar*_pg15.py).

Each of those files checks the same three things about its own queries: `cumulo.columnar`
off and on give the same rows, both PostgreSQL 15's; and EXPLAIN ANALYZE and the server's
count of a plain run (`cumulo_columnar_runs`) prove the vector form computed the answer. The comparison rules (float rounding, NaN, Decimal scale) and the
reading of the plan live here once, so every file judges "agree" and "ran" the same way.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

import psycopg


def norm(v: Any) -> Any:
    """A value as the comparison sees it: floats rounded (the two paths may sum in another
    order), NaN equal to itself, Decimals without trailing zeros.

    >>> norm(0.1 + 0.2), norm(float("nan")), norm(Decimal("1.50")), norm(float("inf"))
    (0.3, 'nan', Decimal('1.5'), inf)
    """
    if isinstance(v, float):
        return "nan" if math.isnan(v) else round(v, 6) if math.isfinite(v) else v
    if isinstance(v, Decimal):
        return v.normalize() if v.is_finite() else str(v)
    return v


def rows(conn: psycopg.Connection, sql: str) -> list[tuple]:
    return [tuple(norm(v) for v in r) for r in conn.execute(sql).fetchall()]


def printed(conn: psycopg.Connection, sql: str) -> list[tuple]:
    """Rows as PostgreSQL prints them: a numeric's scale shows (Decimal('1.50') is '1.50')."""
    return [tuple(None if v is None else str(v) for v in r) for r in conn.execute(sql)]


def connect_pair(cumulo_server, pg15, drops: Iterable[str], setup: Iterable[str],
                 drop_after: bool = False) -> Iterator[tuple[psycopg.Connection,
                                                             psycopg.Connection]]:
    """The body of a module's `conns` fixture (`yield from connect_pair(...)`): autocommit
    connections to Cumulo and PostgreSQL 15, each with `drops` tables dropped and `setup` run;
    `drop_after` drops them again on Cumulo at the end."""
    drops, setup = list(drops), list(setup)
    cu = psycopg.connect(cumulo_server.dsn(), autocommit=True)
    pg = psycopg.connect(pg15.dsn(), autocommit=True)
    for c in (cu, pg):
        for t in drops:
            c.execute(f"drop table if exists {t}")
        for stmt in setup:
            c.execute(stmt)
    yield cu, pg
    if drop_after:
        for t in drops:
            cu.execute(f"drop table if exists {t}")
    cu.close()
    pg.close()


@contextmanager
def columnar(conn: psycopg.Connection, mode: str) -> Iterator[psycopg.Connection]:
    """`SET cumulo.columnar = mode` for the block, reset after it even when it fails."""
    conn.execute(f"set cumulo.columnar = {mode}")
    try:
        yield conn
    finally:
        conn.execute("reset cumulo.columnar")


def assert_on_off_match_pg(cu: psycopg.Connection, pg: psycopg.Connection,
                           sql: str) -> list[tuple]:
    """Cumulo with `cumulo.columnar` off, then on, answers `sql` as PostgreSQL 15 does;
    returns PostgreSQL's rows (normalized)."""
    want = rows(pg, sql)
    with columnar(cu, "off"):
        off = rows(cu, sql)
    with columnar(cu, "on"):
        on = rows(cu, sql)
    assert off == want
    assert on == want
    return want


def vector_ran(conn: psycopg.Connection, sql: str, node: str = "Columnar") -> bool:
    """Whether the vector form computed the query: its plan has a `node` (`Columnar`, which
    also matches `ColumnarJoin`) whose row plan never ran (under `cumulo.columnar = off`
    EXPLAIN prints the row plan alone), and a plain run of `sql` (the simple protocol, as
    a psql user sends it) ran its Columnar nodes as EXPLAIN ANALYZE's run did.

    The second, because EXPLAIN ANALYZE folds constants that a plain run gets as
    parameters (the simple protocol's literals): a fallback only plain runs take (TPC-H
    Q19's `$1 + $2`) shows only in the server's own count, `cumulo_columnar_runs`. (A
    subquery's node may take its row plan in both: min/max over NaN, say.)"""
    before = plain_runs(conn)
    lines = [r[0] for r in conn.execute("explain analyze " + sql).fetchall()]
    explained = plain_runs(conn)
    at = next((i for i, ln in enumerate(lines) if ln.lstrip(" ->").startswith(node)), None)
    if at is None:
        return False
    child = next(ln for ln in lines[at + 1:] if ln.lstrip().startswith("->"))
    if not ("loops=0" in child or "never executed" in child):
        return False
    conn.execute(sql).fetchall()
    ran = plain_runs(conn)
    by_explain = [a - b for a, b in zip(explained, before, strict=True)]
    by_plain = [a - b for a, b in zip(ran, explained, strict=True)]
    return by_plain == by_explain and by_plain[0] > 0


def plain_runs(conn: psycopg.Connection) -> tuple[int, int]:
    """The session's Columnar nodes run so far as (vector form, row plan), by the server."""
    got = conn.execute("select cumulo_columnar_runs('vector'), cumulo_columnar_runs('rows')"
                       ).fetchone()
    assert got is not None
    return got[0], got[1]


def assert_vector_ran(cu: psycopg.Connection, sql: str, node: str = "Columnar") -> None:
    """With `cumulo.columnar = on`, the vector form computes `sql` (no fallback to rows)."""
    with columnar(cu, "on"):
        assert vector_ran(cu, sql, node), sql
