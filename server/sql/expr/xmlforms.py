"""Binding of the SQL/XML forms: XMLELEMENT, XMLFOREST, XMLCONCAT, XMLPARSE, XMLSERIALIZE,
XMLPI, XMLROOT and `x IS [NOT] DOCUMENT`.

Why not registry functions: their arguments are names (`NAME a`, `x AS b`, a column's own
name), and a value's XML text depends on its SQL type (`true`, `2024-01-02T03:04:05`,
base64 bytea, `<element>` per array item, an xml value unescaped), which only the bound
argument knows; the runtime value of an xml and of a text is the same `str`.
`sql.xmlsyntax` spells the forms sqlglot cannot read as calls; the rest sqlglot reads.
"""

from __future__ import annotations

import base64
import datetime as dt
from collections.abc import Callable
from typing import Any

from sqlglot import exp

from ...errors import (
    CannotCoerce,
    DatatypeMismatch,
    DatetimeFieldOverflow,
    NotAnXmlDocument,
    SQLError,
    SyntaxError_,
)
from ...pgtypes import oids as T
from ...pgtypes import xmlvalue, zones
from ...pgtypes.infdate import InfiniteDate, InfiniteTimestamp
from ...pgtypes.text import text_encoder
from ..functions import xmlfns
from .bound import E
from .casts import cast_function
from .functions import coerce
from .types import type_name
from .xmltable import bind_xmltable

FORMS = frozenset(("xmlforest", "xmlconcat", "xmlparse", "xmlserialize", "xmlpi", "xmlroot"))


def _fraction(us: int) -> str:
    return f".{us:06d}".rstrip("0") if us else ""


def _xsd(oid: int) -> Callable[[Any], str] | None:
    """The XML Schema spelling of a date/time/bytea/bool value (map_sql_value_to_xml_value)."""
    if oid == T.BOOL:
        return lambda v: "true" if v else "false"
    if oid == T.DATE:
        def date(v: Any) -> str:
            if isinstance(v, InfiniteDate):
                raise DatetimeFieldOverflow("date out of range",
                                            detail="XML does not support infinite date values.")
            return v.isoformat()
        return date
    if oid in (T.TIMESTAMP, T.TIMESTAMPTZ):
        def stamp(v: Any) -> str:
            if isinstance(v, InfiniteTimestamp):
                raise DatetimeFieldOverflow(
                    "timestamp out of range", detail="XML does not support infinite timestamp values.")
            if oid == T.TIMESTAMP:
                return f"{v:%Y-%m-%dT%H:%M:%S}{_fraction(v.microsecond)}"
            local = v.astimezone(zones.session_zone())
            off = local.utcoffset() or dt.timedelta(0)
            secs = int(off.total_seconds())
            sign = "-" if secs < 0 else "+"
            h, rem = divmod(abs(secs), 3600)
            tail = f"{sign}{h:02d}:{rem // 60:02d}" + (f":{rem % 60:02d}" if rem % 60 else "")
            return f"{local:%Y-%m-%dT%H:%M:%S}{_fraction(local.microsecond)}{tail}"
        return stamp
    if oid == T.BYTEA:  # NB: per xmlbinary; plans are redone when it changes
        if xmlvalue.xmlbinary() == "hex":
            return lambda v: bytes(v).hex().upper()
        return lambda v: base64.b64encode(bytes(v)).decode()
    return None


def value_mapper(oid: int, content: bool) -> Callable[[Any], str]:
    """map_sql_value_to_xml_value(value, type, encode=content) for values of type `oid`."""
    elem = T.ELEMENT_OF.get(oid)
    if elem is not None and oid not in (T.INT2VECTOR, T.OIDVECTOR):
        one = value_mapper(elem, content)

        def items(v: Any) -> str:
            out = []
            for x in v:
                if isinstance(x, list):
                    out.append(items(x))
                elif x is not None:
                    out.append(f"<element>{one(x)}</element>")
            return "".join(out)
        return items
    if oid == T.XML:  # its output function (a 1.0-only declaration dropped), unescaped
        return xmlvalue.out
    xsd = _xsd(oid)
    if xsd is not None:
        return xsd
    enc = text_encoder(oid)
    if content:
        return lambda v: xmlfns.escape(enc(v))
    return enc


def _name(node: exp.Expression) -> str:
    """An identifier as PostgreSQL folds it: unquoted names in lower case."""
    ident = node.this if isinstance(node, exp.Column) else node
    if isinstance(ident, exp.Identifier):
        return ident.this if ident.quoted else ident.this.lower()
    return node.name.lower()


def _named(node: exp.Expression) -> tuple[str | None, exp.Expression]:
    """(name, value) of `value AS name` or of a bare column reference (no name otherwise)."""
    if isinstance(node, exp.Alias):
        return _name(node.args["alias"]), node.this
    if isinstance(node, exp.Column):
        return _name(node), node
    return None, node


def _literal(node: exp.Expression) -> str:
    return node.name if isinstance(node, exp.Literal) else ""


