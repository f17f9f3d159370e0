"""CREATE / ALTER / DROP SEQUENCE.

The sequence's definition is a catalog row (transactional, like any DDL);
its current value is not transactional and lives in the catalog store's
counter space (see `CatalogStore.nextval`), as in PostgreSQL where nextval is
never rolled back. Options are parsed with a small regex grammar because
sqlglot's sequence support is partial.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ...errors import (
    DuplicateTable,
    InvalidParameterValue,
    InvalidTableDefinition,
    SyntaxError_,
    UndefinedTable,
)
from ...pgtypes import oids as T
from ...pgwire.backend import Result
from ..catalog.model import Sequence
from ..parse import unquote_ident
from ..privileges.check import current_role_oid
from ..stmt import Stmt
from .names import (
    creation_schema,
    find_sequence,
    missing_schema,
    parse_qualified,
    relation_name_taken,
    skip_or_raise,
)
from .seqowner import owned_by
from .tables import temp_schema

if TYPE_CHECKING:
    from ..session import SQLSession

_HEAD = re.compile(r"(?P<verb>CREATE|ALTER)\s+(?:(?P<temp>TEMP(?:ORARY)?)\s+|(?P<unlogged>UNLOGGED)\s+)?"
                   r"SEQUENCE\s+"
                   r"(?P<ine>IF\s+(?:NOT\s+)?EXISTS\s+)?(?P<name>(?:\"[^\"]+\"|[\w$]+)"
                   r"(?:\.(?:\"[^\"]+\"|[\w$]+))?)(?P<rest>.*)$", re.I | re.S)
_OPT = re.compile(
    r"\s*(?:AS\s+(?P<as>\w+)|INCREMENT\s+(?:BY\s+)?(?P<inc>[+-]?\d+)|"
    r"MINVALUE\s+(?P<min>[+-]?\d+)|(?P<nomin>NO\s+MINVALUE)|MAXVALUE\s+(?P<max>[+-]?\d+)|"
    r"(?P<nomax>NO\s+MAXVALUE)|START\s+(?:WITH\s+)?(?P<start>[+-]?\d+)|"
    r"RESTART(?:\s+(?:WITH\s+)?(?P<restart>[+-]?\d+))?|CACHE\s+(?P<cache>\d+)|"
    r"(?P<nocycle>NO\s+CYCLE)|(?P<cycle>CYCLE)|OWNED\s+BY\s+(?P<owned>\S+)|"
    r"SET\s+(?P<logged>LOGGED|UNLOGGED)\b)", re.I)
_TYPES = {"smallint": T.INT2, "int2": T.INT2, "integer": T.INT4, "int": T.INT4, "int4": T.INT4,
          "bigint": T.INT8, "int8": T.INT8}
_MAX = {T.INT2: 2**15 - 1, T.INT4: 2**31 - 1, T.INT8: 2**63 - 1}


def _options(rest: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    pos = 0
    rest = rest.rstrip()
    while pos < len(rest):
        m = _OPT.match(rest, pos)
        if m is None or m.end() == pos:
            word = rest[pos:].split()[0] if rest[pos:].split() else rest[pos:]
            raise SyntaxError_(f'syntax error at or near "{word}"')
        for k, v in m.groupdict().items():
            if v is not None:
                out[k] = v
        if m.group(0).strip().upper().startswith("RESTART"):
            out.setdefault("restart", None)
            out["has_restart"] = True
        pos = m.end()
    return out


def _apply(seq: Sequence, o: dict[str, Any], creating: bool) -> Sequence:
    type_oid = _TYPES.get(o.get("as", "").lower(), seq.type_oid)
    inc = int(o.get("inc", seq.increment))
    if inc == 0:
        raise InvalidParameterValue("INCREMENT must not be zero")
    lo_default = 1 if inc > 0 else -_MAX[type_oid] - 1
    hi_default = _MAX[type_oid] if inc > 0 else -1
    lo = int(o["min"]) if "min" in o else (lo_default if creating or "nomin" in o
                                           else seq.min_value)
    hi = int(o["max"]) if "max" in o else (hi_default if creating or "nomax" in o
                                           or "as" in o else seq.max_value)
    start = int(o["start"]) if "start" in o else (lo if inc > 0 else hi) if creating else seq.start
    cycle = True if "cycle" in o else False if "nocycle" in o else seq.cycle
    _check_bounds(type_oid, lo, hi, start)
    return dataclasses.replace(seq, type_oid=type_oid, increment=inc, min_value=lo,
                               max_value=hi, start=start, cycle=cycle,
                               cache=int(o.get("cache", seq.cache)))


_TYPE_WORD = {T.INT2: "smallint", T.INT4: "integer", T.INT8: "bigint"}


def _check_bounds(type_oid: int, lo: int, hi: int, start: int) -> None:
    """PostgreSQL's init_params checks, in its order, each 22023."""
    top = _MAX[type_oid]
    for word, v in (("MAXVALUE", hi), ("MINVALUE", lo)):
        if not -top - 1 <= v <= top:
            raise InvalidParameterValue(
                f"{word} ({v}) is out of range for sequence data type {_TYPE_WORD[type_oid]}")
    if lo >= hi:
        raise InvalidParameterValue(f"MINVALUE ({lo}) must be less than MAXVALUE ({hi})")
    if start < lo:
        raise InvalidParameterValue(f"START value ({start}) cannot be less than MINVALUE ({lo})")
    if start > hi:
        raise InvalidParameterValue(
            f"START value ({start}) cannot be greater than MAXVALUE ({hi})")


