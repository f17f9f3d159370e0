"""CREATE [OR REPLACE] FUNCTION ... LANGUAGE plpgsql | sql, DROP FUNCTION, and running them.

A function is a catalog row (`catalog.model.Function`): name, argument names and
types, return type, language, body, volatility and strictness. Calls are bound
by `expr.udf` and run here (`call`): a PL/pgSQL body in the interpreter with the
arguments as variables (and `$1`...), a SQL body statement by statement with the
arguments as `$1`... (and by name), the function's value being the first
column of the last statement's first row, its first row (OUT parameters, a table's
row type) or all its rows (SETOF, RETURNS TABLE; `results` reads the shape).
A set-returning PL/pgSQL body adds its rows with RETURN NEXT and RETURN QUERY [EXECUTE].
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import sqlglot
from sqlglot import exp

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
from ..catalog.routineparams import all_arg_types, declared_args
from ..ddl.depends import refuse_dependents
from ..ddl.names import creation_schema, skip_or_raise
from ..expr import udfinline, usertypes
from ..expr.types import domain_of, type_name
from ..parse import split_statements
from ..privileges.check import check_function, current_role_oid
from ..stmt import AnalyseTree, Stmt
from . import code_of, routinectx
from .assigncast import coerce, converter
from .interp import Frame, Interp, Var, _Return, _type_of, compile_options, framed
from .parser import Block, parse_block
from .procshape import atomic_body, atomic_text, check_procedure_returns, procedure_shape
from .results import Shape, parameter, split_top_level, table_columns
from .signature import Signature, signature
from .sqlcheck import check_sql_body

if TYPE_CHECKING:
    from ..session import SQLSession

_NAME = r'(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z_0-9$]*)'
_HEAD = re.compile(rf"CREATE\s+(?P<replace>OR\s+REPLACE\s+)?(?P<kind>FUNCTION|PROCEDURE)\s+"
                   rf"(?P<name>{_NAME}(?:\s*\.\s*{_NAME})?)\s*\(", re.I)
_DROP = re.compile(r"DROP\s+(?P<kind>FUNCTION|PROCEDURE|ROUTINE)\s+(?P<exists>IF\s+EXISTS\s+)?(?P<specs>.+?)\s*"
                   r"(?P<mode>CASCADE|RESTRICT)?\s*;?\s*$", re.I | re.S)
_SPEC = re.compile(rf"(?P<name>{_NAME}(?:\s*\.\s*{_NAME})?)\s*(?P<args>\(.*\))?\s*$", re.S)
_STRING = re.compile(r"\$(?P<tag>\w*)\$.*?\$(?P=tag)\$|'(?:[^']|'')*'", re.S)
_AS_BEFORE = re.compile(r"\bAS\s*$", re.I)


def _body_string(rest: str) -> re.Match[str] | None:
    """The string after AS (a SET clause's quoted value comes before it, or after)."""
    strings = list(_STRING.finditer(rest))
    return next((m for m in strings if _AS_BEFORE.search(rest, 0, m.start())), None) or (
        strings[0] if strings else None)


def is_function_ddl(sql: str) -> bool:
    """Tells whether the text is CREATE [OR REPLACE] FUNCTION | PROCEDURE or DROP FUNCTION |
    PROCEDURE | ROUTINE."""
    return _HEAD.match(sql) is not None or re.match(r"DROP\s+(?:FUNCTION|PROCEDURE|ROUTINE)\b",
                                                    sql, re.I) is not None


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
    proc = m.group("kind").upper() == "PROCEDURE"
    noun = "procedure" if proc else "function"
    depth, i = 1, m.end()
    while i < len(text) and depth:
        depth += text[i] == "("
        depth -= text[i] == ")"
        i += 1
    params = split_top_level(text[m.end():i - 1])
    rest = text[i:]
    atomic = atomic_body(rest)  # NB: BEGIN ATOMIC ... END: SQL-standard statements
    body_m = _body_string(rest) if atomic is None else None
    if body_m is None and atomic is None:
        raise SyntaxError_("no function body specified", sqlstate="42P13")
    body = code_of(body_m.group(0)) if body_m is not None else atomic_text(atomic[1]) if atomic \
        else ""
    span = (body_m.start(), body_m.end()) if body_m is not None else atomic[0] if atomic else (0, 0)
    opts = " ".join((rest[:span[0]] + " " + rest[span[1]:]).split())
    ret = re.search(r"\bRETURNS\s+(?P<t>SETOF\s+|TABLE\s*\()?(?P<type>.+?)"
                    r"(?=\s+(?:LANGUAGE|AS|IMMUTABLE|STABLE|VOLATILE|STRICT|CALLED|RETURNS"
                    r"|SECURITY|PARALLEL|COST|ROWS|SET|LEAKPROOF|NOT|WINDOW)\b|\s*$)", opts,
                    re.I)
    form = (ret.group("t") or "").strip().rstrip("(").strip().upper() if ret else ""
    lang = re.search(r"\bLANGUAGE\s+'?(\w+)'?", opts, re.I)
    language = lang.group(1).lower() if lang else ("sql" if atomic else "")
    session.catalog()  # NB: loads the session's user types (shells) for the type lookups
    shells = _shell_types(params, ret.group("type") if ret and not form else None, language)
    if shells and language == "plpgsql":
        _refuse_shells(session, shells)
    if proc and ret is not None:
        after = ret.group("type").split()
        raise SyntaxError_(f'syntax error at or near "{after[0] if after else "RETURNS"}"')
    shape = procedure_shape(params, _result_type) if proc else Shape.of(
        params, ret.group("type").strip() if ret else None, form, _result_type, _row_types(session))
    args, returns = shape.args, shape.returns
    sig = signature(params, table_columns(ret.group("type")) if ret and form == "TABLE" else [],
                    _declared_type)
    declared = [parameter(p, _declared_type) for p in params]
    arg_domains = next((d for d in (tuple(_domain_oid(t) for k, _, t in declared if k != "OUT"),
                                    tuple(_domain_oid(t) for _, _, t in declared))
                        if len(d) == len(args) and any(d)), ())  # NB: a procedure's OUT too
    returns_domain = _domain_named(ret.group("type")) if ret and not form else 0
    if proc:  # NB: ruleutils marks every mode of a procedure's parameters, IN too
        sig = Signature(sig.modes, tuple(t if m != "i" else "IN " + t
                                         for m, t in zip(sig.modes, sig.texts, strict=True)),
                        sig.defaults)
    if language not in ("sql", "plpgsql"):
        raise SQLError(f'language "{language}" does not exist', sqlstate="42704")
    vol = re.search(r"\b(IMMUTABLE|STABLE|VOLATILE)\b", opts, re.I)
    strict = re.search(r"\b(STRICT|RETURNS\s+NULL\s+ON\s+NULL\s+INPUT)\b", opts, re.I)
    if returns == T.TRIGGER and args:
        raise SQLError("trigger functions cannot have declared arguments", sqlstate="42P13",
                       hint="The arguments of the trigger can be accessed through TG_NARGS "
                       "and TG_ARGV instead.")
    if returns == T.TRIGGER and language != "plpgsql":
        raise SQLError("SQL functions cannot return type trigger", sqlstate="42P13")
    if language == "plpgsql" and proc:
        check_procedure_returns(parse_block(body))
    if language == "plpgsql" and not proc:
        if shape.out_types and not shape.retset:
            raise FeatureNotSupported("PL/pgSQL functions returning a row are not supported")
        _check_returns(parse_block(body), shape.retset)  # NB: at CREATE
    schema_name, fname = _qualified(m.group("name"))
    replace = m.group("replace") is not None
    secdef, config = routinectx.options(session, opts)

    def run(s: SQLSession, p: list[Any]) -> Result:
        cat = s.catalog()
        sch = creation_schema(cat, schema_name, s.search_path())
        types = tuple(t for _, t in args)
        ident = tuple(d or t for t, d in zip(types, arg_domains, strict=True)) if arg_domains \
            else types  # NB: f(int) and f(d) for a domain d over int are two functions
        old = next((f for f in cat.functions if f.name == fname and f.schema_oid == sch.oid
                    and declared_args(f) == ident), None)
        if old is not None and not replace:
            raise SQLError(f'function "{fname}" already exists with same argument types',
                           sqlstate="42723")  # duplicate_function
        if old is not None and old.kind != ("p" if proc else "f"):
            raise SQLError("cannot change routine kind", sqlstate="42809", detail=f'"{fname}" is '
                           f'{"a procedure" if old.kind == "p" else "a function"}.')
        if old is not None and old.returns != returns and proc:
            raise SQLError("cannot change whether a procedure has output parameters",
                           sqlstate="42P13", hint=f"Use DROP PROCEDURE {fname}(...) first.")
        if old is not None and old.returns != returns:
            raise SQLError("cannot change return type of existing function",
                           sqlstate="42P13", hint=f"Use DROP FUNCTION {fname}(...) first.")
        routinectx.check_values(s, config)
        fn = Function(old.oid if old is not None else s.store.allocate_oid(), fname, sch.oid,
                      types, tuple(n for n, _ in args), returns, language, body,
                      (vol.group(1)[0].lower() if vol else "v"), strict is not None,
                      owner=old.owner if old is not None else current_role_oid(s),
                      acl=old.acl if old is not None else None, retset=shape.retset,
                      out_names=shape.out_names, out_types=shape.out_types,
                      out_column=shape.column, param_modes=sig.modes,
                      param_texts=sig.texts, param_defaults=sig.defaults,
                      kind="p" if proc else "f", atomic=atomic is not None,
                      secdef=secdef, config=config, arg_domains=arg_domains,
                      returns_domain=returns_domain)
        if language == "sql":
            check_sql_body(s, fn)
        s.store.put(s.ensure_txn(), s.db.oid, fn)
        s.catalog_changed()
        return Result(f"CREATE {noun.upper()}")

    return Stmt(sql, "ddl", run, None, [], -1, tag=f"CREATE {noun.upper()}")


def _shell_of(text: str) -> str | None:
    """The name of the shell type `text` names (None for a defined or unknown type)."""
    try:
        _result_type(text)
    except UndefinedObject as err:
        m = re.fullmatch(r'type "(.+)" is only a shell', err.message)
        return m.group(1) if m else None
    except SQLError:
        return None
    return None


def _shell_types(params: list[str], returns: str | None, language: str) -> list[str]:
    """PostgreSQL's checks of shell types (CREATE TYPE t without a body) at CREATE FUNCTION:
    a SQL function refuses them (42P13); another language gets a NOTICE, then PL/pgSQL's
    validator refuses the pseudo-type (0A000, `_refuse_shells`). Returns the NOTICEs."""
    found = []
    for p in params:
        decl = re.split(r"\s+(?:DEFAULT\b|=)", p, maxsplit=1, flags=re.I)[0].strip()
        decl = re.sub(r"^(IN|OUT|INOUT|VARIADIC)\s+", "", decl, flags=re.I)
        parts = decl.split(None, 1)
        name = _shell_of(decl) or (_shell_of(parts[1]) if len(parts) == 2 else None)
        if name is not None:
            found.append(("argument", "accept", name))
    ret = _shell_of(returns) if returns else None
    if ret is not None:
        found.append(("return", "return", ret))
    for _, verb, name in found:
        if language == "sql":
            raise SQLError(f"SQL function cannot {verb} shell type {name}", sqlstate="42P13")
    return [f"{what} type {name} is only a shell" for what, _, name in found]


def _refuse_shells(session: SQLSession, notices: list[str]) -> None:
    """PL/pgSQL's validator: after the NOTICEs, 0A000 for the (pseudo-typed) shell, the
    result's before the arguments'."""
    for notice in notices:
        session.notice(notice, sqlstate="42809")
    first = next((n for n in notices if n.startswith("return")), notices[0])
    what, _, name = first.split(" ", 3)[:3]  # NB: "argument type sh is only a shell"
    verb = "return" if what == "return" else "accept"
    raise FeatureNotSupported(f"PL/pgSQL functions cannot {verb} type {name}")


def _check_returns(node: Any, retset: bool) -> None:
    """PL/pgSQL's compile-time checks of RETURN: NEXT and QUERY only in a SETOF function,
    no value in one."""
    for st in node.body if isinstance(node, Block) else [node]:
        if isinstance(st, Block):
            _check_returns(st, retset)
            continue
        if st.kind in ("return_next", "return_query") and not retset:
            what = "RETURN NEXT" if st.kind == "return_next" else "RETURN QUERY"
            raise SQLError(f"cannot use {what} in a non-SETOF function", sqlstate="42804")
        if st.kind == "return" and retset and st.text:
            raise SQLError("RETURN cannot have a parameter in function returning set",
                           sqlstate="42804", hint="Use RETURN NEXT or RETURN QUERY.")
        for sub in [st.body, *(b for _, b in st.branches)]:
            for x in sub:
                _check_returns(x, retset)
    if isinstance(node, Block):
        for _, handler in node.handlers:
            for x in handler:
                _check_returns(x, retset)


def _result_type(text: str) -> int:
    """A parameter's or the result's type; `trigger` is a pseudo-type only a result may be."""
    if " ".join(text.split()).lower() in ("trigger", "pg_catalog.trigger"):
        return T.TRIGGER
    return _type_of(text)[0]


def _declared_type(text: str) -> int:
    """A parameter's type as declared: a domain's own OID (pg_proc keeps it;
    `_result_type` gives its base type, which the call passes)."""
    return _domain_named(text) or _result_type(text)


def _domain_named(text: str) -> int:
    """The OID of the domain a declared type names, else 0 (a table's row type too)."""
    try:
        node = sqlglot.parse_one(f"CAST(NULL AS {text})", read="postgres")
    except sqlglot.errors.ParseError:
        return 0
    dom = domain_of(node.args["to"]) if isinstance(node, exp.Cast) else None
    return dom.oid if dom is not None else 0


def _domain_oid(oid: int) -> int:
    """`oid` if it is a domain's, else 0."""
    user = usertypes.by_oid(oid)
    return oid if user is not None and user.kind == "d" else 0


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
    what = m.group("kind").upper()
    noun = what.lower()
    kinds = {"FUNCTION": ("f",), "PROCEDURE": ("p",)}.get(what, ("f", "p"))
    with_out = what != "FUNCTION"  # NB: a procedure's OUT parameters may be listed (PG 14)
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
                       if not re.match(r"\s*OUT\s", a, re.I) or with_out]
            oids = []
            for w in written:
                if not _well_formed(w):
                    _type_of(w)  # NB: raises its syntax error
                try:
                    oids.append(_domain_named(w) or _type_of(w)[0])  # NB: as declared
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
            found = [f for f in cat.functions if f.name == fname and f.kind in kinds
                     and (types is None or declared_args(f) == types or (
                         f.kind == "p" and all_arg_types(f) == types))]
            if not found:
                if types is None and not exists:
                    raise UndefinedFunction(f'could not find a {noun} named "{fname}"')
                shown = ", ".join(type_name(t) for t in types or ())
                if exists:
                    shown = ",".join(written_type(w) for w in written)
                skip_or_raise(s, f"{noun} {fname}({shown})", exists, UndefinedFunction)
                continue
            if types is None and len(found) > 1:
                raise SQLError(f'{noun} name "{fname}" is not unique', sqlstate="42725",
                               hint=f"Specify the argument list to select the {noun} "
                               "unambiguously.")
            doomed += found
        cascade = (m.group("mode") or "").upper() == "CASCADE"
        for f in doomed:  # NB: the triggers that call it, as PostgreSQL's dependencies
            users = [t for t in cat.triggers if t.function_oid == f.oid]
            deps = [f"trigger {t.name} on table {tab.name} depends on function {f.name}()"
                    for t in users if (tab := cat.table_by_oid(t.table_oid)) is not None]
            if deps and not cascade:
                refuse_dependents(f"function {f.name}()", deps)
            if len(deps) == 1:
                s.notice(f"drop cascades to {deps[0].split(' depends on ')[0]}")
            elif deps:
                s.notice(f"drop cascades to {len(deps)} other objects", detail="\n".join(
                    "drop cascades to " + d.split(" depends on ")[0] for d in deps))
            for t in users:
                s.store.delete(s.ensure_txn(), s.db.oid, t)
        for f in doomed:
            s.store.delete(s.ensure_txn(), s.db.oid, f)
        s.catalog_changed()
        return Result(f"DROP {what}")

    return Stmt(sql, "ddl", run, None, [], -1, tag=f"DROP {what}")


