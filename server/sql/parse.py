"""The thin layer in front of sqlglot: statement splitting, the pre-parser, and the plan cache.

Why a layer of our own: sqlglot parses most of PostgreSQL, but it turns
DECLARE, FETCH, MOVE, CLOSE, SHOW, SET SESSION CHARACTERISTICS and friends
into an opaque `Command`, and a full parse costs ~130 us per pgbench
statement. So:

1. `split_statements` cuts a Query message at top-level `;` (respecting
   quotes, dollar quotes and comments) in one pass over the text.
2. `utility` recognises the statements we handle without sqlglot (transaction
   control, SET/SHOW/RESET, cursors, PREPARE/EXECUTE, LISTEN, VACUUM ...) with
   anchored regular expressions, and returns a small tuple for the session.
3. Everything else goes to `sqlglot.parse_one(..., read="postgres")`.
4. `PlanCache` keeps the analysed statement per SQL text and parameter types,
   so a repeated statement costs a dict lookup; entries remember the catalog
   version they were planned against and are dropped when it changes.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Callable
from decimal import Decimal
from functools import partial
from typing import Any, cast

import sqlglot
from sqlglot import exp
from sqlglot.dialects.postgres import Postgres
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import Token, TokenType

from ..errors import SQLError, SyntaxError_
from ..pgtypes.numlimits import fits_numeric
from . import (
    castsizes,
    excludesyntax,
    extsyntax,
    geosyntax,
    inlists,
    literalrows,
    manyvalues,
    mergesyntax,
    optsyntax,
    paramlists,
    strjoin,
    usingalias,
    ustrings,
)
from .escnul import check_unicode_nul
from .setvalue import split_commas
from .xmlsyntax import needed as _xml_needed
from .xmlsyntax import rewrite as _xml_rewrite

# PostgreSQL's escape strings know \b \f \n \r \t and numeric escapes; any other escaped
# character stands for itself, so E'\v' is 'v'. sqlglot reads \v as a vertical tab (and
# would print one as \v when it renders a statement back to text).
Postgres.UNESCAPED_SEQUENCES = {
    k: v for k, v in Postgres.UNESCAPED_SEQUENCES.items() if k != "\\v"}
Postgres.ESCAPED_SEQUENCES = {
    k: v for k, v in Postgres.ESCAPED_SEQUENCES.items() if v != "\\v"}


def _plain_call(name: str, args: list[exp.Expression]) -> exp.Expression:
    """A call sqlglot would read as another function's node, kept as written."""
    return exp.Anonymous(this=name, expressions=args)


def _mark_date_part(parser: Any) -> exp.Expression:
    """date_part(...) parsed as sqlglot does (an Extract), marked: PostgreSQL's date_part
    returns double precision where EXTRACT returns numeric (see expr.specialforms)."""
    node = parser._parse_date_part()
    node.meta["date_part"] = True
    return node


_PG_PARSER = sqlglot.Dialect.get_or_raise("postgres").parser_class
_PG_PARSER.FUNCTION_PARSERS = {**_PG_PARSER.FUNCTION_PARSERS, "DATE_PART": _mark_date_part}
# NB: sqlglot files make_interval's named arguments under its own slots, losing their written
# order; as a plain call they keep it (expr.namedargs puts them in place).
_PG_PARSER.FUNCTIONS = {k: v for k, v in _PG_PARSER.FUNCTIONS.items() if k != "MAKE_INTERVAL"}
# NB: sqlglot turns generate_series's string step into `INTERVAL '12' HOURS` (a plural unit the
# binder read as seconds: 7,201 rows for a day in '12 hours' steps) and fails on '12:00'; kept as
# written, the step is an unknown literal that the chosen signature types, as in PostgreSQL
_PG_PARSER.FUNCTIONS["GENERATE_SERIES"] = exp.ExplodingGenerateSeries.from_arg_list
# NB: sqlglot reads substr(...) as SUBSTRING; as a plain call it keeps its name (the column's)
_PG_PARSER.FUNCTIONS["SUBSTR"] = lambda args: exp.Anonymous(this="substr", expressions=args)
# NB: and these as another function's node, which then binds under that name: to_hex as Hex
# (hex(integer), which PostgreSQL lacks), log10 as Log(10, x) (no log(numeric, float8)),
# regexp_like as RegexpLike (its flags dropped), sha256(b) as SHA2(b, 256) (so sha256(b, 7)
# answered), and ceiling, char_length, mod, power, strpos named ceil, length, ?column?,
# position. Each is registered under its own name.
for _name in ("to_hex", "log10", "ceiling", "char_length", "character_length", "mod", "power",
              "pow", "regexp_like", "strpos", "sha224", "sha256", "sha384", "sha512",
              "json_object", "jsonb_exists", "json_extract_path", "jsonb_contains",
              "json_strip_nulls"):
    _PG_PARSER.FUNCTIONS[_name.upper()] = partial(_plain_call, _name)
# NB: json_object(...) and jsonb_exists(...) have parsers of their own (SQL/JSON syntax
# PostgreSQL 15 lacks); as plain calls they are functions.jsonmodify's.
_PG_PARSER.FUNCTION_PARSERS = {k: v for k, v in _PG_PARSER.FUNCTION_PARSERS.items()
                               if k not in ("JSON_OBJECT", "JSONB_EXISTS")}


def _niladic_call(build: Any, name: str, args: list[exp.Expression]) -> exp.Expression:
    """A zero-argument function sqlglot has a node for, called with arguments: a plain call,
    which the registry refuses as PostgreSQL does (42883 `function now(integer) does not
    exist`). sqlglot read now(1) as CURRENT_TIMESTAMP(1) and answered it, and pi(1) was 42601."""
    return exp.Anonymous(this=name, expressions=args) if args else build(args)


for _name in ("now", "pi", "version", "current_database"):
    _PG_PARSER.FUNCTIONS[_name.upper()] = partial(
        _niladic_call, _PG_PARSER.FUNCTIONS[_name.upper()], _name)


def _normalize_call(parser: Any) -> exp.Expression:
    """normalize(s [, NFC|NFD|NFKC|NFKD]): the form is a keyword, passed on as its name
    (functions.miscfns15.normalize checks it); sqlglot's Normalize node bound the form as a
    column."""
    args: list[exp.Expression] = [parser._parse_bitwise()]
    if parser._match(TokenType.COMMA):
        form = parser._curr
        if (form is None or form.token_type != TokenType.VAR
                or form.text.upper() not in ("NFC", "NFD", "NFKC", "NFKD")):
            parser.raise_error("Expecting a normalization form")
        parser._advance()
        args.append(exp.Literal.string(form.text.upper()))
    return exp.Anonymous(this="normalize", expressions=args)


_PG_PARSER.FUNCTION_PARSERS = {**_PG_PARSER.FUNCTION_PARSERS, "NORMALIZE": _normalize_call}


def _no_parentheses(parser: Any) -> exp.Expression:
    """current_date, current_user, session_user, current_role, current_catalog and user are
    SQL keywords, not functions: PostgreSQL's grammar fails at the "(" after them (42601
    `syntax error at or near "("`). sqlglot answered current_date(1) and made the others a
    call (42883) or a syntax error at the end of the input. Quoted or qualified, the name
    is a plain call: "session_user"() is pg_catalog's function."""
    name, before = parser._tokens[parser._index - 2], parser._tokens[parser._index - 3]
    if name.token_type == TokenType.IDENTIFIER or before.token_type == TokenType.DOT:
        this = exp.Identifier(this=name.text, quoted=name.token_type == TokenType.IDENTIFIER)
        return exp.Anonymous(this=this, expressions=parser._parse_function_args(True))
    parser.raise_error("Invalid expression / Unexpected token", parser._prev)
    return exp.Null()  # NB: not reached: raise_error raises at the parser's error level


_PG_PARSER.FUNCTION_PARSERS = {
    **_PG_PARSER.FUNCTION_PARSERS,
    **dict.fromkeys(("CURRENT_DATE", "CURRENT_USER", "SESSION_USER", "CURRENT_ROLE",
                     "CURRENT_CATALOG", "USER"), _no_parentheses)}


