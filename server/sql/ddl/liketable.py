"""`CREATE TABLE new (LIKE src [INCLUDING | EXCLUDING option] ...)`, as PostgreSQL 15.

LIKE copies the source's live columns where it stands among the new table's elements: names,
types (domains stay domains), typmods, collations and NOT NULL always; the rest only when
asked for. DEFAULTS: the default expressions (a serial's `nextval` still reads the source's
sequence, as in PostgreSQL); GENERATED: the generation expressions; IDENTITY: identity
columns, each with a new sequence of the same options; CONSTRAINTS: the CHECK constraints,
with their names; INDEXES: the primary key and unique constraints, and the other indexes
(plain, unique, expression, partial) made again after the table by CREATE INDEX with no name,
so that they get the names PostgreSQL chooses (`copy_indexes`). ALL is all of them; a later EXCLUDING takes one back out. COMMENTS, STORAGE,
COMPRESSION and STATISTICS have nothing to copy here.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ...errors import DuplicateColumn
from ..parse import parse_sql
from ..pgcatalog.ddltext import constraint_def, index_def
from .domaindefault import domain_of_column, with_default
from .indexes import create_index
from .names import get_relation, table_name

if TYPE_CHECKING:
    from ..session import SQLSession
    from .tables import TableBuilder

OPTIONS = ("COMMENTS", "COMPRESSION", "CONSTRAINTS", "DEFAULTS", "GENERATED", "IDENTITY",
           "INDEXES", "STATISTICS", "STORAGE")


def like_options(node: exp.LikeProperty) -> set[str]:
    """The INCLUDING options in force, in order (`INCLUDING ALL EXCLUDING INDEXES`)."""
    out: set[str] = set()
    for p in node.expressions or []:
        word = str(p.this).upper()
        what = p.args["value"].name.upper()
        names = set(OPTIONS) if what == "ALL" else {what}
        if word == "INCLUDING":
            out |= names
        else:
            out -= names
    return out


def add_like(b: TableBuilder, node: exp.LikeProperty) -> list[str]:
    """Appends the columns (and what the options ask for) of LIKE's source table to `b`."""
    s = b.s
    schema, name = table_name(node.this)
    src = get_relation(b.cat, schema, name, s.search_path())
    opts = like_options(node)
    renum: dict[int, int] = {}
    for c in src.live_columns:
        if any(x.name == c.name for x in b.columns):
            raise DuplicateColumn(f'column "{c.name}" specified more than once')
        attnum = len(b.columns) + 1
        renum[c.attnum] = attnum
        default = c.default if "DEFAULTS" in opts and not c.identity and c.generated is None \
            and not c.domain_default else None
        generated = c.generated if "GENERATED" in opts else None
        identity = c.identity if "IDENTITY" in opts else ""
        if identity:
            b._owned_sequence(c.name, c.type_oid, attnum, identity, _seq_options(b, src.oid, c))
        col = dataclasses.replace(c, attnum=attnum, generated=generated, identity=identity)
        b.columns.append(with_default(col, default, domain_of_column(b.cat, c)
                                      if generated is None else None))
    cons = b.cat.constraints_of(src.oid)
    if "CONSTRAINTS" in opts:
        for k in cons:
            if k.kind == "c" and k.check is not None:
                b.checks.append((k.name, k.check))
    if "INDEXES" in opts:
        for k in cons:
            cols = tuple(renum[a] for a in k.columns if a in renum)
            if len(cols) != len(k.columns):
                continue
            if k.kind == "p":
                b.set_pk(cols, None)
                b.pk_deferral = (k.deferrable, k.deferred)
            elif k.kind == "u":
                idx = next((i for i in b.cat.indexes_of(src.oid) if i.oid == k.index_oid), None)
                b.uniques.append(("", cols, bool(idx and idx.nulls_not_distinct),
                                  (k.deferrable, k.deferred)))
            elif k.kind == "x":  # NB: by its definition's text: its keys name the columns
                text = constraint_def(b.cat, None, k.oid)
                tree = parse_sql(f"CREATE TABLE t ({text})") if text else None
                if isinstance(tree, exp.Create):
                    b.exclusions.append(("", tree.this.expressions[0]))
        backing = {k.index_oid for k in cons}
        return [d for i in b.cat.indexes_of(src.oid) if not i.primary and i.oid not in backing
                and (d := index_def(b.cat, i.oid)) is not None]
    return []


_HEAD = re.compile(r"^CREATE (UNIQUE )?INDEX .+? ON (?:ONLY )?.+? USING ")


def copy_indexes(s: SQLSession, schema: str, table: str, defs: list[str]) -> None:
    """Makes the source's other indexes (`add_like`'s pg_get_indexdef texts) on the new
    `schema.table`, unnamed so that CREATE INDEX chooses PostgreSQL's name."""
    target = ".".join('"' + n.replace('"', '""') + '"' for n in (schema, table))
    for d in defs:
        m = _HEAD.match(d)
        if m is not None:
            tree = parse_sql(f"CREATE {m.group(1) or ''}INDEX ON {target} USING {d[m.end():]}")
            if isinstance(tree, exp.Create):
                create_index(s, tree)


def _seq_options(b: TableBuilder, table_oid: int, c: Any) -> dict[str, Any]:
    """The options of the sequence behind an identity column, for the copy's new one."""
    seq = next((q for q in b.cat.sequences if q.owned_by == (table_oid, c.attnum)), None)
    if seq is None:
        return {}
    return {"start": seq.start, "increment": seq.increment, "min_value": seq.min_value,
            "max_value": seq.max_value, "cycle": seq.cycle, "cache": seq.cache}