def call(s: SQLSession, fn: Function, args: tuple[Any, ...], analyse_tree: AnalyseTree,
         context: str = udfinline.STATEMENTS) -> Any:
    """Runs a user function's body with these argument values; returns its value
    (`analyse_tree`: `statement`'s, for the body's statements; `context`: how a SQL
    function's errors name it, `expr.udfinline`)."""
    check_function(s, fn)  # NB: as the caller; the body as its owner when SECURITY DEFINER
    if not fn.secdef and not fn.config:  # NB: the common case, without a context manager
        return _run(s, fn, args, analyse_tree, context)
    with routinectx.entered(s, fn):
        return _run(s, fn, args, analyse_tree, context)


def run_sql_body(interp: Interp, fn: Function, texts: list[str],
                 positional: list[tuple[Any, int]], context: str = udfinline.STATEMENTS
                 ) -> tuple[list[Any], list[Any]]:
    """Runs a SQL function's or procedure's statements; returns the last one's rows and
    columns. An
    error gets PostgreSQL's CONTEXT line after its own: `SQL function "f" statement n`,
    `during startup` when the statement could not be analysed, `during inlining` for an
    inlined call folded by the planner, none for an inlined call run with the query."""
    rows: list[Any] = []
    cols: list[Any] = []
    if context == udfinline.INLINED:
        for text in texts:
            rows, cols, _ = interp.run_sql(text, positional)
        return rows, cols
    frame = _SQLFrame(fn.name, "during inlining" if context == udfinline.FOLDED else "")
    with framed(frame):
        for i, text in enumerate(texts, 1):
            frame.index = i
            try:
                rows, cols, _ = interp.run_sql(text, positional)
            except SQLError as e:
                line = frame.line(interp.analysing)
                e.where = f"{e.where}\n{line}" if e.where else line
                raise
    return rows, cols