def _refuse_comma_form(parser: Any, first: exp.Expression | None) -> None:
    """PostgreSQL's syntax error at the `,` (or `)`) after EXTRACT's unit or POSITION's first
    argument: only `extract(f FROM x)` and `position(a IN b)` are its grammar; sqlglot also
    reads `extract(f, x)` and `position(a, b)`."""
    if first is not None and parser._curr is not None \
            and parser._curr.token_type in (TokenType.COMMA, TokenType.R_PAREN):
        parser.raise_error("Expected FROM or IN", parser._curr)


def _extract_call(parser: Any) -> exp.Expression:
    index = parser._index
    _refuse_comma_form(parser, parser._parse_function() or parser._parse_var_or_string(upper=True))
    parser._retreat(index)
    return cast(exp.Expression, parser._parse_extract())


def _position_call(parser: Any) -> exp.Expression:
    index = parser._index
    _refuse_comma_form(parser, parser._parse_bitwise())
    parser._retreat(index)
    return cast(exp.Expression, parser._parse_position())


_PG_PARSER.FUNCTION_PARSERS = {**_PG_PARSER.FUNCTION_PARSERS,
                               "EXTRACT": _extract_call, "POSITION": _position_call}
_NORMAL_FORMS = ("NFC", "NFD", "NFKC", "NFKD")


def _is_normalized(parser: Any, this: exp.Expression | None) -> exp.Expression | None:
    """x IS [NOT] [NFC|NFD|NFKC|NFKD] NORMALIZED as is_normalized(x [, form]); any other IS
    predicate as sqlglot reads it (which took NORMALIZED for a column or an alias)."""
    index = parser._index
    negate = parser._match(TokenType.NOT)
    form = None
    nxt = parser._next
    if (parser._curr is not None and parser._curr.text.upper() in _NORMAL_FORMS
            and nxt is not None and nxt.text.upper() == "NORMALIZED"):
        form = parser._curr.text.upper()
        parser._advance()
    if parser._curr is not None and parser._curr.text.upper() == "NORMALIZED" \
            and parser._curr.token_type == TokenType.VAR:
        parser._advance()
        args = [this] + ([exp.Literal.string(form)] if form else [])
        node: exp.Expression = exp.Anonymous(this="is_normalized", expressions=args)
        return exp.Not(this=node) if negate else node
    parser._retreat(index)
    return parser._parse_is(this)


_PG_PARSER.RANGE_PARSERS = {**_PG_PARSER.RANGE_PARSERS, TokenType.IS: _is_normalized}
_PG_PARSER._parse_join = usingalias.parse_join(  # type: ignore[method-assign]
    _PG_PARSER._parse_join)  # USING (id) AS j
_PG_PARSER._parse_merge = mergesyntax.parse_merge(  # type: ignore[method-assign]
    _PG_PARSER._parse_merge)  # MERGE ... USING b JOIN c ON ... ON ...
excludesyntax.install(_PG_PARSER)  # EXCLUDE (x WITH OPERATOR(pg_catalog.=)) DEFERRABLE
optsyntax.install(_PG_PARSER)  # WITH (autovacuum_enabled): a bare boolean option
_PG_GENERATOR = sqlglot.Dialect.get_or_raise("postgres").generator_class
_PG_GENERATOR.join_sql = usingalias.generate_join(  # type: ignore[method-assign]
    _PG_GENERATOR.join_sql)

_PG_TOKENIZER = sqlglot.Dialect.get_or_raise("postgres").tokenizer_class
_sqlglot_tokenize = _PG_TOKENIZER.tokenize
_NAME_AFTER_DOT = re.compile(r"[A-Za-z_][A-Za-z_0-9$]*")
_NOT_KEYWORDS = frozenset({TokenType.VAR, TokenType.IDENTIFIER, TokenType.STAR, TokenType.L_PAREN})
_KEYWORD_FUNCTIONS = frozenset(_PG_PARSER.FUNCTIONS) | frozenset(_PG_PARSER.FUNCTION_PARSERS)


def _tokenize(self: Any, sql: str) -> list[Token]:
    """sqlglot's tokens, mended where PostgreSQL's grammar reads words otherwise.

    In PostgreSQL's grammar what follows `name.` is a ColLabel, which every keyword is:
    `s2.only`, `t.from` and `x.select` name a table or a column. sqlglot keeps such a word
    its keyword token and then fails (`s2.only` was a syntax error). A keyword before `(`
    stays one when sqlglot parses a function by that word (`pg_catalog.left(...)`);
    `create table s2.only (...)` is a name. And `bit varying` is the type varbit, which
    sqlglot does not know by that spelling.

    >>> [t.token_type.name for t in _PG_TOKENIZER().tokenize("select s2.only.a")]
    ['SELECT', 'VAR', 'DOT', 'VAR', 'DOT', 'VAR']
    >>> [t.token_type.name for t in _PG_TOKENIZER().tokenize("select pg_catalog.left(b)")][3:5]
    ['LEFT', 'L_PAREN']
    >>> [t.text for t in _PG_TOKENIZER().tokenize("select x::bit  varying(5)")][3:5]
    ['varbit', '(']
    """
    tokens: list[Token] = _sqlglot_tokenize(self, sql)
    if "." in sql:
        _names_after_dots(tokens)
    if "varying" in sql.lower():
        _bit_varying(tokens)
    if "'" in sql and strjoin.needed(tokens):  # 'a'<newline>'b' is 'ab'; 'a' 'b' is 42601
        strjoin.join_strings(sql, tokens, lambda raw: _sqlglot_tokenize(self, f"E'{raw}'")[0].text)
    return tokens


def _names_after_dots(tokens: list[Token]) -> None:
    last = len(tokens) - 1
    for i in range(1, last + 1):
        tok = tokens[i]
        if (tokens[i - 1].token_type is TokenType.DOT and tok.token_type not in _NOT_KEYWORDS
                and _NAME_AFTER_DOT.fullmatch(tok.text)
                and (i == last or tokens[i + 1].token_type is not TokenType.L_PAREN
                     or tok.text.upper() not in _KEYWORD_FUNCTIONS)):
            tok.token_type = TokenType.VAR


def _bit_varying(tokens: list[Token]) -> None:
    i = 0
    while i < len(tokens) - 1:
        tok, nxt = tokens[i], tokens[i + 1]
        if tok.token_type is TokenType.BIT and nxt.text.lower() == "varying":
            tok.token_type, tok.text, tok.end = TokenType.VAR, "varbit", nxt.end
            del tokens[i + 1]
        i += 1


_PG_TOKENIZER.tokenize = _tokenize  # type: ignore[method-assign]

_DOLLAR = re.compile(r"\$([A-Za-z_][A-Za-z_0-9]*)?\$")


def split_statements(sql: str) -> list[str]:
    """Splits a Query message into statements at top-level semicolons (empty ones dropped);
    a routine's `BEGIN ATOMIC ... END` body stays in its CREATE statement."""
    if ("ATOMIC" in sql or "atomic" in sql or "Atomic" in sql) and _BEGIN_ATOMIC.search(sql):
        return _join_atomic(_split_statements(sql))
    return _split_statements(sql)


_BEGIN_ATOMIC = re.compile(r"\bBEGIN\s+ATOMIC\b", re.I)


def _join_atomic(parts: list[str]) -> list[str]:
    """Rejoins the statements of a BEGIN ATOMIC body, up to its closing `END`.

    >>> _join_atomic(["create procedure p() begin atomic select 1", "select 2", "end", "call p()"])
    ['create procedure p() begin atomic select 1; select 2; end', 'call p()']
    """
    out: list[str] = []
    open_ = False
    for part in parts:
        if open_:
            out[-1] += "; " + part
            open_ = part.strip().upper() != "END"
            continue
        out.append(part)
        open_ = _BEGIN_ATOMIC.search(part) is not None and \
            re.search(r"\bEND\s*$", part, re.I) is None
    return out


