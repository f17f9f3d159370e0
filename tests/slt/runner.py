"""A sqllogictest runner (SQLite's classic format) that talks to a server through psycopg.

The format is described in `../shared/suites/slt/README.md`; sqllogictest.c is
the reference. The engine name is `postgresql`, so `skipif postgresql` and
`onlyif postgresql` records behave as they do against PostgreSQL 15, which
passes all 10,706 records of select1..5.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field

ENGINE = "postgresql"


@dataclass
class Record:
    """One statement or query record, with where it starts in its file."""

    kind: str  # "statement" | "query"
    line: int
    sql: str
    expect_error: bool = False
    types: str = ""
    sort: str = "nosort"
    label: str | None = None
    expected: list[str] = field(default_factory=list)
    hash_threshold: int = 0


def parse(text: str) -> Iterator[Record]:
    """Yields the records of one file that apply to PostgreSQL, in order."""
    lines = text.split("\n")
    i = 0
    threshold = 8  # NB: the corpus is meant to run with sqllogictest.c's -ht 8
    while i < len(lines):
        line = lines[i].rstrip("\r")
        if not line.strip() or line.startswith("#"):
            i += 1
            continue
        start = i
        skip = False
        while line.startswith(("skipif", "onlyif")):
            word, engine = line.split()[:2]
            if (word == "skipif") == (engine.lower() == ENGINE):
                skip = True
            i += 1
            line = lines[i].rstrip("\r")
        words = line.split()
        if words[0] == "halt":
            if not skip:
                return
            i += 1
            continue
        if words[0] == "hash-threshold":
            threshold = int(words[1])
            i += 1
            continue
        i += 1
        body: list[str] = []
        while i < len(lines) and lines[i].strip() and lines[i].rstrip("\r") != "----":
            if not lines[i].startswith("#"):
                body.append(lines[i].rstrip("\r"))
            i += 1
        expected: list[str] = []
        if i < len(lines) and lines[i].rstrip("\r") == "----":
            i += 1
            while i < len(lines) and lines[i].strip():
                expected.append(lines[i].rstrip("\r"))
                i += 1
        if skip:
            continue
        sql = "\n".join(body)
        if words[0] == "statement":
            yield Record("statement", start + 1, sql, expect_error=words[1] == "error")
        elif words[0] == "query":
            yield Record(
                "query",
                start + 1,
                sql,
                types=words[1],
                sort=words[2] if len(words) > 2 else "nosort",
                label=words[3] if len(words) > 3 else None,
                expected=expected,
                hash_threshold=threshold,
            )
        else:
            raise ValueError(f"line {start + 1}: unknown record type {words[0]!r}")


def render(value: object, kind: str) -> str:
    """Renders one value as sqllogictest.c prints it."""
    if value is None:
        return "NULL"
    if kind == "I":
        if isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                return "0"
        if isinstance(value, bool):
            return str(int(value))
        return str(int(value))  # NB: a REAL is truncated, as printf("%d") after a cast
    if kind == "R":
        if isinstance(value, str):
            value = float(value)
        return f"{float(value):.3f}"
    text = str(value)
    if text == "":
        return "(empty)"
    return "".join(c if " " <= c <= "~" else "@" for c in text)


def results(rec: Record, rows: list[tuple]) -> list[str]:
    """Renders a query's rows into the value lines to compare, sorted and hashed as asked."""
    if rows and len(rows[0]) != len(rec.types):
        raise AssertionError(f"expected {len(rec.types)} columns, got {len(rows[0])}")
    rendered = [[render(v, rec.types[j]) for j, v in enumerate(row)] for row in rows]
    if rec.sort == "rowsort":
        rendered.sort()
    values = [v for row in rendered for v in row]
    if rec.sort == "valuesort":
        values.sort()
    if rec.hash_threshold and len(values) > rec.hash_threshold:
        digest = hashlib.md5("".join(v + "\n" for v in values).encode()).hexdigest()
        return [f"{len(values)} values hashing to {digest}"]
    return values


def run_file(conn, path: str) -> tuple[int, list[tuple[int, str]]]:
    """Runs one file on an autocommit psycopg connection; returns (passed, [(line, why)])."""
    passed = 0
    failures: list[tuple[int, str]] = []
    labels: dict[str, list[str]] = {}
    text = open(path, encoding="utf-8").read()
    for rec in parse(text):
        try:
            if rec.kind == "statement":
                try:
                    conn.execute(rec.sql)
                except Exception as exc:  # noqa: BLE001 - any error is an error here
                    if not rec.expect_error:
                        raise AssertionError(f"statement failed: {exc}") from None
                else:
                    if rec.expect_error:
                        raise AssertionError("statement succeeded but an error was expected")
            else:
                got = results(rec, conn.execute(rec.sql).fetchall())
                if rec.label is not None:
                    if rec.label in labels and labels[rec.label] != got:
                        raise AssertionError(f"label {rec.label} differs")
                    labels.setdefault(rec.label, got)
                if rec.expected and got != rec.expected:
                    raise AssertionError(f"expected {rec.expected[:6]}, got {got[:6]}")
                if not rec.expected and got and rec.label is None:
                    raise AssertionError(f"expected no rows, got {got[:6]}")
            passed += 1
        except Exception as exc:  # noqa: BLE001 - a failed record is reported, not fatal
            failures.append((rec.line, str(exc).splitlines()[0][:300] if str(exc) else repr(exc)))
    return passed, failures
