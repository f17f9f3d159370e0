"""ts_headline: the document with the query's words marked, cut to a fragment around a match.

As PostgreSQL's default parser's headline (prsd_headline, one fragment): every
word whose lexeme an operand of the query matches (negated ones too) is
wrapped in StartSel/StopSel (`<b>`, `</b>`); the fragment starts at the first
match, takes the words until a later operand of an AND is covered, grows
forward to MinWords (15) words and past short words (ShortWord, 3 letters) at
its end, at most MaxWords (35), then backward if the document ends first.
HighlightAll=true keeps the whole document. Known differences: PostgreSQL
chooses among all covers of an AND query (here: the first), and MaxFragments
> 0 (several fragments joined by FragmentDelimiter) is given one fragment.

>>> headline("english", "The quick brown fox jumps over the lazy dog",
...          (("&", ("v", "fox", 0, False), ("v", "dog", 0, False))), "")
'The quick brown <b>fox</b> jumps over the lazy <b>dog</b>'
"""

from __future__ import annotations

import re
from typing import Any

from ...errors import InvalidParameterValue
from . import tsparser

_OPTION = re.compile(r"\s*(\w+)\s*=\s*(\"[^\"]*\"|[^,]*?)\s*(?:,|$)")
_WORD = re.compile(r"[^\W_]+")


def _options(text: str) -> dict[str, Any]:
    opts: dict[str, Any] = {"startsel": "<b>", "stopsel": "</b>", "maxwords": 35,
                            "minwords": 15, "shortword": 3, "highlightall": False}
    for m in _OPTION.finditer(text or ""):
        key, val = m.group(1).lower(), m.group(2).strip('"')
        if key in ("maxwords", "minwords", "shortword", "maxfragments"):
            opts[key] = int(val)
        elif key == "highlightall":
            opts[key] = val.lower() in ("1", "on", "true", "t", "y", "yes")
        elif key in ("startsel", "stopsel", "fragmentdelimiter"):
            opts[key] = val
    if opts["minwords"] >= opts["maxwords"]:
        raise InvalidParameterValue("MinWords should be less than MaxWords")
    if opts["minwords"] <= 0:
        raise InvalidParameterValue("MinWords should be positive")
    return opts


def _operands(tree: Any) -> list[tuple[Any, ...]]:
    if tree is None:
        return []
    if tree[0] == "v":
        return [tree]
    if tree[0] == "!":
        return _operands(tree[1])
    return _operands(tree[1]) + _operands(tree[2])


def _needs_all(tree: Any) -> bool:
    return tree is not None and tree[0] in ("&", "<>")


def headline(config: str, text: str, tree: Any, options: str) -> str:
    """The headline of `text` for the query tree (see the module docstring)."""
    opts = _options(options)
    ops = _operands(tree)
    words: list[tuple[int, int, str]] = []  # (start, end, operand lexeme matched or "")
    for tm in tsparser.TOKEN.finditer(text):
        for wm in _WORD.finditer(tm.group(0)):
            tok = wm.group(0)
            kind = tsparser.word_kind(tok, False)
            lex = tsparser.normalize(config, kind, tok)
            hit = next((o[1] for o in ops if lex is not None and (
                lex == o[1] or (o[3] and lex.startswith(o[1])))), "")
            words.append((tm.start() + wm.start(), tm.start() + wm.end(), hit))
    if not words:
        return text
    n = len(words)
    if opts["highlightall"]:
        first, last = 0, n - 1
    else:
        first, last = _fragment(words, tree, opts)
    out, pos = [], words[first][0] if first > 0 else 0
    for start, end, hit in words[first:last + 1]:
        out.append(text[pos:start])
        out.append(f"{opts['startsel']}{text[start:end]}{opts['stopsel']}" if hit
                   else text[start:end])
        pos = end
    out.append(text[pos:] if last == n - 1 else "")
    return "".join(out)


def _fragment(words: list[tuple[int, int, str]], tree: Any,
              opts: dict[str, Any]) -> tuple[int, int]:
    n, short = len(words), opts["shortword"]
    maxw, minw = opts["maxwords"], opts["minwords"]

    def is_short(i: int) -> bool:
        return words[i][1] - words[i][0] <= short

    hits = [i for i, w in enumerate(words) if w[2]]
    p = q = hits[0] if hits else 0
    if hits and _needs_all(tree):
        want = {o[1] for o in _operands(tree)} - {words[p][2]}
        for i in hits[1:]:
            if not want or i - p + 1 > maxw:
                break
            if words[i][2] in want:
                want.discard(words[i][2])
                q = i
        if want:  # the cover is longer than MaxWords: MaxWords words from its start
            end = min(n - 1, p + maxw - 1)
            while end > p and is_short(end):
                end -= 1
            return p, end
    end = q
    while end + 1 < n and end - p + 1 < maxw and (end - p + 1 < minw or is_short(end)):
        end += 1
    while p > 0 and end - p + 1 < minw:
        p -= 1
    return p, end