def _split_statements(sql: str) -> list[str]:
    """Splits a Query message into statements at top-level semicolons (empty ones dropped)."""
    if ";" not in sql:
        s = sql.strip()
        return [s] if s and not _only_comments(s) else []
    if "'" not in sql and '"' not in sql and "$" not in sql and "-" not in sql and "/" not in sql:
        return [s for s in (x.strip() for x in sql.split(";")) if s]  # NB: nothing to skip
    if sql.count(";") == 1 and sql.rstrip().endswith(";") and _simple_tail(sql):
        s = sql.rstrip()[:-1].strip()
        return [s] if s else []
    out: list[str] = []
    n, start = len(sql), 0
    m = _SPECIAL.search(sql)  # NB: jump from one token that matters to the next (1 MB comments)
    while m is not None:
        i = m.start()
        c = sql[i]
        if c == "'":
            backslash = i > 0 and sql[i - 1] in "eE" and (i < 2 or not sql[i - 2].isalnum())
            i = _string_end(sql, i + 1, backslash) + 1
        elif c == '"':
            i = sql.find('"', i + 1)
            i = n if i < 0 else i + 1
        elif c == "-":  # --
            i = sql.find("\n", i)
            i = n if i < 0 else i + 1
        elif c == "/":  # /*
            i = _comment_end(sql, i + 2)
        elif c == "$":
            mm = _DOLLAR.match(sql, i) if i == 0 or not (
                sql[i - 1].isalnum() or sql[i - 1] == "_") else None
            if mm:
                end = sql.find(mm.group(0), mm.end())
                i = n if end < 0 else end + len(mm.group(0))
            else:
                i += 1
        else:  # ;
            stmt = sql[start:i].strip()
            if stmt and not _only_comments(stmt):
                out.append(stmt)
            start = i = i + 1
        m = _SPECIAL.search(sql, i) if i < n else None
    stmt = sql[start:].strip()
    if stmt and not _only_comments(stmt):
        out.append(stmt)
    return out


_SPECIAL = re.compile(r"""['";$]|--|/\*""")
_QUOTE_OR_BACKSLASH = re.compile(r"['\\]")


def _string_end(sql: str, i: int, backslash: bool) -> int:
    """The index of the quote that ends a string literal whose text starts at `i` (`''` is a
    quote inside it; in an E'' string a backslash escapes the next character); len(sql) if
    none does.

    >>> s = "'it''s' x"; _string_end(s, 1, False)
    6
    >>> s = r"E'a\\'b' x"; _string_end(s, 2, True)
    6
    """
    n = len(sql)
    while i < n:
        if backslash:
            m = _QUOTE_OR_BACKSLASH.search(sql, i)
            j = n if m is None else m.start()
            if j < n and sql[j] == "\\":
                i = j + 2
                continue
        else:
            j = sql.find("'", i)
            j = n if j < 0 else j
        if j + 1 < n and sql[j + 1] == "'":
            i = j + 2
            continue
        return j
    return n


def _comment_end(sql: str, i: int) -> int:
    """The index just past the `*/` that closes a (nested) block comment whose text starts
    at `i`; len(sql) if none does.

    >>> _comment_end("/* a /* b */ c */ x", 2)
    17
    """
    depth, n = 1, len(sql)
    while depth:
        close = sql.find("*/", i)
        if close < 0:
            return n
        opening = sql.find("/*", i, close + 1)
        if 0 <= opening < close:
            depth, i = depth + 1, opening + 2
        else:
            depth, i = depth - 1, close + 2
    return i


def _simple_tail(sql: str) -> bool:
    """True if the only `;` (the last character) cannot sit in a string, identifier or comment."""
    return ("--" not in sql and "/*" not in sql and "$" not in sql
            and sql.count("'") % 2 == 0 and sql.count('"') % 2 == 0
            and "\\" not in sql)


_COMMENTS = re.compile(r"(--[^\n]*(\n|$)|/\*.*?\*/|\s)+", re.S)


def _only_comments(s: str) -> bool:
    return s.startswith(("--", "/*")) and _COMMENTS.fullmatch(s) is not None


def strip_leading_comments(s: str) -> str:
    """Removes comments and whitespace before the first keyword."""
    if s.startswith(("--", "/*")):
        m = _COMMENTS.match(s)
        return s[m.end():] if m else s
    return s


# -- the pre-parser -----------------------------------------------------------

