"""ts_headline: the document with the query's words marked, cut to a fragment around a match.

As PostgreSQL's default parser's headline (prsd_headline, one fragment): every
word whose lexeme an operand of the query matches (negated ones too) is
wrapped in StartSel/StopSel (`<b>`, `</b>`); the fragment is the best of the
query's covers (from each match, the shortest run of words satisfying it),
grown forward to MinWords (15) words and past short words (ShortWord, 3
letters), then backward if the document ends first, at most MaxWords (35)
(PostgreSQL's mark_hl_words, `_fragment`). HighlightAll=true keeps the whole
document. Options are PostgreSQL's parameter list: values quoted in '' or "".

MaxFragments > 0 is PostgreSQL's mark_hl_fragments (`_fragments`): every cover
of the query (the shortest runs of words from a match that satisfy it, one from
each match on), cut into pieces of at most MaxWords words that start and end at
a match; then, up to MaxFragments times, the piece with the most matches (the
fewest words on a tie) that overlaps none chosen is stretched to MaxWords, half
before and half after, ends pulled back to words longer than ShortWord or
matches. The fragments come in document order, FragmentDelimiter (" ... ")
between them; with none, the first MinWords words.

>>> headline("english", "The quick brown fox jumps over the lazy dog",
...          (("&", ("v", "fox", 0, False), ("v", "dog", 0, False))), "")
'The quick brown <b>fox</b> jumps over the lazy <b>dog</b>'
"""

from __future__ import annotations

import re
from typing import Any

from ...errors import InvalidParameterValue, SyntaxError_
from . import tsparser

# NB: as PostgreSQL's deserialize_deflist: a value quoted in '' or "" (the quote doubled
# inside), or one unquoted word; anything else is 42601
_OPTION = re.compile(r"""\s*(\w+)\s*=\s*(?:'((?:[^']|'')*)'|"((?:[^"]|"")*)"|([^\s,'"]+))\s*(,|$)""")
_WORD = re.compile(r"[^\W_]+")


def _options(text: str) -> dict[str, Any]:
    opts: dict[str, Any] = {"startsel": "<b>", "stopsel": "</b>", "maxwords": 35,
                            "minwords": 15, "shortword": 3, "highlightall": False,
                            "maxfragments": 0, "fragmentdelimiter": " ... "}
    pos, text = 0, text or ""
    while text[pos:].strip():
        m = _OPTION.match(text, pos)
        if m is None or (not m.group(5) and m.end() < len(text)):
            raise SyntaxError_(f'invalid parameter list format: "{text}"')
        pos = m.end()
        key = m.group(1).lower()
        if m.group(2) is not None:
            val = m.group(2).replace("''", "'")
        elif m.group(3) is not None:
            val = m.group(3).replace('""', '"')
        else:
            val = m.group(4)
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
    if opts["shortword"] < 0:
        raise InvalidParameterValue("ShortWord should be >= 0")
    if opts["maxfragments"] < 0:
        raise InvalidParameterValue("MaxFragments should be >= 0")
    return opts


def _operands(tree: Any) -> list[tuple[Any, ...]]:
    if tree is None:
        return []
    if tree[0] == "v":
        return [tree]
    if tree[0] == "!":
        return _operands(tree[1])
    return _operands(tree[1]) + _operands(tree[2])


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
    if opts["maxfragments"] > 0:
        return _fragments(text, words, tree, opts)
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
    """PostgreSQL's mark_hl_words: every cover (from each match, the shortest run of words
    that satisfies the query) grown to MinWords past short words, forward then backward,
    or cut to MaxWords; the best is the one that keeps its cover, then has the most
    matches, then ends on no short word. None: the first MinWords words."""
    n, short = len(words), opts["shortword"]
    maxw, minw = opts["maxwords"], opts["minwords"]

    def bad(i: int) -> bool:  # NB: PostgreSQL's BADENDPOINT (BADSTARTPOINT alike)
        return words[i][1] - words[i][0] <= short and not words[i][2]

    hits = [i for i, w in enumerate(words) if w[2]]
    max_cover = max(maxw * 10, 100)
    best: tuple[bool, int, int, int] | None = None  # (keeps the cover, matches, first, last)
    for k, p in enumerate(hits):
        found: set[str] = set()
        q = -1
        for j in hits[k:]:
            if j - p >= max_cover:
                break
            found.add(words[j][2])
            if _satisfied(tree, found):
                q = j
                break
        if q < 0:
            continue
        curlen = poslen = 0
        posb = pose = i = p
        while i <= q and curlen < maxw:
            curlen += 1
            poslen += bool(words[i][2])
            pose = i
            i += 1
        if curlen < maxw:
            i -= 1
            while i < n and curlen < maxw:
                if i > q:
                    curlen += 1
                    poslen += bool(words[i][2])
                pose = i
                if not bad(i) and curlen >= minw:
                    break
                i += 1
            if curlen < minw:
                i = p - 1
                while i >= 0:
                    curlen += 1
                    poslen += bool(words[i][2])
                    if curlen >= maxw or (not bad(i) and curlen >= minw):
                        break
                    i -= 1
                posb = max(i, 0)
        else:
            i = pose
            while curlen > minw and bad(i):
                curlen -= 1
                poslen -= bool(words[i][2])
                pose = i = i - 1
        cover = posb <= p and pose >= q
        if best is None or cover > best[0] or (cover == best[0] and (
                poslen > best[1] or (poslen == best[1] and not bad(pose) and bad(best[3])))):
            best = (cover, poslen, posb, pose)
    if best is None:
        return 0, min(minw, n) - 1
    return best[2], best[3]


