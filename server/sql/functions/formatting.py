"""format() and the quote_* functions: building SQL text safely, exactly as PostgreSQL quotes it."""

from __future__ import annotations

import re
from typing import Any

from ...errors import InvalidParameterValue, NullValueNotAllowed
from ...pgtypes import oids as T
from ...pgtypes.arraybounds import Bounded, dims_text
from ...pgtypes.text import quote_array_element
from ..expr.casts import to_text
from ..pgcatalog.names import quote_ident as _quote_ident
from .registry import ANY, register


def output_text(v: Any) -> str:
    """Formats a value with its type's output function (booleans print as t/f, unlike ::text)."""
    if isinstance(v, bool):
        return "t" if v else "f"
    if isinstance(v, list):
        out = "{" + ",".join("NULL" if x is None else quote_array_element(output_text(x))
                             for x in v) + "}"
        return out if type(v) is not Bounded else f"{dims_text(v)}={out}"
    return to_text(v)


@register("quote_ident", args=[T.TEXT], returns=T.TEXT)
def quote_ident(s: str) -> str:
    """Quotes an identifier when it needs quoting (upper case, spaces, keywords)."""
    return _quote_ident(s)


@register("quote_literal", args=[T.TEXT], returns=T.TEXT)
def quote_literal(v: Any) -> str:
    """Quotes a value as a string literal (E'' syntax when it holds backslashes)."""
    s = to_text(v).replace("'", "''")
    if "\\" in s:
        return "E'" + s.replace("\\", "\\\\") + "'"
    return "'" + s + "'"


register("quote_literal", args=[ANY], returns=T.TEXT)(quote_literal)


@register("quote_nullable", args=[T.TEXT], returns=T.TEXT, strict=False)
def quote_nullable(v: Any) -> str:
    """Quotes a value as a literal, or returns NULL unquoted for NULL."""
    return "NULL" if v is None else quote_literal(v)


register("quote_nullable", args=[ANY], returns=T.TEXT, strict=False)(quote_nullable)

_SPEC = re.compile(r"%(?:(\d+)\$)?(-)?(\*(?:\d+\$)?|\d+)?([a-zA-Z%])")


@register("format", args=None, returns=T.TEXT, strict=False)
def format_(fmt: str | None, *args: Any) -> str | None:
    """Formats with %s (text), %I (identifier), %L (literal), positions and widths."""
    if fmt is None:
        return None
    out, pos, nxt = [], 0, 0
    for m in _SPEC.finditer(fmt):
        out.append(fmt[pos:m.start()])
        pos = m.end()
        argpos, minus, width, kind = m.groups()
        if kind == "%" and not (argpos or minus or width):
            out.append("%")
            continue
        if kind not in "sIL":
            raise InvalidParameterValue(f'unrecognized format() type specifier "{kind}"')
        w = 0
        if width and width.startswith("*"):
            wi = int(width[1:-1]) - 1 if len(width) > 1 else nxt
            if len(width) == 1:
                nxt += 1
            if wi >= len(args):
                raise InvalidParameterValue("too few arguments for format()")
            w = int(args[wi] or 0)
        elif width:
            w = int(width)
        if argpos:
            nxt = int(argpos) - 1
        if nxt >= len(args):
            raise InvalidParameterValue("too few arguments for format()")
        v = args[nxt]
        nxt += 1
        if kind == "s":
            text = "" if v is None else output_text(v)
        elif kind == "I":
            if v is None:
                raise NullValueNotAllowed("null values cannot be formatted as an SQL identifier")
            text = _quote_ident(to_text(v))
        else:
            text = quote_nullable(v)
        left = minus or w < 0
        w = abs(w)
        out.append(text.ljust(w) if left else text.rjust(w))
    if "%" in fmt[pos:]:
        raise InvalidParameterValue("unterminated format() type specifier")
    out.append(fmt[pos:])
    return "".join(out)