_I = re.I | re.S
_NAME = r'(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z_0-9$]*)'
# NB: any text after the keywords: txn_modes() reports a bad mode as PostgreSQL does (42601)
_TXN_MODES_ANY = r"(?P<modes>(?:\s+[\s\S]*?)?)"
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("begin", re.compile(r"(?:BEGIN(?:\s+(?:WORK|TRANSACTION))?|START\s+TRANSACTION)"
                         + _TXN_MODES_ANY + r"\s*$", _I)),
    ("commit", re.compile(r"(?:COMMIT|END)(?:\s+(?:WORK|TRANSACTION))?(?:\s+AND\s+NO\s+CHAIN)?\s*$",
                          _I)),
    ("rollback_to", re.compile(r"ROLLBACK(?:\s+(?:WORK|TRANSACTION))?\s+TO\s+(?:SAVEPOINT\s+)?"
                               r"(?P<name>" + _NAME + r")\s*$", _I)),
    ("rollback", re.compile(r"(?:ROLLBACK|ABORT)(?:\s+(?:WORK|TRANSACTION))?"
                            r"(?:\s+AND\s+NO\s+CHAIN)?\s*$", _I)),
    ("savepoint", re.compile(r"SAVEPOINT\s+(?P<name>" + _NAME + r")\s*$", _I)),
    ("release", re.compile(r"RELEASE\s+(?:SAVEPOINT\s+)?(?P<name>" + _NAME + r")\s*$", _I)),
    ("set_txn", re.compile(r"SET\s+TRANSACTION" + _TXN_MODES_ANY + r"\s*$", _I)),
    ("set_session_txn", re.compile(r"SET\s+SESSION\s+CHARACTERISTICS\s+AS\s+TRANSACTION"
                                   + _TXN_MODES_ANY + r"\s*$", _I)),
    ("set_names", re.compile(r"SET\s+(?:SESSION\s+|LOCAL\s+)?NAMES\s+(?P<value>.+?)\s*$", _I)),
    ("set_role", re.compile(r"SET\s+(?P<local>SESSION\s+|LOCAL\s+)?(?P<what>ROLE|SESSION\s+AUTHORIZATION)"
                            r"\s+(?P<value>.+?)\s*$", _I)),
    ("set_tz", re.compile(r"SET\s+(?P<local>SESSION\s+|LOCAL\s+)?TIME\s+ZONE\s+(?P<value>.+?)\s*$",
                          _I)),
    ("set", re.compile(r"SET\s+(?P<local>SESSION\s+|LOCAL\s+)?(?P<name>" + _NAME +
                       r"(?:\." + _NAME + r")?)\s*(?:=|\bTO\b)\s*(?P<value>.+?)\s*$", _I)),
    ("reset", re.compile(r"RESET\s+(?P<name>ALL|SESSION\s+AUTHORIZATION|" + _NAME
                         + r"(?:\." + _NAME + r")?)\s*$", _I)),
    ("show", re.compile(r"SHOW\s+(?P<name>ALL|TRANSACTION\s+ISOLATION\s+LEVEL|TIME\s+ZONE|"
                        + _NAME + r"(?:\." + _NAME + r")?)\s*$", _I)),
    ("discard", re.compile(r"DISCARD\s+(?P<what>ALL|PLANS|SEQUENCES|TEMP|TEMPORARY)\s*$", _I)),
    ("close", re.compile(r"CLOSE\s+(?P<name>ALL|" + _NAME + r")\s*$", _I)),
    ("declare", re.compile(r"DECLARE\s+(?P<name>" + _NAME + r")\s+(?P<opts>(?:\s*(?:BINARY|"
                           r"INSENSITIVE|ASENSITIVE|NO\s+SCROLL|SCROLL))*)\s*CURSOR"
                           r"(?P<hold>\s+(?:WITH|WITHOUT)\s+HOLD)?\s+FOR\b\s*(?P<query>.*)$", _I)),
    ("fetch", re.compile(r"(?P<verb>FETCH|MOVE)(?:\s+(?P<dir>NEXT|PRIOR|FIRST|LAST|ALL|"
                         r"FORWARD\s+ALL|FORWARD\s+[+-]?\d+|FORWARD|BACKWARD\s+ALL|"
                         r"BACKWARD\s+[+-]?\d+|BACKWARD|ABSOLUTE\s+[+-]?\d+|RELATIVE\s+[+-]?\d+|"
                         r"[+-]?\d+))?(?:\s+(?:FROM|IN))?\s+(?P<name>" + _NAME + r")\s*$", _I)),
    ("listen", re.compile(r"(?P<verb>LISTEN|UNLISTEN|NOTIFY)\b.*$", _I)),
    ("vacuum", re.compile(r"(?P<verb>VACUUM|ANALYZE|ANALYSE)\b.*$", _I)),
    ("checkpoint", re.compile(r"CHECKPOINT\s*$", _I)),
    ("prepare", re.compile(r"PREPARE\s+(?P<name>" + _NAME + r")\s*(?:\((?P<types>[^)]*)\))?\s+"
                           r"AS\s+(?P<query>.+)$", _I)),
    ("execute", re.compile(r"EXECUTE\s+(?P<name>" + _NAME + r")\s*(?:\((?P<args>.*)\))?\s*$", _I)),
    ("deallocate", re.compile(r"DEALLOCATE\s+(?:PREPARE\s+)?(?P<name>ALL|" + _NAME + r")\s*$",
                              _I)),
    # NB: `EXPLAIN (SELECT 1) UNION (SELECT 2)`: a parenthesised query is no option list
    ("explain", re.compile(r"EXPLAIN(?=[\s(])\s*(?P<opts>\((?!\s*(?:\(|(?:SELECT|VALUES|WITH"
                           r"|TABLE)\b))[^)]*\)\s*|(?:ANALYZE\s+|ANALYSE\s+|VERBOSE\s+)*)"
                           r"(?P<query>.+)$", _I)),
    ("copy", re.compile(r"COPY\b.*$", _I)),
    ("role", re.compile(r"(?P<verb>CREATE|ALTER|DROP)\s+(?P<kind>ROLE|USER|GROUP)\b.*$", _I)),
    ("database", re.compile(r"(?P<verb>CREATE|DROP|ALTER)\s+DATABASE\b.*$", _I)),
    ("comment", re.compile(r"COMMENT\s+ON\b.*$", _I)),
    ("noop", re.compile(r"(?P<verb>GRANT|REVOKE|LOCK(?:\s+TABLE)?|SET\s+CONSTRAINTS|"
                        r"SECURITY\s+LABEL|REINDEX|CLUSTER)\b.*$", _I)),
    ("sequence", re.compile(r"(?P<verb>CREATE|ALTER|DROP)\s+(?:TEMP(?:ORARY)?\s+)?SEQUENCE\b.*$",
                            _I)),
    ("alter_system", re.compile(r"ALTER\s+SYSTEM\b.*$", _I | re.S)),
    ("type", re.compile(r"(?P<verb>CREATE|ALTER|DROP)\s+(?:TYPE|DOMAIN)\b.*$", _I)),
    ("extension", re.compile(r"(?P<verb>CREATE|ALTER|DROP)\s+EXTENSION\b.*$", _I)),
    ("collation", re.compile(r"(?P<verb>CREATE|DROP|ALTER)\s+COLLATION\b.*$", _I | re.S)),
    # NB: last, so that no _FIRST_WORDS index moves (COMMIT, ROLLBACK and PREPARE reach them)
    ("prepare_txn", re.compile(r"PREPARE\s+TRANSACTION\s+(?P<gid>'(?:[^']|'')*')\s*$", _I)),
    ("finish_prepared", re.compile(r"(?P<verb>COMMIT|ROLLBACK)\s+PREPARED\s+"
                                   r"(?P<gid>'(?:[^']|'')*')\s*$", _I)),
]
_FIRST_WORDS = {
    "BEGIN": 0, "START": 0, "COMMIT": 1, "END": 1, "ROLLBACK": 2, "ABORT": 3, "SAVEPOINT": 4,
    "RELEASE": 5, "SET": 6, "RESET": 12, "SHOW": 13, "DISCARD": 14, "CLOSE": 15, "DECLARE": 16,
    "FETCH": 17, "MOVE": 17, "LISTEN": 18, "UNLISTEN": 18, "NOTIFY": 18, "VACUUM": 19,
    "ANALYZE": 19, "ANALYSE": 19, "CHECKPOINT": 20, "PREPARE": 21, "EXECUTE": 22,
    "DEALLOCATE": 23, "EXPLAIN": 24, "COPY": 25, "CREATE": 26, "ALTER": 26, "DROP": 26,
    "COMMENT": 28, "GRANT": 29, "REVOKE": 29, "LOCK": 29, "REINDEX": 29, "CLUSTER": 29,
    "SECURITY": 29,
}
_WORD = re.compile(r"[A-Za-z]+")


def utility(sql: str) -> tuple[str, re.Match[str]] | None:
    """Recognises a statement sqlglot should not see; returns (kind, match) or None."""
    m = _WORD.match(sql)
    if not m:
        return None
    first = _FIRST_WORDS.get(m.group(0).upper())
    if first is None:
        return None
    for kind, pat in _PATTERNS[first:]:
        mm = pat.match(sql)
        if mm:
            return kind, mm
    return None


_ASCII_FOLD = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def fold_ident(name: str) -> str:
    """Folds an unquoted identifier as PostgreSQL does in UTF-8: only ASCII letters are
    lower-cased (so does sqlglot's postgres dialect; `str.lower` would fold Æ too).

    >>> fold_ident("ÆthelRED")
    'Æthelred'
    """
    return name.translate(_ASCII_FOLD)


def unquote_ident(name: str) -> str:
    """Folds an identifier as PostgreSQL does: quoted names kept, others lower-cased."""
    if name.startswith('"') and name.endswith('"'):
        return name[1:-1].replace('""', '"')
    return fold_ident(name)


_TXN_MODE = re.compile(
    r"\s*(?:ISOLATION\s+LEVEL\s+(?:SERIALIZABLE|REPEATABLE\s+READ|READ\s+COMMITTED|"
    r"READ\s+UNCOMMITTED)|READ\s+ONLY|READ\s+WRITE|NOT\s+DEFERRABLE|DEFERRABLE)\b\s*,?",
    re.I)
_TXN_WORD = re.compile(r"\s*(ISOLATION\s+LEVEL\s+|READ\s+|NOT\s+)?(\S+)", re.I)


def _check_txn_modes(text: str) -> None:
    """42601 at the first word that is not part of a transaction mode, as PostgreSQL's grammar."""
    pos, t = 0, text.rstrip().rstrip(";")
    while pos < len(t):
        m = _TXN_MODE.match(t, pos)
        if m is None or m.end() == pos:
            w = _TXN_WORD.match(t, pos)
            bad = w.group(2) if w else t[pos:].strip()
            raise SyntaxError_(f'syntax error at or near "{bad.rstrip(",")}"')
        pos = m.end()


def txn_modes(text: str | None) -> dict[str, Any]:
    """Parses transaction modes (ISOLATION LEVEL ..., READ ONLY/WRITE, DEFERRABLE)."""
    out: dict[str, Any] = {}
    if not text:
        return out
    _check_txn_modes(text)
    t = " ".join(text.lower().replace(",", " ").split())
    for level in ("read uncommitted", "read committed", "repeatable read", "serializable"):
        if "isolation level " + level in t:
            out["isolation"] = level
    if "read only" in t:
        out["read_only"] = True
    elif "read write" in t:
        out["read_only"] = False
    if "not deferrable" in t:
        out["deferrable"] = False
    elif "deferrable" in t:
        out["deferrable"] = True
    return out


_PARAM_ARRAY_CAST = re.compile(r"(\$\d+)\s*::\s*((?:[A-Za-z_][\w.]*|\"[^\"]+\")(?:\s*\[\s*\])+)")


