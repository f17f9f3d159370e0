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
>>> out('\\n<a/>\\n')
'<a/>\\n'
"""

from __future__ import annotations

import codecs
import re
from contextvars import ContextVar
from dataclasses import dataclass

from lxml import etree

from ..errors import InvalidXmlContent, InvalidXmlDocument, SQLError

# The xml settings of the calling session (sql.settings publishes them): context variables,
# a thread's own or a session greenlet's own (see `dateparse`).
_OPTION: ContextVar[str] = ContextVar("xmloption", default="content")
_BINARY: ContextVar[str] = ContextVar("xmlbinary", default="base64")
_WRAP = "pg-chunk-wrapper"  # NB: a name no error about the user's text can mention
_DOCTYPE = re.compile(r"\s*(?:<!--.*?-->\s*|<\?(?!xml[\s?]).*?\?>\s*)*<!DOCTYPE", re.S | re.I)


def xmloption() -> str:
    """The xmloption of the session this thread serves: 'content' or 'document'."""
    return _OPTION.get()


def use_xmloption(value: str) -> None:
    """Publishes a session's xmloption to this thread (sql.settings calls it)."""
    _OPTION.set(value)


def xmlbinary() -> str:
    """The xmlbinary of the session this thread serves: 'base64' or 'hex'."""
    return _BINARY.get()


def use_xmlbinary(value: str) -> None:
    """Publishes a session's xmlbinary to this thread (sql.settings calls it)."""
    _BINARY.set(value)


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
    """xml_out: the value with its declaration reprinted (dropped if it says only 1.0, and
    then one newline after it, or at the start of a value without one, with it)."""
    if not s.startswith("<?xml"):
        return s[1:] if s.startswith("\n") else s
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


def _parser(recover: bool = False) -> etree.XMLParser:
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                           remove_blank_text=False, huge_tree=False, encoding="utf-8",
                           strip_cdata=False,  # NB: CDATA sections stay nodes, as in libxml
                           recover=recover)


def parse_document(s: str, strict: bool = False) -> etree._Element:
    """The document's root element; raises _ParseFailure with PostgreSQL-style DETAIL.

    `strict` (xpath's, XMLTABLE's parse) counts namespace errors too: a well-formedness
    check (xml_in) ignores them, as PostgreSQL's PG_XML_STRICTNESS_WELLFORMED does."""
    _check_encoding(s)
    parser = _parser()
    try:
        return etree.fromstring(s.encode(), parser)
    except etree.XMLSyntaxError:
        errors = _errors(parser.error_log, s, 0, strict)
        if not errors:  # NB: only namespace errors, which PostgreSQL's check ignores
            return etree.fromstring(s.encode(), _parser(recover=True))
        _trailing(errors, s, True)
        detail = _detail(errors, s)
        if not s:  # NB: libxml 2.9 says so first, of an empty string
            detail = "line 1: switching encoding : no input\n\n^\n" + detail
        raise _ParseFailure(detail) from None


_ENCODING = re.compile(r"<\?xml\s[^?]*?encoding\s*=\s*(['\"])([^'\"]*)\1")


def _check_encoding(s: str) -> None:
    """libxml's `Unsupported encoding x` for a document declaring one it has no converter for
    (the text itself is UTF-8 by now, as PostgreSQL hands it over)."""
    m = _ENCODING.match(s)
    if m is None:
        return
    try:
        codecs.lookup(m.group(2))
    except LookupError:
        raise _ParseFailure(_detail([(f"Unsupported encoding {m.group(2)}", m.end())], s)) from None


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
        errors = _errors(parser.error_log, body, len(head))
        if errors:
            _trailing(errors, body, False)
            raise _ParseFailure(_detail(errors, body)) from None


# one error as PostgreSQL prints it: (message, character offset in the parsed text)
_Error = tuple[str, int]
_MISMATCH = re.compile(r"Opening and ending tag mismatch: (\S+) line (\d+) and ")
_TAGS = re.compile(r"<!--.*?(?:-->|$)|<!\[CDATA\[.*?(?:\]\]>|$)|<\?.*?(?:\?>|$)|<!.*?>"
                   r"|</[^>]*>?|<([^\s/>]+)[^>]*?(/?)>", re.S)


