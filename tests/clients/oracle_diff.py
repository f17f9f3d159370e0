"""Runs the same SQL on Cumulo and on the PostgreSQL 15 oracle and keeps each outcome.

An outcome is what a user would see: the column names and rows, the command tag,
or the error's SQLSTATE and message. Tests compare the two servers' outcomes
statement by statement, so the expectation is always the oracle's answer.
"""

from __future__ import annotations

import psycopg


def outcome(conn: psycopg.Connection, sql: str) -> tuple:
    """Runs one statement; returns ("rows", names, rows), ("ok", tag) or ("error", code, msg)."""
    try:
        cur = conn.execute(sql)
    except psycopg.Error as e:
        return ("error", e.sqlstate, e.diag.message_primary)
    if cur.description is None:
        return ("ok", cur.statusmessage)
    return ("rows", [d.name for d in cur.description], cur.fetchall())


def fresh_pg15_db(pg15, name: str) -> str:
    """Drops and re-creates database `name` on the oracle; returns its DSN."""
    pg15.psql(f"drop database if exists {name} with (force)")
    pg15.psql(f"create database {name} owner cumulo")
    return pg15.dsn(db=name)
