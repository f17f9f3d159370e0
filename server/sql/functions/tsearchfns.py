"""Full-text search functions: to_tsvector, the *to_tsquery family, @@, ts_rank, setweight, ...

Values are the canonical texts of `pgtypes.tsearch`; text goes through the
parser and configurations of `tsparser` ('simple', 'english'). A
configuration argument is a regconfig (`'english'::regconfig`) or, as an
untyped literal, its name; without one, the session's
default_text_search_config is used, as in PostgreSQL. The `@@` operator and
the tsvector/tsquery `||`, `&&`, `!!`, `<->` operators bind to the ts_match_*
and tsquery_* functions here (`expr.extops`).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from typing import Any

from ...errors import InvalidParameterValue
from ...pgtypes import oids as T
from ...pgtypes import tsearch as TS
from ...pgtypes import tsrank
from ...pgtypes.tsearch import TSQUERY, TSVECTOR
from ..expr.regcast import RegOid
from . import tsparser, tswebsearch
from .registry import register
from .tsheadline import headline

TEXT, REGCONFIG = T.TEXT, T.REGCONFIG
CONFIG_OIDS = {"simple": 3748, "english": 13164, "french": 13168}  # PostgreSQL 15's
_CONFIG_OF = {v: k for k, v in CONFIG_OIDS.items()}
PARSER_OID = 3722


def _config(c: Any) -> str:
    if isinstance(c, int):
        if c not in _CONFIG_OF:
            raise InvalidParameterValue(f"cache lookup failed for text search configuration {c}")
        return _CONFIG_OF[c]
    return tsparser.config_name(c)


def _default(ctx: Any) -> str:
    return tsparser.config_name(ctx.get_setting("default_text_search_config") or "simple")


@register("cast:regconfig", args=[TEXT], returns=REGCONFIG, needs_context=True)
def regconfig_in(ctx: Any, name: str) -> int:
    """regconfigin: a configuration's OID by name."""
    return CONFIG_OIDS[tsparser.config_name(name)]


@register("format:regconfig", args=[T.OID], returns=TEXT, needs_context=True)
def regconfig_out(ctx: Any, oid: int) -> str:
    """regconfigout: a configuration's name by OID."""
    return _CONFIG_OF.get(oid, str(oid))


@register("get_current_ts_config", args=[], returns=REGCONFIG, needs_context=True)
def get_current_ts_config(ctx: Any) -> int:
    """The configuration default_text_search_config names."""
    name = _default(ctx)
    return RegOid(CONFIG_OIDS[name], name)


# -- tsvector -------------------------------------------------------------------------------


def _to_vector(config: str, text: str) -> str:
    return TS.make_vector((lex, pos, 0) for lex, pos in tsparser.lexemes(config, text))


@register("to_tsvector", args=[TEXT], returns=TSVECTOR, needs_context=True)
def to_tsvector_default(ctx: Any, text: str) -> str:
    """The text's lexemes under default_text_search_config."""
    return _to_vector(_default(ctx), text)


@register("to_tsvector", args=[REGCONFIG, TEXT], returns=TSVECTOR)
def to_tsvector_oid(config: int, text: str) -> str:
    """The text's lexemes under a configuration (regconfig)."""
    return _to_vector(_config(config), text)


@register("to_tsvector", args=[TEXT, TEXT], returns=TSVECTOR)
def to_tsvector(config: str, text: str) -> str:
    """The text's lexemes under a configuration named by text."""
    return _to_vector(_config(config), text)


@register("setweight", args=[TSVECTOR, T.CHAR], returns=TSVECTOR)
def setweight(v: str, w: str) -> str:
    """Every position gets weight w (A, B, C or D)."""
    weight = _weight(w)
    return TS.format_vector(tuple((lex, tuple((p, weight) for p, _ in poss))
                                  for lex, poss in TS.vector(v)))


def _weight(w: str) -> int:
    code = {"a": 3, "b": 2, "c": 1, "d": 0}.get(str(w).lower())
    if code is None:
        raise InvalidParameterValue(f"unrecognized weight: {ord(str(w)[:1] or ' ')}")
    return code


@register("strip", args=[TSVECTOR], returns=TSVECTOR)
def strip(v: str) -> str:
    """The lexemes without positions or weights."""
    return TS.format_vector(tuple((lex, ()) for lex, _ in TS.vector(v)))


@register("length", args=[TSVECTOR], returns=T.INT4)
def length(v: str) -> int:
    """The number of lexemes."""
    return len(TS.vector(v))


