"""Naming a function or procedure in DDL, and ALTER FUNCTION | PROCEDURE | ROUTINE ...
RENAME TO / SET SCHEMA.

`COMMENT ON PROCEDURE p(int)`, `ALTER ROUTINE p RENAME TO q` and the like name a
routine by its name alone (it must then be the only one so named) or with its
argument types; the modes and parameter names may be written too, as in CREATE.
A procedure's OUT parameters may be listed (PostgreSQL 14), a function's are
ignored. `find_routine` answers PostgreSQL's errors for each way that fails.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

import sqlglot
from sqlglot import exp

from ...errors import (
    InvalidSchemaName,
    SQLError,
    SyntaxError_,
    UndefinedFunction,
)
from ...pgwire.backend import Result
from ..catalog.model import Function
from ..catalog.routineparams import all_arg_types, declared_args
from ..expr.types import domain_of, type_by_name, type_name
from ..plpgsql import routinectx
from ..privileges.check import current_role, must_own
from ..stmt import Stmt

if TYPE_CHECKING:
    from ..session import SQLSession

_KINDS = {"FUNCTION": ("f",), "PROCEDURE": ("p",), "ROUTINE": ("f", "p")}
_NAME = r'(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z_0-9$]*)'
_SPEC = re.compile(rf"(?P<name>{_NAME}(?:\s*\.\s*{_NAME})?)\s*(?:\((?P<args>.*)\))?\s*$", re.S)
_ALTER_OPTIONS = re.compile(
    r"ALTER\s+(?P<kind>FUNCTION|PROCEDURE|ROUTINE)\s+(?P<spec>.+?)\s+(?P<actions>(?:(?:EXTERNAL\s+)?"
    r"SECURITY\s+(?:DEFINER|INVOKER)\b|SET\s+(?!SCHEMA\b)[A-Za-z_]|RESET\s).*?)\s*(?:RESTRICT\s*)?"
    r";?\s*$", re.I | re.S)
_ALTER = re.compile(r"ALTER\s+(?P<kind>FUNCTION|PROCEDURE|ROUTINE)\s+(?P<spec>.+?)\s+"
                    r"(?:RENAME\s+TO\s+(?P<new>\S+)|SET\s+SCHEMA\s+(?P<schema>\S+))\s*;?\s*$",
                    re.I | re.S)


def _ident(text: str) -> str:
    text = text.strip()
    return text[1:-1].replace('""', '"') if text.startswith('"') else text.lower()


def _split(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    return [*out, cur.strip()] if cur.strip() or out else []


def _arg_type(decl: str) -> tuple[str, int]:
    """(mode, type OID) of one argument as written: `int`, `IN a int`, `OUT x text`."""
    decl = re.split(r"\s+(?:DEFAULT\b|=)", decl, maxsplit=1, flags=re.I)[0].strip()
    mode = re.match(r"(IN|OUT|INOUT|VARIADIC)\s+", decl, re.I)
    kind = mode.group(1).upper() if mode else "IN"
    decl = decl[mode.end():] if mode else decl
    try:
        return kind, _as_declared(decl)
    except SQLError:
        parts = decl.split(None, 1)
        if len(parts) != 2:
            raise
        return kind, _as_declared(parts[1])  # NB: a parameter name, then its type


def _as_declared(text: str) -> int:
    """A parameter type's OID as pg_proc.proargtypes keeps it: a domain's own OID (a
    routine `f(d)` is not `f(int)`), else the type's."""
    oid = type_by_name(text)[0]
    try:
        node = sqlglot.parse_one(f"CAST(NULL AS {text})", read="postgres")
    except sqlglot.errors.ParseError:
        return oid
    dom = domain_of(node.args["to"]) if isinstance(node, exp.Cast) else None
    return dom.oid if dom is not None else oid


