"""The SQL text PostgreSQL prints for catalog objects: index and constraint definitions.

These (and `typetext.format_type`) back `format_type`, `pg_get_indexdef`, `pg_get_constraintdef` and the
pg_indexes / information_schema views alike, so psql's `\\d t`, SQLAlchemy's
reflection and the views agree character for character with PostgreSQL 15.
"""

from __future__ import annotations

from typing import Any

from ..catalog import model as M
from .checktext import check_text
from .names import names, quote_ident
from .partfks import copy_by_oid
from .typetext import format_type as format_type  # NB: re-exported: its users import it here

_FK_ACTIONS = {"r": "RESTRICT", "c": "CASCADE", "n": "SET NULL", "d": "SET DEFAULT"}


def _col_names(table: M.Table | None, attnums: tuple[int, ...]) -> list[str]:
    cols = {c.attnum: c.name for c in table.columns} if table else {}
    return [quote_ident(cols.get(a, f"col{a}")) for a in attnums]


def qualified(cat: M.CatalogSnapshot, oid: int) -> str:
    """Returns a relation's schema-qualified, quoted name."""
    rel = names(cat).rel.get(oid)
    if rel is None:
        return str(oid)
    return quote_ident(names(cat).schema_name(rel.schema_oid) or "") + "." + quote_ident(rel.name)


def index_def(cat: M.CatalogSnapshot, index_oid: int, column: int = 0, pretty: bool = False,
              ctx: Any = None) -> str | None:
    """Returns pg_get_indexdef's text (or one key column's name when column > 0).

    Pretty mode names the table bare when the search path finds it, as PostgreSQL does.
    """
    i = next((x for x in cat.indexes if x.oid == index_oid), None)
    if i is None:
        return None
    table = cat.table_by_oid(i.table_oid)
    cols = _key_cols(table, i, pretty)
    included = _col_names(table, i.include)
    if column > 0:
        every = cols + included
        return every[column - 1] if column <= len(every) else ""
    keys = ", ".join(_keys(cols, i))
    unique = "UNIQUE " if i.unique or i.primary else ""
    table_name = (names(cat).rel_display(ctx, i.table_oid) if pretty and ctx is not None
                  else qualified(cat, i.table_oid))
    only = "ONLY " if table is not None and table.partkey else ""  # a partitioned index
    text = (f"CREATE {unique}INDEX {quote_ident(i.name)} ON {only}{table_name} "
            f"USING {i.method} ({keys})")
    if included:
        text += f" INCLUDE ({', '.join(included)})"
    if i.nulls_not_distinct:
        text += " NULLS NOT DISTINCT"
    if i.options:
        text += f" WITH ({_reloptions(i.options)})"
    if i.predicate:
        pred = predicate_text(table, i.predicate, pretty)
        text += f" WHERE {pred if pretty else parenthesize(pred)}"
    return text


def _key_cols(table: M.Table | None, i: M.Index, pretty: bool) -> list[str]:
    """An index's keys: column names, expressions as PostgreSQL deparses them."""
    if i.exprs:
        from ..ddl.indexkeys import key_names

        return key_names(table, i, pretty)
    return _col_names(table, i.columns)


def _keys(cols: list[str], i: M.Index) -> list[str]:
    """Each key with its explicit operator class and DESC."""
    desc = list(i.descending) + [False] * (len(cols) - len(i.descending))
    ops = list(i.opclasses) + [""] * (len(cols) - len(i.opclasses))
    return [c + (f" {o}" if o else "") + (" DESC" if d else "")
            for c, o, d in zip(cols, ops, desc, strict=True)]


def _reloptions(options: tuple[str, ...]) -> str:
    """flatten_reloptions: `fillfactor='70'`; a value an identifier needs no quotes for bare."""
    return ", ".join(f"{k}={v if quote_ident(v) == v else _literal(v)}"
                     for k, _, v in (o.partition("=") for o in options))


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def predicate_text(table: M.Table | None, sql: str, pretty: bool) -> str:
    """A partial index's WHERE as PostgreSQL deparses it (`(amount > (0)::numeric)`)."""
    types = {col.name: col.type_oid for col in table.columns} if table else {}
    expr = check_text(sql, types, pretty)
    if expr is None:
        return _strip_parens(sql) if pretty else parenthesize(sql)
    return expr


def _strip_parens(expr: str) -> str:
    """Removes one pair of parentheses enclosing the whole expression, if there is one."""
    s = expr.strip()
    wrapped = parenthesize(s)
    return s[1:-1] if wrapped == s and s.startswith("(") else s