@register("tsvector_concat", args=[TSVECTOR, TSVECTOR], returns=TSVECTOR)
def tsvector_concat(a: str, b: str) -> str:
    """a || b: b's positions shifted past a's last one."""
    va, vb = TS.vector(a), TS.vector(b)
    shift = max((p for _, poss in va for p, _ in poss), default=0)
    acc: dict[str, set[tuple[int, int]]] = {}
    for lex, poss in va:
        acc.setdefault(lex, set()).update(poss)
    for lex, poss in vb:
        acc.setdefault(lex, set()).update((min(p + shift, TS.MAXPOS), w) for p, w in poss)
    return TS.format_vector(acc)


@register("tsvector_to_array", args=[TSVECTOR], returns=T.ARRAY_OF[TEXT])
def tsvector_to_array(v: str) -> list[str]:
    """The lexemes as a text array."""
    return [lex for lex, _ in TS.vector(v)]


@register("array_to_tsvector", args=[T.ARRAY_OF[TEXT]], returns=TSVECTOR)
def array_to_tsvector(a: list[Any]) -> str:
    """A tsvector of the array's lexemes (no positions)."""
    if any(x is None for x in a):
        raise InvalidParameterValue("lexeme array may not contain nulls")
    return TS.format_vector({x: set() for x in a})


@register("unnest", args=[TSVECTOR], returns=T.RECORD, set_returning=True,
          out_columns=[("lexeme", TEXT), ("positions", T.ARRAY_OF[T.INT2]),
                       ("weights", T.ARRAY_OF[TEXT])])
def unnest(v: str) -> Iterator[tuple[Any, ...]]:
    """One row per lexeme: (lexeme, positions, weights)."""
    for lex, poss in TS.vector(v):
        yield (lex, [p for p, _ in poss] or None,
               [("D", "C", "B", "A")[w] for _, w in poss] or None)


# -- tsquery --------------------------------------------------------------------------------


def _morph(config: str, text: str, mask: int, prefix: bool) -> Any:
    """One to_tsquery operand through the configuration: its lexemes joined by <-> (None when
    it was only stop words)."""
    tree: Any = None
    last = 0
    for lex, pos in tsparser.lexemes(config, text):
        node = ("v", lex, mask, prefix)
        tree = node if tree is None else ("<>", tree, node, pos - last)
        last = pos
    return tree


def _query(config: str, text: str) -> str:
    tree = TS.parse_query(text, lambda t, m, p: _morph(config, t, m, p))
    return TS.format_query(tree)


_STOP_WORDS = "text-search query contains only stop words or doesn't contain lexemes, ignored"


# The NOTICEs each session was sent during its current statement (keyed by its start)
_SENT: weakref.WeakKeyDictionary[Any, tuple[float | None, set[tuple[str, str]]]] = \
    weakref.WeakKeyDictionary()


def _noticed(ctx: Any, text: str, query: str) -> str:
    """PostgreSQL's NOTICEs for a query that came out empty: one for a text of no operands
    (parse_tsquery), one for operands that were all stop words (clean_stopwords).

    Each is sent once per statement and text: PostgreSQL folds a call of constants at plan
    time, so `... @@ to_tsquery('english', 'the')` tells it once, not once per row."""
    session = ctx.session
    if query != "" or session is None:
        return query
    msg = f"text-search query doesn't contain lexemes: \"{text}\"" if text.strip() == "" \
        else _STOP_WORDS
    start, sent = _SENT.get(session, (None, set()))
    if start != session.query_start:
        start, sent = session.query_start, set()
    if (msg, text) not in sent:  # NB: each text once: a constant's once, a column's per value
        sent.add((msg, text))
        session.notice(msg)
    _SENT[session] = (start, sent)
    return query


def _register_family(name: str, build: Callable[[str, str], str], doc: str) -> None:
    """Registers name(text), name(regconfig, text) and name(text, text) over `build`."""

    def default(ctx: Any, text: str) -> str:
        return _noticed(ctx, text, build(_default(ctx), text))

    def by_oid(ctx: Any, config: int, text: str) -> str:
        return _noticed(ctx, text, build(_config(config), text))

    def by_name(ctx: Any, config: str, text: str) -> str:
        return _noticed(ctx, text, build(_config(config), text))

    for f in (default, by_oid, by_name):
        f.__doc__ = doc
    register(name, args=[TEXT], returns=TSQUERY, needs_context=True)(default)
    register(name, args=[REGCONFIG, TEXT], returns=TSQUERY, needs_context=True)(by_oid)
    register(name, args=[TEXT, TEXT], returns=TSQUERY, needs_context=True)(by_name)


def _joined(config: str, text: str, phrase: bool) -> str:
    tree: Any = None
    last = 0
    for lex, pos in tsparser.lexemes(config, text):
        node = ("v", lex, 0, False)
        if tree is None:
            tree = node
        elif phrase:
            tree = ("<>", tree, node, pos - last)
        else:
            tree = ("&", tree, node)
        last = pos
    return TS.format_query(tree)


