"""Running SQL through an in-process session in the columnar unit tests."""

from __future__ import annotations


def run(session, sql: str) -> list:  # type: ignore[no-untyped-def]
    """Each statement's rows, or its command tag when it returns none."""
    out = []
    for res in session.simple_query(sql):
        out.append(res.fetch() if res.columns is not None else res.tag)
    return out
