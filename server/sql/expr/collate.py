"""`expr COLLATE name` in an expression: PostgreSQL's checks (transformCollateClause).

Under an ICU collation the clause makes its text operand a `pgtypes.collated`
value, which compares by the collator (`collated`); under a code-point one
("C", "POSIX", "default", ...) a plain str again, which compares by code point.
It also refuses what PostgreSQL refuses: a collation that does not exist (42704,
the name folded to lower case unless quoted, schema-qualified by `pg_catalog` or
a CREATE COLLATION schema) and a type that has no collation (42804).

>>> collation_name(exp.Identifier(this="C", quoted=True)), collation_name(exp.Var(this="C"))
('C', 'c')
"""

from __future__ import annotations

from sqlglot import exp

from ...errors import DatatypeMismatch, SQLError
from ...pgtypes import oids as T
from ..catalog.model import CatalogSnapshot
from ..pgcatalog.collations import COLLATABLE, exists, unknown, value_wrapper
from ..pgcatalog.ddltext import format_type
from .bound import E


def collation_name(node: exp.Expression) -> str:
    """The collation a COLLATE clause names, as PostgreSQL folds it (the last name part)."""
    if isinstance(node, exp.Column):
        node = node.this
    return _folded(node)


def _folded(node: exp.Expression) -> str:
    if isinstance(node, exp.Identifier):
        return node.name if node.quoted else node.name.lower()
    return node.name.lower() if isinstance(node, exp.Var) else node.sql("postgres")


def check_collate(cat: CatalogSnapshot | None, node: exp.Expression, type_oid: int) -> None:
    """Raises PostgreSQL's error for COLLATE `node` on a value of `type_oid`, if any."""
    name = collation_name(node)
    qual = node.args.get("table") if isinstance(node, exp.Column) else None
    schema = _folded(qual) if qual is not None else None
    if schema is not None and schema != "pg_catalog" and cat is not None and not any(
            s.name == schema for s in cat.schemas):
        raise SQLError(f'schema "{schema}" does not exist', sqlstate="3F000")
    if not exists(cat, name):
        raise unknown(f"{schema}.{name}" if schema is not None else name)
    base = T.ELEMENT_OF.get(type_oid, type_oid)
    if type_oid != T.UNKNOWN and base not in COLLATABLE and base in T.TYPES:
        raise DatatypeMismatch(
            f"collations are not supported by type {format_type(type_oid, None)}")


def check_explicit_pair(cat: CatalogSnapshot | None, node: exp.Collate) -> None:
    """42P21 when both operands of one operator carry different explicit collations
    (`'a' COLLATE "C" = 'b' COLLATE "POSIX"`), PostgreSQL's merge_collation_state;
    only this direct form is checked (an unknown right one is its own 42704, bound next)."""
    parent = node.parent
    if not isinstance(parent, exp.Binary) or isinstance(parent, exp.Connector) \
            or parent.this is not node or not isinstance(parent.expression, exp.Collate):
        return
    left, right = collation_name(node.expression), collation_name(parent.expression.expression)
    if left != right and exists(cat, right):
        raise SQLError(f'collation mismatch between explicit collations "{left}" and "{right}"',
                       sqlstate="42P21")


def collated(cat: CatalogSnapshot | None, node: exp.Expression, e: E) -> E:
    """`e COLLATE node` (checked): a text operand under that collation's comparisons."""
    if e.type not in COLLATABLE and e.type != T.UNKNOWN:
        return e  # NB: text[] and domains keep code-point order
    return E("pyfunc", ("collate", value_wrapper(cat, collation_name(node)), True), [e],
             T.TEXT if e.type == T.UNKNOWN else e.type, e.typmod, e.name)


def spread(operand: exp.Expression, other: exp.Expression) -> exp.Expression:
    """An operand of a binary operator under its partner's explicit collation, as
    PostgreSQL's collation derivation gives both sides (`a LIKE 'x%' COLLATE "C"` matches
    `a` under "C", whatever `a`'s column collation is).

    >>> spread(exp.column("a"), exp.Collate(this=exp.Literal.string("x"),
    ...        expression=exp.Identifier(this="C", quoted=True))).sql("postgres")
    'a COLLATE "C"'
    """
    if isinstance(other, exp.Collate) and not isinstance(operand, exp.Collate):
        return exp.Collate(this=operand, expression=other.expression.copy())
    return operand
