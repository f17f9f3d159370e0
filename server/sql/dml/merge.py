"""MERGE, as PostgreSQL 15 has it, built from the INSERT/UPDATE/DELETE already here.

`MERGE INTO t USING s ON c WHEN [NOT] MATCHED [AND cond] THEN action …` is taken
apart at analysis into statements that each go through the ordinary DML path
(constraints, defaults, identity, generated columns, triggers, privileges):

- a *classifier* SELECT, `FROM s LEFT JOIN t ON c`, gives each source row the
  target row it matched (its key, the hidden `ROW_KEY` column; NULL if none), the
  number of the first WHEN clause whose condition holds (0: none) and the source
  row's columns;
- an UPDATE for the `UPDATE SET` clauses, a DELETE for the DELETE clauses and an
  INSERT for the `INSERT` clauses read the classified rows from a *carrier*, the
  hidden array parameters that `ctedml` uses for RETURNING rows, and pick
  theirs by clause number; UPDATE and DELETE find their target rows by key and
  recheck the ON condition, so that at READ COMMITTED their rerun on a fresh
  snapshot (`dml.update`) updates the row's newest version, as PostgreSQL's
  EvalPlanQual does; each part also picks the row's WHEN clause again, so that the
  rerun takes the clause the newest version satisfies (or none).

A join as the source (`USING b JOIN c ON ...`, `parse.mergesyntax`) is classified as
`b JOIN c ON ... LEFT JOIN t`, and the parts read one carrier per relation, under the
relation's name and joined on the row's number, so the clauses' references resolve as
in PostgreSQL (42P09 for the target's name among them).

Each part runs even when it has no rows, so the statement triggers of every
action mentioned fire, as in PostgreSQL. The classifier reads before any part
writes, and a target row that two source rows would modify is 21000 before
anything is written. The tag is `MERGE n`, n the rows the parts touched.

Several UPDATE (INSERT) clauses make one UPDATE (INSERT) whose values are a CASE
on the clause number. The MERGE fires its target's statement triggers itself, as
PostgreSQL does (`firetriggers.merge_triggers`): BEFORE STATEMENT for INSERT,
UPDATE, DELETE, the rows, the AFTER ROW firings held to the end, AFTER STATEMENT
for DELETE, UPDATE, INSERT. Unlike PostgreSQL, row triggers fire part by part (all
updates, then deletes, then inserts), not in the join's order; UPDATE clauses that
SET DEFAULT or a row from a subquery, and INSERT clauses naming different columns,
are a part each.

At READ COMMITTED, as PostgreSQL's ExecMergeMatched, a row a part left alone after a
concurrent commit (locked in its newest version, whose clause is now another part's) is
classified again on that version and handed to that part: an UPDATE clause that gives way
to a DELETE one (or the reverse), and a row deleted meanwhile or no longer satisfying ON,
which goes on to the NOT MATCHED clauses (its INSERT may then meet the key: 23505). A
NOT MATCHED INSERT that meets a key inserted meanwhile reruns its part alone, so it
fails with 23505 as in PostgreSQL, not the whole MERGE (which would update that row).

PostgreSQL 15 runs MERGE only into a table: into a view (automatically
updatable or not; 16 allows it), a sequence or a materialized view it is
0A000 "cannot execute MERGE on relation" with a DETAIL naming the kind, and a
target that does not exist is 42P01, both before anything else is looked at.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ...errors import (
    CardinalityViolation,
    DuplicateAlias,
    FeatureNotSupported,
    SQLError,
    SyntaxError_,
    UndefinedTable,
)
from ...pgtypes import oids as T
from ...pgwire.backend import Result
from ...txn.api import RetryStatement
from ...txn.transaction import Transaction
from ..catalog.model import Table
from ..catalog.syscols import ROW_KEY
from ..ddl.names import find_sequence, get_relation, ident, table_name
from ..parse import parse_sql
from ..pgcatalog.typetext import format_type
from ..stmt import AnalyseTree, Stmt
from .ctedml import _carrier, _Part
from .firetriggers import merge_triggers

if TYPE_CHECKING:
    from ..session import SQLSession

_KIND_DETAIL = {"v": "views", "S": "sequences", "m": "materialized views", "c": "composite types",
                "f": "foreign tables", "i": "indexes"}
_TID, _ACT = "__merge_tid", "__merge_act"
_REL, _ORD = "__merge_rel", "__merge_ord"  # a join source's relation markers, row numbers
MAX_RETRIES = 20  # READ COMMITTED: second looks at a MERGE's rows, reruns of one part


def refuse_merge(s: SQLSession, tree: exp.Merge) -> None:
    """42P01 / 0A000 for a MERGE target PostgreSQL 15 refuses; returns for a table."""
    target = tree.this
    if not isinstance(target, exp.Table) or not isinstance(target.this, exp.Identifier):
        return
    schema, name = table_name(target)
    seq = find_sequence(s.catalog(), schema, name, s.search_path())
    kind = "S" if seq is not None else get_relation(s.catalog(), schema, name,
                                                    s.search_path()).kind
    what = _KIND_DETAIL.get(kind)
    if what is not None:
        raise FeatureNotSupported(f'cannot execute MERGE on relation "{name}"',
                                  detail=f"This operation is not supported for {what}.")


def _source(node: exp.Expression) -> tuple[exp.Expression, list[exp.Expression]]:
    """MERGE's data source as FROM prints it, and its relations: one, or a join's (`b JOIN
    c ON ...`, `(b JOIN c ON ...)`: `parse.mergesyntax` keeps the joins on b)."""
    if isinstance(node, exp.Subquery) and not node.alias and isinstance(node.this, exp.Table) \
            and node.this.args.get("joins"):
        node = node.this
    joins = node.args.get("joins") or []
    if not joins:
        return node, [node]
    first = node.copy()
    first.set("joins", None)
    return node, [first, *(j.this for j in joins)]


def _joined_carriers(cstmt: Stmt, first: int, names: list[str]) -> str:
    """The classified rows of a join source as its relations, each a carrier of its own
    columns under its own name (so `b.x`, `c.y` and unambiguous bare names resolve as in
    the MERGE), the first also carrying the row key and clause number; joined on the row's
    number. The classifier separates the relations' columns with `_REL` markers."""
    cols = [c.name for c in cstmt.columns or []]
    cuts = [0] + [i for i, n in enumerate(cols) if n.startswith(_REL)] + [len(cols)]
    out = []
    for k, name in enumerate(names):
        keep = range(cuts[k] + (1 if k else 0), cuts[k + 1])
        tree, _ = _carrier(cstmt, first, list(keep), _ORD)
        item = f"({tree.sql('postgres')}) AS {name}"
        out.append(item if k == 0 else f"JOIN {item} ON {name}.{_ORD} = {names[0]}.{_ORD}")
    return " ".join(out)


