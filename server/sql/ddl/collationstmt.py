"""CREATE COLLATION / DROP COLLATION: code-point and ICU collations, with PostgreSQL's answers.

CREATE COLLATION makes a libc collation whose locale is "C", "POSIX" or
"C.UTF-8" (each orders by code point, in PostgreSQL too), an ICU one
(`provider = icu, locale = 'de-u-co-phonebk'`, `deterministic = false` too:
ordered and compared by ICU through `pgtypes.collated`), or a copy of either
(`FROM "C"`, `FROM "sv-x-icu"`). It is a catalog row (`catalog.model.Collation`,
transactional like any DDL) that pg_collation lists and a column's COLLATE may
name. Any other libc locale is PostgreSQL's own 22023 for a locale the
operating system lacks, which is this machine's truth; without PyICU an ICU
collation is 0A000 naming the extra to install. The options are checked as
PostgreSQL's DefineCollation checks them, in its order and with its messages.
DROP COLLATION refuses (2BP01, with PostgreSQL's DETAIL) while a column uses the
collation, or with CASCADE drops those columns; built-in ones are 2BP01, unknown
ones 42704 (a notice with IF EXISTS). ALTER COLLATION renames one (its columns
follow: they name their collation), gives it another owner or schema, or
refreshes its version (a NOTICE when ICU's is unchanged).
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

from sqlglot import exp

from ...errors import (
    DependentObjectsStillExist,
    DuplicateObject,
    FeatureNotSupported,
    InvalidParameterValue,
    SQLError,
    SyntaxError_,
    UndefinedObject,
)
from ...pgtypes import collated
from ...pgwire.backend import Result
from ..catalog.model import PG_CATALOG_OID, Collation, Table
from ..pgcatalog.collations import COLLATION_OIDS, created, unknown
from ..pgcatalog.icucollations import predefined
from ..pgcatalog.icucollations import version as icu_version
from ..privileges.check import current_role_name, current_role_oid, role_by_name
from ..stmt import Stmt
from .alter import drop_column
from .coldefs import quote_ident
from .depends import refuse_dependents, relation_description, report_cascade
from .names import creation_schema, parse_qualified, schema_by_name

if TYPE_CHECKING:
    from ..session import SQLSession

_NAME = r'(?:"(?:[^"]|"")+"|[\w$]+)(?:\.(?:"(?:[^"]|"")+"|[\w$]+))?'
_DROP = re.compile(r"DROP\s+COLLATION\s+(?P<ie>IF\s+EXISTS\s+)?(?P<names>" + _NAME +
                   r"(?:\s*,\s*" + _NAME + r")*)\s*(?P<how>CASCADE|RESTRICT)?\s*;?\s*$", re.I)
_CREATE = re.compile(r"CREATE\s+COLLATION\s+(?P<ine>IF\s+NOT\s+EXISTS\s+)?(?P<name>" + _NAME +
                     r")\s*(?:FROM\s+(?P<from>" + _NAME + r")|\((?P<opts>.*)\))\s*;?\s*$",
                     re.I | re.S)
_ALTER = re.compile(r"ALTER\s+COLLATION\s+(?P<name>" + _NAME + r")\s+(?:RENAME\s+TO\s+(?P<new>"
                    + _NAME + r")|OWNER\s+TO\s+(?P<owner>\S+)|SET\s+SCHEMA\s+(?P<schema>"
                    + _NAME + r")|(?P<refresh>REFRESH\s+VERSION))\s*;?\s*$", re.I | re.S)
_OPTION = re.compile(r"\s*(?P<key>\w+)\s*(?:=\s*(?P<value>'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|"
                     r"[^,\s]+))?\s*(?:,|$)", re.S)
_KNOWN = ("locale", "lc_collate", "lc_ctype", "provider", "deterministic", "version", "from")
CODE_POINT_LOCALES = frozenset({"C", "POSIX", "C.UTF-8", "C.utf8"})
_UTF8 = 6


def _value(raw: str | None) -> str:
    if raw is None:
        return ""
    if raw[:1] in "'\"":
        return raw[1:-1].replace(raw[0] * 2, raw[0])
    return raw


def _options(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for m in _OPTION.finditer(text):
        if not m.group("key"):
            continue
        key = m.group("key").lower()
        if key not in _KNOWN:
            raise SQLError(f'collation attribute "{key}" not recognized', sqlstate="42601")
        if key in out:
            raise SyntaxError_("conflicting or redundant options")
        out[key] = _value(m.group("value"))
    return out


def _truth(v: str) -> bool:
    low = v.lower()
    if low in ("true", "on", "1", "yes", ""):
        return True
    if low in ("false", "off", "0", "no"):
        return False
    raise SyntaxError_("deterministic requires a Boolean value")


Definition = tuple[str, bool, int, str | None, str | None, str | None]
# (provider, deterministic, encoding, collate, ctype, ICU locale)


def _source(s: SQLSession, text: str) -> Definition:
    """What the collation FROM names is."""
    schema, name = parse_qualified(text)
    if name == "default":
        raise SQLError('collation "default" cannot be copied', sqlstate="42P17")
    if schema in (None, "pg_catalog"):
        if name in ("ucs_basic", "C.utf8"):
            return "c", True, _UTF8, "C" if name == "ucs_basic" else name, \
                "C" if name == "ucs_basic" else name, None
        if name in COLLATION_OIDS:
            return "c", True, -1, name, name, None
        if name in predefined():
            return "i", True, -1, None, None, predefined()[name][1]
    c = created(s.catalog(), name)
    if c is None:
        raise unknown(name)
    return c.provider, c.deterministic, c.encoding, c.collate, c.ctype, c.iculocale


def _define(s: SQLSession, opts: dict[str, str] | None, source: str | None) -> Definition:
    """What the collation is, after PostgreSQL's checks (DefineCollation)."""
    if source is not None:
        return _source(s, source)
    assert opts is not None
    if "from" in opts:
        return _source(s, opts["from"])
    locale = opts.get("locale")
    if locale is not None and ("lc_collate" in opts or "lc_ctype" in opts):
        raise SyntaxError_("conflicting or redundant options",
                           detail="LOCALE cannot be specified together with LC_COLLATE or "
                           "LC_CTYPE.")
    provider = opts.get("provider", "libc").lower()
    if provider not in ("libc", "icu"):
        raise SQLError(f"unrecognized collation provider: {provider}", sqlstate="42P17")
    deterministic = _truth(opts["deterministic"]) if "deterministic" in opts else True
    if provider == "icu":
        if locale is None:
            raise SQLError('parameter "locale" must be specified', sqlstate="42P17")
        collated.require_icu()
        return "i", deterministic, -1, None, None, locale
    collate = locale if locale is not None else opts.get("lc_collate")
    ctype = locale if locale is not None else opts.get("lc_ctype")
    if collate is None:
        raise SQLError('parameter "lc_collate" must be specified', sqlstate="42P17")
    if ctype is None:
        raise SQLError('parameter "lc_ctype" must be specified', sqlstate="42P17")
    if not deterministic:
        raise FeatureNotSupported("nondeterministic collations not supported with this provider")
    for loc in (collate, ctype):
        if loc not in CODE_POINT_LOCALES:
            raise InvalidParameterValue(
                f'could not create locale "{loc}": No such file or directory',
                detail="The operating system could not find any locale data for the locale "
                f'name "{loc}".')
    return "c", True, _UTF8, collate, ctype, None  # NB: the database's encoding (FROM keeps -1)