_register_family("to_tsquery", _query,
                 "A tsquery of the text's operands normalised by the configuration.")
_register_family("plainto_tsquery", lambda c, t: _joined(c, t, False),
                 "The text's lexemes joined by & (punctuation ignored).")
_register_family("phraseto_tsquery", lambda c, t: _joined(c, t, True),
                 "The text's lexemes joined by <N>, N their distance in the text.")

def _websearch(config: str, text: str) -> str:
    """websearch_to_tsquery: "quoted phrases" and words (each a phrase of its lexemes),
    -negation, `or`; the rest is AND (`tswebsearch` reads the syntax)."""
    return TS.format_query(tswebsearch.parse(text, lambda t: TS.query(_joined(config, t, True))))


_register_family("websearch_to_tsquery", _websearch,
                 'A web search engine\'s syntax: "phrases", -negation, or; the rest is AND.')


@register("ts_headline", args=[TEXT, TSQUERY], returns=TEXT, needs_context=True)
def ts_headline(ctx: Any, doc: str, q: str) -> str:
    """The document with the query's words marked, cut around a match (tsheadline)."""
    return headline(_default(ctx), doc, TS.query(q), "")


@register("ts_headline", args=[TEXT, TSQUERY, TEXT], returns=TEXT, needs_context=True)
def ts_headline_opts(ctx: Any, doc: str, q: str, options: str) -> str:
    """ts_headline with options (StartSel, StopSel, MaxWords, MinWords, ShortWord, ...)."""
    return headline(_default(ctx), doc, TS.query(q), options)


@register("ts_headline", args=[REGCONFIG, TEXT, TSQUERY], returns=TEXT)
def ts_headline_config(config: int, doc: str, q: str) -> str:
    """ts_headline under a configuration."""
    return headline(_config(config), doc, TS.query(q), "")


@register("ts_headline", args=[REGCONFIG, TEXT, TSQUERY, TEXT], returns=TEXT)
def ts_headline_config_opts(config: int, doc: str, q: str, options: str) -> str:
    """ts_headline under a configuration, with options."""
    return headline(_config(config), doc, TS.query(q), options)


@register("ts_headline", args=[TEXT, TEXT, TSQUERY], returns=TEXT)
def ts_headline_named(config: str, doc: str, q: str) -> str:
    """ts_headline under a configuration named by text."""
    return headline(_config(config), doc, TS.query(q), "")


@register("ts_headline", args=[TEXT, TEXT, TSQUERY, TEXT], returns=TEXT)
def ts_headline_named_opts(config: str, doc: str, q: str, options: str) -> str:
    """ts_headline under a configuration named by text, with options."""
    return headline(_config(config), doc, TS.query(q), options)


@register("numnode", args=[TSQUERY], returns=T.INT4)
def numnode(q: str) -> int:
    """The number of operands and operators."""
    def count(t: Any) -> int:
        if t is None:
            return 0
        if t[0] == "v":
            return 1
        return 1 + sum(count(c) for c in (t[1:2] if t[0] == "!" else t[1:3]))

    return count(TS.query(q))


@register("querytree", args=[TSQUERY], returns=TEXT)
def querytree(q: str) -> str:
    """The query's indexable part (clean_NOT): a NOT goes, taking an OR with it, and an AND or
    a phrase keeps its other side; 'T' when nothing is left, '' for the empty query."""
    if not q:
        return ""
    kept = _without_not(TS.query(q))
    return "T" if kept is None else TS.format_query(kept)


def _without_not(q: Any) -> Any:
    if q[0] == "v":
        return q
    if q[0] == "!":
        return None
    left, right = _without_not(q[1]), _without_not(q[2])
    if q[0] == "|":
        return None if left is None or right is None else (q[0], left, right, *q[3:])
    if left is None or right is None:
        return right if left is None else left
    return (q[0], left, right, *q[3:])


@register("tsquery_and", args=[TSQUERY, TSQUERY], returns=TSQUERY)
def tsquery_and(a: str, b: str) -> str:
    """a && b."""
    return _both("&", a, b)


@register("tsquery_or", args=[TSQUERY, TSQUERY], returns=TSQUERY)
def tsquery_or(a: str, b: str) -> str:
    """a || b."""
    return _both("|", a, b)


@register("tsquery_phrase", args=[TSQUERY, TSQUERY], returns=TSQUERY)
def tsquery_phrase(a: str, b: str) -> str:
    """a <-> b."""
    return _both("<>", a, b)


@register("tsquery_phrase", args=[TSQUERY, TSQUERY, T.INT4], returns=TSQUERY)
def tsquery_phrase_n(a: str, b: str, n: int) -> str:
    """a <N> b."""
    return _both("<>", a, b, n)


