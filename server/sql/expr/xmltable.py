"""XMLTABLE in FROM: one row per node the row XPath selects, one column per COLUMNS entry.

Bound as a set-returning call whose out columns are the COLUMNS list, so FROM scans it
as it scans json_to_recordset: `XMLTABLE(...) AS t` names the relation (`xmltable`
without an alias), a column reference in PASSING makes it LATERAL. Each value is
PostgreSQL's (XmlTableGetValue): a node set of one node is the node's string value
(its XML for an xml column), several nodes are an error unless the column is xml (then
their XML side by side), none is the DEFAULT or NULL; a string, number or boolean
result is its XPath text. The text then goes through the column type's input function.

>>> node_value(etree.fromstring("<i>a<b>x</b><!--c-->d</i>"), False)
'axd'
>>> xpath_number(1 / 3), xpath_number(2.0)
('0.333333333333333', '2')
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from lxml import etree
from sqlglot import exp

from ...errors import (
    CardinalityViolation,
    DataException,
    FeatureNotSupported,
    NullValueNotAllowed,
    SQLError,
    SyntaxError_,
)
from ...pgtypes import oids as T
from ...pgtypes import xmlvalue
from ..functions import xmlfns
from ..functions.registry import FunctionDef
from .bound import E
from .casts import cast_function
from .functions import coerce
from .types import datatype_oid, is_numeric


def xpath_number(x: float) -> str:
    """libxml's xmlXPathCastNumberToString: integers plainly, others to 15 digits."""
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "Infinity" if x > 0 else "-Infinity"
    if x == int(x) and abs(x) < 2 ** 31:
        return str(int(x))
    return format(x, ".15g")


def node_value(n: Any, as_xml: bool) -> str:
    """One selected node as a column's text: its XML for xml, else its string value."""
    if as_xml:
        return xmlfns.node_xml(n)
    if isinstance(n, etree._Element):  # NB: a compiled string() beats itertext() and xpath()
        return str(xmlfns.compile_path("string()", {})(n))
    return str(n[1] if isinstance(n, tuple) else n)


def _value(r: Any, as_xml: bool, numeric: bool) -> str | None:
    if isinstance(r, list):
        if not r:
            return None
        if len(r) > 1 and not as_xml:
            raise CardinalityViolation("more than one value returned by column XPath expression")
        return "".join(node_value(n, as_xml) for n in r)
    if isinstance(r, bool):
        return ("1" if r else "0") if numeric else ("true" if r else "false")
    if isinstance(r, float):
        return xpath_number(r)
    return xmlfns.escape(str(r)) if as_xml else str(r)


class _Column:
    def __init__(self, name: str, oid: int, typmod: int, ordinality: bool, not_null: bool) -> None:
        self.name, self.oid, self.ordinality, self.not_null = name, oid, ordinality, not_null
        self.as_xml = oid == T.XML
        self.numeric = is_numeric(oid)
        conv = cast_function(T.TEXT, oid, typmod) if not ordinality else None
        self.convert: Callable[[str], Any] = conv if conv is not None else (lambda s: s)


def _column_name(ident: exp.Expression) -> str:
    return ident.this if isinstance(ident, exp.Identifier) and ident.quoted else ident.name.lower()


def bind_xmltable(binder: Any, node: exp.Expression) -> E:
    """The set-returning call XMLTABLE(...) stands for (its out columns: COLUMNS)."""
    params = binder.params
    namespaces: dict[str, str] = {}
    for ns in node.args.get("namespaces") or []:
        inner = ns.this
        if not isinstance(inner, exp.Alias):
            raise FeatureNotSupported("DEFAULT namespace is not supported")
        uri = inner.this
        namespaces[_column_name(inner.args["alias"])] = uri.name if isinstance(
            uri, exp.Literal) else uri.sql()
    passing = node.args.get("passing") or []
    args = [coerce(binder.bind(node.this), T.TEXT, params=params),
            coerce(binder.bind(passing[0]), T.XML, params=params)]
    cols: list[_Column] = []
    paths: list[int | str] = []  # an argument index, or the column's own name
    defaults: list[int | None] = []
    for cd in node.args.get("columns") or []:
        name = _column_name(cd.this)
        if any(c.name == name for c in cols):
            raise SyntaxError_(f'column name "{name}" is not unique')
        if cd.args.get("ordinality"):
            if any(c.ordinality for c in cols):
                raise SyntaxError_("only one FOR ORDINALITY column is allowed")
            cols.append(_Column(name, T.INT4, -1, True, False))
            paths.append(name)
            defaults.append(None)
            continue
        oid, typmod = datatype_oid(cd.args["kind"])
        path: int | str = name
        default = None
        not_null = False
        for c in cd.args.get("constraints") or []:
            kind = c.args.get("kind")
            if isinstance(kind, exp.PathColumnConstraint):
                args.append(coerce(binder.bind(kind.this), T.TEXT, params=params))
                path = len(args) - 1
            elif isinstance(kind, exp.DefaultColumnConstraint):
                args.append(coerce(binder.bind(kind.this), oid, typmod, params=params))
                default = len(args) - 1
            elif isinstance(kind, exp.NotNullColumnConstraint):
                not_null = not kind.args.get("allow_null")
        cols.append(_Column(name, oid, typmod, False, not_null))
        paths.append(path)
        defaults.append(default)
    fields = tuple((c.name, c.oid) for c in cols)

    def rows(*vals: Any) -> Iterator[tuple[Any, ...]]:
        row_path, doc = vals[0], vals[1]
        if row_path is None or doc is None:
            return
        root = xmlvalue.document_root(doc)
        found = xmlfns.evaluate(row_path, root, namespaces)
        if not isinstance(found, list):
            return
        exprs = []
        for c, p in zip(cols, paths, strict=True):
            text = vals[p] if isinstance(p, int) else p
            if not c.ordinality and not text:
                raise DataException("column path filter must not be empty string")
            exprs.append(None if c.ordinality else xmlfns.compile_path(text, namespaces))
        for number, item in enumerate(found, 1):
            out: list[Any] = []
            for c, compiled, d in zip(cols, exprs, defaults, strict=True):
                if c.ordinality:
                    out.append(number)
                    continue
                found_v = _run(compiled, item) if isinstance(item, etree._Element) else []
                text = _value(found_v, c.as_xml, c.numeric)
                v = c.convert(text) if text is not None else (vals[d] if d is not None else None)
                if v is None and c.not_null:
                    raise NullValueNotAllowed(f'null is not allowed in column "{c.name}"')
                out.append(v)
            yield tuple(out)

    fd = FunctionDef("xmltable", rows, tuple(a.type for a in args), T.RECORD, strict=False,
                     volatile=True, set_returning=True, out_columns=fields)
    return E("srf", fd, args, T.RECORD, -1, "xmltable", fields)


def _run(compiled: Any, item: Any) -> Any:
    try:
        return compiled(item)
    except etree.XPathError as e:
        raise SQLError("could not create XPath object", detail=str(e).capitalize() or None,
                       sqlstate="XX000") from None
