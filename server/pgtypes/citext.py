"""citext (CREATE EXTENSION citext): text that compares case-insensitively and keeps its case.

A citext value is a `CIText`, a `str` whose equality, hash and order are those
of its case-folded form. Why a value type and not rules in each operator: the
whole engine then gets citext right without knowing it, because it compares,
hashes and sorts values with Python's operators. `=`, `<>`, `<`, ORDER BY,
GROUP BY, DISTINCT, hash joins, IN lists, min/max all follow the folded form,
while the value itself, and so its output, keeps the case it was written with.

Folding is citext's `lower()` under the C locale of the oracle: ASCII letters
only (`'é' = 'É'` is false there). Keys fold too (`kivi.keycodec` encodes a
CIText as its folded text): a UNIQUE index or PRIMARY KEY over citext refuses
'a@x.com' beside 'A@x.com' (23505), as PostgreSQL's btree over citext_cmp does.
The value travels as itself through KiVi's wire (an ext type of its own) and
the cold-row segments (pickled), so it is still a CIText after a restart.

A str method's result is a plain str (`upper`, slicing, `+`), as PostgreSQL's
text functions return text; a cast to text must make a plain str too (`plain`),
so that `email::text = 'a@x.com'` compares case-sensitively. A CIText and a
plain str that fold alike are equal but hash apart: the binder never lets them
meet (an unknown literal becomes citext, citext beside text becomes text).

The OID is the one CREATE EXTENSION gave the type; `OIDS` holds the OIDs of the
citext types of the catalogs in use (filled by `sql.expr.usertypes`).

>>> a, b = CIText("Ann@X.com"), CIText("ann@x.COM")
>>> a == b, a != b, hash(a) == hash(b), a, str(a) == "Ann@X.com"
(True, False, True, 'Ann@X.com', True)
>>> sorted([CIText("b"), CIText("A"), CIText("C")])
['A', 'b', 'C']
>>> CIText("É") == "é", fold("ÉaB")
(False, 'Éab')
>>> type(plain(a)) is str, type(a.upper()) is str, {a: 1}.get(CIText("ANN@x.com"))
(True, True, 1)
"""

from __future__ import annotations

import string
from typing import Any

OIDS: set[int] = set()  # the citext type OIDs CREATE EXTENSION made (see the docstring)

_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
_str_eq = str.__eq__


def fold(s: str) -> str:
    """citext's comparison form: ASCII letters lower-cased, everything else as it is."""
    return s.lower() if s.isascii() else s.translate(_ASCII_LOWER)


class CIText(str):
    """A citext value: a str compared, hashed and ordered by its folded form."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, str):
            return NotImplemented
        return _str_eq(self, other) or fold(self) == fold(other)  # NB: equal text: no folding

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, str):
            return NotImplemented
        return not _str_eq(self, other) and fold(self) != fold(other)

    def __lt__(self, other: str) -> bool:
        if not isinstance(other, str):
            return NotImplemented
        return fold(self) < fold(other)

    def __le__(self, other: str) -> bool:
        if not isinstance(other, str):
            return NotImplemented
        return fold(self) <= fold(other)

    def __gt__(self, other: str) -> bool:
        if not isinstance(other, str):
            return NotImplemented
        return fold(self) > fold(other)

    def __ge__(self, other: str) -> bool:
        if not isinstance(other, str):
            return NotImplemented
        return fold(self) >= fold(other)

    def __hash__(self) -> int:  # NB: fold inlined: a hash per row of every GROUP BY and join
        return hash(self.lower() if self.isascii() else self.translate(_ASCII_LOWER))

    def __reduce__(self) -> tuple[Any, ...]:
        return CIText, (str(self),)


def parse(s: Any) -> CIText:
    """citextin: the text as it is."""
    return s if type(s) is CIText else CIText(s)


def plain(v: Any) -> str:
    """citext -> text: the same characters, compared case-sensitively again."""
    return str(v)


def encode(v: Any) -> bytes:
    """citextsend: the UTF-8 bytes, as text's."""
    return str(v).encode()


def decode(b: bytes) -> CIText:
    """citextrecv."""
    return CIText(bytes(b).decode())
