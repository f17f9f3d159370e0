"""citext's operators and function overloads, as the binder resolves them (citext--1.6).

The values do the comparing themselves (`pgtypes.citext.CIText`); what is left
to the binder is which operator PostgreSQL picks:

- `citext = citext` (and <, <>, …) compares case-insensitively; `citext = text`
  resolves to text's operator (citext casts to text implicitly), so the citext
  side becomes plain text and the comparison is case-sensitive (`operands`);
- LIKE / ~ with a citext left operand are citext's `~~` / `~`, which match
  case-insensitively: ILIKE / ~* (`like_ci`);
- citext overloads `strpos`, `replace`, `split_part`, `translate` and the
  `regexp_*` functions to match case-insensitively (`function_call`): the
  regexp ones get the `i` flag, the others their citext.sql definitions.
"""

from __future__ import annotations

import re
from typing import Any

from sqlglot import exp

from ...pgtypes import citext
from ...pgtypes import oids as T
from .bound import E
from .functions import coerce
from .types import is_string

REGEXP_FUNCTIONS = {  # name -> index of the flags argument
    "regexp_match": 2, "regexp_matches": 2, "regexp_replace": 3,
    "regexp_split_to_array": 2, "regexp_split_to_table": 2,
}
PLAIN_FUNCTIONS = ("strpos", "replace", "split_part", "translate")
OVERLOADED = frozenset((*REGEXP_FUNCTIONS, *PLAIN_FUNCTIONS))


def is_citext(e: E) -> bool:
    return e.type in citext.OIDS


def operands(a: E, b: E, params: Any) -> tuple[E, E]:
    """The operands of a comparison: citext beside another string type becomes text."""
    ca, cb = is_citext(a), is_citext(b)
    if ca == cb or T.UNKNOWN in (a.type, b.type):
        return a, b
    if ca:
        return coerce(a, T.TEXT, params=params, explicit=True), b
    return a, coerce(b, T.TEXT, params=params, explicit=True)


def in_operands(left: E, items: list[E], params: Any) -> tuple[E, list[E]]:
    """`x IN (a, b)` where citext meets another string type: all compare as text."""
    known = [i for i in items if i.type != T.UNKNOWN]
    if left.type == T.UNKNOWN or not any(is_citext(e) for e in (left, *known)) \
            or all(is_citext(e) for e in (left, *known)):
        return left, items

    def text(e: E) -> E:
        return coerce(e, T.TEXT, params=params, explicit=True) if is_citext(e) else e

    return text(left), [text(i) for i in items]


def array_operand(left: E, arr: E, params: Any) -> tuple[E, E]:
    """`x = ANY(array)` where citext meets another string type: as text (text[])."""
    elem = T.ELEMENT_OF.get(arr.type, T.UNKNOWN)
    if elem in citext.OIDS and left.type not in citext.OIDS and left.type != T.UNKNOWN \
            and is_string(left.type):
        return left, coerce(arr, T.ARRAY_OF[T.TEXT], params=params, explicit=True)
    return operands(left, E("const", None, [], elem), params)[0], arr


def text_subquery(left: E, q: exp.Expression, cols: list[Any]) -> exp.Expression | None:
    """`text IN (SELECT citext ...)` compares as text: the subquery again, its column cast to
    text (None when no such rewrite is needed)."""
    if len(cols) != 1 or cols[0].type not in citext.OIDS or left.type in citext.OIDS \
            or left.type == T.UNKNOWN or not is_string(left.type):
        return None
    col = exp.Cast(this=exp.column(exp.to_identifier(cols[0].name, quoted=True), table="_ci"),
                   to=exp.DataType.build("text"))
    return exp.select(col).from_(exp.Subquery(this=q.copy(), alias=exp.TableAlias(
        this=exp.to_identifier("_ci"))))


def folded(left: E, pattern: E) -> tuple[E, E]:
    """SIMILAR TO over citext (citext's ~ after similar_to_escape): both sides case-folded."""
    if not is_citext(left):
        return left, pattern
    return tuple(E("pyfunc", ("citext_fold", citext.fold, True), [e], T.TEXT, -1, e.name)
                 for e in (left, pattern))  # type: ignore[return-value]


def like_ci(left: E) -> bool:
    """Tells whether LIKE / ~ over `left` matches case-insensitively (citext's ~~ and ~)."""
    return is_citext(left)


def _strpos(s: str, sub: str) -> int:
    return citext.fold(s).find(citext.fold(sub)) + 1


def _replace(s: str, old: str, new: str) -> str:
    """citext's replace: regexp_replace(s, regexp_quote(old), new, 'gi')."""
    return re.sub(re.escape(str(old)), lambda _: str(new), str(s), flags=re.I | re.A)


def _split_part(s: str, sep: str, n: int) -> str | None:
    """citext's split_part: (regexp_split_to_array(s, regexp_quote(sep), 'i'))[n], so a
    field past either end, 0 or negative, is NULL (text's split_part counts from the end)."""
    parts = re.split(re.escape(str(sep)), str(s), flags=re.I | re.A) if sep else list(str(s))
    return parts[n - 1] if 1 <= n <= len(parts) else None


def _translate(s: str, frm: str, to: str) -> str:
    out = []
    low = citext.fold(frm)
    for ch in str(s):
        i = low.find(citext.fold(ch))
        if i < 0:
            out.append(ch)
        elif i < len(to):
            out.append(to[i])
    return "".join(out)


_PLAIN = {"strpos": (_strpos, T.INT4), "replace": (_replace, T.TEXT),
          "split_part": (_split_part, T.TEXT), "translate": (_translate, T.TEXT)}


def function_call(name: str, args: list[E], params: Any) -> tuple[str, list[E]] | E | None:
    """citext's overload of `name(args)` when its first argument is citext: a bound call
    (strpos, replace, split_part, translate), or the name and arguments to resolve as
    usual with the regexp `i` flag added; None when citext has no overload."""
    if not args or not is_citext(args[0]):
        return None
    if name in REGEXP_FUNCTIONS:
        at = REGEXP_FUNCTIONS[name]
        if len(args) > at + 1 or len(args) < at or (
                len(args) > at and not is_string(args[at].type)):  # NB: (…, start int)
            return None
        flags = args[at] if len(args) > at else E("const", "", [], T.TEXT, -1, "flags")
        flags = E("op", "||", [coerce(flags, T.TEXT, params=params),
                               E("const", "i", [], T.TEXT, -1, "i")], T.TEXT)
        return name, [*args[:at], flags]
    if name in _PLAIN:
        fn, result = _PLAIN[name]
        want = [T.TEXT] * len(args)
        if name == "split_part":
            if len(args) != 3:
                return None
            want[2] = T.INT4
        elif len(args) != (2 if name == "strpos" else 3):
            return None
        bound = [coerce(a, w, params=params) for a, w in zip(args, want, strict=True)]
        return E("pyfunc", (name, fn, True), bound, result, -1, name)
    return None
