"""The text-search parser's and dictionaries' own functions: ts_lexize and ts_token_type.

Cumulo's dictionaries are PostgreSQL's 'simple' (lower-cases) and 'english_stem' (lower-
cases, drops PostgreSQL's English stop words, stems with Snowball), as `tsparser` applies
them inside the configurations; its parser is 'default' (OID 3722), whose 23 token types
ts_token_type lists as PostgreSQL does.
"""

from __future__ import annotations

from collections.abc import Iterator

from ...errors import UndefinedObject
from ...pgtypes import oids as T
from . import tsparser
from .registry import register
from .tsearchfns import PARSER_OID

_TOKEN_TYPES = (
    ("asciiword", "Word, all ASCII"), ("word", "Word, all letters"),
    ("numword", "Word, letters and digits"), ("email", "Email address"), ("url", "URL"),
    ("host", "Host"), ("sfloat", "Scientific notation"), ("version", "Version number"),
    ("hword_numpart", "Hyphenated word part, letters and digits"),
    ("hword_part", "Hyphenated word part, all letters"),
    ("hword_asciipart", "Hyphenated word part, all ASCII"), ("blank", "Space symbols"),
    ("tag", "XML tag"), ("protocol", "Protocol head"),
    ("numhword", "Hyphenated word, letters and digits"),
    ("asciihword", "Hyphenated word, all ASCII"), ("hword", "Hyphenated word, all letters"),
    ("url_path", "URL path"), ("file", "File or path name"), ("float", "Decimal notation"),
    ("int", "Signed integer"), ("uint", "Unsigned integer"), ("entity", "XML entity"))
_DICTIONARIES = {"simple": "simple", "english_stem": "english"}


@register("ts_lexize", args=[T.TEXT, T.TEXT], returns=T.ARRAY_OF[T.TEXT])
def ts_lexize(dictionary: str, token: str) -> list[str]:
    """The token through one dictionary: its lexemes, or {} for a stop word."""
    name = dictionary.strip().strip('"').lower().removeprefix("pg_catalog.")
    config = _DICTIONARIES.get(name)
    if config is None:
        raise UndefinedObject(f'text search dictionary "{dictionary}" does not exist')
    lex = tsparser.normalize(config, "asciiword", token)
    return [] if lex is None or lex == "" else [lex]


def _token_types(parser: str | int) -> Iterator[tuple[int, str, str]]:
    if parser not in ("default", "pg_catalog.default", PARSER_OID):
        raise UndefinedObject(f'text search parser "{parser}" does not exist')
    for i, (alias, description) in enumerate(_TOKEN_TYPES, start=1):
        yield i, alias, description


_OUT = [("tokid", T.INT4), ("alias", T.TEXT), ("description", T.TEXT)]


@register("ts_token_type", args=[T.TEXT], returns=T.RECORD, set_returning=True,
          out_columns=_OUT)
def ts_token_type(parser: str) -> Iterator[tuple[int, str, str]]:
    """The parser's token types by name ('default')."""
    return _token_types(parser)


@register("ts_token_type", args=[T.OID], returns=T.RECORD, set_returning=True,
          out_columns=_OUT)
def ts_token_type_oid(parser: int) -> Iterator[tuple[int, str, str]]:
    """The parser's token types by OID (3722)."""
    return _token_types(parser)