class XmlForms:
    """Mixin of `Binder`: the SQL/XML forms."""

    params: Any

    def bind(self, node: exp.Expression) -> E:  # provided by Binder
        raise NotImplementedError

    def _xml(self, node: exp.Expression) -> E:
        return coerce(self.bind(node), T.XML, params=self.params)

    def _text(self, node: exp.Expression) -> E:
        return coerce(self.bind(node), T.TEXT, params=self.params)

    def _named_value(self, node: exp.Expression, what: str) -> tuple[str, E]:
        """The XML name and bound value of `value AS name` or of a column (42601 for others,
        after the value binds, as PostgreSQL reports them)."""
        name, value = _named(node)
        bound = self._content(value)
        if name is None:
            raise SyntaxError_(f"unnamed XML {what} value must be a column reference")
        return xmlfns.xml_name(name), bound

    def _content(self, node: exp.Expression) -> E:
        e = self.bind(node)
        if e.kind == "param" and e.type == T.UNKNOWN:  # NB: any type goes: nothing infers one
            raise SQLError(f"could not determine data type of parameter ${e.data}",
                           sqlstate="42P18")
        return coerce(e, T.TEXT, params=self.params) if e.type == T.UNKNOWN else e

    def b_XMLElement(self, node: exp.Expression) -> E:
        name = xmlfns.xml_name(_name(node.this))
        raw = list(node.expressions or [])
        attr_nodes: list[exp.Expression] = []
        if raw and isinstance(raw[0], exp.Anonymous) and raw[0].name.lower() == "xmlattributes":
            attr_nodes = list(raw.pop(0).expressions)
        names: list[str] = []
        args: list[E] = []
        for a in attr_nodes:
            n, value = self._named_value(a, "attribute")
            if n in names:
                raise SyntaxError_(f'XML attribute name "{n}" appears more than once')
            names.append(n)
            args.append(value)
        args += [self._content(c) for c in raw]
        attr_maps = [value_mapper(a.type, False) for a in args[:len(names)]]
        content_maps = [value_mapper(a.type, True) for a in args[len(names):]]
        k = len(names)

        def xmlelement(*vals: Any) -> str:
            attrs = [(n, m(v)) for n, m, v in zip(names, attr_maps, vals[:k], strict=True)
                     if v is not None]
            content = [m(v) for m, v in zip(content_maps, vals[k:], strict=True) if v is not None]
            return xmlfns.element(name, attrs, content)

        return E("pyfunc", ("xmlelement", xmlelement, False), args, T.XML, -1, "xmlelement")

    def b_XMLTable(self, node: exp.Expression) -> E:
        return bind_xmltable(self, node)

    def xml_is_document(self, a: E, negate: bool) -> E:
        """`x IS [NOT] DOCUMENT`."""
        a = coerce(a, T.XML, params=self.params)
        test = (lambda v: not xmlvalue.is_document(v)) if negate else xmlvalue.is_document
        return E("pyfunc", ("is document", test, True), [a], T.BOOL)

    def xml_form(self, name: str, raw: list[exp.Expression]) -> E:
        """Binds one of `FORMS` from its unbound arguments."""
        if name == "xmlforest":
            pairs = [self._named_value(a, "element") for a in raw]
            tags = [n for n, _ in pairs]
            args = [v for _, v in pairs]
            maps = [value_mapper(a.type, True) for a in args]

            def xmlforest(*vals: Any) -> str | None:
                parts = [f"<{t}>{m(v)}</{t}>" for t, m, v in zip(tags, maps, vals, strict=True)
                         if v is not None]
                return "".join(parts) if parts else None

            return E("pyfunc", (name, xmlforest, False), args, T.XML, -1, name)
        if name == "xmlconcat":
            if not raw:
                raise SyntaxError_('syntax error at or near ")"')
            args = [self._concat_arg(a) for a in raw]
            return E("pyfunc", (name, lambda *v: xmlfns.xmlconcat(v), False), args, T.XML, -1,
                     name)
        if name == "xmlparse" and len(raw) == 2:
            kind = _literal(raw[0])
            return E("pyfunc", (name, lambda s: xmlvalue.check(s, kind), True),
                     [self._text(raw[1])], T.XML, -1, name)
        if name == "xmlserialize" and len(raw) == 3:
            return self._serialize(_literal(raw[0]), self._xml(raw[1]), self.bind(raw[2]))
        if name == "xmlpi" and raw:
            target = _literal(raw[0])
            if len(raw) == 1:
                return E("pyfunc", (name, lambda: xmlfns.pi(target, None, False), False), [],
                         T.XML, -1, name)
            return E("pyfunc", (name, lambda s: xmlfns.pi(target, s, True), False),
                     [self._text(raw[1])], T.XML, -1, name)
        if name == "xmlroot" and len(raw) == 3:
            standalone = int(_literal(raw[2]) or 3)
            args = [self._xml(raw[0]), self._text(raw[1])]
            return E("pyfunc", (name, lambda x, v: None if x is None else
                                xmlfns.root(x, v, standalone), False), args, T.XML, -1, name)
        raise SyntaxError_(f'syntax error at or near "{name}"')

    def _concat_arg(self, node: exp.Expression) -> E:
        e = self.bind(node)
        if e.type not in (T.XML, T.UNKNOWN):
            raise DatatypeMismatch(
                f"argument of XMLCONCAT must be type xml, not type {type_name(e.type)}")
        return coerce(e, T.XML, params=self.params)

    def _serialize(self, kind: str, x: E, target: E) -> E:
        if target.type not in (T.TEXT, T.VARCHAR, T.BPCHAR):
            raise CannotCoerce(f"cannot cast XMLSERIALIZE result to {type_name(target.type)}")
        conv = cast_function(T.TEXT, target.type, target.typmod)

        def xmlserialize(v: str) -> Any:
            if kind == "document" and not xmlvalue.is_document(v):
                raise NotAnXmlDocument("not an XML document")
            return v if conv is None else conv(v)

        return E("pyfunc", ("xmlserialize", xmlserialize, True), [x], target.type, target.typmod,
                 "xmlserialize")


def is_document_test(rhs: exp.Expression) -> bool:
    """Is `rhs` the DOCUMENT of `x IS [NOT] DOCUMENT` (sqlglot reads it as a column)?"""
    return isinstance(rhs, exp.Column) and not rhs.table and isinstance(rhs.this, exp.Identifier) \
        and not rhs.this.quoted and rhs.this.this.lower() == "document"
