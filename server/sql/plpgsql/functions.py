"""CREATE [OR REPLACE] FUNCTION ... LANGUAGE plpgsql | sql, DROP FUNCTION, and running them.

A function is a catalog row (`catalog.model.Function`): name, argument names and
types, return type, language, body, volatility and strictness. Calls are bound
by `expr.udf` and run here (`call`): a PL/pgSQL body in the interpreter with the
arguments as variables (and `$1`...), a SQL body statement by statement with the
arguments as `$1`... (and by name), the function's value being the first
column of the last statement's first row, its first row (OUT parameters, a table's
row type) or all its rows (SETOF, RETURNS TABLE; `results` reads the shape).
Set-returning PL/pgSQL (RETURN NEXT / RETURN QUERY) is not supported.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ...errors import (
    FeatureNotSupported,
    SQLError,
    SyntaxError_,
    UndefinedFunction,
    UndefinedObject,
)
from ...pgtypes import oids as T
from ...pgtypes.records import Record
from ...pgwire.backend import Result
from ..catalog.model import Function
from ..ddl.names import creation_schema, skip_or_raise
from ..expr.types import type_name
from ..parse import split_statements
from ..privileges.check import check_function, current_role_oid
from ..stmt import AnalyseTree, Stmt
from . import code_of
from .interp import Interp, Var, _Return, _type_of
from .parser import parse_block
from .results import Shape, split_top_level

if TYPE_CHECKING:
    from ..session import SQLSession

_NAME = r'(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z_0-9$]*)'
_HEAD = re.compile(rf"CREATE\s+(?P<replace>OR\s+REPLACE\s+)?FUNCTION\s+"
                   rf"(?P<name>{_NAME}(?:\s*\.\s*{_NAME})?)\s*\(", re.I)
_DROP = re.compile(r"DROP\s+FUNCTION\s+(?P<exists>IF\s+EXISTS\s+)?(?P<specs>.+?)\s*"
                   r"(?P<mode>CASCADE|RESTRICT)?\s*;?\s*$", re.I | re.S)
_SPEC = re.compile(rf"(?P<name>{_NAME}(?:\s*\.\s*{_NAME})?)\s*(?P<args>\(.*\))?\s*$", re.S)
_STRING = re.compile(r"\$(?P<tag>\w*)\$.*?\$(?P=tag)\$|'(?:[^']|'')*'", re.S)


def is_function_ddl(sql: str) -> bool:
    """Tells whether the text is CREATE [OR REPLACE] FUNCTION or DROP FUNCTION."""
    return _HEAD.match(sql) is not None or re.match(r"DROP\s+FUNCTION\b", sql, re.I) is not None


def _ident(text: str) -> str:
    text = text.strip()
    return text[1:-1].replace('""', '"') if text.startswith('"') else text.lower()


def analyse_function_ddl(session: SQLSession, sql: str) -> Stmt:
    """CREATE [OR REPLACE] FUNCTION / DROP FUNCTION."""
    text = sql.strip().rstrip(";")
    drop = _DROP.match(text)
    if drop is not None:
        return _analyse_drop(sql, drop)
    m = _HEAD.match(text)
    if m is None:
        raise SyntaxError_('syntax error at or near "FUNCTION"')
    depth, i = 1, m.end()
    while i < len(text) and depth:
        depth += text[i] == "("
        depth -= text[i] == ")"
        i += 1
    params = split_top_level(text[m.end():i - 1])
    rest = text[i:]
    body_m = _STRING.search(rest)
    if body_m is None:
        raise SyntaxError_("no function body specified", sqlstate="42P13")
    body = code_of(body_m.group(0))
    opts = " ".join((rest[:body_m.start()] + " " + rest[body_m.end():]).split())
    ret = re.search(r"\bRETURNS\s+(?P<t>SETOF\s+|TABLE\s*\()?(?P<type>.+?)"
                    r"(?=\s+(?:LANGUAGE|AS|IMMUTABLE|STABLE|VOLATILE|STRICT|CALLED|RETURNS"
                    r"|SECURITY|PARALLEL|COST|ROWS|SET|LEAKPROOF|NOT|WINDOW)\b|\s*$)", opts,
                    re.I)
    form = (ret.group("t") or "").strip().rstrip("(").strip().upper() if ret else ""
    shape = Shape.of(params, ret.group("type").strip() if ret else None, form,
                     lambda t: _type_of(t)[0], _row_types(session))
    args, returns = shape.args, shape.returns
    lang = re.search(r"\bLANGUAGE\s+'?(\w+)'?", opts, re.I)
    language = lang.group(1).lower() if lang else ""
    if language not in ("sql", "plpgsql"):
        raise SQLError(f'language "{language}" does not exist', sqlstate="42704")
    vol = re.search(r"\b(IMMUTABLE|STABLE|VOLATILE)\b", opts, re.I)
    strict = re.search(r"\b(STRICT|RETURNS\s+NULL\s+ON\s+NULL\s+INPUT)\b", opts, re.I)
    if language == "plpgsql":
        if shape.retset or shape.out_types:
            raise FeatureNotSupported("PL/pgSQL functions returning sets or rows are not supported")
        parse_block(body.strip().rstrip(";"))  # NB: syntax errors at CREATE, as PostgreSQL
    schema_name, fname = _qualified(m.group("name"))
    replace = m.group("replace") is not None

    def run(s: SQLSession, p: list[Any]) -> Result:
        cat = s.catalog()
        sch = creation_schema(cat, schema_name, s.search_path())
        types = tuple(t for _, t in args)
        old = next((f for f in cat.functions if f.name == fname and f.schema_oid == sch.oid
                    and f.arg_types == types), None)
        if old is not None and not replace:
            raise SQLError(f'function "{fname}" already exists with same argument types',
                           sqlstate="42723")  # duplicate_function
        if old is not None and old.returns != returns:
            raise SQLError("cannot change return type of existing function",
                           sqlstate="42P13", hint=f"Use DROP FUNCTION {fname}(...) first.")
        fn = Function(old.oid if old is not None else s.store.allocate_oid(), fname, sch.oid,
                      types, tuple(n for n, _ in args), returns, language, body,
                      (vol.group(1)[0].lower() if vol else "v"), strict is not None,
                      owner=old.owner if old is not None else current_role_oid(s),
                      acl=old.acl if old is not None else None, retset=shape.retset,
                      out_names=shape.out_names, out_types=shape.out_types,
                      out_column=shape.column)
        s.store.put(s.ensure_txn(), s.db.oid, fn)
        s.catalog_changed()
        return Result("CREATE FUNCTION")

    return Stmt(sql, "ddl", run, None, [], -1, tag="CREATE FUNCTION")


def _row_types(session: SQLSession) -> dict[str, tuple[int, tuple[tuple[str, int], ...]]]:
    """Each table's name -> its row type and columns, for `RETURNS [SETOF] t`."""
    out: dict[str, tuple[int, tuple[tuple[str, int], ...]]] = {}
    for t in session.catalog().tables:
        if t.reltype and t.name not in out:
            out[t.name] = (t.reltype, tuple((c.name, c.type_oid) for c in sorted(
                t.columns, key=lambda c: c.attnum) if not c.dropped))
    return out