def _syntax(sql: str, word: str, after: int = 0) -> SQLError:
    """PostgreSQL's 42601 at the first `word` (case-insensitive) at or after `after`."""
    m = re.compile(rf"\b{word}\b", re.I).search(sql, after)
    at = m.start() if m else after
    return SyntaxError_(f'syntax error at or near "{sql[at:at + len(word)]}"', position=at + 1)


def _when_offsets(sql: str) -> list[int]:
    """Where each WHEN clause starts in the text (for the position of a syntax error)."""
    return [m.start() for m in re.finditer(r"\bWHEN\s+(?:NOT\s+)?MATCHED\b", sql, re.I)]


def _check_forms(sql: str, tree: exp.Merge, whens: list[exp.When]) -> None:
    """42601 where PostgreSQL 15's grammar has no such MERGE."""
    if tree.args.get("returning") is not None:
        raise _syntax(sql, "RETURNING")
    offsets = _when_offsets(sql) + [0] * len(whens)
    unconditional: set[bool] = set()  # matched / not matched groups with a bare WHEN so far
    for w in whens:
        group = bool(w.args.get("matched"))
        if group in unconditional:
            raise SyntaxError_("unreachable WHEN clause specified after unconditional WHEN "
                               "clause")
        if w.args.get("condition") is None:
            unconditional.add(group)
    for i, w in enumerate(whens):
        then = w.args.get("then")
        if w.args.get("source"):
            raise _syntax(sql, "BY", offsets[i])
        if w.args.get("matched") and isinstance(then, exp.Insert):
            raise _syntax(sql, "INSERT", offsets[i])
        if not w.args.get("matched") and not isinstance(then, exp.Insert) \
                and not _is_nothing(then):
            raise _syntax(sql, "UPDATE" if isinstance(then, exp.Update) else "DELETE",
                          offsets[i])


