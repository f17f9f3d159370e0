"""pg_operator, pg_opfamily, pg_opclass, pg_amop and pg_amproc: PostgreSQL 15's rows, cut to Cumulo.

The rows are PostgreSQL 15's own (`operdata`, written by tools/gen_pgoperators.py),
kept only for what Cumulo implements: an operator is listed when Cumulo binds it
to the result type PostgreSQL gives, so psql's `\\do`, `'+(int4,int4)'::regoperator`
and ORMs' joins through pg_amop see PostgreSQL's OIDs, names and functions. The
operator classes are those of the types Cumulo has, for its six index access methods
(btree, hash, gist, gin, spgist, brin); their families' pg_amop rows name only listed
operators. Function columns (oprcode, oprrest, oprjoin, amproc) are regproc values
that print as PostgreSQL's function names.

>>> row = OPERATOR_ROWS[BY_SIGNATURE["+", 23, 23]]
>>> row[1], row[4], str(row[12]), int(row[12])
('+', 'b', 'int4pl', 177)
>>> sorted(n for n, l, r in BY_SIGNATURE if n == "||" and l == 25)
['||', '||']
>>> OPCLASS_ROWS[3126][2], OPFAMILY_ROWS[1994][2]
('text_ops', 'text_ops')
"""

from __future__ import annotations

from typing import Any

from ..catalog import model as M
from ..expr.regcast import RegOid
from . import operdata as D
from .registry import pg_relation

_OWNER = M.BOOTSTRAP_SUPERUSER_OID


def _fn(text: str) -> RegOid:
    """A regproc column from the data's `name:oid` ("-" for none)."""
    if text == "-":
        return RegOid(0, "-")
    name, oid = text.rsplit(":", 1)
    return RegOid(int(oid), name)


def _lines(block: str) -> list[list[str]]:
    return [line.split() for line in block.strip().splitlines()]


def _operator(f: list[str]) -> tuple[Any, ...]:
    oid, name, kind, merge, hashes, left, right, res, com, neg, code, rest, join = f
    return (int(oid), name, M.PG_CATALOG_OID, _OWNER, kind, merge == "t", hashes == "t",
            int(left), int(right), int(res), int(com), int(neg), _fn(code), _fn(rest), _fn(join))


OPERATOR_ROWS: dict[int, tuple[Any, ...]] = {
    r[0]: r for r in (_operator(f) for f in _lines(D.OPERATORS))}
# (name, left type or 0 for a prefix operator, right type) -> pg_operator OID
BY_SIGNATURE: dict[tuple[str, int, int], int] = {
    (r[1], r[7], r[8]): oid for oid, r in OPERATOR_ROWS.items()}
OPFAMILY_ROWS: dict[int, tuple[Any, ...]] = {
    int(oid): (int(oid), int(m), name, M.PG_CATALOG_OID, _OWNER)
    for oid, m, name in _lines(D.OPFAMILIES)}
OPCLASS_ROWS: dict[int, tuple[Any, ...]] = {
    int(oid): (int(oid), int(m), name, M.PG_CATALOG_OID, _OWNER, int(fam), int(typ), d == "t",
               int(key))
    for oid, m, name, fam, typ, d, key in _lines(D.OPCLASSES)}
_AMOPS = tuple(
    (int(oid), int(fam), int(left), int(right), int(strat), purpose, int(opr), int(m), int(sort))
    for oid, fam, left, right, strat, purpose, opr, m, sort in _lines(D.AMOPS))
_AMPROCS = tuple((int(oid), int(fam), int(left), int(right), int(num), _fn(proc))
                 for oid, fam, left, right, num, proc in _lines(D.AMPROCS))


def amop_rows() -> dict[int, tuple[Any, ...]]:
    """pg_amop's rows by OID."""
    return _AMOP_BY_OID


def amproc_rows() -> dict[int, tuple[Any, ...]]:
    """pg_amproc's rows by OID."""
    return _AMPROC_BY_OID


_AMOP_BY_OID = {r[0]: r for r in _AMOPS}
_AMPROC_BY_OID = {r[0]: r for r in _AMPROCS}


@pg_relation("pg_catalog", "pg_operator")
def pg_operator(ctx: Any) -> tuple[tuple[Any, ...], ...]:
    """PostgreSQL 15's rows for the operators Cumulo implements."""
    return tuple(OPERATOR_ROWS.values())


@pg_relation("pg_catalog", "pg_opfamily")
def pg_opfamily(ctx: Any) -> tuple[tuple[Any, ...], ...]:
    """The operator families of the listed operator classes."""
    return tuple(OPFAMILY_ROWS.values())


@pg_relation("pg_catalog", "pg_opclass")
def pg_opclass(ctx: Any) -> tuple[tuple[Any, ...], ...]:
    """PostgreSQL 15's operator classes of the types Cumulo has, for all six access methods."""
    return tuple(OPCLASS_ROWS.values())


@pg_relation("pg_catalog", "pg_amop")
def pg_amop(ctx: Any) -> tuple[tuple[Any, ...], ...]:
    """The listed families' operators (strategies and ordering operators)."""
    return _AMOPS


@pg_relation("pg_catalog", "pg_amproc")
def pg_amproc(ctx: Any) -> tuple[tuple[Any, ...], ...]:
    """The listed families' support functions."""
    return _AMPROCS
