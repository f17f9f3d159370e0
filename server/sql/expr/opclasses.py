"""Which types can be compared for equality or sorted, as PostgreSQL 15's operator classes say.

json, xml and the geometric types have no btree or hash operator class: DISTINCT, GROUP BY
and ORDER BY on them fail with 42883. xid and cid hash but do not sort: DISTINCT and
GROUP BY hash them, while ORDER BY and an aggregate's DISTINCT (which sorts) fail.

>>> check_equality(T.XID); check_ordering(T.INT4)
>>> try:
...     check_distinct_aggregate(T.XID)
... except UndefinedFunction as e:
...     print(e.message, '/', e.detail)
could not identify an ordering operator for type xid / Aggregates with DISTINCT must be able to sort their inputs.
"""

from __future__ import annotations

from ...errors import UndefinedFunction
from ...pgtypes import oids as T
from . import types as ty

NO_EQUALITY = frozenset({T.JSON, T.XML, T.POINT, 601, 602, 603, 604, 628, 718})
"""json, xml, point, lseg, path, box, polygon, line, circle."""
NO_ORDERING = NO_EQUALITY | {T.XID, T.CID}


def check_equality(type_oid: int) -> None:
    """DISTINCT / GROUP BY a value of a type without an equality operator: 42883."""
    if type_oid in NO_EQUALITY:
        raise UndefinedFunction(
            f"could not identify an equality operator for type {ty.type_name(type_oid)}")


def check_ordering(type_oid: int) -> None:
    """ORDER BY a value of a type without a btree operator class: 42883."""
    if type_oid in NO_ORDERING:
        raise UndefinedFunction(
            f"could not identify an ordering operator for type {ty.type_name(type_oid)}",
            hint="Use an explicit ordering operator or modify the query.")


def check_distinct_aggregate(type_oid: int) -> None:
    """agg(DISTINCT x): PostgreSQL sorts the inputs, so x needs equality and an ordering."""
    check_equality(type_oid)
    if type_oid in NO_ORDERING:
        raise UndefinedFunction(
            f"could not identify an ordering operator for type {ty.type_name(type_oid)}",
            detail="Aggregates with DISTINCT must be able to sort their inputs.")