def _satisfied(tree: Any, found: set[str]) -> bool:
    """Whether words with these matched lexemes satisfy the query (a phrase as an AND)."""
    if tree is None:
        return False
    if tree[0] == "v":
        return tree[1] in found
    if tree[0] == "!":
        return not _satisfied(tree[1], found)
    if tree[0] == "|":
        return _satisfied(tree[1], found) or _satisfied(tree[2], found)
    return _satisfied(tree[1], found) and _satisfied(tree[2], found)


def _fragments(text: str, words: list[tuple[int, int, str]], tree: Any,
               opts: dict[str, Any]) -> str:
    """MaxFragments > 0: see the module docstring. Tokens are the words and the text
    between them (a blank token, which counts as no word and ends no fragment)."""
    toks: list[tuple[int, int, str, bool]] = []  # (start, end, matched lexeme, is a word)
    pos = 0
    for start, end, hit in words:
        if start > pos:
            toks.append((pos, start, "", False))
        toks.append((start, end, hit, True))
        pos = end
    if pos < len(text):
        toks.append((pos, len(text), "", False))
    n, short, maxw = len(toks), opts["shortword"], opts["maxwords"]
    max_cover = max(maxw * 10, 100)
    items = [i for i, t in enumerate(toks) if t[2]]

    def counted(i: int) -> bool:
        return toks[i][3]

    def bad_end(i: int) -> bool:  # PostgreSQL's BADENDPOINT
        t = toks[i]
        return (not t[3] or t[1] - t[0] <= short or text[t[0]:t[1]].isdigit()) and not t[2]

    covers: list[list[Any]] = []  # [start, end, words, matches, chosen/excluded]
    for k, p in enumerate(items):
        found: set[str] = set()
        for q in items[k:]:
            if q - p >= max_cover:
                break
            found.add(toks[q][2])
            if _satisfied(tree, found):
                start, end = p, q
                while start <= end:  # get_next_fragment: pieces of at most MaxWords words
                    while start < end and not toks[start][2]:
                        start += 1
                    cur = hits = 0
                    i = start
                    while i <= end and cur < maxw:
                        cur += counted(i)
                        hits += bool(toks[i][2])
                        i += 1
                    stop = end
                    if end > i:
                        stop = i
                        while stop >= start:
                            if toks[stop][2]:
                                break
                            cur -= counted(stop)
                            stop -= 1
                    covers.append([start, stop, cur, hits, False])
                    start, end = stop + 1, q
                break
    marked = [False] * n
    chosen = 0
    for _ in range(opts["maxfragments"]):
        best = None
        for c in covers:
            if not c[4] and (best is None or c[3] > best[3] or (c[3] == best[3]
                                                                  and c[2] < best[2])):
                best = c
        if best is None or best[3] == 0:
            break
        start, end, cur = best[0], best[1], best[2]
        if cur < maxw:
            room, stretch, mark = (maxw - cur) // 2, 0, start
            i = start - 1
            while i >= 0 and stretch < room and not marked[i]:
                if counted(i):
                    cur += 1
                    stretch += 1
                mark = i
                i -= 1
            i = mark
            while i < start and bad_end(i):
                cur -= counted(i)
                i += 1
            start, mark = i, end
            i = end + 1
            while i < n and cur < maxw and not marked[i]:
                cur += counted(i)
                mark = i
                i += 1
            i = mark
            while i > end and bad_end(i):
                cur -= counted(i)
                i -= 1
            end = i
        for i in range(start, end + 1):
            marked[i] = True
        chosen += 1
        for c in covers:
            if c is best or start <= c[0] <= end or start <= c[1] <= end or (
                    c[0] < start and c[1] > end):
                c[4] = True
    if not chosen:
        cur = 0
        for i in range(n):
            if cur >= opts["minwords"]:
                break
            cur += counted(i)
            marked[i] = True
    out: list[str] = []
    inside = fragments = 0
    for i, (start, end, hit, _) in enumerate(toks):
        if not marked[i]:
            inside = 0
            continue
        if not inside:
            inside = 1
            fragments += 1
            if fragments > 1:
                out.append(opts["fragmentdelimiter"])
        piece = text[start:end]
        out.append(f"{opts['startsel']}{piece}{opts['stopsel']}" if hit else piece)
    return "".join(out)