_DROP = re.compile(r"DROP\s+SEQUENCE\s+(?P<ie>IF\s+EXISTS\s+)?(?P<names>.+?)"
                   r"(?:\s+(?:CASCADE|RESTRICT))?\s*$", re.I | re.S)


def analyse_drop(sql: str) -> Stmt:
    """DROP SEQUENCE [IF EXISTS] a, b [CASCADE]."""
    m = _DROP.match(sql)
    if m is None:
        raise SyntaxError_("syntax error in DROP SEQUENCE")
    names = [parse_qualified(n.strip()) for n in m.group("names").split(",")]
    if_exists = bool(m.group("ie"))

    def run(s: SQLSession, p: list[Any]) -> Result:
        for schema, name in names:
            if missing_schema(s, schema, if_exists):
                continue
            seq = find_sequence(s.catalog(), schema, name, s.search_path())
            if seq is None:
                skip_or_raise(s, f'sequence "{name}"', if_exists, UndefinedTable)
                continue
            s.store.delete(s.ensure_txn(), s.db.oid, seq)
            s.store.forget_sequence(seq.oid)
            s.catalog_changed()
        return Result("DROP SEQUENCE")

    return Stmt(sql, "ddl", run, None, [], -1, tag="DROP SEQUENCE")


def analyse_create(session: SQLSession, sql: str, m0: Any) -> Stmt:
    """CREATE / ALTER / DROP SEQUENCE (recognised by the pre-parser)."""
    if sql[:4].upper() == "DROP":
        return analyse_drop(sql)
    m = _HEAD.match(sql)
    if m is None:
        raise SyntaxError_("syntax error in sequence statement")
    verb = m.group("verb").upper()
    schema, name = parse_qualified(m.group("name"))
    ren = _RENAME.match(m.group("rest")) if verb == "ALTER" else None
    if ren is not None:
        return _analyse_rename(sql, schema, name, unquote_ident(ren.group(1)),
                               bool(m.group("ine")))
    opts = _options(m.group("rest"))
    if_clause = bool(m.group("ine"))
    if "logged" in opts and (verb == "CREATE" or len(opts) > 1):  # NB: SET LOGGED stands alone
        rest = m.group("rest")
        at = re.search(r"\bSET\s+(?:UN)?LOGGED\b", rest, re.I)
        assert at is not None
        word = rest[at.start():].split()[0] if verb == "CREATE" or rest[:at.start()].strip() \
            else rest[at.end():].split()[0]
        raise SyntaxError_(f'syntax error at or near "{word}"')
    persistence = "u" if m.group("unlogged") else "p"  # NB: PostgreSQL 15's unlogged sequences

    def run(s: SQLSession, p: list[Any]) -> Result:
        cat = s.catalog()
        if verb == "CREATE":
            if m.group("temp") and schema is not None and not schema.startswith("pg_temp"):
                raise InvalidTableDefinition(
                    "cannot create temporary relation in non-temporary schema")
            if m.group("temp") and schema is None:  # NB: pg_temp, dropped with the session
                temp = temp_schema(s)
                cat = s.catalog()
                sch = creation_schema(cat, temp, s.search_path())
            else:
                sch = creation_schema(cat, schema, s.search_path())
            if relation_name_taken(cat, sch.oid, name):
                if if_clause:
                    s.notice(f'relation "{name}" already exists, skipping', sqlstate="42P07")
                    return Result("CREATE SEQUENCE")
                raise DuplicateTable(f'relation "{name}" already exists')
            created = _apply(Sequence(s.store.allocate_oid(), name, sch.oid,
                                      owner=current_role_oid(s), persistence=persistence),
                             opts, True)
            if "owned" in opts:
                created = dataclasses.replace(created,
                                              owned_by=owned_by(s, created, opts["owned"]))
            s.store.put(s.ensure_txn(), s.db.oid, created)
            s.catalog_changed()
            return Result("CREATE SEQUENCE")
        seq = find_sequence(cat, schema, name, s.search_path())
        if seq is None:
            skip_or_raise(s, f'relation "{name}"', if_clause, UndefinedTable)
            return Result("ALTER SEQUENCE")
        if "logged" in opts:
            return set_sequence_logged(s, seq, opts["logged"].upper() == "LOGGED")
        new = _apply(seq, opts, False)
        if "owned" in opts:
            new = dataclasses.replace(new, owned_by=owned_by(s, new, opts["owned"]))
        s.store.put(s.ensure_txn(), s.db.oid, new)
        s.catalog_changed()
        if opts.get("has_restart"):
            value = int(opts["restart"]) if opts.get("restart") else new.start
            s.store.setval(new, value, False)
        return Result("ALTER SEQUENCE")

    return Stmt(sql, "ddl", run, None, [], -1, tag=f"{verb} SEQUENCE")


