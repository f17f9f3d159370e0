"""PostgreSQL 15's SQL/XML functions: xmlcomment, xmlconcat, xpath, xmlexists and the rest.

The forms with their own syntax (XMLELEMENT, XMLFOREST, XMLPARSE, XMLSERIALIZE,
XMLPI, XMLROOT, XMLEXISTS, IS DOCUMENT) are bound by `expr.xmlforms`, which calls
the helpers here; plain functions are registry entries. XPath is libxml's, through
lxml, over the value parsed as a document, as PostgreSQL's xpath() does it.

>>> escape("a<b & c>\\r")
'a&lt;b &amp; c&gt;&#x0d;'
>>> xml_name("A b"), xml_name("_x1"), xml_name("1a")
('A_x0020_b', '_x005F_x1', '_x0031_a')
>>> xmlconcat(['<?xml version="1.0" standalone="yes"?><a/>', None, '<b/>'])
'<a/><b/>'
>>> xpath("/a/b/text()", "<a><b>x&amp;y</b><b>2</b></a>")
['x&amp;y', '2']
>>> xpath("count(//b)", "<a><b/><b/></a>"), xpath("1=1", "<a/>")
(['2'], ['true'])
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Iterable
from typing import Any

from lxml import etree

from ...errors import (
    DataException,
    FeatureNotSupported,
    InvalidXmlComment,
    InvalidXmlProcessingInstruction,
    NullValueNotAllowed,
    SQLError,
    SyntaxError_,
)
from ...pgtypes import oids as T
from ...pgtypes import xmlvalue
from ...pgtypes.text import text_encoder
from .registry import register

_XML_ARRAY = T.ARRAY_OF[T.XML]
_FLOAT8_OUT = text_encoder(T.FLOAT8)


def escape(s: str) -> str:
    """PostgreSQL's escape_xml: & < > and carriage return, for element content."""
    return (s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace("\r", "&#x0d;"))


def escape_attribute(s: str) -> str:
    """libxml's attribute-value escaping (xmlTextWriterWriteAttribute)."""
    return (s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("\r", "&#13;").replace("\n", "&#10;")
            .replace("\t", "&#9;"))


def _name_first(c: str) -> bool:
    return c in "_:" or unicodedata.category(c) in ("Lu", "Ll", "Lt", "Lo", "Nl")


def _name_char(c: str) -> bool:
    return _name_first(c) or c in ".-\u00b7" or unicodedata.category(c) in ("Nd", "Mn", "Mc",
                                                                          "Lm")


def xml_name(ident: str) -> str:
    """map_sql_identifier_to_xml_name(ident, false, false): SQL name -> XML name (`_xHHHH_`)."""
    out = []
    for i, c in enumerate(ident):
        if c == ":" and i == 0:
            out.append("_x003A_")
        elif c == "_" and ident[i + 1:i + 2] == "x":
            out.append("_x005F_")
        elif (_name_first(c) if i == 0 else _name_char(c)):
            out.append(c)
        else:
            out.append(f"_x{ord(c):04X}_")
    return "".join(out)


# -- constructors ----------------------------------------------------------------------------


def xmlconcat(values: Iterable[str | None]) -> str | None:
    """xmlconcat / xmlagg: the values side by side, their XML declarations merged into one."""
    parts: list[str] = []
    standalone, version, no_version = 1, None, False
    seen = False
    for v in values:
        if v is None:
            continue
        seen = True
        d = xmlvalue.parse_decl(v)
        if d.standalone == 0 and standalone == 1:
            standalone = 0
        if d.standalone < 0:
            standalone = -1
        if d.version is None:
            no_version = True
        elif version is None:
            version = d.version
        elif d.version != version:
            no_version = True
        parts.append(v[d.end:])
    if not seen:
        return None
    head = ""
    if not no_version or standalone >= 0:
        head = xmlvalue.print_decl(None if no_version else version, standalone)
    return head + "".join(parts)