def _is_nothing(then: Any) -> bool:
    return isinstance(then, exp.Var) and then.name.upper() == "DO NOTHING"


def _is_delete(then: Any) -> bool:
    return isinstance(then, exp.Var) and then.name.upper() == "DELETE"


def _is_default(e: exp.Expression) -> bool:
    return (isinstance(e, exp.Column) and not e.table and e.name.lower() == "default"
            and not e.this.quoted) or (isinstance(e, exp.Var) and e.name.upper() == "DEFAULT")


def _count(tag: str) -> int:
    last = tag.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


def _name_of(node: exp.Expression) -> exp.Identifier:
    """The name a FROM item's columns are qualified by: its alias, else the table's name."""
    alias = node.args.get("alias")
    name = alias.this if alias is not None and alias.this is not None else node.this
    return name if isinstance(name, exp.Identifier) else exp.to_identifier(node.alias_or_name)


def _check_names(tree: exp.Merge, whens: list[exp.When], tname: exp.Identifier,
                 sname: exp.Identifier) -> None:
    """42712 for one name on both sides; 42P01 for the target in a WHEN NOT MATCHED."""
    t = ident(tname)
    if t == ident(sname):
        raise DuplicateAlias(f'name "{t}" specified more than once',
                             detail="The name is used both as MERGE target table and data "
                                    "source.")
    for w in whens:
        if w.args.get("matched"):
            continue
        parts = [w.args.get("condition"), w.args.get("then")]
        for part in parts:
            if part is None:
                continue
            for col in part.find_all(exp.Column):
                qual = col.args.get("table")
                if isinstance(qual, exp.Identifier) and ident(qual) == t:
                    raise UndefinedTable(
                        f'invalid reference to FROM-clause entry for table "{t}"',
                        hint=f'There is an entry for table "{t}", but it cannot be referenced '
                             "from this part of the query.")


def _set_pairs(then: exp.Update) -> list[tuple[exp.Expression, exp.Expression]] | None:
    """(column, value) for each assignment of an UPDATE SET (a row `(a, b) = (x, y)` taken
    apart), or None where a value is DEFAULT or a row comes from a subquery."""
    out: list[tuple[exp.Expression, exp.Expression]] = []
    for e in then.expressions:
        left, right = e.this, e.expression
        if isinstance(left, exp.Tuple | exp.Paren):
            lefts = list(left.expressions) if isinstance(left, exp.Tuple) else [left.this]
            if not isinstance(right, exp.Tuple) or len(right.expressions) != len(lefts):
                return None
            pairs = list(zip(lefts, right.expressions, strict=True))
        else:
            pairs = [(left, right)]
        if any(_is_default(v) for _, v in pairs):
            return None
        out += pairs
    return out


def _combined_update(tsql: str, tname: str, sname: str, carrier: str, match: str,
                     updates: list[tuple[int, exp.Update]], live: str) -> str | None:
    """One UPDATE for several UPDATE clauses (each column a CASE on the clause), so that the
    statement triggers fire once, as in PostgreSQL; None where a form cannot be combined."""
    by_clause = [(i, _set_pairs(u)) for i, u in updates]
    cols: dict[str, str] = {}
    for _, pairs in by_clause:
        if pairs is None:
            return None
        for c, _ in pairs:
            cols.setdefault(c.sql("postgres"), c.sql("postgres"))
    sets = []
    for col in cols:
        whens = " ".join(f"WHEN {i} THEN {v.sql('postgres')}" for i, pairs in by_clause
                         for c, v in pairs or [] if c.sql("postgres") == col)
        sets.append(f"{col} = CASE {live} {whens} ELSE {tname}.{col} END")
    clauses = ", ".join(str(i) for i, _ in updates)
    return (f"UPDATE {tsql} SET {', '.join(sets)} FROM {carrier} "
            f"WHERE {match} AND {sname}.{_ACT} IN ({clauses}) AND {live} IN ({clauses})")