def set_sequence_logged(s: SQLSession, seq: Sequence, logged: bool) -> Result:
    """ALTER SEQUENCE s SET LOGGED / SET UNLOGGED (PostgreSQL 15): pg_class.relpersistence;
    42P16 for a temporary sequence, as for a table."""
    schema = s.catalog().schema_by_oid(seq.schema_oid)
    if schema is not None and schema.name.startswith("pg_temp"):
        raise InvalidTableDefinition(f'cannot change logged status of table "{seq.name}" '
                                     "because it is temporary")
    want = "p" if logged else "u"
    if seq.persistence != want:
        s.store.put(s.ensure_txn(), s.db.oid, dataclasses.replace(seq, persistence=want))
        s.catalog_changed()
    return Result("ALTER SEQUENCE")


_RENAME = re.compile(r"\s*RENAME\s+TO\s+(\"(?:[^\"]|\"\")+\"|[A-Za-z_][A-Za-z_0-9$]*)\s*;?\s*$",
                     re.I)


def _analyse_rename(sql: str, schema: str | None, name: str, new_name: str,
                    if_exists: bool) -> Stmt:
    """ALTER SEQUENCE [IF EXISTS] name RENAME TO new_name (defaults read it by OID)."""

    def run(s: SQLSession, p: list[Any]) -> Result:
        cat = s.catalog()
        seq = find_sequence(cat, schema, name, s.search_path())
        if seq is None:
            skip_or_raise(s, f'relation "{name}"', if_exists, UndefinedTable)
            return Result("ALTER SEQUENCE")
        if relation_name_taken(cat, seq.schema_oid, new_name):
            raise DuplicateTable(f'relation "{new_name}" already exists')
        txn = s.ensure_txn()
        s.store.put(txn, s.db.oid, dataclasses.replace(seq, name=new_name))
        # NB: PostgreSQL's defaults hold the sequence's OID (a regclass); ours hold its
        # name, so nextval('old'::regclass) defaults follow the rename here
        old_ref, new_ref = f"'{seq.name}'::regclass", f"'{new_name}'::regclass"
        for t in cat.tables:
            if t.schema_oid != seq.schema_oid or not any(
                    c.default and old_ref in c.default for c in t.columns):
                continue
            cols = tuple(dataclasses.replace(c, default=c.default.replace(old_ref, new_ref))
                         if c.default and old_ref in c.default else c for c in t.columns)
            s.store.put(txn, s.db.oid, dataclasses.replace(t, columns=cols))
        s.catalog_changed()
        return Result("ALTER SEQUENCE")

    return Stmt(sql, "ddl", run, None, [], -1, tag="ALTER SEQUENCE")


def create_from_tree(s: SQLSession, tree: exp.Create) -> str:
    """CREATE SEQUENCE reached through sqlglot (normally the pre-parser catches it)."""
    stmt = analyse_create(s, tree.sql("postgres"), None)
    return stmt.run(s, []).tag


def alter_from_tree(s: SQLSession, tree: exp.Alter) -> str:
    """ALTER SEQUENCE reached through sqlglot."""
    stmt = analyse_create(s, tree.sql("postgres"), None)
    return stmt.run(s, []).tag


def drop_sequences(s: SQLSession, tree: exp.Drop) -> str:
    """DROP SEQUENCE reached through sqlglot."""
    return analyse_drop(tree.sql("postgres")).run(s, []).tag
