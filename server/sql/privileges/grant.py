"""GRANT and REVOKE: of privileges on objects, and of roles to roles.

Privileges on tables (and views), their columns, sequences, schemas,
functions, databases and large objects, to roles or PUBLIC, WITH GRANT OPTION; `ALL
TABLES|SEQUENCES|FUNCTIONS IN SCHEMA`. The grantor recorded is the owner when
the owner or a superuser grants (as PostgreSQL does), else the granting role,
which must hold the privilege WITH GRANT OPTION: with none of them it gets
PostgreSQL's warning `no privileges were granted for "t"` (01007), with no
privilege at all its error `permission denied for table t` (42501).

`GRANT role TO role` records a membership on the member (`Role.member_of`).
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

from ...errors import (
    DependentObjectsStillExist,
    InsufficientPrivilege,
    InvalidSchemaName,
    SQLError,
    SyntaxError_,
    UndefinedColumn,
    UndefinedObject,
    UndefinedTable,
)
from ...pgwire.backend import Result
from ..catalog.model import CatalogSnapshot, Role, Table
from ..ddl.names import find_relation, find_sequence, parse_qualified, schema_by_name
from ..ddl.routines import find_routine
from ..largeobj.objects import lookup as find_large_object
from ..largeobj.objects import save as save_large_object
from ..parse import unquote_ident
from ..stmt import Stmt
from .acl import ALL_PRIVS, PRIV_LETTERS, PUBLIC, add, parse_item, remove, revoke
from .check import (
    current_role,
    is_owner,
    member_roles,
    object_acl,
    object_owner,
    privilege_roles,
    relation_noun,
    role_by_name,
)

if TYPE_CHECKING:
    from ..session import SQLSession

_OBJ = (r"(?P<objtype>ALL\s+(?:TABLES|SEQUENCES|FUNCTIONS|PROCEDURES|ROUTINES)\s+IN\s+SCHEMA|"
        r"TABLE|SEQUENCE|SCHEMA|FUNCTION|PROCEDURE|ROUTINE|DATABASE|DOMAIN|TYPE|LANGUAGE|"
        r"FOREIGN\s+DATA\s+WRAPPER|FOREIGN\s+SERVER|LARGE\s+OBJECT|TABLESPACE|PARAMETER)?")
_GRANT = re.compile(r"GRANT\s+(?P<privs>.+?)\s+ON\s+" + _OBJ + r"\s*(?P<objs>.+?)\s+TO\s+"
                    r"(?P<who>.+?)(?P<opt>\s+WITH\s+GRANT\s+OPTION)?"
                    r"(?:\s+GRANTED\s+BY\s+\S+)?\s*;?\s*$", re.I | re.S)
_REVOKE = re.compile(r"REVOKE\s+(?P<opt>GRANT\s+OPTION\s+FOR\s+)?(?P<privs>.+?)\s+ON\s+" + _OBJ
                     + r"\s*(?P<objs>.+?)\s+FROM\s+(?P<who>.+?)"
                     r"(?:\s+GRANTED\s+BY\s+\S+)?(?:\s+(?P<behavior>CASCADE|RESTRICT))?\s*;?\s*$",
                     re.I | re.S)
_GRANT_ROLE = re.compile(r"GRANT\s+(?P<roles>.+?)\s+TO\s+(?P<who>.+?)"
                         r"(?P<opt>\s+WITH\s+ADMIN\s+OPTION)?(?:\s+GRANTED\s+BY\s+\S+)?\s*;?\s*$",
                         re.I | re.S)
_REVOKE_ROLE = re.compile(r"REVOKE\s+(?P<opt>ADMIN\s+OPTION\s+FOR\s+)?(?P<roles>.+?)\s+FROM\s+"
                          r"(?P<who>.+?)(?:\s+GRANTED\s+BY\s+\S+)?"
                          r"(?:\s+(?:CASCADE|RESTRICT))?\s*;?\s*$", re.I | re.S)
_HAS_ON = re.compile(r"\sON\s", re.I)
_PRIV = re.compile(r"\s*(?P<name>ALL(?:\s+PRIVILEGES)?|[A-Za-z]+)\s*(?:\((?P<cols>[^)]*)\))?\s*$",
                   re.I)


def split_list(text: str) -> list[str]:
    """Splits at top-level commas (not inside parentheses or quotes)."""
    out, depth, cur, quoted = [], 0, "", False
    for ch in text:
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch == "(":
            depth += 1
        elif not quoted and ch == ")":
            depth -= 1
        elif ch == "," and depth == 0 and not quoted:
            out.append(cur.strip())
            cur = ""
            continue
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def analyse(session: SQLSession, sql: str) -> Stmt:
    """Builds the Stmt of a GRANT or REVOKE."""
    grant = sql.lstrip()[:5].upper() == "GRANT"
    if not _HAS_ON.search(sql):
        rm = (_GRANT_ROLE if grant else _REVOKE_ROLE).match(sql.strip())
        if rm is None:
            raise SyntaxError_("syntax error at or near \"" + sql.split()[-1] + '"')
        return Stmt(sql, "ddl", lambda s, p: _roles(s, rm, grant), None, [], -1,
                    tag="GRANT ROLE" if grant else "REVOKE ROLE")
    m = (_GRANT if grant else _REVOKE).match(sql.strip())
    if m is None:
        raise SyntaxError_("syntax error at or near \"" + sql.split()[-1] + '"')
    tag = "GRANT" if grant else "REVOKE"
    return Stmt(sql, "ddl", lambda s, p: _objects(s, m, grant), None, [], -1, tag=tag)


# -- grantees -----------------------------------------------------------------


def _grantees(s: SQLSession, cat: CatalogSnapshot, text: str) -> list[int]:
    out = []
    for raw in split_list(text):
        word = re.sub(r"^GROUP\s+", "", raw, flags=re.I)
        up = word.upper()
        if up == "PUBLIC":
            out.append(PUBLIC)
            continue
        if up in ("CURRENT_USER", "CURRENT_ROLE", "SESSION_USER"):
            role = current_role(s, cat) if up != "SESSION_USER" else role_by_name(cat, s.user)
        else:
            name = unquote_ident(word)
            role = role_by_name(cat, name)
            if role is None:
                raise UndefinedObject(f'role "{name}" does not exist')
        if role is not None:
            out.append(role.oid)
    return out


# -- privileges on objects --------------------------------------------------


def _privs(text: str, kind: str) -> tuple[str, dict[str, list[str]]]:
    """(letters, {letter: column names}) of a privilege list; 0LP01 for a privilege the kind
    has not."""
    letters, cols = "", dict[str, list[str]]()
    for part in split_list(text):
        m = _PRIV.match(part)
        if m is None:
            raise SyntaxError_(f'syntax error at or near "{part.split()[0]}"')
        name = m.group("name").upper()
        if name.startswith("ALL"):
            got = ALL_PRIVS[kind]
        else:
            got = PRIV_LETTERS.get(name, "")
            if not got:
                raise SyntaxError_(f'unrecognized privilege type "{name.lower()}"')
            if got not in ALL_PRIVS[kind]:
                raise SQLError(f"invalid privilege type {name} for {_KIND_WORD[kind]}",
                               sqlstate="0LP01")
        if m.group("cols"):
            for c in got:
                cols.setdefault(c, []).extend(unquote_ident(x.strip())
                                              for x in split_list(m.group("cols")))
        else:
            letters += "".join(c for c in got if c not in letters)
    return letters, cols


_KIND_WORD = {"table": "table", "view": "table", "sequence": "sequence",
              "schema": "schema", "function": "function", "database": "database",
              "column": "column", "large object": "large object"}


def _targets(s: SQLSession, cat: CatalogSnapshot, objtype: str, objs: str) -> list[tuple[str, Any]]:
    """The (kind, catalog object) pairs a GRANT names."""
    out: list[tuple[str, Any]] = []
    ot = " ".join(objtype.upper().split())
    path = s.search_path()
    if ot.startswith("ALL "):
        for raw in split_list(objs):
            sch = schema_by_name(cat, unquote_ident(raw))
            if sch is None:
                raise InvalidSchemaName(f'schema "{unquote_ident(raw)}" does not exist')
            if "TABLES" in ot:
                out.extend(("view" if t.kind == "v" else "table", t) for t in cat.tables
                           if t.schema_oid == sch.oid and t.kind in ("r", "v"))
            elif "SEQUENCES" in ot:
                out.extend(("sequence", q) for q in cat.sequences if q.schema_oid == sch.oid)
            else:  # NB: ALL FUNCTIONS, ALL PROCEDURES or ALL ROUTINES
                kinds = "f" if "FUNCTIONS" in ot else "p" if "PROCEDURES" in ot else "fp"
                out.extend(("function", f) for f in cat.functions
                           if f.schema_oid == sch.oid and f.kind in kinds)
        return out
    for raw in split_list(objs):
        if ot in ("", "TABLE"):
            schema, name = parse_qualified(raw)
            t = find_relation(cat, schema, name, path)
            if t is not None:
                out.append(("view" if t.kind == "v" else "table", t))
                continue
            q = find_sequence(cat, schema, name, path)
            if q is None:
                raise UndefinedTable(f'relation "{raw}" does not exist')
            out.append(("sequence", q))
        elif ot == "SEQUENCE":
            schema, name = parse_qualified(raw)
            q = find_sequence(cat, schema, name, path)
            if q is None:
                raise UndefinedTable(f'relation "{raw}" does not exist')
            out.append(("sequence", q))
        elif ot == "SCHEMA":
            sch = schema_by_name(cat, unquote_ident(raw))
            if sch is None:
                raise InvalidSchemaName(f'schema "{unquote_ident(raw)}" does not exist')
            out.append(("schema", sch))
        elif ot == "DATABASE":
            name = unquote_ident(raw)
            db = next((d for d in cat.databases if d.name == name), None)
            if db is None:
                raise SQLError(f'database "{name}" does not exist', sqlstate="3D000")
            out.append(("database", db))
        elif ot in ("FUNCTION", "PROCEDURE", "ROUTINE"):
            out.append(("function", find_routine(s, ot, raw)))
        elif ot == "LARGE OBJECT":
            lo = find_large_object(s, raw)
            if lo is None:
                raise UndefinedObject(f"large object {raw} does not exist")
            out.append(("large object", lo))
        else:
            raise SQLError(f"GRANT ON {ot} is not supported", sqlstate="0A000")
    return out


def _noun(kind: str, obj: Any) -> str:
    return relation_noun(obj) if kind in ("table", "view") else kind


def _objects(s: SQLSession, m: re.Match[str], grant: bool) -> Result:
    cat = s.catalog()
    role = current_role(s, cat)
    grantees = _grantees(s, cat, m.group("who"))
    if grant and m.group("opt") and PUBLIC in grantees:
        raise SQLError("grant options can only be granted to roles", sqlstate="0LP01")
    txn = s.ensure_txn()
    for kind, obj in _targets(s, cat, m.group("objtype") or "", m.group("objs")):
        letters, cols = _privs(m.group("privs"), kind)
        if cols and kind not in ("table", "view"):
            raise SQLError(f"invalid privilege type for {_KIND_WORD[kind]}", sqlstate="0LP01")
        owner = object_owner(kind, obj)
        acl = object_acl(kind, obj)
        grantor = owner
        if role is not None and not is_owner(cat, role, owner):
            letters, cols, grantor = _grantable(s, cat, role, acl, kind, obj, letters, cols,
                                                grant)
        star = "*" if grant and m.group("opt") else ""
        for g in grantees:
            if letters:
                if grant:
                    acl = add(acl, g, "".join(c + star for c in letters), grantor)
                else:
                    cascade = (m.group("behavior") or "").upper() == "CASCADE"
                    revoked = revoke(acl, g, letters, bool(m.group("opt")), cascade)
                    if revoked is None:
                        raise DependentObjectsStillExist(
                            "dependent privileges exist",
                            hint="Use CASCADE to revoke them too.")
                    acl = revoked
        column_acls = obj.column_acls if isinstance(obj, Table) else ()
        if cols:
            column_acls = _column_acls(obj, column_acls, cols, grantees, grantor, grant, star)
        new = dataclasses.replace(obj, acl=acl)
        if kind in ("table", "view"):
            new = dataclasses.replace(new, column_acls=column_acls)
        if kind == "large object":  # NB: not a catalog object: a row of its own space
            save_large_object(s, new)
            continue
        s.store.put(txn, 0 if kind == "database" else s.db.oid, new)
    s.catalog_changed()
    return Result("GRANT" if grant else "REVOKE")


def _grantable(s: SQLSession, cat: CatalogSnapshot, role: Role, acl: tuple[str, ...],
               kind: str, obj: Any, letters: str, cols: dict[str, list[str]],
               grant: bool) -> tuple[str, dict[str, list[str]], int]:
    """Narrows a non-owner's GRANT to what it holds WITH GRANT OPTION (PostgreSQL's
    restrict_and_check_grant)."""
    if role.superuser:
        return letters, cols, object_owner(kind, obj)
    roles = privilege_roles(cat, role)
    held, options = "", ""
    for item in acl:
        g, p, _ = parse_item(item)
        if g in roles:
            for i, c in enumerate(p):
                if c != "*":
                    held += c
                    if p[i + 1: i + 2] == "*":
                        options += c
    wanted = letters + "".join(cols)
    if not any(c in held for c in wanted) and not options:
        noun = _noun(kind, obj)
        raise InsufficientPrivilege(f"permission denied for {noun} {obj.name}")
    kept = "".join(c for c in letters if c in options)
    kept_cols = {c: v for c, v in cols.items() if c in options}
    verb = "granted" if grant else "revoked"
    if not kept and not kept_cols:
        s.notice(f'no privileges were {verb} for "{obj.name}"', severity="WARNING",
                 sqlstate="01007")
    elif len(kept) + len(kept_cols) < len(letters) + len(cols):
        s.notice(f'not all privileges were {verb} for "{obj.name}"', severity="WARNING",
                 sqlstate="01007")
    return kept, kept_cols, role.oid


def _column_acls(table: Any, column_acls: tuple[str, ...], cols: dict[str, list[str]],
                 grantees: list[int], grantor: int, grant: bool, star: str) -> tuple[str, ...]:
    by_name = {c.name: c.attnum for c in table.live_columns}
    per: dict[int, tuple[str, ...]] = {}
    for entry in column_acls:
        num, item = entry.split(":", 1)
        per.setdefault(int(num), ())
        per[int(num)] += (item,)
    for letter, names in cols.items():
        for name in names:
            if name not in by_name:
                raise UndefinedColumn(
                    f'column "{name}" of relation "{table.name}" does not exist')
            a = by_name[name]
            for g in grantees:
                cur = per.get(a, ())
                per[a] = add(cur, g, letter + star, grantor) if grant else remove(cur, g, letter)
    return tuple(f"{a}:{item}" for a in sorted(per) for item in per[a])


# -- roles to roles --------------------------------------------------------


def _roles(s: SQLSession, m: re.Match[str], grant: bool) -> Result:
    cat = s.catalog()
    me = current_role(s, cat)
    granted = []
    for raw in split_list(m.group("roles")):
        name = unquote_ident(raw)
        r = role_by_name(cat, name)
        if r is None:
            raise UndefinedObject(f'role "{name}" does not exist')
        if me is not None and not (me.superuser or (me.createrole and not r.superuser)):
            raise InsufficientPrivilege(f'must have admin option on role "{name}"')
        granted.append(r)
    by_oid = {r.oid: r for r in cat.roles}
    txn = s.ensure_txn()
    for oid in _grantees(s, cat, m.group("who")):
        member = by_oid.get(oid)
        if member is None:
            continue
        for r in granted:
            if grant:
                if r.oid in member.member_of:
                    s.notice(f'role "{member.name}" is already a member of role "{r.name}"')
                    continue
                if member.oid in member_roles(cat, r):
                    raise SQLError(f'role "{r.name}" is a member of role "{member.name}"',
                                   sqlstate="0LP01")
                member = dataclasses.replace(member, member_of=member.member_of + (r.oid,))
            else:
                if r.oid not in member.member_of:
                    s.notice(f'role "{member.name}" is not a member of role "{r.name}"',
                             severity="WARNING", sqlstate="01000")
                    continue
                member = dataclasses.replace(
                    member, member_of=tuple(x for x in member.member_of if x != r.oid))
        s.store.put(txn, 0, member)
    s.catalog_changed()
    return Result("GRANT ROLE" if grant else "REVOKE ROLE")
