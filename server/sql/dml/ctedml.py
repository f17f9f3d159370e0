"""Data-modifying statements in WITH: `WITH d AS (DELETE … RETURNING *) INSERT INTO a SELECT * FROM d`.

PostgreSQL runs every INSERT, UPDATE or DELETE of a top-level WITH exactly once,
whether or not the statement reads it, and passes rows on only through its
RETURNING list. Here the statement is taken apart at analysis:

- each data-modifying WITH query is analysed as a statement of its own, with
  the WITH queries before it attached (so it may read them);
- in the rest of the statement its body is replaced by a *carrier*:
  `SELECT _c1 AS a, … FROM unnest($n1::integer[], …) AS _(_c1, …)`, whose
  array parameters (hidden, numbered after the client's) hold its RETURNING
  rows column by column. An array-typed column travels as `text[]` in its text
  form (unnest would flatten a nested array) and is cast back, and so does a
  row (`RETURNING t`, a composite column);
- at run time the data-modifying queries run in order, their RETURNING rows
  become the hidden parameters, then the remaining statement runs and gives
  the command tag.

So the plan of every part is made once and cached as any other statement's,
and RowDescription is known at Describe (extended protocol).

All parts read at the statement's one snapshot; at READ COMMITTED a part whose row
met a concurrent commit rechecks it on a newer one (`dml.update`), and the parts after
it and the top statement still read at the statement's. A SELECT at the top reads the
tables as they were before the statement, as in PostgreSQL: the parts' writes
are taken out of the transaction's write set while it runs (their row locks
stay held) and put back after. Unlike PostgreSQL, an INSERT/UPDATE/DELETE part
or top statement sees the writes of the parts before it (PostgreSQL leaves
their order unspecified). That keeps the common forms right: moving rows,
reading back generated keys, and a parent inserted beside its children, whose
foreign keys PostgreSQL checks at the end of the statement.

Where PostgreSQL refuses the form, the same error is raised: a data-modifying
WITH below the top level (0A000), a reference to one without RETURNING
(0A000), a recursive self-reference (42P19).

    >>> from sqlglot import parse_one
    >>> tree = parse_one("with x as (insert into t values (1) returning a) select * from x",
    ...                  read="postgres")
    >>> top_dml_with(tree) is tree.args["with_"]
    True
    >>> top_dml_with(parse_one("with x as (select 1) select * from x", read="postgres")) is None
    True
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ...errors import FeatureNotSupported, ReadOnlySQLTransaction, SQLError
from ...pgtypes import oids as T
from ...pgtypes import records
from ...pgtypes.codecs import wire_encoder
from ...pgwire.backend import Result
from ...txn.transaction import Transaction
from ...txn.writeset import WriteSet
from ..parse import parse_sql
from ..pgcatalog.typetext import format_type
from ..stmt import AnalyseTree, Stmt

if TYPE_CHECKING:
    from ..session import SQLSession

_DML = (exp.Insert, exp.Update, exp.Delete)
_WITH = re.compile(r"\bwith\b", re.I)
_NOT_TOP = "WITH clause containing a data-modifying statement must be at the top level"


def _modifies(w: exp.With) -> bool:
    return any(isinstance(c.this, _DML) for c in w.expressions)


def top_dml_with(tree: exp.Expression) -> exp.With | None:
    """The statement's own WITH when it holds a data-modifying query, else None; 0A000 when
    such a WITH sits anywhere else (a subquery, a WITH query, INSERT's SELECT)."""
    top = tree.args.get("with_") if isinstance(tree, exp.Query | exp.DML) else None
    found = None
    for w in tree.find_all(exp.With):
        if _modifies(w):
            if w is not top:
                raise FeatureNotSupported(_NOT_TOP)
            found = w
    return found


def refuse_in(tree: exp.Expression, what: str) -> None:
    """0A000 for a data-modifying WITH where PostgreSQL takes none (a view's or a cursor's
    query: `what` names it as PostgreSQL's message does)."""
    if top_dml_with(tree) is not None:
        raise FeatureNotSupported(f"{what} must not contain data-modifying statements in WITH")


def _param_numbers(tree: exp.Expression) -> set[int]:
    return {int(p.this.name) for p in tree.find_all(exp.Parameter)
            if isinstance(p.this, exp.Literal) and p.this.name.isdigit()}


def _names(tree: exp.Expression, name: str) -> bool:
    """Tells whether `tree` reads a relation called `name` without a schema."""
    return any(t.name == name and not t.db for t in tree.find_all(exp.Table))


class _Part:
    """One data-modifying WITH query: its statement and how its RETURNING rows travel."""

    __slots__ = ("stmt", "text_cols")

    def __init__(self, stmt: Stmt, text_cols: list[int]) -> None:
        self.stmt = stmt
        self.text_cols = text_cols  # array-typed columns, carried in their text form

    def columns_of(self, rows: list[tuple]) -> list[list[Any]]:
        """The hidden parameters' values: one list per RETURNING column (array values in
        their text form, in the session's TimeZone and DateStyle)."""
        width = len(self.stmt.columns or [])
        cols = [[r[i] for r in rows] for i in range(width)]
        for i in self.text_cols:
            enc = wire_encoder((self.stmt.columns or [])[i].type_oid, 0)
            cols[i] = [None if v is None else enc(v).decode() for v in cols[i]]
        return cols


def _carrier(part: Stmt, first: int, keep: Sequence[int] | None = None,
             ordinality: str = "") -> tuple[exp.Expression, list[int]]:
    """The SELECT that stands for a data-modifying query in the rest of the statement,
    reading its RETURNING rows from parameters `first`, `first + 1`, …; with `keep`, only
    those columns, and with `ordinality` a column of that name numbering the rows (MERGE's
    join sources: one carrier per relation, joined on it)."""
    items, args, inner, text_cols = [], [], [], []
    for i, c in enumerate(part.columns or []):
        ft = format_type(c.type_oid, c.typmod)
        is_array = c.type_oid in T.ELEMENT_OF or c.type_oid in records.ROW_TYPES \
            or c.type_oid in records.COMPOSITES  # NB: a whole row, too, goes as its text
        if is_array:
            text_cols.append(i)
        if keep is not None and i not in keep:
            continue
        args.append(f"${first + i}::{'text' if is_array else ft}[]")
        inner.append(f"_c{i + 1}")
        col = exp.to_identifier(c.name).sql("postgres")
        cast = is_array or c.typmod != -1
        items.append(f"_c{i + 1}::{ft} AS {col}" if cast else f"_c{i + 1} AS {col}")
    if ordinality:
        items.append(f"_ord AS {ordinality}")
        inner.append("_ord")
    sql = f"SELECT {', '.join(items)} FROM unnest({', '.join(args)})" + (
        " WITH ORDINALITY" if ordinality else "") + f" AS _dml({', '.join(inner)})"
    return parse_sql(sql), text_cols


def _hide(ws: WriteSet, token: int) -> list[tuple[int, bytes, Any]]:
    """Takes the writes made since `token` out of the write set (its row locks stay held) and
    returns them, to be put back once the statement's SELECT has read the tables without them."""
    out = ws.since(token)
    ws.rollback_to(token)
    return out


def analyse_dml_with(session: SQLSession, sql: str, tree: exp.Expression,
                     param_oids: list[int], analyse_tree: AnalyseTree) -> Stmt | None:
    """The Stmt of a statement whose WITH holds INSERT/UPDATE/DELETE queries, or None."""
    if _WITH.search(sql) is None:  # NB: a scan of the text, not a walk of a big VALUES tree
        return None
    top = top_dml_with(tree)
    if top is None:
        return None
    recursive = bool(top.args.get("recursive"))
    nuser = max([len(param_oids), *_param_numbers(tree)])
    oids = list(param_oids) + [0] * (nuser - len(param_oids))
    ctes: list[exp.CTE] = []  # the WITH queries so far, data-modifying ones as carriers
    parts: list[_Part] = []
    unreturning: list[str] = []
    for cte in top.expressions:
        name = cte.alias_or_name
        body = cte.this
        if not isinstance(body, _DML):
            ctes.append(cte.copy())
            continue
        if recursive and _names(body, name):
            raise SQLError(f'recursive query "{name}" must not contain data-modifying '
                           "statements", sqlstate="42P19")
        sub = body.copy()
        if ctes:
            own = sub.args.get("with_")
            sub.set("with_", exp.With(
                expressions=[c.copy() for c in ctes] + (list(own.expressions) if own else []),
                recursive=recursive))
        stmt = analyse_tree(session, sub.sql("postgres"), sub, list(oids))
        used = _param_numbers(sub)
        oids = [stmt.param_oids[i] if i + 1 in used and i < len(stmt.param_oids) else o
                for i, o in enumerate(oids)]
        if not stmt.columns:
            unreturning.append(name)
            parts.append(_Part(stmt, []))
            continue
        carrier, text_cols = _carrier(stmt, len(oids) + 1)
        oids += [0] * len(stmt.columns)
        alias = cte.args.get("alias")
        ctes.append(exp.CTE(this=carrier, alias=alias.copy() if alias else exp.TableAlias(
            this=exp.to_identifier(name))))
        parts.append(_Part(stmt, text_cols))
    rest = tree.copy()
    rest.set("with_", exp.With(expressions=ctes, recursive=recursive) if ctes else None)
    for name in unreturning:
        if _names(rest, name):
            raise FeatureNotSupported(f'WITH query "{name}" does not have a RETURNING clause')
    main = analyse_tree(session, rest.sql("postgres"), rest, oids)
    nparams = nuser

    def run(s: SQLSession, values: list[Any]) -> Result:
        txn = s.txn
        if txn is not None and (txn.read_only or s.txn_modes.get("read_only")):
            raise ReadOnlySQLTransaction(
                f"cannot execute {main.tag} in a read-only transaction")
        vals = list(values[:nparams]) + [None] * (nparams - len(values))
        ws = txn.ws if isinstance(txn, Transaction) and main.kind == "query" else None
        token = ws.savepoint() if ws is not None else 0
        for part in parts:
            if isinstance(txn, Transaction):  # NB: a part's rerun leaves the snapshot as is
                with txn.kept_snapshot():
                    rows = part.stmt.run(s, list(vals)).fetch()  # NB: runs it to its end
            else:
                rows = part.stmt.run(s, list(vals)).fetch()
            if part.stmt.columns:
                vals += part.columns_of(rows)
        if ws is None:
            return main.run(s, vals)
        hidden = _hide(ws, token)  # the SELECT reads the tables as they were before
        try:
            res = main.run(s, vals)
            out = res.fetch()
        finally:
            for space, key, row in hidden:
                ws.put(space, key, row)
        return Result(main.tag, res.columns, iter(out), done=False)

    return Stmt(sql, main.kind, run, main.columns,
                list(main.param_oids[:nuser]), main.version, tag=main.tag)
