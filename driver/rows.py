"""Compiled DataRow decoding: a result's rows, straight from the receive buffer.

A large result is mostly DataRow messages, and decoding them one message at
a time (cut the message, split its values, call a decoder per value) costs
more than the server takes to send them. So, per result shape, this module
generates a function that walks every complete DataRow sitting in the
receive buffer and builds the row tuples in one loop: fixed-width binary
values (ints, floats, bools) are unpacked in place with `struct`, strings
are decoded from their slice without a function call, the rest
go through their decoder on a slice. The generated code depends only on which
columns are fixed-width, so it is compiled once per such signature and
bound to each result's decoders by a closure.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence

from cumulo.driver import types as t
from cumulo.driver.errors import InterfaceError

# Decodes DataRows from buf[pos:n] into `out`; returns where it stopped.
RowsReader = Callable[[bytes, int, int, list], int]

_FIXED: dict[int, tuple[str, int]] = {  # binary type oid -> (struct format, width)
    t.INT2: ("!h", 2), t.INT4: ("!i", 4), t.INT8: ("!q", 8), t.OID: ("!I", 4),
    t.FLOAT4: ("!f", 4), t.FLOAT8: ("!d", 8),
}
_STRUCTS = {fmt: struct.Struct(fmt) for fmt, _ in _FIXED.values()}
_makers: dict[tuple, Callable[..., RowsReader]] = {}


def _column_code(i: int, kind: str | None) -> list[str]:
    if kind == "bool":
        value = "buf[p] == 1"
    elif kind == "text":
        value = "buf[p:p + ln].decode()"
    elif kind is not None:
        value = f"u{i}(buf, p)[0]"
    else:
        value = f"d{i}(buf[p:p + ln])"
    return [
        "        ln = unpack_i(buf, p)[0]",
        "        p += 4",
        "        if ln < 0:",
        f"            v{i} = None",
        "        else:",
        f"            v{i} = {value}",
        "            p += ln",
    ]


def _maker(kinds: tuple[str | None, ...]) -> Callable[..., RowsReader]:
    """Returns (compiling once) the factory of a reader for columns of these kinds."""
    make = _makers.get(kinds)
    if make is not None:
        return make
    k = len(kinds)
    params = ", ".join(f"d{i}" for i in range(k))
    structs = "".join(f"    u{i} = S[{kinds[i]!r}].unpack_from\n"
                      for i in range(k) if kinds[i] not in (None, "bool", "text"))
    lines = [
        f"def make({params}):",
        "    unpack_i = S['!i'].unpack_from",
        "    unpack_h = S['!h'].unpack_from",
        structs.rstrip("\n") or "    pass",
        "    def read(buf, pos, n, out):",
        "        append = out.append",
        "        while n - pos >= 7 and buf[pos] == 68:",
        "            end = pos + 1 + unpack_i(buf, pos + 1)[0]",
        "            if end > n:",
        "                break",
        f"            if unpack_h(buf, pos + 5)[0] != {k}:",
        f"                raise InterfaceError('a DataRow does not have the {k} columns '",
        "                                     'the RowDescription announced')",
        "            p = pos + 7",
    ]
    for i, kind in enumerate(kinds):
        lines += ["    " + line for line in _column_code(i, kind)]
    values = "".join(f"v{i}, " for i in range(k))
    lines += [
        f"            append(({values}))",
        "            pos = end",
        "        return pos",
        "    return read",
    ]
    namespace: dict = {"S": _STRUCTS, "InterfaceError": InterfaceError}
    exec(compile("\n".join(lines), f"<cumulo rows {k}>", "exec"), namespace)  # noqa: S102
    make = namespace["make"]
    if len(_makers) < 512:
        _makers[kinds] = make
    return make


def rows_reader(columns: Sequence[tuple], decoders: Sequence[t.Decoder]) -> RowsReader:
    """Returns the compiled reader for a result with these columns and decoders.

    A column is inlined only when it still uses the stock decoder for its type
    and format (a localized timestamptz, say, is not).
    """
    kinds: list[str | None] = []
    for c, dec in zip(columns, decoders, strict=True):
        oid, fmt = c[3], c[6]
        kind = None
        if fmt == 1 and dec is t.BINARY_DECODERS.get(oid):
            if oid == t.BOOL:
                kind = "bool"
            elif oid in _FIXED:
                kind = _FIXED[oid][0]
        if dec is t.TEXT_DECODE:
            kind = "text"
        kinds.append(kind)
    return _maker(tuple(kinds))(*decoders)
