"""PostgreSQL 15's positional regexp functions: regexp_count, regexp_instr, regexp_substr.

They share one walk: the matches of the pattern from character `start`
(1-based), non-overlapping, an empty match advancing one character, exactly as
Python's `finditer(s, pos)` walks (and as `^` behaves there: it anchors at the
real start of the string, not at `start`, as in PostgreSQL). The pattern is
translated and compiled by `regex._compile`, the same as regexp_match's.

    >>> regexp_count('abcabc', 'b'), regexp_instr('abcabc', 'b', 1, 2, 1)
    (2, 6)
    >>> regexp_substr('abcabc', '(a)(b)(c)', 1, 2, '', 3)
    'c'
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...errors import InvalidParameterValue, SQLError
from ...pgtypes import oids as T
from .regex import _compile
from .registry import register

TEXT, INT4 = T.TEXT, T.INT4


def _bad(param: str, value: int) -> SQLError:
    return InvalidParameterValue(f"invalid value for parameter \"{param}\": {value}")


def _matches(fn: str, s: str, pattern: str, start: int, flags: str) -> Iterator[re.Match[str]]:
    if start < 1:
        raise _bad("start", start)
    rx = _compile(pattern, flags)
    if "g" in flags:
        raise InvalidParameterValue(f"{fn}() does not support the \"global\" option")
    if start - 1 > len(s):  # NB: finditer would clamp the position to the end and match there
        return iter(())
    return rx.finditer(s, start - 1)


def _nth(fn: str, s: str, pattern: str, start: int, n: int, flags: str,
         subexpr: int) -> re.Match[str] | None:
    """The n-th match from start (None when there are fewer), after checking n and subexpr."""
    if start < 1:
        raise _bad("start", start)
    if n < 1:
        raise _bad("n", n)
    if subexpr < 0:
        raise _bad("subexpr", subexpr)
    for count, m in enumerate(_matches(fn, s, pattern, start, flags), 1):
        if count == n:
            return m
    return None


@register("regexp_count", args=[TEXT, TEXT], returns=INT4, oid=6254)
def regexp_count(s: str, pattern: str, start: int = 1, flags: str = "") -> int:
    """Counts the matches of pattern in s from character start."""
    return sum(1 for _ in _matches("regexp_count", s, pattern, start, flags))


register("regexp_count", args=[TEXT, TEXT, INT4], returns=INT4, oid=6255)(regexp_count)
register("regexp_count", args=[TEXT, TEXT, INT4, TEXT], returns=INT4, oid=6256)(regexp_count)


@register("regexp_instr", args=[TEXT, TEXT], returns=INT4, oid=6257)
def regexp_instr(s: str, pattern: str, start: int = 1, n: int = 1, endoption: int = 0,
                 flags: str = "", subexpr: int = 0) -> int:
    """Returns the 1-based position of the n-th match (of its subexpr-th group), or after
    its end with endoption 1; 0 when there is no such match or group."""
    if endoption not in (0, 1):
        if start < 1:
            raise _bad("start", start)
        if n < 1:
            raise _bad("n", n)
        raise _bad("endoption", endoption)
    m = _nth("regexp_instr", s, pattern, start, n, flags, subexpr)
    if m is None or subexpr > m.re.groups or m.start(subexpr) < 0:
        return 0
    return m.end(subexpr) + 1 if endoption else m.start(subexpr) + 1


register("regexp_instr", args=[TEXT, TEXT, INT4], returns=INT4, oid=6258)(regexp_instr)
register("regexp_instr", args=[TEXT, TEXT, INT4, INT4], returns=INT4, oid=6259)(regexp_instr)
register("regexp_instr", args=[TEXT, TEXT, INT4, INT4, INT4], returns=INT4,
         oid=6260)(regexp_instr)
register("regexp_instr", args=[TEXT, TEXT, INT4, INT4, INT4, TEXT], returns=INT4,
         oid=6261)(regexp_instr)
register("regexp_instr", args=[TEXT, TEXT, INT4, INT4, INT4, TEXT, INT4], returns=INT4,
         oid=6262)(regexp_instr)


@register("regexp_substr", args=[TEXT, TEXT], returns=TEXT, oid=6265)
def regexp_substr(s: str, pattern: str, start: int = 1, n: int = 1, flags: str = "",
                  subexpr: int = 0) -> str | None:
    """Returns the n-th match (or its subexpr-th group) from character start; NULL if none."""
    m = _nth("regexp_substr", s, pattern, start, n, flags, subexpr)
    if m is None or subexpr > m.re.groups:
        return None
    return m.group(subexpr)


register("regexp_substr", args=[TEXT, TEXT, INT4], returns=TEXT, oid=6266)(regexp_substr)
register("regexp_substr", args=[TEXT, TEXT, INT4, INT4], returns=TEXT, oid=6267)(regexp_substr)
register("regexp_substr", args=[TEXT, TEXT, INT4, INT4, TEXT], returns=TEXT,
         oid=6268)(regexp_substr)
register("regexp_substr", args=[TEXT, TEXT, INT4, INT4, TEXT, INT4], returns=TEXT,
         oid=6269)(regexp_substr)