def _qualified(text: str) -> tuple[str | None, str]:
    parts = [p for p in re.split(r"\s*\.\s*", text.strip())]
    if len(parts) == 2:
        return _ident(parts[0]), _ident(parts[1])
    return None, _ident(parts[0])


# The type names PostgreSQL's grammar spells as SQL keywords; it files them under pg_catalog.
_SYSTEM_TYPES = {
    "int": "int4", "integer": "int4", "smallint": "int2", "bigint": "int8", "real": "float4",
    "float": "float8", "double precision": "float8", "decimal": "numeric", "dec": "numeric",
    "numeric": "numeric", "boolean": "bool", "char": "bpchar", "character": "bpchar",
    "nchar": "bpchar", "national character": "bpchar", "varchar": "varchar",
    "character varying": "varchar", "bit": "bit", "bit varying": "varbit",
    "timestamp": "timestamp", "timestamp without time zone": "timestamp",
    "timestamp with time zone": "timestamptz", "time": "time", "time without time zone": "time",
    "time with time zone": "timetz", "interval": "interval",
}


def written_type(text: str) -> str:
    """A type as written, the way PostgreSQL's DROP FUNCTION IF EXISTS notice prints it
    (TypeNameListToString): keyword types under pg_catalog, no typmods, no spaces.

    >>> [written_type(t) for t in ["int", "double precision", "varchar(5)[]", '"MyType"', "Int4"]]
    ['pg_catalog.int4', 'pg_catalog.float8', 'pg_catalog.varchar[]', 'MyType', 'int4']
    """
    t = re.sub(r"\s*\([^)]*\)", "", text.strip())
    dims = ""
    while t.endswith("[]"):
        t, dims = t[:-2].rstrip(), dims + "[]"
    words = " ".join(t.lower().split())
    if words in _SYSTEM_TYPES:
        return f"pg_catalog.{_SYSTEM_TYPES[words]}{dims}"
    return ".".join(_ident(p) for p in re.findall(r'"(?:[^"]|"")*"|[^."]+', t)) + dims