def element(name: str, attributes: list[tuple[str, str]], content: list[str]) -> str:
    """<name a="v">content</name>, or <name a="v"/> with no content (libxml's text writer)."""
    attrs = "".join(f' {n}="{escape_attribute(v)}"' for n, v in attributes)
    if not content:
        return f"<{name}{attrs}/>"
    return f"<{name}{attrs}>{''.join(content)}</{name}>"


def pi(target: str, arg: str | None, has_arg: bool) -> str | None:
    """xmlpi(name target [, arg])."""
    if target.lower() == "xml":
        raise SyntaxError_("invalid XML processing instruction",
                           detail='XML processing instruction target name cannot be "xml".')
    if not has_arg:
        return f"<?{xml_name(target)}?>"
    if arg is None:
        return None
    if "?>" in arg:
        raise InvalidXmlProcessingInstruction("invalid XML processing instruction",
                                              detail='XML processing instruction cannot contain "?>".')
    return f"<?{xml_name(target)} {arg.lstrip(' ')}?>"


STANDALONE = {"yes": 0, "no": 1, "no value": 2}  # XmlStandaloneType; 3 is OMITTED


def root(data: str, version: str | None, standalone: int) -> str:
    """xmlroot(data, version, standalone): the declaration replaced."""
    d = xmlvalue.parse_decl(data)
    sa = {0: 1, 1: 0, 2: -1}.get(standalone, d.standalone)
    return xmlvalue.print_decl(version, sa) + data[d.end:]


# -- registry functions ----------------------------------------------------------------------


@register("xmlcomment", args=[T.TEXT], returns=T.XML)
def xmlcomment(s: str) -> str:
    """<!--s-->; 2200S when s holds `--` or ends in `-`."""
    if "--" in s or s.endswith("-"):
        raise InvalidXmlComment("invalid XML comment")
    return f"<!--{s}-->"


@register("xml_is_well_formed", args=[T.TEXT], returns=T.BOOL)
def xml_is_well_formed(s: str) -> bool:
    """Would s::xml succeed under the session's xmloption?"""
    return xmlvalue.well_formed(s)


@register("xml_is_well_formed_document", args=[T.TEXT], returns=T.BOOL)
def xml_is_well_formed_document(s: str) -> bool:
    """Is s one well-formed XML document?"""
    return xmlvalue.well_formed(s, "document")


@register("xml_is_well_formed_content", args=[T.TEXT], returns=T.BOOL)
def xml_is_well_formed_content(s: str) -> bool:
    """Is s well-formed XML content (after an optional declaration)?"""
    return xmlvalue.well_formed(s, "content")


@register("xmlvalidate", args=[T.XML, T.TEXT], returns=T.BOOL)
def xmlvalidate(_x: str, _schema: str) -> bool:
    """PostgreSQL 15 has it in pg_proc but not implemented: 0A000."""
    raise FeatureNotSupported("xmlvalidate is not implemented")


@register("text", args=[T.XML], returns=T.TEXT)
def xml_text(x: str) -> str:
    """text(xml): the value as stored, its declaration included (xmltotext)."""
    return x


@register("xml", args=[T.TEXT], returns=T.XML)
def texttoxml(s: str) -> str:
    """xml(text): the text checked as xml_in checks it."""
    return xmlvalue.check(s)


def _namespaces(nsarray: Any) -> dict[str, str]:
    if not nsarray:
        return {}
    if not all(isinstance(p, list) and len(p) == 2 for p in nsarray):
        raise DataException("invalid array for XML namespace mapping",
                            detail="The array must be two-dimensional with length of the second "
                            "axis equal to 2.")
    out = {}
    for prefix, uri in nsarray:
        if prefix is None or uri is None:
            raise NullValueNotAllowed("neither namespace name nor URI may be null")
        out[prefix] = uri
    return out


# a location path that starts with a step (`a/b`, `child::a`, `n:a[1]`): relative to the
# document node in PostgreSQL, where lxml evaluates from the root element
_RELATIVE = re.compile(r"\s*(?:[A-Za-z_][\w.-]*::)?(?:[A-Za-z_][\w.-]*:)?(?:[A-Za-z_][\w.-]*|\*)"
                       r"\s*(?:$|[/\[|])")