def _both(op: str, a: str, b: str, dist: int = 1) -> str:
    qa, qb = TS.query(a), TS.query(b)
    if qa is None or qb is None:
        return a if qb is None else b
    return TS.format_query((op, qa, qb, dist) if op == "<>" else (op, qa, qb))


@register("tsquery_not", args=[TSQUERY], returns=TSQUERY)
def tsquery_not(a: str) -> str:
    """!! a."""
    q = TS.query(a)
    return a if q is None else TS.format_query(("!", q))


# -- matching and ranking -------------------------------------------------------------------


@register("ts_match_vq", args=[TSVECTOR, TSQUERY], returns=T.BOOL)
def ts_match_vq(v: str, q: str) -> bool:
    """tsvector @@ tsquery."""
    return TS.matches(v, q)


@register("ts_match_qv", args=[TSQUERY, TSVECTOR], returns=T.BOOL)
def ts_match_qv(q: str, v: str) -> bool:
    """tsquery @@ tsvector."""
    return TS.matches(v, q)


@register("ts_match_tq", args=[TEXT, TSQUERY], returns=T.BOOL, needs_context=True)
def ts_match_tq(ctx: Any, t: str, q: str) -> bool:
    """text @@ tsquery: the text through to_tsvector first."""
    return TS.matches(_to_vector(_default(ctx), t), q)


@register("ts_match_tt", args=[TEXT, TEXT], returns=T.BOOL, needs_context=True)
def ts_match_tt(ctx: Any, t: str, q: str) -> bool:
    """text @@ text: to_tsvector(a) @@ plainto_tsquery(b)."""
    config = _default(ctx)
    return TS.matches(_to_vector(config, t), _joined(config, q, False))


@register("ts_rank", args=[TSVECTOR, TSQUERY], returns=T.FLOAT4)
def ts_rank(v: str, q: str) -> float:
    """PostgreSQL's ts_rank with the default weights {0.1, 0.2, 0.4, 1.0}."""
    return tsrank.rank(v, q)


@register("ts_rank", args=[TSVECTOR, TSQUERY, T.INT4], returns=T.FLOAT4)
def ts_rank_norm(v: str, q: str, norm: int) -> float:
    """ts_rank with a normalization bit mask."""
    return tsrank.rank(v, q, norm=norm)


@register("ts_rank", args=[T.ARRAY_OF[T.FLOAT4], TSVECTOR, TSQUERY], returns=T.FLOAT4)
def ts_rank_weights(w: list[float], v: str, q: str) -> float:
    """ts_rank with the weights of D, C, B and A."""
    return tsrank.rank(v, q, _weights(w))


@register("ts_rank", args=[T.ARRAY_OF[T.FLOAT4], TSVECTOR, TSQUERY, T.INT4], returns=T.FLOAT4)
def ts_rank_weights_norm(w: list[float], v: str, q: str, norm: int) -> float:
    """ts_rank with weights and a normalization bit mask."""
    return tsrank.rank(v, q, _weights(w), norm)


@register("ts_rank_cd", args=[TSVECTOR, TSQUERY], returns=T.FLOAT4)
def ts_rank_cd(v: str, q: str) -> float:
    """Cover density ranking with the default weights."""
    return tsrank.rank_cd(v, q)


@register("ts_rank_cd", args=[TSVECTOR, TSQUERY, T.INT4], returns=T.FLOAT4)
def ts_rank_cd_norm(v: str, q: str, norm: int) -> float:
    """ts_rank_cd with a normalization bit mask."""
    return tsrank.rank_cd(v, q, norm=norm)


@register("ts_rank_cd", args=[T.ARRAY_OF[T.FLOAT4], TSVECTOR, TSQUERY], returns=T.FLOAT4)
def ts_rank_cd_weights(w: list[float], v: str, q: str) -> float:
    """ts_rank_cd with the weights of D, C, B and A."""
    return tsrank.rank_cd(v, q, _weights(w))


@register("ts_rank_cd", args=[T.ARRAY_OF[T.FLOAT4], TSVECTOR, TSQUERY, T.INT4],
          returns=T.FLOAT4)
def ts_rank_cd_weights_norm(w: list[float], v: str, q: str, norm: int) -> float:
    """ts_rank_cd with weights and a normalization bit mask."""
    return tsrank.rank_cd(v, q, _weights(w), norm)


def _weights(w: list[Any]) -> tuple[float, ...]:
    """The {D, C, B, A} weight array (PostgreSQL's order); 22023 for a bad one."""
    if len(w) < 4:
        raise InvalidParameterValue("array of weight is too short")
    if any(x is None for x in w):
        raise InvalidParameterValue("array of weight must not contain nulls")
    return tuple(float(x) for x in w[:4])