def _array_cast(m: re.Match[str]) -> str:
    name = m.group(2)
    dims = name.count("[")
    base = name[: name.index("[")].strip()
    if "." not in base:
        base = "pg_catalog." + base  # NB: sqlglot only reads `x[]` as a type when qualified
    return f"CAST({m.group(1)} AS {base}{'[]' * dims})"


_PG_ARRAY_CAST = re.compile(
    r"::\s*(oid|reg[a-z]+|cstring|name|xid|cid|tid|aclitem|int2vector|oidvector)(\s*\[\s*\])", re.I)
# NB: sqlglot fails on a quoted type name with array brackets (`"oid"[]` in CREATE TABLE); a
# qualified one parses, and pg_catalog. falls back to user types (expr.types.type_by_name)
_QUOTED_ARRAY_TYPE = re.compile(r"(?P<skip>'(?:[^']|'')*')|\"(?P<name>[a-z_][a-z0-9_]*)\"\s*\[\s*\]")
# `b oid[]`, `cast(x as regclass[])`: sqlglot reads oid, reg* and cstring as a type that takes
# no brackets
_BARE_OID_ARRAY = re.compile(
    r"(?P<skip>(?<!\w)[eE]'(?:[^'\\]|\\.|'')*'|'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\")"
    r"|(?<![\w.\"$])(?P<name>oid|reg[a-z]+|cstring)(?P<dims>(?:\s*\[\s*\])+)", re.I)
# `point '(1,2)'`, `box '(1,1),(0,0)'`, `inet '1.2.3.4'`: typed literals sqlglot does not know
_PG_TYPED_LITERAL = re.compile(
    r"(?P<skip>(?<!\w)[eE]'(?:[^'\\]|\\.|'')*'|'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\")"
    r"|(?<![\w.\"])(?P<type>point|box|lseg|line|path|polygon|circle|inet|cidr|macaddr8|macaddr)"
    r"\s*'(?P<lit>(?:[^']|'')*)'", re.I)
_PG_TYPED_HINT = re.compile(
    r"\b(?:point|box|lseg|line|path|polygon|circle|inet|cidr|macaddr8?)\s*'", re.I)

# `numeric(2, -3)` (PostgreSQL 15's negative scale): sqlglot takes no sign there, but a quoted
# scale parses and reaches expr.types.type_by_name, which unquotes it
_NEGATIVE_SCALE = re.compile(
    r"(?P<skip>(?<!\w)[eE]'(?:[^'\\]|\\.|'')*'|'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\")"
    r"|\b(?P<type>numeric|decimal)\s*\(\s*(?P<p>\d+)\s*,\s*-\s*(?P<s>\d+)\s*\)", re.I)


# `a <<= b`, `a >>= b` (inet/cidr containment): sqlglot knows no such tokens, but it reads
# PostgreSQL's explicit `a OPERATOR(pg_catalog.<<=) b`, with the same precedence
_CONTAIN_OPS = re.compile(
    r"(?P<skip>(?<!\w)[eE]'(?:[^'\\]|\\.|'')*'|'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*)"
    r"|(?<![<>=!~@#%^&|`?+*/-])(?P<op><<=|>>=)(?![<>=!~@#%^&|`?+*/-])")


def _contain_op(m: re.Match[str]) -> str:
    return m.group(0) if m.group("skip") is not None else f" OPERATOR(pg_catalog.{m.group('op')}) "


def _negative_scale(m: re.Match[str]) -> str:
    if m.group("skip") is not None:
        return m.group(0)
    return f"{m.group('type')}({m.group('p')}, '-{m.group('s')}')"


def _quoted_array_type(m: re.Match[str]) -> str:
    return m.group(0) if m.group("skip") is not None else f"pg_catalog.{m.group('name')}[]"


def _bare_oid_array(m: re.Match[str]) -> str:
    if m.group("skip") is not None:
        return m.group(0)
    return f"pg_catalog.{m.group('name').lower()}{'[]' * m.group('dims').count('[')}"


def _pg_typed_literal(m: re.Match[str]) -> str:
    if m.group("skip") is not None:
        return m.group(0)
    return f"CAST('{m.group('lit')}' AS {m.group('type')})"


_IDENTITY_OPTS = re.compile(r"\bAS\s+IDENTITY\s*\(", re.I)
_SEQ_OPT = re.compile(
    r"\s*(?:(?P<start>START)(?:\s+WITH)?\s+(?P<sv>[+-]?\d+)"
    r"|(?P<inc>INCREMENT)(?:\s+BY)?\s+(?P<iv>[+-]?\d+)"
    r"|(?P<min>MINVALUE)\s+(?P<minv>[+-]?\d+)|(?P<max>MAXVALUE)\s+(?P<maxv>[+-]?\d+)"
    r"|(?P<nomin>NO\s+MINVALUE)|(?P<nomax>NO\s+MAXVALUE)|(?P<cache>CACHE\s+\d+)"
    r"|(?P<nocycle>NO\s+CYCLE)|(?P<cycle>CYCLE))", re.I)


def _identity_options(sql: str, caches: list[str | None]) -> str:
    """Rewrites `AS IDENTITY (options)` into the one order sqlglot reads (any order is valid SQL).

    sqlglot has no CACHE option: each identity's CACHE value is appended to `caches`.
    """
    out, pos = [], 0
    for m in _IDENTITY_OPTS.finditer(sql):
        end = sql.find(")", m.end())
        if end < 0 or m.start() < pos:
            continue
        body, opts, i = sql[m.end():end], {}, 0
        while i < len(body.rstrip()):
            o = _SEQ_OPT.match(body, i)
            if o is None:
                return sql  # NB: leave it to sqlglot to report
            for k in ("sv", "iv", "minv", "maxv"):
                if o.group(k) is not None:
                    opts[k] = o.group(k)
            if o.group("cache"):
                opts["cache"] = int(o.group("cache").split()[-1])
            if o.group("cycle") or o.group("nocycle"):
                opts["cycle"] = "CYCLE" if o.group("cycle") else "NO CYCLE"
            i = o.end()
        parts = [f"{word} {opts[k]}" for k, word in (("sv", "START WITH"), ("iv", "INCREMENT BY"),
                                                      ("minv", "MINVALUE"), ("maxv", "MAXVALUE"))
                 if k in opts]
        if "cycle" in opts:
            parts.append(opts["cycle"])
        caches.append(opts.get("cache"))
        out.append(sql[pos:m.start()] + ("AS IDENTITY (" + " ".join(parts) + ")" if parts
                                         else "AS IDENTITY"))
        pos = end + 1
    return "".join(out) + sql[pos:] if out else sql


_PARAM_OR_QUOTED = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|\$\d+")


# `$1,` or `$1+` (a simple query's constants after `normalize`, pgJDBC's `($1,$2)`): sqlglot
# takes it for a dollar quote; and a text with a real dollar quote is left to the first parse
_TIGHT_PARAM = re.compile(r"\$\d+[^\s\d]")
_DOLLAR_QUOTE = re.compile(r"\$(?:[A-Za-z_\x80-\uffff][\w\x80-\uffff]*)?\$")


def _parse_spaced_params(sql: str) -> exp.Expression:
    """Parses again with a space after every `$n` outside quotes.

    NB: sqlglot's tokenizer reads `($1,$2)` (pgJDBC's batched INSERT, with no
    spaces) as the start of a dollar-quoted string tagged `1,` and fails.
    """
    spaced = _PARAM_OR_QUOTED.sub(lambda m: m.group(0) + (" " if m.group(0)[0] == "$" else ""), sql)
    try:
        return cast(exp.Expression, sqlglot.parse_one(spaced, read="postgres"))
    except ParseError as e:
        raise _syntax_error(sql, e) from None
    except TokenError as e:
        raise SyntaxError_(f"syntax error: {e}") from None


