"""pg_operator, pg_opfamily, pg_opclass, pg_amop and pg_amproc: PostgreSQL 15's rows, cut to Cumulo.

The rows are PostgreSQL 15's own (`operdata`, written by tools/gen_pgoperators.py),
kept only for what Cumulo implements: an operator is listed when Cumulo binds it
to the result type PostgreSQL gives, so psql's `\\do`, `'+(int4,int4)'::regoperator`
and ORMs' joins through pg_amop see PostgreSQL's OIDs, names and functions. The
operator classes are those of the types Cumulo has, for its six index access methods
(btree, hash, gist, gin, spgist, brin); their families' pg_amop rows name only listed
operators. Function columns (oprcode, oprrest, oprjoin, amproc) are regproc values
that print as PostgreSQL's function names. An extension's operators (hstore's) are
listed once CREATE EXTENSION has made it in the database (`extension_rows`).

>>> row = OPERATOR_ROWS[BY_SIGNATURE["+", 23, 23]]
>>> row[1], row[4], str(row[12]), int(row[12])
('+', 'b', 'int4pl', 177)
>>> sorted(n for n, l, r in BY_SIGNATURE if n == "||" and l == 25)
['||', '||']
>>> OPCLASS_ROWS[3126][2], OPFAMILY_ROWS[1994][2]
('text_ops', 'text_ops')
"""

from __future__ import annotations

import zlib
from typing import Any

from ...pgtypes import multiranges, ranges
from ...pgtypes import oids as T
from ..catalog import model as M
from ..expr import usertypes
from ..expr.regcast import RegOid
from ..expr.types import is_array, regtype_oid
from . import extopclasses
from . import operdata as D
from .procoids import proc_oid
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


def operator_oid(op: str, t: int) -> int:
    """pg_operator's OID of `op` over two `t` values (its polymorphic form for ranges,
    multiranges, arrays and enums; varchar as text), 0 when there is none.

    >>> operator_oid("&&", 3908), operator_oid("=", T.INT4)
    (3888, 96)
    """
    t = T.DOMAIN_BASE.get(t, t)
    for cand in (t, T.TEXT if t in (T.VARCHAR, T.BPCHAR) else 0,
                 3831 if t in ranges.SUBTYPE else 0, 4537 if t in multiranges.RANGE_OF else 0,
                 2277 if is_array(t) else 0, 3500 if usertypes.is_enum(t) else 0):
        oid = BY_SIGNATURE.get((op, cand, cand)) if cand else None
        if oid:
            return oid
    return 0


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
    """PostgreSQL 15's rows for the operators Cumulo implements, then its extensions'."""
    return tuple(OPERATOR_ROWS.values()) + extension_rows(ctx.catalog)


def extension_rows(cat: M.CatalogSnapshot) -> tuple[tuple[Any, ...], ...]:
    """The operators of the extensions CREATE EXTENSION made in this database (hstore's).

    Their types are the database's (the hstore type CREATE EXTENSION made), and their
    OIDs stable synthetic ones, as PostgreSQL numbers an extension's objects per database.
    """
    out: list[tuple[Any, ...]] = []
    for e in cat.extensions:
        block = D.EXTENSION_OPERATORS.get(e.name)
        if block is None:
            continue
        own = {u.name: u.oid for u in cat.types if u.schema_oid == e.schema_oid}
        own.update({f"{u.name}[]": u.array_oid for u in cat.types if u.schema_oid == e.schema_oid})
        rows = _lines(block)
        sigs: dict[str, int] = {}
        for f in rows:
            sigs[f"{f[0]}({'NONE' if f[4] == '-' else f[4]},{f[5]})"] = _synthetic(
                e.name, f, set(sigs.values()))
        for f in rows:
            name, kind, merge, hashes, left, right, res, com, neg, code, rest, join = f
            out.append((sigs[f"{name}({'NONE' if left == '-' else left},{right})"], name,
                        e.schema_oid, e.owner, kind, merge == "t", hashes == "t",
                        _type(left, own), _type(right, own), _type(res, own), sigs.get(com, 0),
                        sigs.get(neg, 0), _ext_fn(code), _ext_fn(rest), _ext_fn(join)))
    return tuple(out)


def _type(name: str, own: dict[str, int]) -> int:
    if name == "-":
        return 0
    name = name.replace("_", " ")
    return own[name] if name in own else regtype_oid(name)


def _ext_fn(name: str) -> RegOid:
    return RegOid(0, "-") if name == "-" else RegOid(proc_oid(name.split(".")[-1]), name)


def _synthetic(ext: str, f: list[str], taken: set[int]) -> int:
    """A stable OID for an extension's operator, clear of PostgreSQL's operator OIDs."""
    oid = 9000 + zlib.crc32(f"{ext}:{f[0]}({f[4]},{f[5]})".encode()) % 7000
    while oid in OPERATOR_ROWS or oid in taken:
        oid += 1
    return oid


@pg_relation("pg_catalog", "pg_opfamily")
def pg_opfamily(ctx: Any) -> tuple[tuple[Any, ...], ...]:
    """The operator families of the listed operator classes, then the extensions'."""
    return tuple(OPFAMILY_ROWS.values()) + extopclasses.opfamily_rows(ctx.catalog)


@pg_relation("pg_catalog", "pg_opclass")
def pg_opclass(ctx: Any) -> tuple[tuple[Any, ...], ...]:
    """PostgreSQL 15's operator classes of the types Cumulo has, for all six access methods,
    then those of the extensions made in this database (`extopclasses`)."""
    return tuple(OPCLASS_ROWS.values()) + extopclasses.opclass_rows(ctx.catalog)


@pg_relation("pg_catalog", "pg_amop")
def pg_amop(ctx: Any) -> tuple[tuple[Any, ...], ...]:
    """The listed families' operators (strategies and ordering operators)."""
    return _AMOPS


@pg_relation("pg_catalog", "pg_amproc")
def pg_amproc(ctx: Any) -> tuple[tuple[Any, ...], ...]:
    """The listed families' support functions."""
    return _AMPROCS
