"""pg_trgm's operators over text, bound to the functions that implement them (`functions.trgmfns`).

`%` is sqlglot's modulo node and `<->` geometry's distance (both reach the binder as
arithmetic / respelled operators); `<%`, `%>`, `<<%`, `%>>`, `<<->`, `<->>`, `<<<->` and
`<->>>` are respelled `OPERATOR(pg_catalog.op)` by `sql.geosyntax`. Each means its
trigram function once CREATE EXTENSION pg_trgm ran and both operands are strings (an
untyped one is text, two untyped ones too: text is the preferred type of the one
candidate of string category); otherwise the binder goes on as before.
"""

from __future__ import annotations

from typing import Any

from ...pgtypes import citext
from ...pgtypes import oids as T
from . import usertypes
from .bound import E
from .functions import coerce, resolve, return_type

OPERATORS = {
    "%": "similarity_op", "<%": "word_similarity_op", "%>": "word_similarity_commutator_op",
    "<<%": "strict_word_similarity_op", "%>>": "strict_word_similarity_commutator_op",
    "<->": "similarity_dist", "<<->": "word_similarity_dist_op",
    "<->>": "word_similarity_dist_commutator_op", "<<<->": "strict_word_similarity_dist_op",
    "<->>>": "strict_word_similarity_dist_commutator_op",
}
_STRINGS = frozenset((T.TEXT, T.VARCHAR, T.BPCHAR, T.NAME))


def _string(t: int) -> bool:
    return T.DOMAIN_BASE.get(t, t) in _STRINGS or t in citext.OIDS


def bind(op: str, a: E | None, b: E, params: Any) -> E | None:
    """`a op b` as pg_trgm's operator when it applies, else None."""
    if a is None or op not in OPERATORS or not usertypes.has_extension("pg_trgm"):
        return None
    if not all(x.type == T.UNKNOWN or _string(x.type) for x in (a, b)):
        return None
    args = [coerce(x, T.TEXT, params=params) for x in (a, b)]
    fd, args = resolve(OPERATORS[op], args, params)
    return E("call", fd, args, return_type(fd, args), -1, "?column?")