def _arg_type(text: str) -> str:
    """The type of one DROP FUNCTION argument (`IN y int`, `text`), as written."""
    text = re.split(r"\s+(?:DEFAULT\b|=)", text, maxsplit=1, flags=re.I)[0].strip()
    text = re.sub(r"^(IN|INOUT|VARIADIC)\s+", "", text, flags=re.I)
    parts = text.split(None, 1)
    if len(parts) == 2 and not _well_formed(text) and _well_formed(parts[1]):
        return parts[1]  # NB: a parameter name, then its type
    return text


def _well_formed(text: str) -> bool:
    """True when `text` names a type, or would if that type existed (42704)."""
    try:
        _type_of(text)
    except SQLError as e:
        return e.sqlstate == "42704"
    return True


def _analyse_drop(sql: str, m: re.Match[str]) -> Stmt:
    # (name, argument types or None, as written, the first missing type's error or None)
    specs: list[tuple[str, tuple[int, ...] | None, list[str], str | None]] = []
    for part in split_top_level(m.group("specs")):
        spec = _SPEC.match(part)
        if spec is None:
            raise SyntaxError_(f'syntax error at or near "{part.split()[0]}"')
        types: tuple[int, ...] | None = None
        written: list[str] = []
        missing: str | None = None
        if spec.group("args") is not None:
            inner = spec.group("args").strip()[1:-1]
            written = [_arg_type(a) for a in split_top_level(inner)
                       if not re.match(r"\s*OUT\s", a, re.I)]
            oids = []
            for w in written:
                if not _well_formed(w):
                    _type_of(w)  # NB: raises its syntax error
                try:
                    oids.append(_type_of(w)[0])
                except UndefinedObject:
                    missing = missing or f'type "{written_type(w)}" does not exist'
            types = tuple(oids)
        specs.append((_qualified(spec.group("name"))[1], types, written, missing))

    def run(s: SQLSession, p: list[Any]) -> Result:
        cat = s.catalog()
        doomed: list[Function] = []
        exists = bool(m.group("exists"))
        for fname, types, written, missing in specs:
            if missing is not None:  # NB: PostgreSQL names the type, then goes on
                if not exists:
                    raise UndefinedObject(missing)
                s.notice(f"{missing}, skipping")
                continue
            found = [f for f in cat.functions if f.name == fname
                     and (types is None or f.arg_types == types)]
            if not found:
                if types is None and not exists:
                    raise UndefinedFunction(f'could not find a function named "{fname}"')
                shown = ", ".join(type_name(t) for t in types or ())
                if exists:
                    shown = ",".join(written_type(w) for w in written)
                skip_or_raise(s, f"function {fname}({shown})", exists, UndefinedFunction)
                continue
            if types is None and len(found) > 1:
                raise SQLError(f'function name "{fname}" is not unique', sqlstate="42725",
                               hint="Specify the argument list to select the function "
                               "unambiguously.")
            doomed += found
        for f in doomed:
            s.store.delete(s.ensure_txn(), s.db.oid, f)
        s.catalog_changed()
        return Result("DROP FUNCTION")

    return Stmt(sql, "ddl", run, None, [], -1, tag="DROP FUNCTION")


def call(s: SQLSession, fn: Function, args: tuple[Any, ...], analyse_tree: AnalyseTree) -> Any:
    """Runs a user function's body with these argument values; returns its value
    (`analyse_tree`: `statement`'s, for the body's statements)."""
    check_function(s, fn)
    interp = Interp(s, analyse_tree)
    scope = interp.scopes[-1]
    positional = []
    for i, (name, oid, value) in enumerate(zip(fn.arg_names, fn.arg_types, args,
                                                strict=True)):
        var = Var(value, oid)
        if name:
            scope[name] = var
        scope[f"${i + 1}"] = var
        positional.append((value, oid))
    if fn.language == "plpgsql":
        try:
            interp.block(parse_block(fn.body.strip().rstrip(";")))
        except _Return as r:
            return r.value
        if fn.returns != T.VOID:
            raise SQLError("control reached end of function without RETURN", sqlstate="2F005")
        return ""  # NB: void's output is the empty string
    rows: list[Any] = []
    for stmt in split_statements(fn.body):
        rows, _, _ = interp.run_sql(stmt, positional)
    if fn.retset:  # NB: the last statement's rows, each a value or (OUT / TABLE) a row
        return [Record(r, fn.out_types) if fn.out_types else (r[0] if r else None) for r in rows]
    if fn.out_types:
        return Record(rows[0], fn.out_types) if rows else None
    value = rows[0][0] if rows and rows[0] else None
    return "" if fn.returns == T.VOID else value