def find_routine(s: SQLSession, kind: str, text: str) -> Function:
    """The function or procedure (`kind`: FUNCTION, PROCEDURE, ROUTINE) that `text` names."""
    m = _SPEC.match(text.strip())
    if m is None:
        raise SyntaxError_(f'syntax error at or near "{text.split()[0]}"')
    parts = re.findall(rf"{_NAME}", m.group("name"))
    schema, name = (_ident(parts[0]), _ident(parts[1])) if len(parts) == 2 else (None,
                                                                                   _ident(parts[0]))
    noun = kind.lower()
    cat = s.catalog()
    path = [schema] if schema else s.search_path()
    schemas = {sch.oid for sch in cat.schemas if sch.name in path}
    if schema and not schemas:
        raise InvalidSchemaName(f'schema "{schema}" does not exist')
    named = [f for f in cat.functions if f.name == name and f.schema_oid in schemas]
    if m.group("args") is None:
        found = [f for f in named if f.kind in _KINDS[kind]]
        if not found:
            raise UndefinedFunction(f'could not find a {noun} named "{name}"')
        if len(found) > 1:
            raise SQLError(f'{noun} name "{name}" is not unique', sqlstate="42725",
                           hint=f"Specify the argument list to select the {noun} "
                           "unambiguously.")
        return found[0]
    decls = [_arg_type(a) for a in _split(m.group("args"))]
    ins = tuple(t for k, t in decls if k != "OUT")
    every = tuple(t for _, t in decls)
    fits = [f for f in named if declared_args(f) == ins or (
        f.kind == "p" and all_arg_types(f) == every)]
    shown = ", ".join(type_name(t) for t in ins)
    mine = [f for f in fits if f.kind in _KINDS[kind]]
    if mine:
        return mine[0]
    if fits:
        raise SQLError(f"{name}({shown}) is not a {noun}", sqlstate="42809")
    raise UndefinedFunction(f"{noun} {name}({shown}) does not exist")


def analyse_routine_alter(session: SQLSession, sql: str) -> Stmt | None:
    """ALTER FUNCTION | PROCEDURE | ROUTINE f[(args)] RENAME TO g / SET SCHEMA s, or its
    SECURITY DEFINER | INVOKER, SET and RESET actions; None for any other statement."""
    opts = _ALTER_OPTIONS.match(sql.strip())
    if opts is not None:
        return _alter_options(sql, opts)
    m = _ALTER.match(sql.strip())
    if m is None:
        return None
    kind = m.group("kind").upper()

    def run(s: SQLSession, p: list[Any]) -> Result:
        fn = find_routine(s, kind, m.group("spec"))
        cat = s.catalog()
        name, schema_oid = fn.name, fn.schema_oid
        if m.group("new") is not None:
            name = _ident(m.group("new"))
        else:
            target = _ident(m.group("schema"))
            sch = next((x for x in cat.schemas if x.name == target), None)
            if sch is None:
                raise InvalidSchemaName(f'schema "{target}" does not exist')
            schema_oid = sch.oid
        clash = next((f for f in cat.functions if f.name == name and f.oid != fn.oid
                      and f.schema_oid == schema_oid and declared_args(f) == declared_args(fn)),
                     None)
        if clash is not None:
            sch_name = next((x.name for x in cat.schemas if x.oid == schema_oid), "")
            noun = "procedure" if fn.kind == "p" else "function"
            args = ", ".join(type_name(t) for t in declared_args(fn))
            raise SQLError(f'{noun} {name}({args}) already exists in schema "{sch_name}"',
                           sqlstate="42723")
        s.store.put(s.ensure_txn(), s.db.oid,
                    dataclasses.replace(fn, name=name, schema_oid=schema_oid))
        s.catalog_changed()
        return Result(f"ALTER {kind}")

    return Stmt(sql, "ddl", run, None, [], -1, tag=f"ALTER {kind}")


def _alter_options(sql: str, m: re.Match[str]) -> Stmt:
    kind = m.group("kind").upper()

    def run(s: SQLSession, p: list[Any]) -> Result:
        fn = find_routine(s, kind, m.group("spec"))
        cat = s.catalog()
        must_own(cat, current_role(s, cat), fn.owner,
                 "procedure" if fn.kind == "p" else "function", fn.name)
        new = routinectx.altered(s, fn, m.group("actions"))
        routinectx.check_values(s, new.config)
        s.store.put(s.ensure_txn(), s.db.oid, new)
        s.catalog_changed()
        return Result(f"ALTER {kind}")

    return Stmt(sql, "ddl", run, None, [], -1, tag=f"ALTER {kind}")


__all__ = ["analyse_routine_alter", "find_routine"]
