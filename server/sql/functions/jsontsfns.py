"""Full-text search over JSON: to_tsvector(json / jsonb) and json(b)_to_tsvector(doc, filter).

PostgreSQL walks the document depth first (a jsonb object's keys in jsonb's order, a json
object's as written, duplicates included) and parses each chosen element on its own: the
string values for to_tsvector, and for the _to_tsvector functions what the filter names
("string", "numeric", "boolean", "key", or "all"). Positions run on across elements, with
a gap of one after an element that gave any lexeme, so that a phrase never spans two
elements. Numbers are their text (jsonb's canonical numeric form, json's as written),
booleans `true`/`false`; nulls never count.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ...errors import InvalidParameterValue
from ...pgtypes import oids as T
from ...pgtypes import tsearch as TS
from ...pgtypes.tsearch import TSVECTOR
from . import tsparser
from .registry import register
from .tsearchfns import REGCONFIG, _config, _default

_FLAGS = ("string", "numeric", "boolean", "key")
_HINT = 'Possible values are: "string", "numeric", "boolean", "key", and "all".'


class _Number(str):
    """A number's text as the document has it (not a string element)."""


class _Pairs(list):
    """An object's (key, value) pairs in document order."""


def _elements(v: Any, kinds: frozenset[str]) -> Iterator[str]:
    if isinstance(v, _Pairs):
        for k, x in v:
            if "key" in kinds:
                yield k
            yield from _elements(x, kinds)
    elif isinstance(v, list):
        for x in v:
            yield from _elements(x, kinds)
    elif isinstance(v, _Number):
        if "numeric" in kinds:
            yield str(v)
    elif isinstance(v, bool):
        if "boolean" in kinds:
            yield "true" if v else "false"
    elif isinstance(v, str) and "string" in kinds:
        yield v


def _vector(config: str, doc: str, kinds: frozenset[str]) -> str:
    parsed = json.loads(doc, parse_float=_Number, parse_int=_Number, object_pairs_hook=_Pairs)
    entries, offset = [], 0
    for text in _elements(parsed, kinds):
        found = tsparser.lexemes(config, text)
        entries += [(lex, offset + pos, 0) for lex, pos in found]
        offset += len(tsparser.tokens(text)) + (1 if found else 0)
    return TS.make_vector(entries)


def _kinds(flags: str) -> frozenset[str]:
    """The filter: a JSON string or array of the flags' names."""
    v = json.loads(flags)
    names = v if isinstance(v, list) else [v]
    out: set[str] = set()
    for n in names:
        if not isinstance(n, str):
            raise InvalidParameterValue("flag array element is not a string", hint=_HINT)
        if n.lower() == "all":
            out.update(_FLAGS)
        elif n.lower() in _FLAGS:
            out.add(n.lower())
        else:
            raise InvalidParameterValue(f'wrong flag in flag array: "{n}"', hint=_HINT)
    return frozenset(out)


_STRINGS = frozenset(("string",))


def to_tsvector_default(ctx: Any, doc: str) -> str:
    """The document's string values under default_text_search_config."""
    return _vector(_default(ctx), doc, _STRINGS)


def to_tsvector_config(config: int, doc: str) -> str:
    """The document's string values under a configuration."""
    return _vector(_config(config), doc, _STRINGS)


def to_tsvector_named(config: str, doc: str) -> str:
    """The document's string values under a configuration named by text (an untyped
    literal's reading, as in `tsearchfns`)."""
    return _vector(_config(config), doc, _STRINGS)


def filtered_named(config: str, doc: str, flags: str) -> str:
    """The elements the filter names, under a configuration named by text."""
    return _vector(_config(config), doc, _kinds(flags))


def filtered_default(ctx: Any, doc: str, flags: str) -> str:
    """The elements the filter names, under default_text_search_config."""
    return _vector(_default(ctx), doc, _kinds(flags))


def filtered_config(config: int, doc: str, flags: str) -> str:
    """The elements the filter names, under a configuration."""
    return _vector(_config(config), doc, _kinds(flags))


for _doc in (T.JSON, T.JSONB):
    _name = "json_to_tsvector" if _doc == T.JSON else "jsonb_to_tsvector"
    register("to_tsvector", args=[_doc], returns=TSVECTOR, needs_context=True)(
        to_tsvector_default)
    register("to_tsvector", args=[REGCONFIG, _doc], returns=TSVECTOR)(to_tsvector_config)
    register("to_tsvector", args=[T.TEXT, _doc], returns=TSVECTOR)(to_tsvector_named)
    register(_name, args=[T.TEXT, _doc, _doc], returns=TSVECTOR)(filtered_named)
    register(_name, args=[_doc, _doc], returns=TSVECTOR, needs_context=True)(filtered_default)
    register(_name, args=[REGCONFIG, _doc, _doc], returns=TSVECTOR)(filtered_config)