def _create(s: SQLSession, name: str, schema: str | None, if_not_exists: bool,
            opts: dict[str, str] | None, source: str | None) -> Result:
    provider, deterministic, enc, collate, ctype, iculocale = _define(s, opts, source)
    if provider == "i":
        collated.require_icu()
    cat = s.catalog()
    sch = creation_schema(cat, schema, s.search_path())
    if name in COLLATION_OIDS or name in predefined() and sch.name == "pg_catalog" or any(
            c.name == name and c.schema_oid == sch.oid
                                     for c in cat.collations):
        if if_not_exists:
            s.notice(f'collation "{name}" already exists, skipping', sqlstate="42710")
            return Result("CREATE COLLATION")
        raise DuplicateObject(f'collation "{name}" already exists')
    s.store.put(s.ensure_txn(), s.db.oid, Collation(
        s.store.allocate_oid(), name, sch.oid, current_role_oid(s), provider, deterministic,
        enc, collate, ctype, iculocale,
        icu_version(iculocale) if iculocale is not None else None))
    s.catalog_changed()
    return Result("CREATE COLLATION")


def collation_users(s: SQLSession, found: list[Collation]
                    ) -> tuple[list[str], list[str], list[tuple[Table, str]]]:
    """The columns using the collations: DETAIL lines, notice objects, (table, column)s."""
    cat, visible = s.catalog(), s.search_path()
    lines, objects, columns = [], [], []
    for coll in found:
        for tb in cat.tables:
            if tb.kind == "v":
                continue
            for c in tb.live_columns:
                if c.collation == coll.name:
                    target = f"column {c.name} of {relation_description(cat, tb, visible)}"
                    lines.append(f"{target} depends on collation {coll.name}")
                    objects.append(target)
                    columns.append((tb, c.name))
    # NB: PostgreSQL reports them last found first (the last-named collation's, the
    # latest column's)
    return lines[::-1], objects[::-1], columns[::-1]