_TYPED_LITERALS = re.compile(
    # NB: strings and quoted names are matched first and left alone, so that nothing inside
    # them ('an interval ' || x) is taken for a literal
    r"(?P<skip>(?<!\w)[eE]'(?:[^'\\]|\\.|'')*'|'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\")"
    r"|\binterval\s*'(?P<iv>(?:[^']|'')*)'(?P<range>\s*(?:year\s+to\s+month"
    r"|day\s+to\s+(?:hour|minute|second)|hour\s+to\s+(?:minute|second)|minute\s+to\s+second"
    r"|year|month|day|hour|minute|second)\b)?(?:\s*\(\s*(?P<prec>\d+)\s*\))?"
    r"|\b(?P<type>(?:time|timestamp)\s+with(?:out)?\s+time\s+zone|double\s+precision|timestamptz"
    r"|timestamp|timetz|time|date|int2|int4|int8|integer|smallint|bigint|numeric|decimal|real"
    r"|float4|float8|text|varchar|boolean|bool|jsonb|json|uuid|bytea)\s*'(?P<lit>(?:[^']|'')*)'"
    r"(?=\s*::)", re.I)
# `interval day to second(3)` as a type: sqlglot cannot parse the precision after a range
_INTERVAL_SECOND_P = re.compile(
    r"\binterval\s+((?:(?:day|hour|minute)\s+to\s+)?second)\s*\(\s*(\d+)\s*\)", re.I)


def _typed_literal(m: re.Match[str]) -> str:
    """`INTERVAL '1 day 02:03:04'` and `time '10:00'::x` -> casts sqlglot reads as PostgreSQL.

    NB: sqlglot keeps only the '1 day' of such an interval literal, fails outright on
    `generate_series(a, b, interval '-1 mon 5 days')`, reads `interval '1 year 2 mons' year` as
    an alias, and binds `time '10:00'::interval` as `time ('10:00'::interval)`. A cast reads
    any text as interval_in does, under the typmod of a trailing range.
    """
    if m.group("skip") is not None:
        return m.group(0)
    if m.group("type") is not None:
        return f"CAST('{m.group('lit')}' AS {m.group('type')})"
    rng = m.group("range")
    out = f"CAST('{m.group('iv')}' AS INTERVAL{(' ' + rng.strip()) if rng else ''})"
    if m.group("prec") is None:
        return out
    if rng and not rng.strip().lower().endswith("second"):
        return m.group(0)  # `interval '1' day(3)` is not SQL: let the parser say so
    return f"CAST({out} AS INTERVAL({m.group('prec')}))"  # the range reads the text, then rounds


def _lambdas_to_json(tree: exp.Expression) -> None:
    """sqlglot reads `f(j -> 'b')` (a FROM-clause function's argument) as a lambda `j -> body`;
    PostgreSQL has no lambdas, so each one is the json `->` operator on column `j`."""
    for lam in list(tree.find_all(exp.Lambda)):
        params = lam.expressions
        if len(params) == 1 and isinstance(params[0], exp.Identifier):
            lam.replace(exp.JSONExtract(this=exp.Column(this=params[0].copy()),
                                        expression=lam.this.copy()))


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")


def _date_bin_origin(tree: exp.Expression) -> None:
    """sqlglot keeps date_bin's third argument as a bare Var, a quoted origin too (`'2001-01-01'`
    then read as a column): a Var that is no identifier was a string literal."""
    for node in tree.find_all(exp.DateBin):
        unit = node.args.get("unit")
        if isinstance(unit, exp.Var) and not _IDENT.fullmatch(unit.name):
            unit.replace(exp.Literal.string(unit.name))


# INSERT ... OVERRIDING {SYSTEM | USER} VALUE: sqlglot does not read it; dml.insert and
# dml.merge read it from the statement's text (blanked here, so error positions stay)
_OVERRIDING_SYSTEM = re.compile(r"\bOVERRIDING\s+(?:SYSTEM|USER)\s+VALUE\b", re.I)
_ON_COMMIT = re.compile(r"\s+ON\s+COMMIT\s+(DROP|DELETE\s+ROWS|PRESERVE\s+ROWS)\b", re.I)


_CHECK_OPTION = re.compile(r"\s+WITH\s+(?:(CASCADED|LOCAL)\s+)?CHECK\s+OPTION\s*;?\s*$", re.I)
# CREATE RECURSIVE VIEW v (cols) AS q is, as in PostgreSQL's grammar,
# CREATE VIEW v (cols) AS WITH RECURSIVE v (cols) AS (q) SELECT cols FROM v
_RECURSIVE_VIEW = re.compile(
    r"^(?P<head>\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:(?:TEMP|TEMPORARY)\s+)?)RECURSIVE\s+VIEW\s+"
    r"(?P<name>(?:(?:\"[^\"]*\"|[^\s(\".]+)\s*\.\s*)?(?P<rel>\"[^\"]*\"|[^\s(\".]+))\s*"
    r"\((?P<cols>[^()]*)\)\s*(?P<with>WITH\s*\([^()]*\)\s*)?AS\s+(?P<query>.*?)\s*;?\s*$",
    re.I | re.S)


_RECURSIVE_NO_COLUMNS = re.compile(
    r"\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:(?:TEMP|TEMPORARY)\s+)?RECURSIVE\s+VIEW\s+"
    r"(?:\"[^\"]*\"|[^\s(\"])+\s+(?:WITH\s*\([^()]*\)\s*)?(?P<as>AS)\b", re.I)


def _recursive_view(m: re.Match[str]) -> str:
    cols = m.group("cols")
    return (f"{m.group('head')}VIEW {m.group('name')} ({cols}) {m.group('with') or ''}AS "
            f"WITH RECURSIVE {m.group('rel')} ({cols}) AS ({m.group('query')}) "
            f"SELECT {cols} FROM {m.group('rel')}")


# CREATE VIEW v [(cols)] WITH (options) AS: sqlglot reads no bare option name (ddl.misc does)
_VIEW_OPTIONS = re.compile(r"\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:(?:TEMP|TEMPORARY)\s+)?"
                           r"(?:RECURSIVE\s+)?VIEW\s+(?:\"[^\"]*\"|[^\s(\"])+\s*(?:\([^()]*\)\s*)?"
                           r"(?P<with>WITH\s*\((?P<opts>[^()]*)\))\s*AS\b", re.I)


_DROP_SCHEMAS = re.compile(r"\s*DROP\s+SCHEMA\s+(?P<head>(?:IF\s+EXISTS\s+)?)(?P<names>.+?)"
                           r"(?P<tail>\s+(?:CASCADE|RESTRICT))?\s*;?\s*$", re.I | re.S)


def _drop_schemas(sql: str) -> exp.Expression | None:
    """`DROP SCHEMA [IF EXISTS] a, b [CASCADE]`, which sqlglot reads with one name only:
    the first name's tree, with every name in `tables` (as DROP TABLE a, b has them)."""
    m = _DROP_SCHEMAS.match(sql)
    if m is None:
        return None
    names = split_commas(m.group("names"))
    trees: list[exp.Expression] = []
    for name in names:
        try:
            trees.append(cast(exp.Expression, sqlglot.parse_one(f"DROP SCHEMA {m.group('head')}{name.strip()}"
                                           f"{m.group('tail') or ''}", read="postgres")))
        except (ParseError, TokenError):
            return None  # NB: the normal parse reports the error at its place
    first = trees[0]
    first.set("tables", [t.args["tables"][0] for t in trees])
    return first


def _parse_tree(sql: str) -> exp.Expression:
    """sqlglot's tree of a statement `parse_sql` prepared, raising 42601 on failure."""
    if "$" in sql and _TIGHT_PARAM.search(sql) and not _DOLLAR_QUOTE.search(sql):
        tree = _parse_spaced_params(sql)  # NB: at once: parse_one would fail on it first
    else:
        try:
            tree = cast(exp.Expression, sqlglot.parse_one(sql, read="postgres"))
        except ParseError as e:
            raise _syntax_error(sql, e) from None
        except TokenError as e:
            if "$" not in sql:
                raise SyntaxError_(f"syntax error: {e}") from None
            tree = _parse_spaced_params(sql)
    if tree is None:
        raise SyntaxError_("syntax error at end of input", position=len(sql) + 1)
    return tree