class _SQLFrame(Frame):
    """A running SQL function, as CONTEXT names it: `SQL function "f" statement 2`."""

    def __init__(self, name: str, where: str) -> None:
        self.name = name
        self.where = where  # NB: fixed ("during inlining"), or "" for the statement's number
        self.index = 0

    def line(self, analysing: bool = False) -> str:
        where = self.where or ("during startup" if analysing else f"statement {self.index}")
        return f'SQL function "{self.name}" {where}'

    def context_lines(self) -> list[str]:
        return [self.line()]


def _run(s: SQLSession, fn: Function, args: tuple[Any, ...], analyse_tree: AnalyseTree,
         context: str) -> Any:
    if fn.returns == T.TRIGGER:
        raise FeatureNotSupported("trigger functions can only be called as triggers")
    interp = Interp(s, analyse_tree)
    interp.name = context_name(s, fn)
    interp.routine = fn.name
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
        block, cache = compiled(s, fn)
        interp.share_cache(cache)
        if fn.retset:  # NB: RETURN NEXT / RETURN QUERY add rows; RETURN ends the function
            interp.results = []
            interp.out_types = fn.out_types
            if fn.returns == T.RECORD or fn.out_column:  # NB: OUT / TABLE columns are variables
                interp.out_names = fn.out_names or (fn.out_column,)
                for n, t in zip(interp.out_names, fn.out_types or (fn.returns,), strict=True):
                    scope.setdefault(n, Var(None, t))
            try:
                interp.block(block)
            except _Return:
                pass
            return interp.results
        try:
            interp.block(block)
        except _Return as r:
            if isinstance(r.value, Var):  # NB: RETURN rec: the record's value
                return Record(tuple(v for v, _ in (r.value.fields or {}).values()),
                              tuple(t for _, t in (r.value.fields or {}).values()))
            if fn.out_types or fn.returns in (T.VOID, T.RECORD) or fn.returns >= 16384:
                return r.value
            try:  # NB: as PL/pgSQL's exec_cast_value: assignment cast, else I/O
                return coerce(r.value, r.type, fn.returns)
            except SQLError as e:
                e.where = f"PL/pgSQL function {interp.name} while casting return value to " \
                    "function's return type"
                raise
        if fn.returns != T.VOID:
            raise SQLError("control reached end of function without RETURN", sqlstate="2F005")
        return ""  # NB: void's output is the empty string
    body = "SELECT " + fn.body[len("RETURN "):] if fn.atomic and fn.body.startswith("RETURN ") \
        else fn.body  # NB: a SQL-standard `RETURN expression` body
    interp.share_cache(_analysed(s, fn))
    rows, cols = run_sql_body(interp, fn, split_statements(body), positional, context)
    if fn.returns == T.VOID:
        return None  # NB: a SQL function's void result is NULL (a PL/pgSQL one's is '')
    if fn.out_types:
        if fn.retset:  # NB: the last statement's rows, each a (OUT / TABLE) row
            return [Record(r, fn.out_types) for r in rows]
        return Record(rows[0], fn.out_types) if rows else None
    conv = converter(cols[0].type_oid, fn.returns) if cols and fn.returns != T.RECORD else None
    if fn.retset:  # NB: the last statement's rows' values, by the assignment cast
        return [(conv(r[0]) if conv is not None and r[0] is not None else r[0]) if r else None
                for r in rows]
    value = rows[0][0] if rows and rows[0] else None
    return conv(value) if conv is not None and value is not None else value