def _insert_pairs(s: SQLSession, tree: exp.Merge, then: exp.Insert
                  ) -> list[tuple[str, str, exp.Expression]]:
    """(column as written, its name, value) of an INSERT clause; a DEFAULT value leaves its column out, so the
    column's default applies (no pairs: INSERT DEFAULT VALUES)."""
    cols_node, values = then.this, then.expression
    if values is None:  # INSERT DEFAULT VALUES
        return []
    vals = list(values.expressions) if isinstance(values, exp.Tuple) else [values]
    if cols_node is not None:
        cols = [(c.sql("postgres"), ident(c.this) if isinstance(c.this, exp.Identifier)
                 else c.name) for c in (cols_node.expressions
                                        if isinstance(cols_node, exp.Tuple) else [cols_node])]
    else:
        cols = [(exp.to_identifier(c.name).sql("postgres"), c.name)
                for c in _table(s, tree).live_columns][:len(vals)]
    if len(vals) > len(cols):
        raise SyntaxError_("INSERT has more expressions than target columns")
    if len(vals) < len(cols):
        raise SyntaxError_("INSERT has more target columns than expressions")
    return [(c, n, v) for (c, n), v in zip(cols, vals, strict=True) if not _is_default(v)]


def _table(s: SQLSession, tree: exp.Merge) -> Table:
    schema, name = table_name(tree.this)
    return get_relation(s.catalog(), schema, name, s.search_path())


def _overriding(sql: str, nwhens: int) -> dict[int, str]:
    """The WHEN clauses (numbered from 1) that say OVERRIDING SYSTEM (USER) VALUE, and the
    words (`parse_sql` blanks them for sqlglot; they are read here from the text)."""
    starts = _when_offsets(sql)
    if len(starts) != nwhens:
        return {}
    ends = starts[1:] + [len(sql)]
    found = {i: re.search(r"\bOVERRIDING\s+(SYSTEM|USER)\s+VALUE\b", sql[a:b], re.I)
             for i, (a, b) in enumerate(zip(starts, ends, strict=True), 1)}
    return {i: f" OVERRIDING {m.group(1).upper()} VALUE" for i, m in found.items() if m}


def _insert_sql(s: SQLSession, tree: exp.Merge, clauses: list[tuple[int, exp.Insert]],
                carrier: str, overriding: dict[int, str]) -> list[tuple[str, int | None]]:
    """The INSERT part(s): `INSERT INTO t (cols) SELECT vals FROM carrier WHERE clause
    chosen`. INSERT clauses naming the same columns make one INSERT whose values are a CASE
    on the clause (each branch cast to the column's type, without its typmod, so the
    assignment still checks lengths), so statement triggers fire once; INSERT DEFAULT
    VALUES runs once per row."""
    target = tree.this.copy()
    target.set("alias", None)
    into = f"INSERT INTO {target.sql('postgres')}"
    pairs = [(i, _insert_pairs(s, tree, then)) for i, then in clauses]
    names = {tuple(n for _, n, _ in p) for _, p in pairs}
    system = overriding.get(pairs[0][0], "") if pairs else ""
    if len(pairs) > 1 and len(names) == 1 and next(iter(names)) \
            and len({overriding.get(i) for i, _ in pairs}) == 1:
        types = {c.name: format_type(c.type_oid, -1) for c in _table(s, tree).live_columns}
        values = []
        for k, (_, name, _) in enumerate(pairs[0][1]):
            cast = types.get(name)
            branches = [(i, p[k][2].sql("postgres")) for i, p in pairs]
            whens = " ".join(f"WHEN {i} THEN CAST({v} AS {cast})" if cast
                             else f"WHEN {i} THEN {v}" for i, v in branches)
            values.append(f"CASE {_ACT} {whens} END")
        cols = ", ".join(c for c, _, _ in pairs[0][1])
        clause_ids = ", ".join(str(i) for i, _ in pairs)
        return [(f"{into} ({cols}){system} SELECT {', '.join(values)} FROM {carrier} "
                 f"WHERE {_ACT} IN ({clause_ids})", None)]
    out: list[tuple[str, int | None]] = []
    for i, p in pairs:
        if not p:
            out.append((f"{into} DEFAULT VALUES", i))
            continue
        over = overriding.get(i, "")
        out.append((f"{into} ({', '.join(c for c, _, _ in p)}){over} "
                    f"SELECT {', '.join(v.sql('postgres') for _, _, v in p)} FROM {carrier} "
                    f"WHERE {_ACT} = {i}", None))
    return out


