"""EXCLUDE constraints: `EXCLUDE USING gist (room WITH =, during WITH &&)`, in CREATE TABLE
and ALTER TABLE ... ADD.

As in PostgreSQL, the constraint is a pg_constraint row of contype `x` whose operators
(`conexclop`) are checked through an index of its own, named like the constraint and built
over the constraint's keys with its method (pg_index.indisexclusion). Cumulo keeps that
index ordered, as every index (`pgcatalog.accessmethods`): `dml.exclusion` finds the
candidates by the leading `=` keys and applies the operators to them.

What PostgreSQL 15 refuses is refused with its words: an access method without
exclusion support (gin, brin: 0A000), a key type without a default class for the
method (42704; GiST takes the scalars once btree_gist exists), an operator that does not
exist (42883), one that is not its own commutator (42809 `is not commutative`), and one
outside the key's operator family (42809 `is not a member of operator family`). ADD
EXCLUDE checks the stored rows first (23P01 `could not create exclusion constraint`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ...errors import DuplicateTable, FeatureNotSupported, SQLError, UndefinedFunction
from ..catalog.indexoptions import index_options
from ..catalog.model import Constraint, Index, Table
from ..catalog.tableoptions import option_item
from ..dml.exclusion import check_existing
from ..expr.types import type_name
from ..pgcatalog import operators as O
from ..pgcatalog.accessmethods import check as check_method
from ..pgcatalog.accessmethods import check_key_types, method
from ..pgcatalog.opclasses import default_oid
from .constraints import check_name_free, fk_deferral
from .immutable import check_index_exprs
from .indexes import _key_types, _opclasses, build_index, has_btree_gist, key_parts
from .indexkeys import check_immutable, compile_exprs, expr_types, pg_quoted
from .names import ident, relation_name_taken, unique_name
from .persistence import check_tablespace

if TYPE_CHECKING:
    from ..session import SQLSession

_NO_EXCLUSION = frozenset({"gin", "brin"})  # no amgettuple: PostgreSQL refuses them


def _check_operator(op: str, t: int, am: str) -> None:
    """PostgreSQL's checks of one element's operator, in its order."""
    oid = O.operator_oid(op, t)
    if not oid:
        tn = type_name(t)
        raise UndefinedFunction(f"operator does not exist: {tn} {op} {tn}")
    row = O.OPERATOR_ROWS[oid]
    sig = f"{op}({type_name(row[7])},{type_name(row[8])})"
    if row[10] != oid:
        raise SQLError(f"operator {sig} is not commutative", sqlstate="42809",
                       detail="Only commutative operators can be used in exclusion constraints.")
    opclass = default_oid(t, am)
    family = O.OPCLASS_ROWS[opclass][5] if opclass in O.OPCLASS_ROWS else 0
    if family and not any(r[1] == family and r[6] == oid for r in O.amop_rows().values()):
        raise SQLError(
            f'operator {sig} is not a member of operator family "{O.OPFAMILY_ROWS[family][2]}"',
            sqlstate="42809",
            detail="The exclusion operator must be related to the index operator class for "
                   "the constraint.")


def _column_names(parts: list[str]) -> str:
    """The keys' part of the default name: repeated names numbered, as PostgreSQL's
    ChooseIndexColumnNames (`x, x` -> `x_x1`)."""
    seen: set[str] = set()
    out = []
    for p in parts:
        name, n = p, 0
        while name in seen:
            n += 1
            name = f"{p}{n}"
        seen.add(name)
        out.append(name)
    return "_".join(out)


def add_exclusion(s: SQLSession, table: Table, name: str, node: exp.Expression,
                  taken: set[str] | None = None) -> Constraint:
    """Adds an EXCLUDE constraint and its index (`node`: sqlglot's ExcludeColumnConstraint),
    checking the stored rows."""
    params = node.this
    using = params.args.get("using")
    am = method(using.name if using is not None else "btree")
    if am.name in _NO_EXCLUSION:
        raise FeatureNotSupported(f'access method "{am.name}" does not support exclusion '
                                  "constraints")
    elements = params.args.get("columns") or []
    ops = [w.args["op"].name for w in elements]
    k = key_parts(table, [w.this for w in elements], params.args.get("include"),
                  'column "{}" named in key does not exist')
    if params.args.get("tablespace") is not None:
        check_tablespace(ident(params.args["tablespace"]))
    check_method(am, False, len(k.attnums), any(k.desc), k.nulls_first, bool(k.include))
    if k.exprs:
        compile_exprs(s, table, tuple(k.exprs))
        check_immutable(k.exprs, "index expression")
        check_index_exprs(s, table, k.exprs, "index expression")
    cat = s.catalog()
    opclasses = _opclasses(table, k.attnums, k.exprs, k.classes, am.name)
    if am.name != "btree":
        check_key_types(am, _key_types(table, k.attnums, k.exprs, k.classes), has_btree_gist(cat))
    types = {c.attnum: c.domain or c.type_oid for c in table.columns}
    it = iter(expr_types(table, tuple(k.exprs)))
    for a, op in zip(k.attnums, ops, strict=True):
        _check_operator(op, types[a] if a else next(it), am.name)
    where = params.args.get("where")
    predicate = pg_quoted(where.this).sql("postgres") if where is not None else None
    if predicate is not None:
        check_immutable([predicate], "index predicate")
        check_index_exprs(s, table, [predicate], "index predicate")
    if name:
        check_name_free(s, table, name)
        if name in (taken or ()) or relation_name_taken(cat, table.schema_oid, name):
            raise DuplicateTable(f'relation "{name}" already exists')
    else:
        name = unique_name(cat, table.schema_oid,
                           f"{table.name}_{_column_names(k.parts)}_excl", taken)
    if taken is not None:
        taken.add(name)
    deferrable, deferred = fk_deferral(node.meta.get("options"))
    options = index_options(am.name, [option_item(p) for p in
                                      params.args.get("with_storage") or ()])
    store, txn, db = s.store, s.ensure_txn(), s.db.oid
    ioid = store.allocate_oid()
    idx = Index(ioid, name, table.oid, tuple(k.attnums), False, False, ioid, tuple(k.desc),
                predicate, tuple(k.include), tuple(k.exprs), opclasses=opclasses,
                method=am.name, options=options)
    con = Constraint(store.allocate_oid(), name, table.oid, "x", tuple(k.attnums), ioid,
                     deferrable=deferrable, deferred=deferred, operators=tuple(ops))
    store.put(txn, db, idx)
    store.put(txn, db, con)
    s.catalog_changed()
    table = s.catalog().existing_table(table.oid)
    build_index(s, table, idx)
    check_existing(s, table, con, idx)
    return con


def exclusion_of(c: Any) -> bool:
    """Tells whether a table constraint node is an EXCLUDE one."""
    return isinstance(c, exp.ExcludeColumnConstraint)
