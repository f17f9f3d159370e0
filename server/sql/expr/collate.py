"""`expr COLLATE name` in an expression: PostgreSQL's checks (transformCollateClause).

Cumulo compares text by code point, so a collation that exists changes no answer
(every collation it has is a code-point one: `pgcatalog.collations`). What the
clause must still do is refuse what PostgreSQL refuses: a collation that does not
exist (42704, the name folded to lower case unless quoted, schema-qualified by
`pg_catalog` or a CREATE COLLATION schema) and a type that has no collation (42804).

>>> collation_name(exp.Identifier(this="C", quoted=True)), collation_name(exp.Var(this="C"))
('C', 'c')
"""

from __future__ import annotations

from sqlglot import exp

from ...errors import DatatypeMismatch, SQLError
from ...pgtypes import oids as T
from ..catalog.model import CatalogSnapshot
from ..pgcatalog.collations import COLLATABLE, COLLATION_OIDS, created, unknown
from ..pgcatalog.ddltext import format_type


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
    if name not in COLLATION_OIDS and created(cat, name) is None:
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
    if left != right and (right in COLLATION_OIDS or created(cat, right) is not None):
        raise SQLError(f'collation mismatch between explicit collations "{left}" and "{right}"',
                       sqlstate="42P21")