def parse_sql(sql: str) -> exp.Expression:
    """Parses one statement with sqlglot (postgres dialect), raising 42601 on failure.

    A multi-row INSERT ... VALUES of parameters whose rows share one shape comes back with
    its first row only, and `meta["many"]` (a `manyvalues.ManyValues`) on the VALUES node.
    """
    if "\\u0000" in sql or "\\U00000000" in sql:
        check_unicode_nul(sql)
    if ustrings.needed(sql):  # U&'...' and U&"..." [UESCAPE 'c']
        sql = ustrings.rewrite(sql)
    many = None
    if "$" in sql and sql[:6].upper() == "INSERT" and ("), (" in sql or "),(" in sql):
        many = manyvalues.split(sql)
        if many is not None:
            sql = many.head
    sql = inlists.rewrite(sql)
    plists = paramlists.split(sql) if paramlists.might_have(sql) else None
    if plists is not None:  # IN ($1, ..., $60000): sqlglot sees `IN ($1)`
        sql = plists.text
    has_interval = "nterval" in sql or "NTERVAL" in sql
    if "'" in sql and (has_interval or "::" in sql):
        sql = _TYPED_LITERALS.sub(_typed_literal, sql)
    if "'" in sql and _PG_TYPED_HINT.search(sql):
        sql = _PG_TYPED_LITERAL.sub(_pg_typed_literal, sql)
    if has_interval:  # NB: sqlglot reads the same type written `interval(3) day to second`
        sql = _INTERVAL_SECOND_P.sub(r"INTERVAL(\2) \1", sql)
    if "[]" in sql or "[ ]" in sql:
        if "$" in sql:
            # NB: sqlglot reads `$1::oid[]` (asyncpg's introspection) as a subscript and fails.
            sql = _PARAM_ARRAY_CAST.sub(_array_cast, sql)
        # NB: and `x::oid[]` too, unless the type name is qualified
        sql = _PG_ARRAY_CAST.sub(lambda m: f"::pg_catalog.{m.group(1).lower()}[]", sql)
        if '"' in sql:
            sql = _QUOTED_ARRAY_TYPE.sub(_quoted_array_type, sql)
        sql = _BARE_OID_ARRAY.sub(_bare_oid_array, sql)
    if "<<=" in sql or ">>=" in sql:
        sql = _CONTAIN_OPS.sub(_contain_op, sql)
    if "-" in sql and ("ecimal" in sql or "umeric" in sql or "ECIMAL" in sql or "UMERIC" in sql):
        sql = _NEGATIVE_SCALE.sub(_negative_scale, sql)
    if "VERRIDING" in sql or "verriding" in sql:
        sql = _OVERRIDING_SYSTEM.sub(lambda m: " " * len(m.group()), sql)
    on_commit = None
    if sql[:6].upper() == "CREATE" and ("COMMIT" in sql or "commit" in sql):
        m = _ON_COMMIT.search(sql)  # NB: sqlglot does not read it; ddl.oncommit acts on it
        if m is not None:
            on_commit = " ".join(m.group(1).upper().split())
            sql = sql[:m.start()] + sql[m.end():]
    check_option = None
    if sql[:6].upper() == "CREATE" and ("OPTION" in sql or "option" in sql):
        m = _CHECK_OPTION.search(sql)  # NB: sqlglot does not read it; ddl.misc.create_view does
        if m is not None:
            check_option = (m.group(1) or "cascaded").lower()
            sql = sql[:m.start()]
    view_options = None
    if sql[:6].upper() == "CREATE" and ("VIEW" in sql or "view" in sql):
        sql = _RECURSIVE_VIEW.sub(_recursive_view, sql, count=1)
        bare = _RECURSIVE_NO_COLUMNS.match(sql)
        if bare is not None:  # NB: PostgreSQL's grammar requires the column list
            raise SyntaxError_(f'syntax error at or near "{bare.group("as")}"',
                               position=bare.start("as") + 1)
        m = _VIEW_OPTIONS.match(sql)
        if m is not None:
            view_options = m.group("opts")
            sql = sql[:m.start("with")] + sql[m.end("with"):]
    if "," in sql and sql[:4].upper() == "DROP":
        schemas = _drop_schemas(sql)
        if schemas is not None:
            return schemas
    caches: list[str | None] = []
    if "IDENTITY" in sql or "identity" in sql:
        sql = _identity_options(sql, caches)
    if extsyntax.needed(sql):  # hstore's #= %% %# #<# ... and delete(...)
        sql = extsyntax.rewrite(sql)
    if geosyntax.needed(sql):  # geometric ~= <^ ?-| @-@ ..., jsonpath's @?
        sql = geosyntax.rewrite(sql)
    if castsizes.needed(sql):  # x::double precision[3]: the bounds are ignored
        sql = castsizes.rewrite(sql)
    if _xml_needed(sql):  # XMLPARSE(DOCUMENT x), XMLSERIALIZE(... AS t), XMLPI(NAME n) ...
        sql = _xml_rewrite(sql)
    try:
        tree = _parse_tree(sql)
    except SQLError as e:
        if plists is not None and e.position:
            e.position = plists.position(e.position - 1) + 1  # NB: in the text as written
        raise
    if "->" in sql:
        _lambdas_to_json(tree)
    if "date_bin" in sql or "DATE_BIN" in sql:
        _date_bin_origin(tree)
    if plists is not None:
        plists.attach(tree)
    if many is not None:
        source = tree.args.get("expression")
        if not isinstance(tree, exp.Insert) or not isinstance(source, exp.Values):
            raise SyntaxError_("syntax error")  # NB: cannot happen: split matched an INSERT
        source.meta["many"] = many
    if on_commit is not None:
        tree.meta["on_commit"] = on_commit  # NB: read by ddl.tables
    if check_option is not None:
        tree.meta["check_option"] = check_option  # NB: WITH [LOCAL] CHECK OPTION, ddl.misc
    if view_options is not None:
        tree.meta["view_options"] = view_options  # NB: WITH (security_barrier, ...), ddl.misc
    if any(c is not None for c in caches):
        idents = list(tree.find_all(exp.GeneratedAsIdentityColumnConstraint))
        for k, cache in zip(idents, caches, strict=False):
            if cache is not None:
                k.meta["cache"] = cache  # NB: read by ddl.tables
    return tree


_STATEMENT_WORDS = {
    "select", "insert", "update", "delete", "with", "values", "table", "create", "drop", "alter",
    "truncate", "comment", "begin", "start", "commit", "end", "rollback", "abort", "savepoint",
    "release", "set", "show", "reset", "explain", "analyze", "analyse", "vacuum", "copy", "grant",
    "revoke", "prepare", "execute", "deallocate", "declare", "fetch", "close", "move", "listen",
    "notify", "unlisten", "discard", "lock", "checkpoint", "do", "call", "refresh", "cluster",
    "reindex", "security", "load", "import", "merge",
}


_STAR_ALIAS = re.compile(r"(?:\bselect|\bdistinct|,)\s*\*\s*([A-Za-z_][A-Za-z0-9_$]*)", re.I)
_AFTER_STAR = {"from", "where", "group", "order", "limit", "offset", "having", "union",
               "intersect", "except", "into", "window", "fetch", "for", "returning", "as"}


def _syntax_error(sql: str, e: ParseError) -> SQLError:
    first = re.match(r"\s*([A-Za-z_][A-Za-z0-9_$]*)", sql)
    if first is not None and first.group(1).lower() not in _STATEMENT_WORDS:
        # NB: PostgreSQL's grammar fails at the first token when no statement starts with it
        return SyntaxError_(f'syntax error at or near "{first.group(1)}"',
                            position=first.start(1) + 1)
    errs = getattr(e, "errors", None) or []
    info = errs[0] if errs else {}
    line, col = info.get("line"), info.get("col")
    token = (info.get("highlight") or "").strip()
    position = None
    if line and col:
        lines = sql.split("\n")
        position = sum(len(x) + 1 for x in lines[: line - 1]) + max(col - len(token), 0) + 1
    star = _STAR_ALIAS.search(sql)
    if star is not None and star.group(1).lower() not in _AFTER_STAR and (
            position is None or star.start(1) < position):
        # NB: sqlglot takes `select * fro t` as `* AS fro`; PostgreSQL's `*` takes no alias
        return SyntaxError_(f'syntax error at or near "{star.group(1)}"',
                            position=star.start(1) + 1)
    unexpected = str(info.get("description", "")).startswith("Invalid expression / Unexpected")
    if token and position is not None and not unexpected and not sql[position - 1 + len(token):].strip():
        # NB: sqlglot names the last token when it ran out of input; PostgreSQL, the end
        token = ""
    if token:
        return SyntaxError_(f'syntax error at or near "{token}"', position=position)
    return SyntaxError_("syntax error at end of input", position=len(sql) + 1)