def routine_name(fn: Function) -> str:
    """How PostgreSQL's error CONTEXT names a function: `f(integer,text)` (format_procedure)."""
    return f"{fn.name}({','.join(type_name(t) for t in fn.arg_types)})"


def context_name(s: SQLSession, fn: Function) -> str:
    """`routine_name`, schema-qualified when the schema is not on the search_path (as
    format_procedure qualifies what the session cannot see by its name alone)."""
    schema = next((x.name for x in s.catalog().schemas if x.oid == fn.schema_oid), "")
    return routine_name(fn) if schema in s.search_path() else f"{schema}.{routine_name(fn)}"


def _analysed(s: SQLSession, fn: Function) -> dict[Any, Any]:
    """A SQL function's analysed statements, kept with the catalog snapshot (per
    search_path) as a PL/pgSQL function's are (`compiled`): a call per row analysed its
    body per row."""
    key = (fn.oid, tuple(s.search_path()))
    got = s.catalog().derived.setdefault("sqlfn", {}).get(key)
    if got is None or got[0] is not fn:
        got = s.catalog().derived["sqlfn"][key] = (fn, {})
    return got[1]


def compiled(s: SQLSession, fn: Function) -> tuple[Block, dict[Any, Any]]:
    """A PL/pgSQL function's parsed body and its analysed statements, kept with the catalog
    snapshot (per search_path): a trigger calls its function once per row."""
    key = (fn.oid, tuple(s.search_path()))
    got = s.catalog().derived.setdefault("plpgsql", {}).get(key)
    if got is None or got[0] is not fn:
        got = (fn, compile_options(s, parse_block(fn.body)), {})
        s.catalog().derived["plpgsql"][key] = got
    return got[1], got[2]