def _drop(s: SQLSession, names: list[tuple[str | None, str]], if_exists: bool,
          cascade: bool) -> Result:
    cat = s.catalog()
    found: list[Collation] = []
    for schema, name in names:
        if (name in COLLATION_OIDS or name in predefined()) and schema in (None, "pg_catalog"):
            raise DependentObjectsStillExist(
                f"cannot drop collation {quote_ident(name)} because it is required by the "
                "database system")
        sch = schema_by_name(cat, schema) if schema is not None else None
        coll = next((c for c in cat.collations if c.name == name
                     and (schema is None or sch is not None and c.schema_oid == sch.oid)), None)
        if coll is None:
            if not if_exists:
                raise unknown(name)
            s.notice(f'collation "{name}" does not exist, skipping')
            continue
        found.append(coll)
    if not found:
        return Result("DROP COLLATION")
    lines, objects, columns = collation_users(s, found)
    if not cascade and len(found) > 1 and lines:
        raise DependentObjectsStillExist(
            "cannot drop desired object(s) because other objects depend on them",
            detail="\n".join(lines), hint="Use DROP ... CASCADE to drop the dependent objects too.")
    if not cascade:
        refuse_dependents(f"collation {found[0].name}", lines)
    for tb, col in columns:
        table = s.catalog().table_by_oid(tb.oid)
        if table is not None:
            drop_column(s, table, exp.Drop(kind="COLUMN", cascade=True,
                                           tables=[exp.column(col, quoted=True)]))
    report_cascade(s, objects)
    txn = s.ensure_txn()
    for coll in found:
        s.store.delete(txn, s.db.oid, coll)
    s.catalog_changed()
    return Result("DROP COLLATION")


def _find(s: SQLSession, schema: str | None, name: str) -> Collation:
    """A created collation by (possibly qualified) name: 42704 if there is none."""
    cat = s.catalog()
    sch = schema_by_name(cat, schema) if schema is not None else None
    coll = next((c for c in cat.collations if c.name == name
                 and (schema is None or sch is not None and c.schema_oid == sch.oid)), None)
    if coll is None:
        raise unknown(name)
    return coll