class PlanCache:
    """An LRU map from (SQL text, parameter types) to an analysed statement.

    An entry made at an older catalog version stays when `keeps(version, entry.deps)` says
    no DDL since changed what it depends on (`CatalogStore.keeps`), and moves to the new one.
    """

    def __init__(self, keeps: Callable[[int, frozenset[str] | None], bool] | None = None,
                 size: int = 512) -> None:
        self.keeps = keeps
        self.size = size
        self._map: OrderedDict[Any, Any] = OrderedDict()
        self._private: dict[Any, Any] = {}
        self.generation = 0  # bumped by `clear`: entries derived from the cache check it

    def get(self, key: Any, version: int) -> Any:
        """Returns the cached entry if it was planned against catalog `version`."""
        entry = self._map.get(key)
        if entry is None:
            return None
        if entry.version != version and entry.version != -2:  # -2: statement.ANY_VERSION
            if version < 0 or self.keeps is None or not self.keeps(entry.version, entry.deps):
                del self._map[key]
                return None
            entry.version = version
        return entry

    def put(self, key: Any, entry: Any) -> None:
        """Caches an entry, evicting the least recently added beyond `size`."""
        self._map[key] = entry
        if len(self._map) > self.size:
            self._map.popitem(last=False)

    def clear(self) -> None:
        """Forgets every entry (DISCARD ALL / DISCARD PLANS)."""
        self._map.clear()
        self._private.clear()
        self.generation += 1

    # NB: after DDL, a transaction plans against its own private catalog snapshot, which
    # nobody else may share; its plans stay valid for as long as that snapshot object is
    # the session's (the next DDL, a rollback or the commit replaces it). Without this,
    # every row of an executemany after CREATE TABLE in the same transaction (pandas'
    # to_sql) was analysed again.
    _private_of: Any = None

    def get_private(self, key: Any, catalog: Any) -> Any:
        """Returns an entry planned against the private catalog `catalog`, or None."""
        return self._private.get(key) if self._private_of is catalog else None

    def put_private(self, key: Any, catalog: Any, entry: Any) -> None:
        """Caches an entry planned against the private catalog `catalog` (forgetting others)."""
        if self._private_of is not catalog:
            self._private_of, self._private = catalog, {}
        if len(self._private) < self.size:
            self._private[key] = entry


# -- literal stripping for the plan cache --------------------------------------

_NORMALIZABLE = re.compile(r"\s*(SELECT|INSERT|UPDATE|DELETE)\b", re.I)
_BAIL = re.compile(
    r"\$|::|\bCAST\s*\(|\b(?:ORDER|GROUP)\s+BY\b|\bE'|\bU&|\bB'|\bX'|"
    r"\b(?:varchar|char|character|numeric|decimal|float|bit|varbit|time|timestamp|interval|"
    r"timestamptz|date|int|integer|bigint|smallint|boolean|text|json|jsonb|uuid|bytea|real|"
    r"double\s+precision)\s*(?:\(|')|--|/\*", re.I)
_LITERAL = re.compile(
    r"'(?:[^']|'')*'|(?<![\w$.])(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?(?![\w.])"
    r"|\b(?:LIMIT|OFFSET|FETCH\s+FIRST|FETCH\s+NEXT)\s+\d+|\"(?:[^\"]|\"\")*\"", re.I)
INT4_RANGE = (-(2**31), 2**31 - 1)
_ORDER_GROUP = re.compile(r"\b(?:order|group)\s+by\b")
_WORD_BEFORE = re.compile(r"\b([a-z_][a-z0-9_]*&?)[ \t\r\n]*[(']")
_BAIL_WORDS = frozenset((
    "cast", "e", "u&", "b", "x", "varchar", "char", "character", "numeric", "decimal", "float",
    "bit", "varbit", "time", "timestamp", "interval", "timestamptz", "date", "int", "integer",
    "bigint", "smallint", "boolean", "text", "json", "jsonb", "uuid", "bytea", "real",
    "precision",
))


def _bails(sql: str) -> bool:
    """Same answer as `_BAIL.search`, in a fraction of its time (it runs per simple query)."""
    if "$" in sql or "::" in sql or "--" in sql or "/*" in sql:
        return True
    low = sql.lower()
    if " by" in low and _ORDER_GROUP.search(low):
        return True
    if "(" in low or "'" in low:
        for m in _WORD_BEFORE.finditer(low):
            if m.group(1) in _BAIL_WORDS:
                return True
    return False


def _unary_minus(sql: str, start: int, floor: int) -> int:
    """The position of a unary minus right before the number at `start` (after `(`, `,` or
    an operator), else -1: `-50` is one literal, as PostgreSQL's grammar folds it.

    Why: `-$1` would be an expression of a literal, which refuses a shared plan, so
    pgbench's `abalance + -3227` and every INSERT of a negative number was analysed
    anew; `a -5` (a binary minus after a name) keeps its minus.

    >>> [_unary_minus(t, t.index("5"), 0) for t in ("a + -5", "(- 5", "a -5", "5", "x,-5")]
    [4, 1, -1, -1, 2]
    """
    i = start - 1
    while i >= floor and sql[i].isspace():
        i -= 1
    if i < floor or sql[i] != "-":
        return -1
    j = i - 1
    while j >= floor and sql[j].isspace():
        j -= 1
    return i if j >= floor and sql[j] in "(,=<>+*/%" else -1


def normalize(sql: str) -> tuple[str, tuple[Any, ...], tuple[int, ...]] | None:
    """Replaces the literals of a plain DML/SELECT statement with parameters.

    Returns (normalised text, literal values, declared parameter OIDs: 23/20/1700
    for numbers, 0 for strings, which are inferred), or None when the statement
    is not one whose literals can safely become parameters (positional ORDER BY,
    typed literals, casts, typmods ...), so that `pgbench -M simple` statements
    share one plan per shape.
    """
    if sql[:6].upper() == "INSERT" and ("),(" in sql or "), (" in sql):
        rows = literalrows.normalize(sql)  # NB: many rows of literals, in C-level passes
        if rows is not None:
            return rows
    if not _NORMALIZABLE.match(sql) or _bails(sql) or inlists.has_long_list(sql):
        return None  # NB: a long IN list stays literal: parse_sql makes it one array constant
    values: list[Any] = []
    oids: list[int] = []
    out: list[str] = []
    pos = 0
    for m in _LITERAL.finditer(sql):
        tok = m.group(0)
        c = tok[0]
        if c == '"' or c.isalpha():  # quoted identifiers, LIMIT n: kept verbatim
            continue
        minus = -1 if c == "'" else _unary_minus(sql, m.start(), pos)
        out.append(sql[pos:m.start() if minus < 0 else minus])
        pos = m.end()
        if c == "'":
            values.append(tok[1:-1].replace("''", "'"))
            oids.append(0)
        elif "." in tok or "e" in tok or "E" in tok:
            values.append(Decimal(tok) if minus < 0 else -Decimal(tok))
            oids.append(1700)
            if not fits_numeric(values[-1]):
                return None  # NB: the binder's literal gives numeric_in's 22003
        else:
            v = int(tok) if minus < 0 else -int(tok)
            if v in (2**31, 2**63) and sql[:m.start()].rstrip().endswith("-"):
                return None  # NB: `-2147483648` is an int4 (the binder folds the sign)
            values.append(v)
            oids.append(23 if INT4_RANGE[0] <= v <= INT4_RANGE[1] else 20 if v < 2**63 else 1700)
            if oids[-1] == 1700:
                values[-1] = Decimal(v)
        out.append(f"${len(values)}")
    if not values:
        return None
    out.append(sql[pos:])
    return "".join(out), tuple(values), tuple(oids)
