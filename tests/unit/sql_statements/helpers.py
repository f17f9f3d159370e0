"""Helpers for statement-layer tests: run SQL through a Session and collect results."""

from __future__ import annotations

import pytest

from cumulo.server.errors import SQLError


def run(session, sql):
    """Runs a Query message; returns [(tag, rows)] (rows None for row-less statements)."""
    out = []
    for res in session.simple_query(sql):
        rows = res.fetch() if res.columns is not None else None
        out.append((res.tag, rows))
    return out


def rows(session, sql):
    """Returns the rows of the last statement of a Query message."""
    return run(session, sql)[-1][1]


def fails(session, sql, sqlstate):
    """Asserts that a Query message fails with `sqlstate`; returns the error."""
    with pytest.raises(SQLError) as info:
        run(session, sql)
    assert info.value.sqlstate == sqlstate, (info.value.sqlstate, info.value.message)
    return info.value


def copy_in(session, sql, payloads):
    """Runs COPY FROM STDIN with the given CopyData payloads; returns the tag."""
    gen = session.simple_query(sql)
    res = next(gen)
    assert res.copy_in is not None
    for p in payloads:
        res.copy_in.feed(p)
    tag = res.copy_in.finish()
    for _ in gen:
        pass
    return tag


def copy_out(session, sql):
    """Runs COPY TO STDOUT; returns (bytes, tag)."""
    gen = session.simple_query(sql)
    res = next(gen)
    assert res.copy_out is not None
    data = b"".join(res.copy_out.chunks())
    tag = res.copy_out.tag
    for _ in gen:
        pass
    return data, tag