def _rename(s: SQLSession, coll: Collation, new: str, schema_oid: int) -> None:
    """The collation under another name or schema; its columns name it anew."""
    cat = s.catalog()
    clash = next((c for c in cat.collations if c.name == new and c.schema_oid == schema_oid
                  and c.oid != coll.oid), None)
    if clash is not None or (schema_oid == PG_CATALOG_OID and new in predefined()):
        where = next((x.name for x in cat.schemas if x.oid == schema_oid), "")
        enc = "" if clash is None or clash.encoding == -1 else ' for encoding "UTF8"'
        raise DuplicateObject(f'collation "{new}"{enc} already exists in schema "{where}"')
    txn = s.ensure_txn()
    if new != coll.name:
        for tb in cat.tables:
            if any(c.collation == coll.name for c in tb.columns):
                cols = tuple(dataclasses.replace(c, collation=new) if c.collation == coll.name
                             else c for c in tb.columns)
                s.store.put(txn, s.db.oid, dataclasses.replace(tb, columns=cols))
    s.store.put(txn, s.db.oid, dataclasses.replace(coll, name=new, schema_oid=schema_oid))


def _alter(s: SQLSession, m: re.Match[str]) -> Result:
    schema, name = parse_qualified(m.group("name"))
    coll = _find(s, schema, name)
    if m.group("new"):
        _rename(s, coll, parse_qualified(m.group("new"))[1], coll.schema_oid)
    elif m.group("schema"):
        target = schema_by_name(s.catalog(), parse_qualified(m.group("schema"))[1])
        if target is None:
            raise SQLError(f'schema "{parse_qualified(m.group("schema"))[1]}" does not exist',
                           sqlstate="3F000")
        _rename(s, coll, coll.name, target.oid)
    elif m.group("owner"):
        who = m.group("owner")
        low = who.lower()
        role_name = current_role_name(s) if low in ("current_user", "current_role") \
            else s.user if low == "session_user" else parse_qualified(who)[1]
        role = role_by_name(s.catalog(), role_name)
        if role is None:
            raise UndefinedObject(f'role "{role_name}" does not exist')
        s.store.put(s.ensure_txn(), s.db.oid, dataclasses.replace(coll, owner=role.oid))
    else:
        now = icu_version(coll.iculocale) if coll.iculocale is not None else None
        if now == coll.version:
            s.notice("version has not changed")
        else:
            s.notice(f'changing version from {coll.version} to {now}')
            s.store.put(s.ensure_txn(), s.db.oid, dataclasses.replace(coll, version=now))
    s.catalog_changed()
    return Result("ALTER COLLATION")


def analyse(session: SQLSession, sql: str) -> Stmt:
    text = sql.strip()
    if text[:5].upper() == "ALTER":
        am = _ALTER.match(text)
        if am is None:
            raise SyntaxError_("syntax error in ALTER COLLATION")
        return Stmt(sql, "ddl", lambda s, p: _alter(s, am), None, [], -1,
                    tag="ALTER COLLATION")
    if text[:4].upper() == "DROP":
        m = _DROP.match(text)
        if m is None:
            raise SyntaxError_("syntax error in DROP COLLATION")
        names = [parse_qualified(n.strip()) for n in
                 re.findall(_NAME, m.group("names"))]
        if_exists = bool(m.group("ie"))
        cascade = (m.group("how") or "").upper() == "CASCADE"
        return Stmt(sql, "ddl", lambda s, p: _drop(s, names, if_exists, cascade), None, [], -1,
                    tag="DROP COLLATION")
    m = _CREATE.match(text)
    if m is None:
        raise SyntaxError_("syntax error in CREATE COLLATION")
    schema, name = parse_qualified(m.group("name"))
    source = m.group("from")
    opts = _options(m.group("opts")) if m.group("opts") is not None else None
    ine = bool(m.group("ine"))
    return Stmt(sql, "ddl", lambda s, p: _create(s, name, schema, ine, opts, source), None, [],
                -1, tag="CREATE COLLATION")
