"""CREATE COLLATION / DROP COLLATION: PostgreSQL's answers, never a silent success.

Cumulo has only the built-in code-point collations ("C", "POSIX", "default";
see `pgcatalog.collations`) and no collation library (no ICU, no OS locales),
so it cannot create a collation: CREATE COLLATION is 0A000, with PostgreSQL's
own message for ICU ("ICU is not supported in this build", what a PostgreSQL
built without ICU says). Before that, the checks PostgreSQL makes first are
made too: `FROM nope` is 42704. DROP COLLATION of an unknown name is 42704 (a
notice with IF EXISTS), of a built-in one 2BP01, as PostgreSQL.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ...errors import DependentObjectsStillExist, FeatureNotSupported, SyntaxError_
from ...pgwire.backend import Result
from ..pgcatalog.collations import COLLATION_OIDS, unknown
from ..stmt import Stmt
from .coldefs import quote_ident
from .names import parse_qualified

if TYPE_CHECKING:
    from ..session import SQLSession

_NAME = r'(?:"(?:[^"]|"")+"|[\w$.]+)'
_DROP = re.compile(r"DROP\s+COLLATION\s+(?P<ie>IF\s+EXISTS\s+)?(?P<names>" + _NAME +
                   r"(?:\s*,\s*" + _NAME + r")*)\s*(?:CASCADE|RESTRICT)?\s*;?\s*$", re.I)
_CREATE = re.compile(r"CREATE\s+COLLATION\s+(?:IF\s+NOT\s+EXISTS\s+)?(?P<name>" + _NAME + r")\s*"
                     r"(?:FROM\s+(?P<from>" + _NAME + r")|\((?P<opts>.*)\))\s*;?\s*$",
                     re.I | re.S)
_ICU = re.compile(r"\bprovider\s*=\s*'?icu'?", re.I)


def analyse(session: SQLSession, sql: str) -> Stmt:
    text = sql.strip()
    if text[:4].upper() == "DROP":
        m = _DROP.match(text)
        if m is None:
            raise SyntaxError_("syntax error in DROP COLLATION")
        names = [parse_qualified(n.strip())[1] for n in m.group("names").split(",")]
        if_exists = bool(m.group("ie"))
        return Stmt(sql, "ddl", lambda s, p: _drop(s, names, if_exists), None, [], -1,
                    tag="DROP COLLATION")
    m = _CREATE.match(text)
    if m is None:
        raise SyntaxError_("syntax error in CREATE COLLATION")
    source = parse_qualified(m.group("from"))[1] if m.group("from") else None
    icu = bool(_ICU.search(m.group("opts") or ""))
    return Stmt(sql, "ddl", lambda s, p: _create(source, icu), None, [], -1,
                tag="CREATE COLLATION")


def _create(source: str | None, icu: bool) -> Result:
    if source is not None and source not in COLLATION_OIDS:
        raise unknown(source)
    if icu:
        raise FeatureNotSupported("ICU is not supported in this build")
    raise FeatureNotSupported("CREATE COLLATION is not supported: only the built-in "
                              '"C", "POSIX" and "default" collations exist')


def _drop(s: SQLSession, names: list[str], if_exists: bool) -> Result:
    for name in names:
        if name in COLLATION_OIDS:
            raise DependentObjectsStillExist(
                f"cannot drop collation {quote_ident(name)} because it is required by the database system")
        if not if_exists:
            raise unknown(name)
        s.notice(f'collation "{name}" does not exist, skipping')
    return Result("DROP COLLATION")
