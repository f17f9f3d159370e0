"""Full-text search's parser and text search configurations 'simple', 'english' and 'french'.

The parser follows PostgreSQL's default parser (wparser_def.c) for the token
kinds ordinary text has: words (asciiword, word, numword), hyphenated words
(the compound, then each part), e-mail addresses, host names, URLs (url,
host, url_path; the protocol is not indexed), integers, decimals and
versions. Every token a configuration maps to a dictionary takes a position,
stop words included, so positions match PostgreSQL's.

'simple' lower-cases every token. 'english' sends words through the Snowball
English stemmer (the `snowballstemmer` package, the same algorithm as
PostgreSQL's english_stem) after dropping PostgreSQL's English stop words, and
'french' the same in French (french_stem); numbers, mixed words, addresses and URLs
are lower-cased only ('simple'), as those configurations map them.

Known differences: PostgreSQL also recognises file paths, XML tags and
entities, and a few more number spellings; those come out here as words.

>>> lexemes("english", "The quick-brown foxes jumped")
[('quick-brown', 2), ('quick', 3), ('brown', 4), ('fox', 5), ('jump', 6)]
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

import snowballstemmer  # type: ignore[import-untyped]

from ...errors import UndefinedObject

ENGLISH_STOP = frozenset("""
i me my myself we our ours ourselves you your yours yourself yourselves he him his himself
she her hers herself it its itself they them their theirs themselves what which who whom
this that these those am is are was were be been being have has had having do does did
doing a an the and but if or because as until while of at by for with about against between
into through during before after above below to from up down in out on off over under again
further then once here there when where why how all any both each few more most other some
such no nor not only own same so than too very s t can will just don should now
""".split())
FRENCH_STOP = frozenset("""
au aux avec ce ces dans de des du elle en et eux il je la le leur lui ma mais me même mes moi
mon ne nos notre nous on ou par pas pour qu que qui sa se ses son sur ta te tes toi ton tu un
une vos votre vous c d j l à m n s t y été étée étées étés étant étante étants étantes suis es
est sommes êtes sont serai seras sera serons serez seront serais serait serions seriez
seraient étais était étions étiez étaient fus fut fûmes fûtes furent sois soit soyons soyez
soient fusse fusses fût fussions fussiez fussent ayant ayante ayantes ayants eu eue eues eus
ai as avons avez ont aurai auras aura aurons aurez auront aurais aurait aurions auriez
auraient avais avait avions aviez avaient eut eûmes eûtes eurent aie aies ait ayons ayez aient
eusse eusses eût eussions eussiez eussent
""".split())
# a Snowball configuration: its stop words (PostgreSQL's tsearch_data/<language>.stop)
STOP_WORDS = {"english": ENGLISH_STOP, "french": FRENCH_STOP}

_HOST = r"(?:[A-Za-z0-9](?:[\w-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,}(?![\w])"
# NB: a host's last label is two letters or more ('a.b', 'x.y1' and 'v1.2.3' are file names);
# XML entities and tags are tokens no configuration indexes: they take no position. A file
# name keeps a leading `./` or `~/` only at the very start (PostgreSQL's parser state)
TOKEN = re.compile(
    r"(?P<skip>&(?:[A-Za-z]+|#\d+|#[xX][0-9A-Fa-f]+);|</?[A-Za-z][^<>]*>)"
    rf"|(?P<proto>(?:https?|ftp)://)?(?P<host>{_HOST})(?P<path>/[^\s]*)?"
    rf"|(?P<email>[A-Za-z0-9][\w.+-]*@{_HOST})"
    r"|(?P<version>\d+(?:\.\d+){2,})"
    r"|(?P<sfloat>(?<![\w.])[-+]?\d+(?:\.\d+)?[eE][-+]?\d+)"
    r"|(?P<float>(?<![\w.])[-+]?\d+\.\d+)"
    r"|(?P<file>(?:\A[~.]?/|/|[^\W\d_]\w*[./])[\w-]+(?:[./][\w-]+)*)"
    r"|(?P<hword>[^\W_]+(?:-[^\W\d_][^\W_]*)+)"
    r"|(?P<int>-\d+(?![\w.]))"
    r"|(?P<word>[^\W_]+)")

# token kinds whose words a Snowball configuration stems; the others it only lower-cases
_STEMMED = frozenset(("asciiword", "word", "asciihword", "hword", "hword_asciipart",
                      "hword_part"))
CONFIGS = ("simple", *STOP_WORDS)


@functools.lru_cache(maxsize=65536)  # NB: a pure function of a vocabulary's words
def word_kind(w: str, part: bool) -> str:
    if w.isdigit():
        return "uint" if not part else "hword_numpart"
    if any(c.isdigit() for c in w):
        return "numword" if not part else "hword_numpart"
    if w.isascii():
        return "asciiword" if not part else "hword_asciipart"
    return "word" if not part else "hword_part"


def tokens(text: str) -> list[tuple[str, str]]:
    """(token kind, token) of the text, in order; protocols and blanks are left out."""
    out: list[tuple[str, str]] = []
    for m in TOKEN.finditer(text):
        kind = m.lastgroup
        if m.group("host") is not None:
            host, path = m.group("host"), m.group("path")
            if m.group("proto") or path:
                out += [("url", host + (path or "")), ("host", host)]
                if path:
                    out.append(("url_path", path))
            else:
                out.append(("host", host))
        elif kind == "hword":
            w = m.group(0)
            parts = w.split("-")
            digits = any(c.isdigit() for c in w)
            out.append(("numhword" if digits else "asciihword" if w.isascii() else "hword", w))
            out += [(word_kind(p, True), p) for p in parts]
        elif kind == "word":
            w = m.group(0)
            out.append((word_kind(w, False), w))
        elif kind is not None and kind != "skip":
            out.append((kind, m.group(0)))
    return out


@functools.lru_cache(maxsize=4)
def _stemmer(language: str) -> Callable[[str], str]:
    return snowballstemmer.stemmer(language).stemWord


@functools.lru_cache(maxsize=65536)
def normalize(config: str, kind: str, token: str) -> str | None:
    """The lexeme of one token under a configuration (None: a stop word)."""
    w = token.lower()
    stop = STOP_WORDS.get(config)
    if stop is not None and kind in _STEMMED:
        if w in stop:
            return None
        return _stemmer(config)(w)
    return w


def config_name(name: str) -> str:
    """A configuration name as regconfig input takes it ('pg_catalog.english' too); 42704
    for one that does not exist."""
    n = str(name).strip().strip('"').lower()
    if n.startswith("pg_catalog."):
        n = n[len("pg_catalog."):]
    if n not in CONFIGS:
        raise UndefinedObject(f'text search configuration "{name}" does not exist')
    return n


def lexemes(config: str, text: str) -> list[tuple[str, int]]:
    """(lexeme, position) of each token of the text that is not a stop word."""
    out = []
    for pos, (kind, tok) in enumerate(tokens(text), start=1):
        lex = normalize(config, kind, tok)
        if lex is not None and lex != "":
            out.append((lex, pos))
    return out
