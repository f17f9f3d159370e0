"""The xml type: input checks, output, and the XML declaration, as PostgreSQL 15 (libxml) has them.

A value is its text, kept as given (`'<?xml version="1.0"?><a/>'::xml::text` keeps the
declaration); only the output function (`out`) drops a declaration that says nothing
beyond version 1.0. Input is parsed per the session's `xmloption`: as a document
(one root element) or as content (any sequence of elements, text, comments and PIs,
after an optional XML declaration). The parsing is libxml's, through lxml; the
DETAIL lines are built as PostgreSQL builds them from libxml's errors: `line N:
message`, then the source line and a caret under the error's column.

Content is parsed inside a wrapper element (lxml has no balanced-chunk parser), and
the errors the wrapper causes are told as libxml's chunk parser tells them:

>>> check("<a>x</a>y")
'<a>x</a>y'
>>> try:
...     check("<a></b>")
... except Exception as e:
...     print(e.sqlstate, e.message); print(e.detail)
2200N invalid XML content
line 1: Opening and ending tag mismatch: a line 1 and b
<a></b>
       ^
>>> out('<?xml version="1.0" encoding="UTF-8"?><a/>'), out('<?xml version="1.1"?><a/>')
('<a/>', '<?xml version="1.1"?><a/>')
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass

from lxml import etree

from ..errors import InvalidXmlContent, InvalidXmlDocument, SQLError

_local = threading.local()
_WRAP = "pg-chunk-wrapper"  # NB: a name no error about the user's text can mention
_DOCTYPE = re.compile(r"\s*(?:<!--.*?-->\s*|<\?(?!xml[\s?]).*?\?>\s*)*<!DOCTYPE", re.S | re.I)


def xmloption() -> str:
    """The xmloption of the session this thread serves: 'content' or 'document'."""
    return getattr(_local, "option", "content")


def use_xmloption(value: str) -> None:
    """Publishes a session's xmloption to this thread (sql.settings calls it)."""
    _local.option = value


def xmlbinary() -> str:
    """The xmlbinary of the session this thread serves: 'base64' or 'hex'."""
    return getattr(_local, "binary", "base64")


def use_xmlbinary(value: str) -> None:
    """Publishes a session's xmlbinary to this thread (sql.settings calls it)."""
    _local.binary = value


# -- the XML declaration ---------------------------------------------------------------------


@dataclass(frozen=True)
class Decl:
    """A parsed `<?xml ...?>`: `end` is where the text after it starts (0: none)."""

    version: str | None
    encoding: str | None
    standalone: int  # -1 not given, 0 no, 1 yes
    end: int


_NO_DECL = Decl(None, None, -1, 0)
_WS = " \t\r\n"


def _attr(s: str, p: int, name: str) -> tuple[str | None, int]:
    """Reads ` name="value"` at p; (None, p) if the name is not there."""
    q = p
    while q < len(s) and s[q] in _WS:
        q += 1
    if q == p or not s.startswith(name, q):
        return None, p
    q += len(name)
    while q < len(s) and s[q] in _WS:
        q += 1
    if q >= len(s) or s[q] != "=":
        raise _decl_error("Malformed declaration: missing version." if name == "version"
                          else "Malformed declaration: missing value.")
    q += 1
    while q < len(s) and s[q] in _WS:
        q += 1
    if q >= len(s) or s[q] not in "'\"":
        raise _decl_error("Malformed declaration: missing version." if name == "version"
                          else "Malformed declaration: missing value.")
    end = s.find(s[q], q + 1)
    if end < 0:
        raise _decl_error("Malformed declaration: missing value.")
    return s[q + 1:end], end + 1


def _decl_error(detail: str) -> SQLError:
    return InvalidXmlContent("invalid XML content: invalid XML declaration", detail=detail)


def parse_decl(s: str) -> Decl:
    """PostgreSQL's parse_xml_decl: the declaration at the very start of `s`, if any."""
    if not s.startswith("<?xml") or len(s) < 6 or s[5] not in _WS + "?":
        return _NO_DECL
    version, p = _attr(s, 5, "version")
    if version is None:
        raise _decl_error("Malformed declaration: missing version.")
    encoding, p = _attr(s, p, "encoding")
    sa, p = _attr(s, p, "standalone")
    standalone = -1
    if sa is not None:
        if sa not in ("yes", "no"):
            raise _decl_error("standalone accepts only 'yes' or 'no'.")
        standalone = 1 if sa == "yes" else 0
    while p < len(s) and s[p] in _WS:
        p += 1
    if not s.startswith("?>", p):
        raise _decl_error("Malformed declaration: missing end.")
    return Decl(version, encoding, standalone, p + 2)


def print_decl(version: str | None, standalone: int) -> str:
    """PostgreSQL's print_xml_decl (no encoding): '' when it would say only version 1.0."""
    if (version and version != "1.0") or standalone != -1:
        sa = "" if standalone == -1 else f' standalone="{"yes" if standalone else "no"}"'
        return f'<?xml version="{version or "1.0"}"{sa}?>'
    return ""


