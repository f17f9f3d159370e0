"""Bind's parameter values read by one function made for a parameter layout.

An executemany through asyncpg or psycopg sends one Bind per row, all of one statement
with the same parameter types and formats. `extended._bind_fast` read each value in a
loop (length word, slice, decoder call, append); here the loop is unrolled once per
layout into straight-line code, and binary int2/int4/int8/float8 values are read in
place with `struct`, without a slice or a call; a text integer of a few ASCII digits
(pgbench's keys), or a minus sign and fewer digits (pgbench's deltas), is `int()` in place,
without the decoder's call (three Python calls). Any surprise (a length that does not
fit the type, a value the decoder refuses, a message too short) returns None, and the
caller takes the full path, which says what is wrong as PostgreSQL does.

Making a function costs a `compile` (0.1-0.3 ms), several times what reading a Bind
costs, and a connection meets new Bind layouts all the time (psycopg sends a statement
unprepared five times before it prepares it, and TPC-C's statements overflow its cache
of prepared statements, so the same layouts come back under new names). So a function
is made once per layout *form* (which values are read in place, and how) for the whole
process, and it takes the statement's decoders as an argument: a new statement of a
known form costs a dict lookup.

>>> from cumulo.server.pgtypes import oids as T
>>> read = values_reader([T.INT8, T.TEXT], (1, 0))
>>> dec = [None, bytes.decode]
>>> read(b"\\0\\0\\0\\x08" + (7).to_bytes(8, "big") + b"\\0\\0\\0\\x02hi", 0, dec)
([7, 'hi'], 18)
>>> read(b"\\xff\\xff\\xff\\xff\\0\\0\\0\\x02hi", 0, dec)
([None, 'hi'], 10)
>>> read(b"\\0\\0\\0\\x04\\0\\0\\0\\x07", 0, dec) is None  # an int8 of 4 bytes: the full path
True
>>> values_reader([T.INT8, T.DATE], (1, 0)) is read  # another statement of the same form
True
>>> read = values_reader([T.INT4], (0,))
>>> read(b"\\0\\0\\0\\x03042", 0, [None])  # digits: no decoder
([42], 7)
>>> read(b"\\0\\0\\0\\x02-4", 0, [lambda b: int(b) * 10])  # a minus sign: in place too
([-4], 6)
>>> read(b"\\0\\0\\0\\x02+4", 0, [lambda b: int(b) * 10])  # anything else: the decoder's
([40], 6)
>>> read(b"\\0\\0\\0\\x01-", 0, [lambda b: "bad"])
(['bad'], 5)
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from typing import Any

from ..pgtypes import oids as T

MAX_UNROLLED = 256  # more parameters (a long IN list): the caller's loop, not a huge function
MAX_FORMS = 512  # forms kept for the process (each a small function)
_IN_PLACE = {T.INT2: "!h", T.INT4: "!i", T.INT8: "!q", T.FLOAT8: "!d"}  # binary: as `_fixed`
# text integer types -> the most digits that cannot leave the type's range: so many ASCII
# digits, or a minus sign and fewer, are the number (`int` of them, as the type's input
# function reads them); anything else (a plus sign, blanks, more digits) goes to the
# type's decoder
PLAIN_DIGITS = {T.INT2: 4, T.INT4: 9, T.INT8: 18}

Decoders = Sequence[Callable[[bytes], Any] | None]
Reader = Callable[[bytes, int, Decoders], "tuple[list[Any], int] | None"]

_forms: dict[tuple[str, ...], Reader] = {}


def values_reader(oids: Sequence[int], fmts: Sequence[int]) -> Reader:
    """The function reading len(oids) values from a Bind payload at `pos` with the
    statement's `decoders` (`decoders[i]` decodes value i; unused for the values read in
    place): (values, the position after them), or None."""
    form = tuple(_IN_PLACE.get(oid, "") if fmt == 1 else
                 f"digits{PLAIN_DIGITS[oid]}" if oid in PLAIN_DIGITS else ""
                 for oid, fmt in zip(oids, fmts, strict=True))
    fn = _forms.get(form)
    if fn is None:
        if len(_forms) >= MAX_FORMS:
            _forms.clear()
        fn = _forms[form] = _make(form)
    return fn


def _make(form: tuple[str, ...]) -> Reader:
    """Compiles the straight-line reader of one form ("" for a decoder call, `digitsN` for
    a text integer of at most N digits, else the `struct` format of a value read in place).

    Each value's length is read unsigned, so that one comparison (`n <= N`, `n == size`)
    takes the usual value and leaves NULL (-1: 0xFFFFFFFF) and the lengths no Bind may
    have (other negatives: 2**31 and up) to the tests after it; a value that runs past the
    message is found once, at the end (the position past the message: its slice was short,
    a `struct` read past the end raises)."""
    env: dict[str, Any] = {"_len": struct.Struct("!I").unpack_from}
    lines = ["def read(p, pos, d):"]
    for i, how in enumerate(form):
        lines.append("    (n,) = _len(p, pos)")
        if how.startswith("digits"):  # NB: the value's start in q: one step less than pos += 4
            lines.append(f"    if n <= {how[6:]}:\n"
                         f"        q = pos + 4\n"
                         f"        pos = q + n\n"
                         f"        v{i} = p[q:pos]\n"
                         f"        v{i} = int(v{i}) if v{i}.isdigit() or (v{i}[:1] == b'-'"
                         f" and v{i}[1:].isdigit()) else d[{i}](v{i})")
            lines.append(f"    elif n == 4294967295:\n        v{i} = None\n        pos += 4")
            lines.append(f"    elif n < 2147483648:\n        pos += 4\n"
                         f"        v{i} = d[{i}](p[pos:pos + n])\n        pos += n")
            lines.append("    else:\n        return None")
            continue
        lines.append("    pos += 4")
        if how:
            st = struct.Struct(how)
            env[f"_s{i}"] = st.unpack_from
            lines.append(f"    if n == {st.size}:\n        (v{i},) = _s{i}(p, pos)\n"
                         f"        pos += {st.size}")
            lines.append(f"    elif n == 4294967295:\n        v{i} = None")
        else:
            lines.append(f"    if n < 2147483648:\n"
                         f"        v{i} = d[{i}](p[pos:pos + n])\n        pos += n")
            lines.append(f"    elif n == 4294967295:\n        v{i} = None")
        lines.append("    else:\n        return None")
    lines.append("    if pos > len(p):\n        return None")
    lines.append(f"    return [{', '.join(f'v{i}' for i in range(len(form)))}], pos")
    code = compile("\n".join(lines) + "\n", "<bind values>", "exec")
    exec(code, env)  # noqa: S102 - the source is made above from struct formats only
    fn: Reader = env["read"]
    return fn
