"""unaccent (CREATE EXTENSION unaccent, 1.1): text with its accents and ligatures taken off.

PostgreSQL's unaccent dictionary maps each accented letter to its base letter and each
ligature to its letters (its unaccent.rules). The same mapping follows from Unicode: a
letter's compatibility decomposition without its combining marks, and for the letters
Unicode does not decompose (ø, ł, đ, ß, æ, œ, þ ...) the rules' own spellings. Only
characters that change are replaced; everything else is kept as it is. Unlike the rules,
IPA and modifier letters (ɛ, ʀ, ˂ ...) are kept (~200 of the rules' 1,650). (The two-argument
form names a dictionary: Cumulo has no regdictionary type, so it is not there.)

>>> unaccent("Hôtel Ærø, straße, Łódź, ﬁn")
'Hotel AEro, strasse, Lodz, fin'
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from ...pgtypes import oids as T
from .registry import register

TEXT = T.TEXT
# letters Unicode does not decompose, as unaccent.rules spells them
_SPECIAL = {
    "Æ": "AE", "æ": "ae", "Œ": "OE", "œ": "oe", "ß": "ss", "ẞ": "SS", "Ø": "O", "ø": "o",
    "Ł": "L", "ł": "l", "Đ": "D", "đ": "d", "Ð": "D", "ð": "d", "Þ": "TH", "þ": "th",
    "Ħ": "H", "ħ": "h", "ı": "i", "Ŀ": "L", "ŀ": "l", "Ŧ": "T", "ŧ": "t", "ĸ": "q",
    "Ŋ": "N", "ŋ": "n", "Ɖ": "D", "ɖ": "d", "ƒ": "f", "Ƀ": "B", "ƀ": "b", "Ɨ": "I",
    "ɨ": "i", "ʉ": "u", "Ɇ": "E", "ɇ": "e", "Ȼ": "C", "ȼ": "c", "«": "<<", "»": ">>",
    "‘": "'", "’": "'", "‚": "'", "‛": "'", "“": '"', "”": '"', "„": '"', "‟": '"',
    "–": "-", "—": "-", "‐": "-", "‑": "-", "‒": "-", "―": "-", "−": "-", "…": "...",
    "×": "*", "÷": "/", "©": "(C)", "®": "(R)", "℗": "(P)", "℠": "SM", "™": "TM",
    "¡": "!", "¿": "?", "\xad": "-", "±": "+/-", "¼": " 1/4", "½": " 1/2", "¾": " 3/4",
    "ŉ": "'n", "ƕ": "hv", "Ƣ": "OI", "ƣ": "oi",
}
# "LATIN SMALL LETTER B WITH HOOK" and the like: the letter named
_NAMED = re.compile(r"LATIN (CAPITAL|SMALL) LETTER ([A-Z]{1,2}) WITH ")


@lru_cache(maxsize=4096)
def _one(ch: str) -> str:
    if ch in _SPECIAL:
        return _SPECIAL[ch]
    if ch.isascii():
        return ch
    if unicodedata.combining(ch):  # a lone combining mark goes away
        return ""
    m = _NAMED.match(unicodedata.name(ch, ""))
    if m is not None:
        return m.group(2) if m.group(1) == "CAPITAL" else m.group(2).lower()
    parts = unicodedata.normalize("NFKD", ch)
    base = "".join(c for c in parts if not unicodedata.combining(c))
    return base if base and base != ch and all(c.isascii() or c.isalpha() for c in base) else ch


@register("unaccent", args=[TEXT], returns=TEXT)
def unaccent(s: str) -> str:
    """Takes accents and ligatures off, as the extension's default dictionary does."""
    return s if s.isascii() else "".join(_one(ch) for ch in s)


EXTENSION_FUNCTIONS = ("unaccent",)