def out(s: str) -> str:
    """xml_out: the value with its declaration reprinted (dropped if it says only 1.0)."""
    if not s.startswith("<?xml"):
        return s
    try:
        d = parse_decl(s)
    except SQLError:
        return s
    head = print_decl(d.version, d.standalone)
    rest = s[d.end:]
    if not head and rest.startswith("\n"):
        rest = rest[1:]
    return head + rest


# -- parsing ---------------------------------------------------------------------------------


def _parser() -> etree.XMLParser:
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                           remove_blank_text=False, huge_tree=False, encoding="utf-8",
                           strip_cdata=False)  # NB: CDATA sections stay nodes, as in libxml


def parse_document(s: str) -> etree._Element:
    """The document's root element; raises _ParseFailure with PostgreSQL-style DETAIL."""
    parser = _parser()
    try:
        return etree.fromstring(s.encode(), parser)
    except etree.XMLSyntaxError:
        detail = _detail(parser.error_log, s, 0, len(s))
        if not s:  # NB: libxml 2.9 says so first, of an empty string
            detail = "line 1: switching encoding : no input\n\n^\n" + detail
        raise _ParseFailure(detail) from None


class _ParseFailure(Exception):
    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


def _parse_content(s: str) -> None:
    if _DOCTYPE.match(s):  # xml_doctype_in_content: a DOCTYPE makes it a document
        parse_document(s)
        return
    body = s[parse_decl(s).end:]
    parser = _parser()
    head = f"<{_WRAP}>"
    try:
        etree.fromstring(f"{head}{body}</{_WRAP}>".encode(), parser)
    except etree.XMLSyntaxError:
        raise _ParseFailure(_detail(parser.error_log, body, len(head), len(body))) from None


def _detail(log: etree._ListErrorLog, text: str, shift: int, end: int) -> str:
    """PostgreSQL's xml_errorHandler lines: `line N: message`, the line, a caret."""
    lines = text.split("\n")
    out_lines: list[str] = []
    for e in log:
        msg = e.message.rstrip()
        col = e.column - (shift if e.line == 1 else 0)
        if _WRAP in msg:
            m = re.match(r"Opening and ending tag mismatch: (\S+) line (\d+) and ", msg)
            if m and m.group(1) != _WRAP:  # the wrapper's end tag closed an open element
                msg = f"Premature end of data in tag {m.group(1)} line {m.group(2)}"
                line = len(lines)
                col = len(lines[-1]) + 1
                out_lines.append(_context(msg, lines, line, col))
                break
            if m:  # an end tag with no start tag in the chunk
                offset = _offset(lines, e.line, col)
                start = text.rfind("</", 0, offset)
                line = text.count("\n", 0, start) + 1
                col = start - (text.rfind("\n", 0, start) + 1) + 1
                out_lines.append(_context("chunk is not well balanced", lines, line, col))
                break
            continue
        if msg == "error parsing attribute name" and _offset(lines, e.line, col) >= end:
            continue  # NB: the wrapper's `</` after an unfinished tag: libxml sees the end
        if e.line > len(lines):
            break
        out_lines.append(_context(msg, lines, e.line, min(col, len(lines[e.line - 1]) + 1)))
    return "\n".join(out_lines)


def _offset(lines: list[str], line: int, col: int) -> int:
    return sum(len(x) + 1 for x in lines[:line - 1]) + col - 1


def _context(msg: str, lines: list[str], line: int, col: int) -> str:
    src = lines[line - 1] if 0 < line <= len(lines) else ""
    caret = "".join(c if c == "\t" else " " for c in src[:max(col - 1, 0)])
    return f"line {line}: {msg}\n{src}\n{caret}^"


def check(s: str, option: str | None = None) -> str:
    """xml_in: `s` if it parses per `option` (default: the session's xmloption), else 2200M/N."""
    document = (option or xmloption()) == "document"
    try:
        if document:
            parse_document(s)
        else:
            _parse_content(s)
    except _ParseFailure as f:
        if document:
            raise InvalidXmlDocument("invalid XML document", detail=f.detail or None) from None
        raise InvalidXmlContent("invalid XML content", detail=f.detail or None) from None
    return s


def well_formed(s: str, option: str | None = None) -> bool:
    """xml_is_well_formed(_document/_content): does `s` parse, per `option`?"""
    try:
        check(s, option)
    except SQLError:
        return False
    return True


def is_document(s: str) -> bool:
    """`x IS DOCUMENT`: the value parses as a document."""
    try:
        parse_document(s)
    except (_ParseFailure, SQLError):
        return False
    return True


def document_root(s: str, message: str = "could not parse XML document") -> etree._Element:
    """The root element of a value that must be a document (xpath's argument): 2200M if not."""
    try:
        return parse_document(s)
    except _ParseFailure as f:
        raise InvalidXmlDocument(message, detail=f.detail or None) from None


def recv(b: bytes) -> str:
    """xml_recv: the bytes as UTF-8 text, checked as xml_in checks it."""
    return check(b.decode())


def send(v: str) -> bytes:
    """xml_send: the output form's bytes."""
    return out(v).encode()
