"""How PL/pgSQL converts a value into a variable's or the result's type (COERCION_PLPGSQL).

PostgreSQL 15 stores a value into a PL/pgSQL variable (`x := expr`, SELECT ... INTO,
FOR targets, GET DIAGNOSTICS) and a function's RETURN value through the assignment cast
when pg_cast has an implicit or assignment one, and otherwise through I/O conversion:
the value's output function, then the target's input function. So `i int := '12'::text`
is 12, `i int := true` is 22P02 (boolout writes `t`), `b bool := 2` is 22P02 and
`v varchar(3) := 'abcdef'` is 22001, where an explicit CAST would give 1, true and 'abc'.

>>> from ...pgtypes import oids as T
>>> coerce(True, T.BOOL, T.INT4)
Traceback (most recent call last):
...
cumulo.server.errors.InvalidTextRepresentation: invalid input syntax for type integer: "t"
>>> coerce("12", T.TEXT, T.INT4), coerce(12.5, T.FLOAT8, T.INT4), coerce(1, T.INT4, T.BOOL)
(12, 12, True)
>>> coerce("ab ", T.TEXT, T.VARCHAR, 2 + 4)
'ab'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...pgtypes import oids as T
from ..expr.casts import cast_function, from_text, to_text
from ..expr.commontype import assignable
from ..expr.types import type_name

_Conv = Callable[[Any], Any] | None
_CACHE: dict[tuple[int, int, int], _Conv] = {}


def _output(v: Any, oid: int) -> str:
    """The type's output function (boolout writes t / f, not a cast's true / false)."""
    if isinstance(v, bool):
        return "t" if v else "f"
    return to_text(v, oid)


def converter(src: int, dst: int, typmod: int = -1) -> _Conv:
    """The conversion of a `src` value into `dst` (with `typmod`); None keeps it as is."""
    key = (src, dst, typmod)
    if key in _CACHE:
        return _CACHE[key]
    conv: _Conv
    if src == dst and typmod < 0:
        conv = None
    elif src in (0, T.RECORD) or dst in (0, T.RECORD, T.VOID) or src >= 16384 or dst >= 16384 \
            or type_name(dst).startswith("any"):
        conv = None  # NB: records, polymorphic and user types: as the caller built them
    elif src == T.JSON and dst == T.JSONB:
        conv = cast_function(T.TEXT, T.JSONB)  # NB: jsonb_in normalises
    elif assignable(src, dst):  # NB: pg_cast's implicit and assignment casts
        try:
            conv = cast_function(src, dst, typmod)
        except Exception:  # NB: no Python conversion for the pair: through text
            conv = _via_io(src, dst, typmod)
    else:
        conv = _via_io(src, dst, typmod)
    _CACHE[key] = conv
    return conv


def _via_io(src: int, dst: int, typmod: int) -> _Conv:
    read = cast_function(T.TEXT, dst, typmod) if typmod >= 0 else from_text(dst)
    if read is None:
        return lambda v: _output(v, src)
    return lambda v: read(_output(v, src))


def coerce(value: Any, src: int, dst: int, typmod: int = -1) -> Any:
    """`value` (of type `src`) stored into a `dst` variable, as PL/pgSQL stores it."""
    if value is None:
        return None
    conv = converter(src, dst, typmod)
    return value if conv is None else conv(value)
