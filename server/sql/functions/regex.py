"""POSIX regular-expression functions on Python's `re`, translating PostgreSQL's flags and
replacement syntax (\\1 and \\& in the replacement; 'g' for global, 'i' for case-insensitive).

Compiled patterns are cached by (pattern, flags), so a per-row call with a
constant pattern compiles once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import lru_cache

from ...errors import InvalidParameterValue, SQLError
from ...pgtypes import oids as T
from .registry import register

TEXT_ARRAY = T.ARRAY_OF[T.TEXT]


@lru_cache(maxsize=256)
def _compile(pattern: str, flags: str) -> re.Pattern[str]:
    f = 0
    for ch in flags:
        if ch == "i":
            f |= re.IGNORECASE
        elif ch in "nm":
            f |= re.MULTILINE
        elif ch == "s":
            f |= re.DOTALL
        elif ch == "x":
            f |= re.VERBOSE
        elif ch not in "gc":
            raise InvalidParameterValue(f"invalid regular expression option: \"{ch}\"")
    try:
        return re.compile(_translate(pattern), f)
    except re.error as e:
        raise SQLError(f"invalid regular expression: {e}", sqlstate="2201B") from None


_CLASSES = {
    "alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z", "lower": "a-z",
    "space": r"\s", "xdigit": "0-9a-fA-F", "word": r"\w", "blank": r" \t",
    "punct": r"!-/:-@\[-`{-~", "cntrl": r"\x00-\x1f\x7f", "print": r"\x20-\x7e",
    "graph": r"\x21-\x7e",
}
_ESCAPES = {"y": r"\b", "Y": r"\B", "m": r"\b(?=\w)", "M": r"\b(?<=\w)", "A": r"\A",
            "Z": r"\Z"}


def _translate(pattern: str) -> str:
    """Rewrites PostgreSQL ARE syntax Python lacks: [[:alpha:]] classes and \\y \\m \\M."""
    pattern = re.sub(r"\[:(\w+):\]", lambda m: _CLASSES.get(m.group(1), m.group(0)), pattern)
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(0)), pattern)


def _replacement(repl: str) -> Callable[[re.Match[str]], str]:
    def fn(m: re.Match[str]) -> str:
        out, i = [], 0
        while i < len(repl):
            ch = repl[i]
            if ch == "\\" and i + 1 < len(repl):
                nxt = repl[i + 1]
                if nxt.isdigit():
                    out.append(m.group(int(nxt)) or "" if int(nxt) <= (m.re.groups) else "")
                elif nxt == "&":
                    out.append(m.group(0))
                else:
                    out.append(nxt)
                i += 2
            else:
                out.append(ch)
                i += 1
        return "".join(out)

    return fn


@register("regexp_replace", args=[T.TEXT, T.TEXT, T.TEXT], returns=T.TEXT)
def regexp_replace(s: str, pattern: str, repl: str, flags: str = "") -> str:
    """Replaces the first match (every match with flag 'g')."""
    rx = _compile(pattern, flags)
    return rx.sub(_replacement(repl), s, count=0 if "g" in flags else 1)


register("regexp_replace", args=[T.TEXT, T.TEXT, T.TEXT, T.TEXT],
         returns=T.TEXT)(regexp_replace)


def _groups(m: re.Match[str]) -> list[str | None]:
    return list(m.groups()) if m.re.groups else [m.group(0)]


@register("regexp_match", args=[T.TEXT, T.TEXT], returns=TEXT_ARRAY)
def regexp_match(s: str, pattern: str, flags: str = "") -> list[str | None] | None:
    """Returns the first match's groups (or the whole match), NULL when none."""
    if "g" in flags:
        raise InvalidParameterValue("regexp_match() does not support the \"global\" option")
    m = _compile(pattern, flags).search(s)
    return _groups(m) if m else None


register("regexp_match", args=[T.TEXT, T.TEXT, T.TEXT], returns=TEXT_ARRAY)(regexp_match)


@register("regexp_matches", args=[T.TEXT, T.TEXT], returns=TEXT_ARRAY, set_returning=True)
def regexp_matches(s: str, pattern: str, flags: str = "") -> Iterator[list[str | None]]:
    """Yields the groups of the first match, or of every match with flag 'g'."""
    rx = _compile(pattern, flags)
    if "g" in flags:
        return (_groups(m) for m in rx.finditer(s))
    m = rx.search(s)
    return iter([_groups(m)] if m else [])


register("regexp_matches", args=[T.TEXT, T.TEXT, T.TEXT], returns=TEXT_ARRAY,
         set_returning=True)(regexp_matches)


@register("regexp_split_to_array", args=[T.TEXT, T.TEXT], returns=TEXT_ARRAY)
def regexp_split_to_array(s: str, pattern: str, flags: str = "") -> list[str]:
    """Splits s at every match of pattern."""
    rx = _compile(pattern, flags)
    out, pos = [], 0
    for m in rx.finditer(s):
        if m.end() == m.start() and (m.start() == 0 or m.start() >= len(s)):
            continue
        out.append(s[pos:m.start()])
        pos = m.end()
    out.append(s[pos:])
    return out


register("regexp_split_to_array", args=[T.TEXT, T.TEXT, T.TEXT],
         returns=TEXT_ARRAY)(regexp_split_to_array)


@register("regexp_split_to_table", args=[T.TEXT, T.TEXT], returns=T.TEXT, set_returning=True)
def regexp_split_to_table(s: str, pattern: str, flags: str = "") -> list[str]:
    """Yields the pieces of s split at every match of pattern."""
    return regexp_split_to_array(s, pattern, flags)


register("regexp_split_to_table", args=[T.TEXT, T.TEXT, T.TEXT], returns=T.TEXT,
         set_returning=True)(regexp_split_to_table)


@register("substring", args=[T.TEXT, T.TEXT], returns=T.TEXT)
def substring_regex(s: str, pattern: str) -> str | None:
    """SUBSTRING(s FROM pattern): the first group of the first match, or the whole match."""
    m = _compile(pattern, "").search(s)
    if m is None:
        return None
    return m.group(1) if m.re.groups else m.group(0)


@register("regexp_like", args=[T.TEXT, T.TEXT], returns=T.BOOL)
def regexp_like(s: str, pattern: str, flags: str = "") -> bool:
    """True when pattern matches somewhere in s."""
    return _compile(pattern, flags).search(s) is not None


register("regexp_like", args=[T.TEXT, T.TEXT, T.TEXT], returns=T.BOOL)(regexp_like)