class _Compiled(threading.local):
    """Compiled XPaths per thread: an lxml XPath object is not re-entrant."""

    def __init__(self) -> None:
        self.paths: dict[tuple[str, tuple[tuple[str, str], ...]], etree.XPath] = {}


_compiled = _Compiled()


def compile_path(path: str, namespaces: dict[str, str]) -> etree.XPath:
    """The compiled XPath (XX000 `invalid XPath expression`, as PostgreSQL reports it), kept
    per thread: xpath() and XMLTABLE evaluate the same few paths for every row."""
    cache = _compiled.paths
    key = (path, tuple(sorted(namespaces.items())))
    hit = cache.get(key)
    if hit is not None:
        return hit
    try:
        compiled = etree.XPath(path, namespaces=namespaces)
    except etree.XPathError as e:  # NB: PostgreSQL raises these two as internal errors
        raise SQLError("invalid XPath expression", detail=str(e).capitalize() or None,
                       sqlstate="XX000") from None
    if len(cache) >= 256:
        cache.clear()
    cache[key] = compiled
    return compiled


def evaluate(path: str, root: etree._Element, namespaces: dict[str, str]) -> Any:
    """`path` evaluated with the document as its context, as PostgreSQL evaluates it."""
    if _RELATIVE.match(path) and not re.match(r"\s*(?:and|or|div|mod)\b", path):
        path = "/" + path.lstrip()
    compiled = compile_path(path, namespaces)
    try:
        return compiled(root)
    except etree.XPathError as e:
        raise SQLError("could not create XPath object", detail=str(e).capitalize() or None,
                       sqlstate="XX000") from None


def _evaluate(path: str, doc: str, nsarray: Any) -> Any:
    if not path:
        raise DataException("empty XPath expression")
    ns = _namespaces(nsarray)
    return evaluate(path, xmlvalue.document_root(doc), ns)


def node_xml(n: Any) -> str:
    """One node of a node set as xml: elements, comments and PIs serialised, text escaped."""
    if isinstance(n, etree._Element):  # elements, comments, PIs: the node as XML
        return etree.tostring(n, encoding=str, with_tail=False)
    if isinstance(n, tuple):  # a namespace node
        return escape(str(n[1]))
    return escape(str(n))


def xpath(path: str, doc: str, nsarray: Any = None) -> list[str]:
    """xpath(): each node of a node set as xml; a boolean, number or string as one item."""
    r = _evaluate(path, doc, nsarray)
    if isinstance(r, list):
        return [node_xml(n) for n in r]
    if isinstance(r, bool):
        return ["true" if r else "false"]
    if isinstance(r, float):
        return [_FLOAT8_OUT(r)]  # NB: PostgreSQL prints XPath numbers with float8out
    return [escape(str(r))]


def xpath_exists(path: str, doc: str, nsarray: Any = None) -> bool:
    """xpath_exists() / XMLEXISTS: a non-empty node set; any scalar result counts as one item."""
    r = _evaluate(path, doc, nsarray)
    return bool(r) if isinstance(r, list) else True


register("xpath", args=[T.TEXT, T.XML], returns=_XML_ARRAY)(xpath)
register("xpath", args=[T.TEXT, T.XML, T.ARRAY_OF[T.TEXT]], returns=_XML_ARRAY)(xpath)
register("xpath_exists", args=[T.TEXT, T.XML], returns=T.BOOL)(xpath_exists)
register("xpath_exists", args=[T.TEXT, T.XML, T.ARRAY_OF[T.TEXT]], returns=T.BOOL)(xpath_exists)
register("xmlexists", args=[T.TEXT, T.XML], returns=T.BOOL)(xpath_exists)


@register("xmlconcat2", args=[T.XML, T.XML], returns=T.XML, strict=False)
def xmlconcat2(a: str | None, b: str | None) -> str | None:
    """xmlagg's transition function: xmlconcat of two values."""
    return xmlconcat([a, b])
