"""COPY FROM's csv format read exactly as PostgreSQL 15 reads it (CopyReadLine and
CopyReadAttributesCSV in copyfromparse.c).

PostgreSQL's quote handling is a toggle: in an unquoted stretch a QUOTE opens a quoted
section anywhere in a field, not only at its start; inside one ESCAPE followed by QUOTE
or ESCAPE is that character and a lone QUOTE closes it; what follows a closing quote goes
on in the same field. Python's `csv` module agrees only when every field is either free
of quote characters or wholly quoted, which `simple_block` checks for a whole block at C
speed so that the common case keeps the csv module's pace; other input comes here.

>>> fields('1,a"b"c', ",", '"', '"', "")
['1', 'abc']
>>> fields('3,a"b,c"d,,""', ",", '"', '"', "")
['3', 'ab,cd', None, '']
>>> fields('"q" ,a""b', ",", '"', '"', "")
['q ', 'ab']
>>> fields('"a\\\\"b\\\\c"', ",", '"', "\\\\", "")
['a"b\\\\c']
>>> [r for r, _ in records('1,"a\\nb"\\n2,x\\n', '"', '"')]
['1,"a\\nb"', '2,x']
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..errors import BadCopyFileFormat


def simple_block(delim: str, quote: str, escape: str) -> re.Pattern[str]:
    """A pattern that matches a whole block of one-line records when each of its fields is
    either without any quote (or escape) character or wholly quoted with only escaped
    quotes inside: there the csv module reads what PostgreSQL reads.

    >>> bool(simple_block(",", '"', '"').fullmatch('1,"a,""b"" c"\\n2,c,'))
    True
    >>> bool(simple_block(",", '"', '"').fullmatch('1,a"b"c'))
    False
    """
    d, q, e = re.escape(delim), re.escape(quote), re.escape(escape)
    if escape == quote:
        inner = f"[^{q}\\n\\r]*(?:{q}{q}[^{q}\\n\\r]*)*"  # NB: unrolled: no per-character alternation
        bare = f"[^{d}{q}\\n\\r]*"
    else:
        inner = f"[^{q}{e}\\n\\r]*(?:{e}[{q}{e}][^{q}{e}\\n\\r]*)*"
        bare = f"[^{d}{q}{e}\\n\\r]*"
    field = f"(?:{q}{inner}{q}|{bare})"
    line = f"{field}(?:{d}{field})*"
    return re.compile(f"{line}(?:\\n{line})*")


def records(text: str, quote: str, escape: str, tail: list[str] | None = None
            ) -> Iterator[tuple[str, int]]:
    """Each record of `text` with the number of physical lines it spans, as CopyReadLine
    finds them: a line break inside a quoted section belongs to the record. A record still
    in quotes at the end of the text runs to its end (line break included); a "\\r" before
    a record's line break is its line ending. With `tail` (a block of input that more
    may follow), such a record is not given but appended to `tail`, as its text: the
    next block goes on with it.

    >>> rest: list[str] = []
    >>> list(records('1,a\\n2,"b\\nc', '"', '"', rest)), rest
    ([('1,a', 1)], ['2,"b\\nc'])
    """
    lines = text.split("\n")
    trailing = lines[-1] == ""
    if trailing:
        lines.pop()
    held: list[str] = []
    in_quote = False
    if escape == quote:  # NB: then the quote is just a toggle, as PostgreSQL's escapec = '\0'
        escape = ""
    for line in lines:
        if quote in line:  # NB: only a quote changes the state, and a line end is no escape
            last_esc = False
            for c in line:
                if in_quote and c == escape:
                    last_esc = not last_esc
                if c == quote and not last_esc:
                    in_quote = not in_quote
                if c != escape:
                    last_esc = False
        held.append(line)
        if not in_quote:
            rec = "\n".join(held)
            yield (rec[:-1] if rec.endswith("\r") else rec), len(held)
            held = []
    if held and tail is not None:
        tail.append("\n".join(held) + ("\n" if trailing else ""))
    elif held:
        yield "\n".join(held) + ("\n" if trailing else ""), len(held)


def fields(record: str, delim: str, quote: str, escape: str, null: str) -> list[str | None]:
    """The record's fields as CopyReadAttributesCSV reads them: an unquoted field equal to
    the NULL string is None; a quoted section left open is 22P04."""
    if quote not in record:
        return [None if f == null else f for f in record.split(delim)]
    out: list[str | None] = []
    pos, end = 0, len(record)
    while True:
        start = stop = pos
        buf: list[str] = []
        saw_quote = found_delim = in_quote = False
        while True:
            stop = pos
            if pos >= end:
                if in_quote:
                    raise BadCopyFileFormat("unterminated CSV quoted field")
                break
            c = record[pos]
            pos += 1
            if in_quote:
                if c == escape and pos < end and record[pos] in (escape, quote):
                    buf.append(record[pos])
                    pos += 1
                elif c == quote:
                    in_quote = False
                else:
                    buf.append(c)
            elif c == delim:
                found_delim = True
                break
            elif c == quote:
                saw_quote = in_quote = True
            else:
                buf.append(c)
        out.append(None if not saw_quote and record[start:stop] == null else "".join(buf))
        if not found_delim:
            return out