def parenthesize(expr: str) -> str:
    """Wraps an expression in parentheses unless it already is one parenthesised whole."""
    s = expr.strip()
    if s.startswith("(") and s.endswith(")"):
        depth = 0
        for n, ch in enumerate(s):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0 and n < len(s) - 1:
                break
        else:
            return s
    if s.replace("_", "").isalnum():
        return s
    return f"({s})"


def constraint_def(cat: M.CatalogSnapshot, ctx: Any, con_oid: int,
                   pretty: bool = False) -> str | None:
    """Returns pg_get_constraintdef's text: "PRIMARY KEY (id)", "FOREIGN KEY (a) REFERENCES p(id)".

    A CHECK prints as CHECK ((expr)), or CHECK (expr) in pretty mode, as PostgreSQL does.
    """
    c = next((x for x in cat.constraints if x.oid == con_oid), None)
    if c is None and (copy := copy_by_oid(cat, con_oid)) is not None:
        c = copy.con  # a partition's copy of its parent's foreign key
    if c is None:  # a CREATE DOMAIN check: CHECK ((VALUE > 0))
        dom = next((t for t in cat.types if t.kind == "d" and con_oid in t.check_oids), None)
        if dom is None:
            return None
        text = dom.checks[dom.check_oids.index(con_oid)]
        expr = check_text(text, {"VALUE": dom.subtype}, pretty)
        if expr is None:
            expr = _strip_parens(text) if pretty else parenthesize(text)
        return f"CHECK ({expr})"
    table = cat.table_by_oid(c.table_oid)
    cols = ", ".join(_col_names(table, c.columns))
    if c.kind == "p":
        return f"PRIMARY KEY ({cols}){_deferral(c)}"
    if c.kind == "u":
        idx = next((i for i in cat.indexes_of(c.table_oid) if i.oid == c.index_oid), None)
        nnd = "NULLS NOT DISTINCT " if idx is not None and idx.nulls_not_distinct else ""
        return f"UNIQUE {nnd}({cols}){_deferral(c)}"
    if c.kind == "c":
        types = {col.name: col.type_oid for col in table.columns} if table else {}
        expr = check_text(c.check or "true", types, pretty)
        if expr is None:
            expr = _strip_parens(c.check or "true") if pretty else parenthesize(c.check or "true")
        return f"CHECK ({expr})" + ("" if c.validated else " NOT VALID")
    if c.kind == "f":
        ref = cat.table_by_oid(c.ref_table_oid)
        refname = names(cat).rel_display(ctx, c.ref_table_oid)
        text = (f"FOREIGN KEY ({cols}) REFERENCES {refname}"
                f"({', '.join(_col_names(ref, c.ref_columns))})")
        if c.on_update in _FK_ACTIONS:
            text += " ON UPDATE " + _FK_ACTIONS[c.on_update]
        if c.on_delete in _FK_ACTIONS:
            text += " ON DELETE " + _FK_ACTIONS[c.on_delete]
        return text + _deferral(c) + ("" if c.validated else " NOT VALID")
    if c.kind == "x":
        return exclusion_def(cat, c, pretty)
    return None


def exclusion_def(cat: M.CatalogSnapshot, c: M.Constraint, pretty: bool) -> str | None:
    """`EXCLUDE USING gist (room WITH =, during WITH &&) [INCLUDE (...)] [WITH (...)]
    [WHERE ((pred))] [DEFERRABLE ...]`, PostgreSQL's deparse of the constraint's index."""
    idx = next((i for i in cat.indexes if i.oid == c.index_oid), None)
    table = cat.table_by_oid(c.table_oid)
    if idx is None or table is None:
        return None
    parts = _keys(_key_cols(table, idx, pretty), idx)
    elems = ", ".join(f"{k} WITH {op}" for k, op in zip(parts, c.operators, strict=True))
    text = f"EXCLUDE USING {idx.method} ({elems})"
    if idx.include:
        text += f" INCLUDE ({', '.join(_col_names(table, idx.include))})"
    if idx.options:
        text += f" WITH ({_reloptions(idx.options)})"
    if idx.predicate:  # NB: parenthesized once more than pg_get_indexdef's
        pred = predicate_text(table, idx.predicate, pretty)
        text += f" WHERE ({pred})" if pretty else f" WHERE ({parenthesize(pred)})"
    return text + _deferral(c)


def _deferral(c: M.Constraint) -> str:
    """` DEFERRABLE [INITIALLY DEFERRED]`, as pg_get_constraintdef appends it to keys."""
    return (" DEFERRABLE" if c.deferrable else "") + (" INITIALLY DEFERRED" if c.deferred else "")
