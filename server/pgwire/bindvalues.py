"""Bind's parameter values read by one function made for a statement's parameter layout.

An executemany through asyncpg or psycopg sends one Bind per row, all of one statement
with the same parameter types and formats. `extended._bind_fast` read each value in a
loop (length word, slice, decoder call, append); here the loop is unrolled once per
layout into straight-line code, and binary int2/int4/int8/float8 values are read in
place with `struct`, without a slice or a call. Any surprise (a length that does not
fit the type, a value the decoder refuses, a message too short) returns None, and the
caller takes the full path, which says what is wrong as PostgreSQL does.

>>> from cumulo.server.pgtypes import oids as T
>>> read = values_reader([T.INT8, T.TEXT], (1, 0), [None, bytes.decode])
>>> read(b"\\0\\0\\0\\x08" + (7).to_bytes(8, "big") + b"\\0\\0\\0\\x02hi", 0)
([7, 'hi'], 18)
>>> read(b"\\xff\\xff\\xff\\xff\\0\\0\\0\\x02hi", 0)
([None, 'hi'], 10)
>>> read(b"\\0\\0\\0\\x04\\0\\0\\0\\x07", 0) is None  # an int8 of 4 bytes: the full path says why
True
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from typing import Any

from ..pgtypes import oids as T

MAX_UNROLLED = 256  # more parameters (a long IN list): the caller's loop, not a huge function
_IN_PLACE = {T.INT2: "!h", T.INT4: "!i", T.INT8: "!q", T.FLOAT8: "!d"}  # binary: as `_fixed`

Reader = Callable[[bytes, int], "tuple[list[Any], int] | None"]


def values_reader(oids: Sequence[int], fmts: Sequence[int],
                  decoders: Sequence[Callable[[bytes], Any] | None]) -> Reader:
    """A function reading len(oids) values from a Bind payload at `pos`: (values, the
    position after them), or None. `decoders[i]` decodes value i (unused for the types
    read in place)."""
    env: dict[str, Any] = {"_len": struct.Struct("!i").unpack_from}
    lines = ["def read(p, pos):", "    size = len(p)"]
    for i, (oid, fmt) in enumerate(zip(oids, fmts, strict=True)):
        lines.append("    n = _len(p, pos)[0]")
        lines.append("    pos += 4")
        lines.append(f"    if n == -1:\n        v{i} = None")
        form = _IN_PLACE.get(oid) if fmt == 1 else None
        if form is not None:
            st = struct.Struct(form)
            env[f"_s{i}"] = st.unpack_from
            lines.append(f"    elif n == {st.size}:\n        v{i} = _s{i}(p, pos)[0]\n"
                         f"        pos += {st.size}")
        else:
            env[f"_d{i}"] = decoders[i]
            lines.append(f"    elif 0 <= n and pos + n <= size:\n"
                         f"        v{i} = _d{i}(p[pos:pos + n])\n        pos += n")
        lines.append("    else:\n        return None")
    lines.append(f"    return [{', '.join(f'v{i}' for i in range(len(oids)))}], pos")
    code = compile("\n".join(lines) + "\n", "<bind values>", "exec")
    exec(code, env)  # noqa: S102 - the source is made above from type OIDs and formats only
    fn: Reader = env["read"]
    return fn
