"""pg_trgm's functions (CREATE EXTENSION pg_trgm, 1.6), as its trgm_op.c computes them.

A string's trigrams come from its words (runs of letters and digits: ASCII ones, as under
PostgreSQL's lc_ctype C, which Cumulo's databases have), each lower-cased
and padded with two spaces in front and one behind: `cat` gives `"  c"`, `" ca"`, `cat`,
`"at "`. Similarity is the share of the two strings' distinct trigrams they have in
common (common / union); word similarity is the best such share between the first
string and any run of consecutive trigrams of the second, and strict word similarity
the same over runs that start and end at word bounds. The operators `%`, `<%`, `<<%`
compare against the settings `pg_trgm.similarity_threshold` (0.3),
`pg_trgm.word_similarity_threshold` (0.6) and `pg_trgm.strict_word_similarity_threshold`
(0.5); `<->`, `<<->`, `<<<->` are one minus the similarity (`expr.trgmops` binds them).

>>> show_trgm("cat")
['  c', ' ca', 'at ', 'cat']
>>> similarity("word", "two words"), word_similarity("word", "two words")
(0.3636363744735718, 0.800000011920929)
>>> strict_word_similarity("word", "two words")
0.5714285969734192
"""

from __future__ import annotations

import struct
from typing import Any

from ...errors import SQLError
from ...pgtypes import oids as T
from .registry import register

TEXT, FLOAT4, BOOL = T.TEXT, T.FLOAT4, T.BOOL
THRESHOLDS = {"similarity": ("pg_trgm.similarity_threshold", 0.3),
              "word": ("pg_trgm.word_similarity_threshold", 0.6),
              "strict": ("pg_trgm.strict_word_similarity_threshold", 0.5)}
_LEFT, _RIGHT = 1, 2  # a trigram that starts / ends a word (TRGM_BOUND_LEFT / RIGHT)


def _f4(x: float) -> float:
    """The value as a float4 holds it (pg_trgm computes in single precision)."""
    return float(struct.unpack("f", struct.pack("f", x))[0])


def _words(s: str) -> list[str]:
    out: list[str] = []
    cur: list[str] = []
    for ch in s:
        if ch.isascii() and ch.isalnum():  # NB: lc_ctype is C: other letters split words
            cur.append(ch)
        elif cur:
            out.append("".join(cur))
            cur = []
    if cur:
        out.append("".join(cur))
    return out


def _trigrams(s: str, bounds: list[int] | None = None) -> list[bytes]:
    """Every word's trigrams in order (generate_trgm_only); `bounds` gets each one's
    word-bound flags."""
    out: list[bytes] = []
    for w in _words(s):
        padded = f"  {w.lower()} "
        n = len(padded) - 2
        for i in range(n):
            out.append(padded[i:i + 3].encode())
            if bounds is not None:
                bounds.append((_LEFT if i == 0 else 0) | (_RIGHT if i == n - 1 else 0))
    return out


def _calc(count: int, len1: int, len2: int) -> float:
    return _f4(count / (len1 + len2 - count)) if len1 + len2 - count > 0 else 0.0


@register("show_trgm", args=[TEXT], returns=T.ARRAY_OF[TEXT])
def show_trgm(s: str) -> list[str]:
    """The distinct trigrams of `s`, in pg_trgm's (byte) order."""
    return [k.decode() for k in sorted(set(_trigrams(s)))]


@register("similarity", args=[TEXT, TEXT], returns=FLOAT4)
def similarity(a: str, b: str) -> float:
    """common / (all - common) over the two strings' distinct trigrams."""
    ta, tb = set(_trigrams(a)), set(_trigrams(b))
    if not ta or not tb:
        return 0.0
    return _calc(len(ta & tb), len(ta), len(tb))