def analyse_merge(session: SQLSession, sql: str, tree: exp.Merge, param_oids: list[int],
                  analyse_tree: AnalyseTree) -> Stmt:
    """The Stmt of a MERGE: a classifier query and one DML statement per action."""
    refuse_merge(session, tree)
    whens_node = tree.args.get("whens")
    whens: list[exp.When] = list(whens_node.expressions) if whens_node is not None else []
    _check_forms(sql, tree, whens)
    target = tree.this
    source, rels = _source(tree.args["using"])
    tsql = target.sql("postgres")
    for rel in rels:
        if len(rels) > 1 and ident(_name_of(rel)) == ident(_name_of(target)):
            raise SQLError(f'table reference "{ident(_name_of(rel))}" is ambiguous',
                           sqlstate="42P09")  # ambiguous_alias: the target in a join source
        _check_names(tree, whens, _name_of(target), _name_of(rel))
    rnames = [_name_of(rel).sql("postgres") for rel in rels]
    tname, sname = _name_of(target).sql("postgres"), rnames[0]
    columns = ", ".join(f"{n}.*" if k == 0 else f"0 AS {_REL}{k}, {n}.*"
                        for k, n in enumerate(rnames))  # NB: a join: its relations' columns
    on = tree.args["on"].sql("postgres")
    matched: list[str] = []
    unmatched: list[str] = []
    for i, w in enumerate(whens, 1):
        cond = w.args.get("condition")
        (matched if w.args.get("matched") else unmatched).append(
            f"WHEN {cond.sql('postgres') if cond is not None else 'TRUE'} THEN {i}")
    m_case = f"CASE {' '.join(matched)} ELSE 0 END" if matched else "0"
    u_case = f"CASE {' '.join(unmatched)} ELSE 0 END" if unmatched else "0"
    key = f"{tname}.{ROW_KEY}"
    match = f"{key} = {sname}.{_TID} AND ({on})"  # NB: the ON again: rechecked on a rerun
    classify = (f"SELECT {key} AS {_TID}, CASE WHEN {key} IS NULL THEN {u_case} "
                f"ELSE {m_case} END AS {_ACT}, {columns} "
                f"FROM {source.sql('postgres')} LEFT JOIN {tsql} ON {on}")
    with_ = tree.args.get("with_")
    if with_ is not None:  # WITH w AS (...) MERGE INTO t USING w ...
        classify = f"{with_.sql('postgres')} {classify}"
    nuser = max([len(param_oids), *(int(p.this.name) for p in tree.find_all(exp.Parameter)
                                    if p.this.name.isdigit())])
    oids = list(param_oids) + [0] * (nuser - len(param_oids))
    ctree = parse_sql(classify)
    cstmt = analyse_tree(session, classify, ctree, list(oids))
    oids = [cstmt.param_oids[i] if i < len(cstmt.param_oids) and cstmt.param_oids[i] else o
            for i, o in enumerate(oids)]
    carrier_tree, text_cols = _carrier(cstmt, nuser + 1)
    carried = _Part(cstmt, text_cols)
    carrier = f"({carrier_tree.sql('postgres')}) AS {sname}" if len(rels) == 1 else \
        _joined_carriers(cstmt, nuser + 1, rnames)
    texts: list[tuple[str, int | None]] = []  # a part's text; its clause if run per row
    covers: list[set[int]] = []  # the WHEN clauses each part carries out
    modifying: set[int] = set()
    deletes = [i for i, w in enumerate(whens, 1) if _is_delete(w.args.get("then"))]
    updates = [(i, w.args["then"]) for i, w in enumerate(whens, 1)
               if isinstance(w.args.get("then"), exp.Update)]
    modifying.update(i for i, _ in updates)
    # NB: each part picks its rows' WHEN clause again on the row it writes, so that a rerun
    # at READ COMMITTED (dml.update) rechecks it on the newest version, as EvalPlanQual does
    live = f"({m_case})"
    combined = _combined_update(tsql, tname, sname, carrier, match, updates, live) \
        if len(updates) > 1 else None
    if combined is not None:
        texts.append((combined, None))
        covers.append({i for i, _ in updates})
    for i, then in updates if combined is None else []:
        sets = ", ".join(e.sql("postgres") for e in then.expressions)
        texts.append((f"UPDATE {tsql} SET {sets} FROM {carrier} "
                      f"WHERE {match} AND {sname}.{_ACT} = {i} AND {live} = {i}", None))
        covers.append({i})
    if deletes:
        modifying.update(deletes)
        ids = ", ".join(map(str, deletes))
        texts.append((f"DELETE FROM {tsql} USING {carrier} WHERE {match} "
                      f"AND {sname}.{_ACT} IN ({ids}) AND {live} IN ({ids})", None))
        covers.append(set(deletes))
    inserts = [(i, w.args["then"]) for i, w in enumerate(whens, 1)
               if isinstance(w.args.get("then"), exp.Insert)]
    inserting = _insert_sql(session, tree, inserts, carrier, _overriding(sql, len(whens)))
    texts += inserting
    covers += [{i for i, _ in inserts}] if len(inserting) == 1 else [{i} for i, _ in inserts]
    part_of = {i: n for n, clauses in enumerate(covers) for i in clauses}
    # NB: READ COMMITTED's second look at rows a part left alone (`_rechecked`): each
    # carried row's WHEN clause on the target row's newest version, or NOT MATCHED's
    reclass_carrier = _joined_carriers(cstmt, nuser + 1, rnames) if len(rels) > 1 else \
        f"({_carrier(cstmt, nuser + 1, None, _ORD)[0].sql('postgres')}) AS {sname}"
    reclass_sql = (f"SELECT {sname}.{_ORD}, CASE WHEN {key} IS NULL THEN {u_case} "
                   f"ELSE {m_case} END FROM {reclass_carrier} "
                   f"LEFT JOIN {tsql} ON {key} = {sname}.{_TID} AND ({on})")
    if with_ is not None:
        reclass_sql = f"{with_.sql('postgres')} {reclass_sql}"
    width = len(cstmt.columns or [])
    all_oids = oids + [0] * width
    parts: list[tuple[Stmt, int | None]] = []
    for text, clause in texts:
        pstmt = analyse_tree(session, text, parse_sql(text), list(all_oids))
        all_oids = [pstmt.param_oids[i] if i < len(pstmt.param_oids) and i < nuser
                    and pstmt.param_oids[i] else o for i, o in enumerate(all_oids)]
        parts.append((pstmt, clause))

    reclass: list[Stmt] = []  # the second look's query, analysed when first needed

    ops = {op for op, there in (("UPDATE", updates), ("DELETE", deletes), ("INSERT", any(
        isinstance(w.args.get("then"), exp.Insert) for w in whens))) if there}

    def run(s: SQLSession, values: list[Any]) -> Result:
        for pstmt, _ in parts:  # the target's privileges first, as PostgreSQL checks them
            if pstmt.check is not None:
                pstmt.check(s)
        return merge_triggers(s, _table(s, tree), ops, lambda: _merge(s, values))

    def _merge(s: SQLSession, values: list[Any]) -> Result:
        vals = list(values[:nuser]) + [None] * (nuser - len(values))
        rows = cstmt.run(s, list(vals)).fetch()
        seen: set[Any] = set()
        for r in rows:
            if r[1] in modifying:
                if r[0] in seen:
                    raise CardinalityViolation(
                        "MERGE command cannot affect row a second time",
                        hint="Ensure that not more than one source row matches any one "
                             "target row.")
                seen.add(r[0])
        txn = s.txn
        again = isinstance(txn, Transaction) and txn.isolation == "read committed"
        total = 0
        for first in (True, *(False,) * MAX_RETRIES):
            token = txn.ws.savepoint() if isinstance(txn, Transaction) else 0
            done, changed = _run_parts(s, vals, rows, first)
            total += done
            if not again:
                break
            rows = _rechecked(s, vals, rows, changed, token)
            if not rows:
                break
        return Result(f"MERGE {total}", None, iter(()), done=True)

    def _run_parts(s: SQLSession, vals: list[Any], rows: list[Any], first: bool
                   ) -> tuple[int, int]:
        """Runs the parts over the classified rows (on a second look only those with rows):
        (rows written, of them updated or deleted)."""
        full = vals + carried.columns_of(rows)
        acts = {r[1] for r in rows}
        total = changed = 0
        for (pstmt, clause), clauses in zip(parts, covers, strict=True):
            if not first and acts.isdisjoint(clauses):
                continue
            n = 1 if clause is None else sum(1 for r in rows if r[1] == clause)
            for _ in range(n):  # NB: INSERT DEFAULT VALUES runs row by row
                done = _count(_part(s, pstmt, full).tag)
                total += done
                if not clauses.isdisjoint(modifying):
                    changed += done
        return total, changed

    def _rechecked(s: SQLSession, vals: list[Any], rows: list[Any], changed: int,
                   token: int) -> list[Any]:
        """READ COMMITTED, as PostgreSQL's ExecMergeMatched: the matched rows an UPDATE or
        DELETE part left alone, because a concurrent commit changed the target row (the
        part locked its newest version and found its WHEN clause or ON no longer held,
        `dml.update`), classified again on that version; returns those that now take
        another part: an UPDATE row whose clause is now a DELETE one (or the reverse), or
        a row deleted meanwhile or no longer satisfying ON, for the NOT MATCHED clauses. A
        row a BEFORE trigger skipped classifies as before and is left alone."""
        pending = [r for r in rows if r[0] is not None and r[1] in modifying]
        if changed >= len(pending):
            return []  # NB: the common case: every row written, nothing to look at again
        txn = s.txn
        assert isinstance(txn, Transaction)
        written = {k for _, k, _ in txn.ws.since(token)}
        left = [r for r in pending if r[0] not in written]
        if not left:
            return []
        if not reclass:  # NB: a join source's relation markers are read by no carrier
            roids = [T.INT4 if i >= nuser and (cstmt.columns or [])[i - nuser].name.startswith(
                _REL) else o for i, o in enumerate(all_oids)]
            reclass.append(analyse_tree(s, reclass_sql, parse_sql(reclass_sql), roids))
        out = []
        for ordinal, clause in reclass[0].run(s, vals + carried.columns_of(left)).fetch():
            r = left[ordinal - 1]
            if clause in part_of and part_of[clause] != part_of[r[1]]:
                out.append((r[0], clause, *r[2:]))
        return out

    def _part(s: SQLSession, pstmt: Stmt, full: list[Any]) -> Result:
        """One part's run. At READ COMMITTED a concurrent commit the part did not handle
        itself (its INSERT met a key another session inserted meanwhile) runs that part
        again on a snapshot that sees the commit (23505, as in PostgreSQL) instead of
        letting the session rerun the whole MERGE, whose new classification would update
        that row."""
        txn = s.txn
        if txn is None or txn.isolation != "read committed":
            return pstmt.run(s, list(full))
        token = txn.savepoint()
        for _ in range(MAX_RETRIES):
            try:
                return pstmt.run(s, list(full))
            except RetryStatement:
                txn.rollback_to(token, keep_locks=True)
                txn.new_statement()
        return pstmt.run(s, list(full))

    return Stmt(sql, "dml", run, None, list(oids[:nuser]), cstmt.version, tag="MERGE",
                plan=cstmt.plan)  # EXPLAIN shows the classifier's join under `Merge on t`

