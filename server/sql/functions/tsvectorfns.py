"""The tsvector editing functions and tsquery containment: ts_delete, ts_filter,
setweight(v, w, lexemes), @> and <@ between tsqueries.

They work on `pgtypes.tsearch`'s parsed form (lexeme, ((position, weight), ...)) and
give PostgreSQL's errors: a NULL weight is 22004, an unknown weight letter 22023 in
ts_filter (and XX000 in setweight, which PostgreSQL reports as an internal error). NULL
lexemes in an array are skipped, as PostgreSQL skips them.
"""

from __future__ import annotations

from typing import Any

from ...errors import InternalError, InvalidParameterValue, NullValueNotAllowed
from ...pgtypes import oids as T
from ...pgtypes import tsearch as TS
from ...pgtypes.tsearch import TSQUERY, TSVECTOR
from ...pgtypes.tsrewrite import rewrite
from .registry import register

TEXT, TEXTS = T.TEXT, T.ARRAY_OF[T.TEXT]
_WEIGHTS = {"a": 3, "b": 2, "c": 1, "d": 0}


@register("ts_delete", args=[TSVECTOR, TEXT], returns=TSVECTOR)
def ts_delete(v: str, lexeme: str) -> str:
    """The vector without that lexeme."""
    return TS.format_vector(tuple(e for e in TS.vector(v) if e[0] != lexeme))


@register("ts_delete", args=[TSVECTOR, TEXTS], returns=TSVECTOR)
def ts_delete_many(v: str, lexemes: list[Any]) -> str:
    """The vector without those lexemes (NULLs in the array are ignored)."""
    drop = {x for x in lexemes if x is not None}
    return TS.format_vector(tuple(e for e in TS.vector(v) if e[0] not in drop))


def _weight_codes(weights: list[Any]) -> set[int]:
    out = set()
    for w in weights:
        if w is None:
            raise NullValueNotAllowed("weight array may not contain nulls")
        code = _WEIGHTS.get(str(w).lower())
        if code is None:
            raise InvalidParameterValue(f'unrecognized weight: "{w}"')
        out.add(code)
    return out


@register("ts_filter", args=[TSVECTOR, T.ARRAY_OF[T.CHAR]], returns=TSVECTOR)
def ts_filter(v: str, weights: list[Any]) -> str:
    """Only the positions of the given weights; a lexeme left with none is dropped (and a
    lexeme without positions too)."""
    keep = _weight_codes(weights)
    out = []
    for lex, poss in TS.vector(v):
        kept = tuple(p for p in poss if p[1] in keep)
        if kept:
            out.append((lex, kept))
    return TS.format_vector(tuple(out))


@register("setweight", args=[TSVECTOR, T.CHAR, TEXTS], returns=TSVECTOR)
def setweight_some(v: str, w: str, lexemes: list[Any]) -> str:
    """Weight w for the positions of the listed lexemes only."""
    code = _WEIGHTS.get(str(w).lower())
    if code is None:
        raise InternalError(f"unrecognized weight: {w}")
    chosen = {x for x in lexemes if x is not None}
    return TS.format_vector(tuple(
        (lex, tuple((p, code) for p, _ in poss) if lex in chosen else poss)
        for lex, poss in TS.vector(v)))


def _lexemes(q: Any, out: set[str]) -> set[str]:
    if q is None:
        return out
    if q[0] == "v":
        out.add(q[1])
    else:
        for child in q[1:3] if q[0] != "!" else q[1:2]:
            _lexemes(child, out)
    return out


@register("tsq_mcontains", args=[TSQUERY, TSQUERY], returns=T.BOOL)
def tsq_mcontains(a: str, b: str) -> bool:
    """a @> b: every lexeme of b is one of a's (the operators are not looked at)."""
    return _lexemes(TS.query(b), set()) <= _lexemes(TS.query(a), set())


@register("tsq_mcontained", args=[TSQUERY, TSQUERY], returns=T.BOOL)
def tsq_mcontained(a: str, b: str) -> bool:
    """a <@ b."""
    return tsq_mcontains(b, a)


@register("ts_rewrite", args=[TSQUERY, TSQUERY, TSQUERY], returns=TSQUERY)
def ts_rewrite(q: str, target: str, substitute: str) -> str:
    """Every occurrence of target in q replaced by substitute (PostgreSQL's shapes)."""
    return TS.format_query(rewrite(TS.query(q), TS.query(target), TS.query(substitute)))