def _word_similarity(a: str, b: str, strict: bool) -> float:
    """calc_word_similarity and iterate_word_similarity: the best similarity between a's
    trigrams and a run of b's (runs between word bounds only when `strict`)."""
    bounds: list[int] = []
    t1, t2 = _trigrams(a), _trigrams(b, bounds if strict else None)
    found = set(t1)
    ulen1 = len(found)
    if not t2:
        return 0.0
    lower = 0 if strict else -1
    lastpos: dict[bytes, int] = {}
    ulen2 = count = 0
    best = 0.0
    for i, tri in enumerate(t2):
        if lower >= 0 or tri in found:
            if tri not in lastpos:
                ulen2 += 1
                count += tri in found
            lastpos[tri] = i
        if (bounds[i] & _RIGHT) if strict else tri in found:
            upper = i
            if lower == -1:
                lower, ulen2 = i, 1
            cur = _calc(count, ulen1, ulen2)
            tmp_count, tmp_ulen2, prev_lower = count, ulen2, lower
            for tmp_lower in range(lower, upper + 1):
                if not strict or bounds[tmp_lower] & _LEFT:
                    s = _calc(tmp_count, ulen1, tmp_ulen2)
                    if s > cur:
                        cur, ulen2, lower, count = s, tmp_ulen2, tmp_lower, tmp_count
                t = t2[tmp_lower]
                if lastpos.get(t) == tmp_lower:
                    tmp_ulen2 -= 1
                    tmp_count -= t in found
            best = max(best, cur)
            for tmp_lower in range(prev_lower, lower):
                t = t2[tmp_lower]
                if lastpos.get(t) == tmp_lower:
                    del lastpos[t]
    return best


@register("word_similarity", args=[TEXT, TEXT], returns=FLOAT4)
def word_similarity(a: str, b: str) -> float:
    """The best similarity between `a` and a run of consecutive trigrams of `b`."""
    return _word_similarity(a, b, False)


@register("strict_word_similarity", args=[TEXT, TEXT], returns=FLOAT4)
def strict_word_similarity(a: str, b: str) -> float:
    """word_similarity over runs of whole words of `b`."""
    return _word_similarity(a, b, True)


def threshold(ctx: Any, kind: str) -> float:
    """The session's threshold for an operator kind (its pg_trgm setting, or the default)."""
    name, default = THRESHOLDS[kind]
    value = ctx.get_setting(name)
    if value in (None, ""):
        return default
    try:
        v = float(value)
    except ValueError:
        raise SQLError(f'invalid value for parameter "{name}": "{value}"',
                       sqlstate="22023") from None
    if not 0.0 <= v <= 1.0:
        raise SQLError(f"{v:g} is outside the valid range for parameter \"{name}\" (0 .. 1)",
                       sqlstate="22023")
    return v


# the operators' functions: name -> (similarity function, swapped operands, threshold kind)
OPERATOR_FUNCTIONS = {
    "similarity_op": (similarity, False, "similarity"),
    "word_similarity_op": (word_similarity, False, "word"),
    "word_similarity_commutator_op": (word_similarity, True, "word"),
    "strict_word_similarity_op": (strict_word_similarity, False, "strict"),
    "strict_word_similarity_commutator_op": (strict_word_similarity, True, "strict"),
}
DISTANCE_FUNCTIONS = {
    "similarity_dist": (similarity, False),
    "word_similarity_dist_op": (word_similarity, False),
    "word_similarity_dist_commutator_op": (word_similarity, True),
    "strict_word_similarity_dist_op": (strict_word_similarity, False),
    "strict_word_similarity_dist_commutator_op": (strict_word_similarity, True),
}


def _matcher(fn: Any, swap: bool, kind: str) -> Any:
    def op(ctx: Any, a: str, b: str) -> bool:
        """Tells whether the similarity reaches the session's threshold (an operator's)."""
        return (fn(b, a) if swap else fn(a, b)) >= threshold(ctx, kind)

    return op


def _distance(fn: Any, swap: bool) -> Any:
    def dist(a: str, b: str) -> float:
        """One minus the similarity (a distance operator's)."""
        return _f4(1.0 - (fn(b, a) if swap else fn(a, b)))

    return dist


for _name, (_fn, _swap, _kind) in OPERATOR_FUNCTIONS.items():
    register(_name, args=[TEXT, TEXT], returns=BOOL, needs_context=True)(
        _matcher(_fn, _swap, _kind))
for _name, (_fn, _swap) in DISTANCE_FUNCTIONS.items():
    register(_name, args=[TEXT, TEXT], returns=FLOAT4)(_distance(_fn, _swap))


@register("show_limit", args=[], returns=FLOAT4, needs_context=True)
def show_limit(ctx: Any) -> float:
    """The similarity threshold `%` uses (deprecated in pg_trgm, still there)."""
    return _f4(threshold(ctx, "similarity"))


EXTENSION_FUNCTIONS = ("show_trgm", "similarity", "word_similarity", "strict_word_similarity",
                       "show_limit", *OPERATOR_FUNCTIONS, *DISTANCE_FUNCTIONS)