def _errors(log: etree._ListErrorLog, text: str, shift: int, strict: bool = False
            ) -> list[_Error]:
    """libxml's errors as offsets into `text` (`shift`: the wrapper's length on line 1), told
    as the chunk parser tells them; namespace errors dropped, as PostgreSQL's check drops them."""
    starts = [0]
    for i, c in enumerate(text):
        if c == "\n":
            starts.append(i + 1)
    out: list[_Error] = []
    for e in log:
        if e.domain == etree.ErrorDomains.NAMESPACE and not strict:
            continue
        msg = e.message.rstrip("\n")
        line = min(e.line, len(starts))
        offset = min(starts[line - 1] + e.column - 1 - (shift if e.line == 1 else 0), len(text))
        if shift and msg.startswith("CData section not finished\n"):
            at = text.rfind("<![CDATA[", 0, offset)  # NB: libxml shows the section less 2 chars
            msg = "CData section not finished\n" + text[at + 9:][:-2][:50]
        if shift and _WRAP in msg:
            m = _MISMATCH.match(msg)
            if m and m.group(1) != _WRAP:  # the wrapper's end tag closed an open element
                out.append((f"Premature end of data in tag {m.group(1)} line {m.group(2)}",
                            len(text)))
            elif m:  # an end tag with no start tag in the chunk
                out.append(("chunk is not well balanced", text.rfind("</", 0, offset)))
            break
        if shift and msg == "error parsing attribute name" and offset >= len(text):
            continue  # NB: the wrapper's `</` after an unfinished tag: libxml sees the end
        out.append((msg, offset))
    return out


def _trailing(errors: list[_Error], text: str, document: bool) -> None:
    """The error libxml 2.9 adds once the one before stopped it (libxml 2.14 adds none):
    `Extra content at the end of the document` after a start tag it could not read, `Premature
    end of data in tag x` for the innermost element still open at the text's end."""
    msg, offset = errors[-1]
    if offset < len(text):  # NB: a start tag it could not read ends the root element there
        if document and msg.startswith(("StartTag: invalid element name",
                                        "Couldn't find end of Start Tag")):
            errors.append(("Extra content at the end of the document", offset))
        return
    if not msg.startswith(("CData section not finished", "Opening and ending tag mismatch")):
        return
    stack: list[tuple[str, int]] = []
    for m in _TAGS.finditer(text, 0, offset):
        t = m.group(0)
        if m.group(1) is not None and not m.group(2):
            stack.append((m.group(1), text.count("\n", 0, m.start()) + 1))
        elif t.startswith("</") and stack:
            stack.pop()
    if stack:
        name, line = stack[-1]
        errors.append((f"Premature end of data in tag {name} line {line}", offset))


def _detail(errors: list[_Error], text: str) -> str:
    """PostgreSQL's xml_errorHandler lines: `line N: message`, the line, a caret."""
    out = []
    for msg, offset in errors:
        line = text.count("\n", 0, offset) + 1
        src, caret = _context(text, offset)
        out.append(f"line {line}: {msg}\n{src}\n{caret}")
    return "\n".join(out)


def _context(text: str, offset: int) -> tuple[str, str]:
    """libxml's xmlParserPrintFileContext: up to 80 bytes of the line around the error and a
    caret under it (a space per byte before it, tabs kept)."""
    b = text.encode()
    cur = len(text[:offset].encode())
    c = cur
    while 0 < c < len(b) and b[c] in b"\r\n":
        c -= 1
    n = 0
    while n < 80 and c > 0 and (c >= len(b) or b[c] not in b"\r\n"):
        c -= 1
        n += 1
    if c < len(b) and b[c] in b"\r\n":
        c += 1
    col = cur - c
    seg = bytearray()
    i = c
    while i < len(b) and b[i] not in b"\r\n" and len(seg) < 80:
        seg.append(b[i])
        i += 1
    caret = bytes(9 if x == 9 else 32 for x in seg[:min(col, 79)])
    return seg.decode("utf-8", "replace"), caret.decode() + "^"


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
        return parse_document(s, strict=True)
    except _ParseFailure as f:
        raise InvalidXmlDocument(message, detail=f.detail or None) from None


def recv(b: bytes) -> str:
    """xml_recv: the bytes as UTF-8 text, checked as xml_in checks it."""
    return check(b.decode())


def send(v: str) -> bytes:
    """xml_send: the output form's bytes."""
    return out(v).encode()
