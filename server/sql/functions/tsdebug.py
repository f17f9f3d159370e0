"""ts_parse and ts_debug: the default parser's every token, blanks included, and its lexemes.

`tsparser.tokens` keeps only what a configuration indexes; ts_parse shows
everything PostgreSQL's default parser (OID 3722) emits, in order: the runs of
other characters as `blank` (12), a URL's `protocol` (14), XML tags and
entities, a hyphenated word's `-` between its parts. ts_debug adds, per token,
the dictionaries the configuration maps its type to and the lexemes they give
('english': words to english_stem, numbers, addresses and URLs to simple).
Known difference: ts_debug's dictionary columns are text / text[] here, where
PostgreSQL types them regdictionary / regdictionary[] (Cumulo has no such type).

>>> parse_tokens("The quick-brown fox")[:5]
[(1, 'The'), (12, ' '), (16, 'quick-brown'), (11, 'quick'), (12, '-')]
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...errors import UndefinedObject
from ...pgtypes import oids as T
from . import tsparser
from .registry import register
from .tsdictfns import _TOKEN_TYPES
from .tsearchfns import PARSER_OID, _config, _default

_IDS = {alias: i for i, (alias, _) in enumerate(_TOKEN_TYPES, start=1)}
_DESCRIPTIONS = dict(_TOKEN_TYPES)
_STEM = frozenset(("asciiword", "asciihword", "hword_asciipart", "word", "hword", "hword_part"))
_UNMAPPED = frozenset(("blank", "tag", "entity", "protocol"))


def _aliases(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    for m in tsparser.TOKEN.finditer(text):
        if m.start() > pos:
            out.append(("blank", text[pos:m.start()]))
        pos = m.end()
        w = m.group(0)
        if m.group("skip") is not None:
            out.append(("entity" if w.startswith("&") else "tag", w))
        elif m.group("host") is not None:
            if m.group("proto"):
                out.append(("protocol", m.group("proto")))
            out += [t for t in tsparser.tokens(w[len(m.group("proto") or ""):])]
        elif m.lastgroup == "hword":
            out.append(tsparser.tokens(w)[0])
            for i, p in enumerate(w.split("-")):
                if i:
                    out.append(("blank", "-"))
                out.append((tsparser.word_kind(p, True), p))
        else:
            out += tsparser.tokens(w)
    if pos < len(text):
        out.append(("blank", text[pos:]))
    return out


def parse_tokens(text: str) -> list[tuple[int, str]]:
    """(token type id, token) for every token of the text, as ts_parse('default', text)."""
    return [(_IDS[alias], tok) for alias, tok in _aliases(text)]


def _parser(p: str | int) -> None:
    if p not in ("default", "pg_catalog.default", PARSER_OID):
        raise UndefinedObject(f'text search parser "{p}" does not exist')


_PARSE_OUT = [("tokid", T.INT4), ("token", T.TEXT)]


@register("ts_parse", args=[T.TEXT, T.TEXT], returns=T.RECORD, set_returning=True,
          out_columns=_PARSE_OUT)
def ts_parse(parser: str, text: str) -> list[tuple[int, str]]:
    """The default parser's tokens of the text, blanks included."""
    _parser(parser)
    return parse_tokens(text)


@register("ts_parse", args=[T.OID, T.TEXT], returns=T.RECORD, set_returning=True,
          out_columns=_PARSE_OUT)
def ts_parse_oid(parser: int, text: str) -> list[tuple[int, str]]:
    """ts_parse by the parser's OID (3722)."""
    _parser(parser)
    return parse_tokens(text)


_DEBUG_OUT = [("alias", T.TEXT), ("description", T.TEXT), ("token", T.TEXT),
              ("dictionaries", T.ARRAY_OF[T.TEXT]), ("dictionary", T.TEXT),
              ("lexemes", T.ARRAY_OF[T.TEXT])]


def _debug(config: str, text: str) -> Iterator[tuple[Any, ...]]:
    config = tsparser.config_name(config)
    for alias, tok in _aliases(text):
        if alias in _UNMAPPED:
            yield alias, _DESCRIPTIONS[alias], tok, [], None, None
            continue
        dictionary = "english_stem" if config == "english" and alias in _STEM else "simple"
        lex = tsparser.normalize(config, alias, tok)
        yield alias, _DESCRIPTIONS[alias], tok, [dictionary], dictionary, \
            [] if lex is None or lex == "" else [lex]


@register("ts_debug", args=[T.REGCONFIG, T.TEXT], returns=T.RECORD, set_returning=True,
          out_columns=_DEBUG_OUT, needs_context=True)
def ts_debug(ctx: Any, config: Any, text: str) -> Iterator[tuple[Any, ...]]:
    """Each token's type, the dictionaries the configuration sends it to, and its lexemes."""
    return _debug(_config(config), text)


@register("ts_debug", args=[T.TEXT, T.TEXT], returns=T.RECORD, set_returning=True,
          out_columns=_DEBUG_OUT)
def ts_debug_name(config: str, text: str) -> Iterator[tuple[Any, ...]]:
    """ts_debug('english', text): the configuration by name."""
    return _debug(config, text)


@register("ts_debug", args=[T.TEXT], returns=T.RECORD, set_returning=True,
          out_columns=_DEBUG_OUT, needs_context=True)
def ts_debug_default(ctx: Any, text: str) -> Iterator[tuple[Any, ...]]:
    """ts_debug under default_text_search_config."""
    return _debug(_default(ctx), text)
