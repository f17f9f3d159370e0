"""Bulk loading Python rows with COPY ... FROM STDIN, for both APIs.

`copy_records_to_table` (asyncio, as in asyncpg) and `Cursor.copy_records`
(sync) turn tuples into COPY's text format: one line per row, values
separated by tabs, NULL as `\\N`, and backslash, tab, newline and carriage
return escaped. Each value is written in the same text form the driver
uses for a parameter whose type the server chose, so the server's input
functions do the typing, exactly as for an INSERT. One COPY is one
statement: far fewer messages than executemany for large loads.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from cumulo.driver import types

_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})
_CHUNK = 1 << 16


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def copy_statement(table: str, columns: Sequence[str] | None = None,
                   schema: str | None = None) -> str:
    """Returns `COPY [schema.]table [(columns)] FROM STDIN` with every name quoted."""
    target = (_ident(schema) + "." if schema else "") + _ident(table)
    if columns:
        target += " (" + ", ".join(_ident(c) for c in columns) + ")"
    return f"COPY {target} FROM STDIN"


def _field(value: object) -> str:
    if value is None:
        return "\\N"
    if isinstance(value, str):
        return value.translate(_ESCAPES)
    return types._as_text(value).decode().translate(_ESCAPES)


def copy_chunks(records: Iterable[Sequence]) -> Iterator[bytes]:
    """Yields the COPY text data for `records`, about 64 KB at a time."""
    lines: list[str] = []
    size = 0
    for record in records:
        line = "\t".join([_field(v) for v in record]) + "\n"
        lines.append(line)
        size += len(line)
        if size >= _CHUNK:
            yield "".join(lines).encode()
            lines, size = [], 0
    if lines:
        yield "".join(lines).encode()


class ChunkReader:
    """Adapts `copy_chunks` to the `read(n)` the COPY conversation calls."""

    def __init__(self, records: Iterable[Sequence]):
        self._chunks = copy_chunks(records)

    def read(self, _n: int) -> bytes:
        return next(self._chunks, b"")
