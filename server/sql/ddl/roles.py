"""Roles and databases: CREATE/ALTER/DROP ROLE|USER, CREATE/DROP DATABASE.

Passwords are stored as PostgreSQL stores them, so pgwire's authentication
can verify them the same way: a SCRAM-SHA-256 verifier
(`SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`, made with
scramp) by default, or `md5` + md5(password + role name) when
`password_encryption = md5`. A password given already hashed is kept as is.

Each database is its own namespace of schemas and tables; CREATE DATABASE
gives it a `public` schema. Neither CREATE nor DROP DATABASE may run inside
a transaction block (25001), as in PostgreSQL.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import re
from typing import TYPE_CHECKING, Any

from scramp import ScramMechanism

from ...errors import (
    DependentObjectsStillExist,
    DuplicateDatabase,
    DuplicateObject,
    FeatureNotSupported,
    InsufficientPrivilege,
    InvalidCatalogName,
    ObjectInUse,
    SyntaxError_,
    UndefinedObject,
)
from ...pgwire.backend import Result
from ..catalog.model import PUBLIC_OID, Database, Role, Schema
from ..largeobj.objects import all_objects as all_large_objects
from ..privileges.check import current_role, must_own
from ..stmt import Stmt
from .names import parse_qualified, skip_or_raise
from .roledeps import role_dependents

if TYPE_CHECKING:
    from ..session import SQLSession

_ROLE = re.compile(r"(?P<verb>CREATE|ALTER|DROP)\s+(?P<kind>ROLE|USER|GROUP)\s+"
                   r"(?P<ie>IF\s+EXISTS\s+)?(?P<name>\"(?:[^\"]|\"\")+\"|[\w$]+)"
                   r"(?P<rest>.*)$", re.I | re.S)
_DB = re.compile(r"(?P<verb>CREATE|DROP|ALTER)\s+DATABASE\s+(?P<ie>IF\s+(?:NOT\s+)?EXISTS\s+)?"
                 r"(?P<name>\"(?:[^\"]|\"\")+\"|[\w$]+)(?P<rest>.*)$", re.I | re.S)
_PASSWORD = re.compile(r"(?:ENCRYPTED\s+)?PASSWORD\s+(?P<pw>NULL|'(?:[^']|'')*')", re.I)


def scram_verifier(password: str) -> str:
    """Returns a PostgreSQL-format SCRAM-SHA-256 verifier for a password."""
    salt, stored, server, iterations = ScramMechanism("SCRAM-SHA-256").make_auth_info(
        password, iteration_count=4096)
    b64 = lambda b: base64.b64encode(b).decode()  # noqa: E731
    return f"SCRAM-SHA-256${iterations}:{b64(salt)}${b64(stored)}:{b64(server)}"


def hash_password(s: SQLSession, role: str, password: str) -> str:
    """Hashes a password per `password_encryption` (kept as is if already hashed)."""
    if password.startswith("SCRAM-SHA-256$") or (password.startswith("md5") and len(password)
                                                  == 35):
        return password
    if (s.settings.get("password_encryption") or "").lower() == "md5":
        return "md5" + hashlib.md5((password + role).encode()).hexdigest()
    return scram_verifier(password)


def _role_options(s: SQLSession, role: Role, rest: str, creating_user: bool) -> Role:
    words = " " + " ".join(_PASSWORD.sub(" ", rest).upper().split()) + " "
    kw: dict[str, Any] = {}
    for flag, field in (("SUPERUSER", "superuser"), ("CREATEDB", "createdb"),
                        ("CREATEROLE", "createrole"), ("LOGIN", "login"),
                        ("INHERIT", "inherit")):
        if f" NO{flag} " in words:
            kw[field] = False
        elif f" {flag} " in words:
            kw[field] = True
    m = _PASSWORD.search(rest)
    if m:
        pw = m.group("pw")
        kw["password"] = None if pw.upper() == "NULL" else hash_password(
            s, role.name, pw[1:-1].replace("''", "'"))
    return dataclasses.replace(role, **kw)


def _may_manage(me: Role | None, target: Role, verb: str) -> None:
    """42501 unless `me` may create/alter/drop `target`: superusers only for superusers,
    else CREATEROLE (PostgreSQL 15's rules and messages)."""
    if me is None or me.superuser:
        return
    if target.superuser:
        raise InsufficientPrivilege({
            "create": "must be superuser to create superusers",
            "alter": "must be superuser to alter superuser roles or change superuser attribute",
            "drop": "must be superuser to drop superusers"}[verb])
    if not me.createrole:
        raise InsufficientPrivilege({"create": "permission denied to create role",
                                     "alter": "permission denied",
                                     "drop": "permission denied to drop role"}[verb])


def _name(text: str) -> str:
    return parse_qualified(text)[1]


def analyse(session: SQLSession, sql: str, kind: str, m0: Any) -> Stmt:
    """Builds the Stmt of a role or database statement."""
    if kind == "database":
        return _analyse_database(sql)
    m = _ROLE.match(sql)
    if m is None:
        raise SyntaxError_(f"syntax error at or near \"{sql.split()[-1]}\"")
    verb = m.group("verb").upper()
    is_user = m.group("kind").upper() == "USER"
    names_text = m.group("name") + m.group("rest") if verb == "DROP" else m.group("name")
    rest = m.group("rest")

    def run(s: SQLSession, p: list[Any]) -> Result:
        cat = s.store.snapshot(0) if s.txn_catalog is None else s.catalog()
        me = current_role(s, cat)
        txn = s.ensure_txn()
        if verb == "DROP":
            for raw in [x.strip() for x in names_text.split(",") if x.strip()]:
                name = _name(raw)
                role = next((r for r in cat.roles if r.name == name), None)
                if role is None:
                    skip_or_raise(s, f'role "{name}"', bool(m.group("ie")), UndefinedObject)
                    continue
                _may_manage(me, role, "drop")
                if name == s.user:
                    raise ObjectInUse("current user cannot be dropped")
                deps = role_dependents(s.catalog(), role.oid, s.search_path(),
                                       all_large_objects(s))
                if deps:
                    raise DependentObjectsStillExist(
                        f'role "{name}" cannot be dropped because some objects depend on it',
                        detail="\n".join(deps))
                s.store.delete(txn, 0, role)
            s.catalog_changed()
            return Result(f"DROP {m.group('kind').upper()}")
        name = _name(m.group("name"))
        role = next((r for r in cat.roles if r.name == name), None)
        if verb == "CREATE":
            if role is not None:
                raise DuplicateObject(f'role "{name}" already exists')
            role = Role(s.store.allocate_oid(), name, login=is_user)
        elif role is None:
            raise UndefinedObject(f'role "{name}" does not exist')
        new = _role_options(s, role, rest, is_user)
        if verb == "CREATE":
            _may_manage(me, new, "create")
        elif me is not None and not (me.oid == role.oid and new == dataclasses.replace(
                role, password=new.password)):
            _may_manage(me, role if role.superuser else new, "alter")
        s.store.put(txn, 0, new)
        s.catalog_changed()
        return Result(f"{verb} {m.group('kind').upper()}")

    return Stmt(sql, "ddl", run, None, [], -1, tag=f"{verb} ROLE")


_RENAME_DB = re.compile(r"\s*RENAME\s+TO\s+(?P<new>\"(?:[^\"]|\"\")+\"|[\w$]+)\s*;?\s*$", re.I)


def _alter_database(s: SQLSession, db: Database | None, name: str, rest: str) -> Result:
    """ALTER DATABASE name RENAME TO new; its other forms (SET, RESET, CONNECTION LIMIT, WITH
    options) are refused with 0A000 rather than accepted and ignored. OWNER TO is handled
    with the other owner changes (privileges.owner)."""
    m = _RENAME_DB.match(rest)
    if m is None:
        words = rest.split()
        shown = " ".join(words[:2 if words and words[0].upper() == "CONNECTION" else 1]).upper()
        raise FeatureNotSupported(f"ALTER DATABASE ... {shown} is not supported")
    if db is None:
        raise InvalidCatalogName(f'database "{name}" does not exist')
    me = current_role(s, s.catalog())
    must_own(s.catalog(), me, db.owner, "database", db.name)
    if me is not None and not (me.superuser or me.createdb):
        raise InsufficientPrivilege("permission denied to rename database")
    new = _name(m.group("new"))
    if db.oid == s.db.oid:
        raise ObjectInUse("current database cannot be renamed")
    if any(d.name == new for d in s.store.snapshot(0).databases):
        raise DuplicateDatabase(f'database "{new}" already exists')
    others = [x for x in s.engine.sessions() if x.db.oid == db.oid]
    if others:
        raise ObjectInUse(f'database "{name}" is being accessed by other users',
                          detail=f"There are {len(others)} other sessions using the database.")
    s.store.put(s.ensure_txn(), 0, dataclasses.replace(db, name=new))
    s.txn_ddl = True
    return Result("ALTER DATABASE")


def _analyse_database(sql: str) -> Stmt:
    m = _DB.match(sql)
    if m is None:
        raise SyntaxError_("syntax error in DATABASE statement")
    verb = m.group("verb").upper()
    name = _name(m.group("name"))

    def run(s: SQLSession, p: list[Any]) -> Result:
        cat = s.store.snapshot(0)
        db = next((d for d in cat.databases if d.name == name), None)
        me = current_role(s, s.catalog())
        txn = s.ensure_txn()
        if verb == "CREATE":
            if me is not None and not (me.superuser or me.createdb):
                raise InsufficientPrivilege("permission denied to create database")
            if db is not None:
                raise DuplicateDatabase(f'database "{name}" already exists')
            new = Database(s.store.allocate_oid(), name, me.oid if me is not None else 10)
            s.store.put(txn, 0, new)
            s.store.put(txn, new.oid, Schema(PUBLIC_OID, "public"))
            s.txn_ddl = True
            return Result("CREATE DATABASE")
        if verb == "ALTER":
            return _alter_database(s, db, name, m.group("rest"))
        if db is None:
            skip_or_raise(s, f'database "{name}"', bool(m.group("ie")), InvalidCatalogName)
            return Result("DROP DATABASE")
        must_own(s.catalog(), me, db.owner, "database", db.name)
        if db.oid == s.db.oid:
            raise ObjectInUse("cannot drop the currently open database")
        others = [x for x in s.engine.sessions() if x.db.oid == db.oid]
        if others:
            raise ObjectInUse(
                f'database "{name}" is being accessed by other users',
                detail=f"There are {len(others)} other sessions using the database.")
        s.pending_drops.extend(s.store.delete_database_objects(txn, db.oid))
        s.store.delete(txn, 0, db)
        s.txn_ddl = True
        return Result("DROP DATABASE")

    return Stmt(sql, "ddl", run, None, [], -1, no_block=verb != "ALTER",
                tag=f"{verb} DATABASE")
