"""PL/pgSQL source -> a small statement tree (the subset migrations and test fixtures use).

Blocks (`[DECLARE ...] BEGIN ... [EXCEPTION WHEN ... THEN ...] END`), assignment,
IF / ELSIF / ELSE, LOOP, WHILE, FOR over an integer range or a query, EXIT and
CONTINUE, RETURN [NEXT | QUERY [EXECUTE]], PERFORM, EXECUTE [INTO] [USING], RAISE, GET DIAGNOSTICS, NULL,
and any other SQL statement (a SELECT may have INTO). Expressions and SQL are
kept as source text: the interpreter hands them to the SQL engine with the
variables bound as parameters, as PL/pgSQL does.

The tokenizer keeps each token's span, so a statement's SQL is the exact
source between its first and last token.

>>> b = parse_block("DECLARE n int := 1; BEGIN IF n > 0 THEN n := n + 1; END IF; END")
>>> b.decls[0].name, b.body[0].kind, b.body[0].branches[0][0]
('n', 'if', 'n > 0')
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ...errors import SQLError, SyntaxError_

_TOKEN = re.compile(r"""
    (?P<ws>\s+|--[^\n]*|/\*.*?\*/)
  | (?P<dollar>\$(?P<tag>[A-Za-z_][A-Za-z_0-9]*)?\$)
  | (?P<str>[EeBbXxNn]?'(?:[^']|'')*')
  | (?P<qid>"(?:[^"]|"")*")
  | (?P<num>\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)
  | (?P<word>[A-Za-z_][A-Za-z_0-9$]*)
  | (?P<param>\$\d+)
  | (?P<op>:=|\.\.|<<|>>|::|<>|!=|<=|>=|\|\||[-+*/%^<>=~!@#&|`?.,;:()\[\]{}])
""", re.X | re.S)


@dataclass
class Tok:
    text: str
    start: int
    end: int
    word: bool  # an unquoted identifier or keyword

    @property
    def up(self) -> str:
        return self.text.upper() if self.word else ""


def tokenize(src: str) -> list[Tok]:
    """Splits PL/pgSQL source into tokens (comments and blanks dropped)."""
    out: list[Tok] = []
    pos = 0
    while pos < len(src):
        m = _TOKEN.match(src, pos)
        if m is None:
            raise SyntaxError_(f'syntax error at or near "{src[pos:pos + 10]}"')
        if m.group("dollar") is not None:  # a dollar-quoted string: up to the same tag
            close = src.find(m.group("dollar"), m.end())
            if close < 0:
                raise SyntaxError_("unterminated dollar-quoted string")
            end = close + len(m.group("dollar"))
            out.append(Tok(src[pos:end], pos, end, False))
            pos = end
            continue
        if m.group("ws") is None:
            out.append(Tok(m.group(0), pos, m.end(), m.group("word") is not None))
        pos = m.end()
    return out


@dataclass
class Decl:
    name: str
    type: str  # as written ("int", "record", "text[]")
    default: str | None = None
    constant: bool = False
    not_null: bool = False


@dataclass
class Stmt:
    kind: str
    text: str = ""  # SQL or expression source
    target: list[str] = field(default_factory=list)  # INTO / assignment / loop variable
    body: list[Any] = field(default_factory=list)
    branches: list[tuple[str | None, list[Any]]] = field(default_factory=list)  # IF
    args: list[str] = field(default_factory=list)  # RAISE arguments, USING expressions
    opts: dict[str, Any] = field(default_factory=dict)
    label: str | None = None
    line: int = 0  # where it starts, counted as PostgreSQL's error CONTEXT counts


@dataclass
class Block:
    decls: list[Decl]
    body: list[Any]
    handlers: list[tuple[list[str], list[Any]]] = field(default_factory=list)
    label: str | None = None
    kind: str = "block"
    # the function's compile options (`#print_strict_params on`, `#variable_conflict
    # use_column`) on its outermost block, by their setting's name without `plpgsql.`
    options: dict[str, str] = field(default_factory=dict)
    line: int = 0  # BEGIN's (a DECLARE default's error names it)


class Parser:
    """Recursive descent over the token list."""

    def __init__(self, src: str, first_line: int = 1) -> None:
        self.src = src
        self.first_line = first_line  # the line `src` starts on in the function's body
        self.toks = tokenize(src)
        self.i = 0

    # -- helpers ---------------------------------------------------------------

    def peek(self, k: int = 0) -> Tok | None:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def at(self, *words: str) -> bool:
        t = self.peek()
        return t is not None and t.up in words

    def take(self, word: str) -> Tok:
        t = self.peek()
        if t is None:
            raise SyntaxError_("syntax error at end of input")
        if t.up != word and t.text != word:
            raise SyntaxError_(f'syntax error at or near "{t.text}"')
        self.i += 1
        return t

    def accept(self, word: str) -> bool:
        t = self.peek()
        if t is not None and (t.up == word or t.text == word):
            self.i += 1
            return True
        return False

    def span(self, stop: set[str], stop_ops: set[str] = frozenset({";"})) -> str:  # type: ignore[assignment]
        """Source text up to (not including) a stop keyword or symbol at paren depth 0."""
        depth = 0
        first = self.i
        while True:
            t = self.peek()
            if t is None:
                break
            if depth == 0 and (t.up in stop or (not t.word and t.text in stop_ops)):
                break
            if t.text in ("(", "["):
                depth += 1
            elif t.text in (")", "]"):
                depth -= 1
            self.i += 1
        if first == self.i:
            return ""
        return self.src[self.toks[first].start:self.toks[self.i - 1].end]

    # -- grammar ---------------------------------------------------------------

    def block(self, label: str | None = None) -> Block:
        decls: list[Decl] = []
        if self.accept("DECLARE"):
            while not self.at("BEGIN"):
                decls.append(self.decl())
        begin = self.take("BEGIN")
        line = self.first_line + self.src.count("\n", 0, begin.start)
        body = self.stmts({"END", "EXCEPTION"})
        handlers: list[tuple[list[str], list[Any]]] = []
        if self.accept("EXCEPTION"):
            while self.accept("WHEN"):
                conds = [c.strip().lower() for c in
                         re.split(r"\s+or\s+", self.span({"THEN"}), flags=re.I)]
                self.take("THEN")
                handlers.append((conds, self.stmts({"END", "WHEN"})))
        self.take("END")
        if self.peek() is not None and self.peek().word and not self.at("IF", "LOOP"):  # type: ignore[union-attr]
            self.i += 1  # END label
        self.accept(";")
        return Block(decls, body, handlers, label, line=line)

    def options(self) -> dict[str, str]:
        """The compile options before the outermost block, as PostgreSQL's comp_options:
        `#option dump`, `#print_strict_params on|off`, `#variable_conflict error |
        use_variable | use_column`.

        >>> Parser("#print_strict_params on #variable_conflict use_column BEGIN").options()
        {'print_strict_params': 'on', 'variable_conflict': 'use_column'}
        """
        out: dict[str, str] = {}
        while self.accept("#"):
            t = self.peek()
            name = t.up if t is not None else ""
            self.i += 1
            value = self.peek()
            if name == "OPTION" and value is not None and value.up == "DUMP":
                self.i += 1
                continue
            if name == "PRINT_STRICT_PARAMS" and value is not None and value.word:
                self.i += 1
                if value.up not in ("ON", "OFF"):
                    raise SQLError(f"unrecognized print_strict_params option {value.text}",
                                   sqlstate="XX000")
                out["print_strict_params"] = value.text.lower()
                continue
            if name == "VARIABLE_CONFLICT" and value is not None and value.up in (
                    "ERROR", "USE_VARIABLE", "USE_COLUMN"):
                self.i += 1
                out["variable_conflict"] = value.text.lower()
                continue
            bad = value if name in ("OPTION", "PRINT_STRICT_PARAMS", "VARIABLE_CONFLICT") else t
            raise SyntaxError_("syntax error at end of input" if bad is None
                               else f'syntax error at or near "{bad.text}"')
        return out

    def decl(self) -> Decl:
        name = self.ident()
        constant = self.accept("CONSTANT")
        if self.accept("ALIAS"):
            self.take("FOR")
            target = self.span(set())
            self.take(";")
            return Decl(name, "alias", target)
        type_text = self.span({"NOT", "DEFAULT", "COLLATE"}, {";", ":=", "="})
        not_null = False
        if self.accept("NOT"):
            self.take("NULL")
            not_null = True
        default = None
        if self.accept(":=") or self.accept("=") or self.accept("DEFAULT"):
            default = self.span(set())
        self.take(";")
        return Decl(name, type_text, default, constant, not_null)

    def ident(self) -> str:
        t = self.peek()
        if t is None:
            raise SyntaxError_("syntax error at end of input")
        self.i += 1
        if t.text.startswith('"'):
            return t.text[1:-1].replace('""', '"')
        return t.text.lower()

    def stmts(self, stop: set[str]) -> list[Any]:
        out: list[Any] = []
        while self.peek() is not None and not self.at(*stop):
            out.append(self.stmt())
        return out

    def stmt(self) -> Any:
        first = self.peek()
        st = self._stmt()
        if isinstance(st, Stmt) and first is not None:
            st.line = self.first_line + self.src.count("\n", 0, first.start)
        return st

    def _stmt(self) -> Any:
        label = None
        if self.accept("<<"):
            label = self.ident()
            self.take(">>")
        t = self.peek()
        assert t is not None
        w = t.up
        if w in ("DECLARE", "BEGIN"):
            return self.block(label)
        if w == "IF":
            return self.if_stmt()
        if w in ("LOOP", "WHILE", "FOR"):
            return self.loop(label)
        self.i += 1
        if w in ("EXIT", "CONTINUE"):
            target = [] if self.at("WHEN") or self.peek().text == ";" else [self.ident()]  # type: ignore[union-attr]
            cond = self.span(set()) if self.accept("WHEN") else ""
            self.take(";")
            return Stmt(w.lower(), cond, target)
        if w == "RETURN":
            if self.accept("NEXT"):
                text = self.span(set())
                self.take(";")
                return Stmt("return_next", text)
            if self.accept("QUERY"):
                if self.accept("EXECUTE"):
                    text = self.span({"USING"})
                    using = self.list_of(set()) if self.accept("USING") else []
                    self.take(";")
                    return Stmt("return_query", text, args=using, opts={"execute": True})
                text = self.span(set())
                self.take(";")
                return Stmt("return_query", text)
            text = self.span(set())
            self.take(";")
            return Stmt("return", text)
        if w == "NULL" and self.peek() is not None and self.peek().text == ";":  # type: ignore[union-attr]
            self.i += 1
            return Stmt("null")
        if w == "PERFORM":
            text = self.span(set())
            self.take(";")
            return Stmt("perform", text)
        if w == "RAISE":
            return self.raise_stmt()
        if w in ("COMMIT", "ROLLBACK") and not self.at("TO"):  # NB: a procedure's, a DO's
            chain = self.accept("AND") and not self.accept("NO")
            if chain:
                self.take("CHAIN")
            elif self.peek() is not None and self.peek().up == "CHAIN":  # type: ignore[union-attr]
                self.i += 1
            self.take(";")
            return Stmt(w.lower(), opts={"chain": chain})
        if w in ("SAVEPOINT", "RELEASE") or w == "ROLLBACK":  # NB: ROLLBACK TO: refused
            self.i -= 1
            text = self.span(set())
            self.take(";")
            return Stmt("txn_command", text)
        if w == "CALL":
            self.i -= 1
            text = self.span(set())
            self.take(";")
            return Stmt("call", text)
        if w == "GET":
            self.accept("CURRENT")
            self.take("DIAGNOSTICS")
            var = self.ident()
            if not self.accept("="):
                self.take(":=")
            item = self.ident()
            self.take(";")
            return Stmt("diagnostics", item, [var])
        if w == "EXECUTE":
            text = self.span({"INTO", "USING"})
            strict = False
            into: list[str] = []
            args: list[str] = []
            while True:
                if self.accept("INTO"):
                    strict = self.accept("STRICT")
                    into = [x.strip().lower() for x in self.span({"USING"}).split(",")]
                elif self.accept("USING"):
                    args = self.list_of(set())
                else:
                    break
            self.take(";")
            return Stmt("execute", text, into, args=args, opts={"strict": strict})
        nxt = self.peek()
        field_tok = self.peek(1)
        if nxt is not None and nxt.text == "." and field_tok is not None and \
                (t.word or t.text.startswith('"')) and self.peek(2) is not None and \
                self.peek(2).text in (":=", "="):  # type: ignore[union-attr]
            self.i += 3  # NB: NEW.a := ...: a record's field
            text = self.span(set())
            self.take(";")
            base = t.text.lower() if t.word else t.text[1:-1]
            fld = field_tok.text.lower() if field_tok.word else field_tok.text[1:-1]
            return Stmt("assign", text, [f"{base}.{fld}"])
        if nxt is not None and nxt.text in (":=", "=") and (t.word or t.text.startswith('"')):
            self.i += 1
            text = self.span(set())
            end = self.take(";").start
            source = self.src[t.start:end].rstrip()  # NB: `x := expr` as written (CONTEXT)
            return Stmt("assign", text, [t.text.lower() if t.word else t.text[1:-1]],
                        opts={"source": source})
        self.i -= 1
        return self.sql_stmt()

    def list_of(self, stop: set[str]) -> list[str]:
        out = [self.span(stop, {";", ","})]
        while self.accept(","):
            out.append(self.span(stop, {";", ","}))
        return out

    def sql_stmt(self) -> Stmt:
        start = self.i
        text = self.span(set())
        self.take(";")
        into: list[str] = []
        strict = False
        toks = self.toks[start:self.i - 1]
        if toks and toks[0].up in ("SELECT", "WITH", "INSERT", "UPDATE", "DELETE"):
            m = next((x for x in re.finditer(  # NB: not INSERT INTO's target (WITH d AS (...))
                r"\bINTO\s+(STRICT\s+)?((?:[A-Za-z_][\w.]*\s*,\s*)*[A-Za-z_][\w.]*)", text, re.I)
                if not re.search(r"\bINSERT\s+$", text[:x.start()], re.I)), None)
            if m is not None and (toks[0].up != "INSERT" or m.start() > text.upper().find(
                    "RETURNING") >= 0):
                into = [x.strip().lower() for x in m.group(2).split(",")]
                strict = m.group(1) is not None
                text = text[:m.start()] + text[m.end():]
        return Stmt("sql", text, into, opts={"strict": strict})

    def raise_stmt(self) -> Stmt:
        level = "EXCEPTION"
        if self.at("DEBUG", "LOG", "INFO", "NOTICE", "WARNING", "EXCEPTION"):
            level = self.peek().up  # type: ignore[union-attr]
            self.i += 1
        if self.accept(";"):
            return Stmt("raise", "", opts={"level": level, "reraise": True})
        fmt, cond = "", ""
        args: list[str] = []
        t = self.peek()
        if t is not None and not t.word and t.text[:1] in "'Ee":
            self.i += 1
            fmt = t.text
            while self.accept(","):
                args.append(self.span({"USING"}, {";", ","}))
        elif self.accept("SQLSTATE"):
            cond = self.peek().text.strip("'")  # type: ignore[union-attr]
            self.i += 1
        elif t is not None and t.word and not self.at("USING"):
            cond = self.ident()
        using: dict[str, str] = {}
        if self.accept("USING"):
            while True:
                key = self.ident().upper()
                self.take("=")
                using[key] = self.span(set(), {";", ","})
                if not self.accept(","):
                    break
        self.take(";")
        return Stmt("raise", fmt, args=args,
                    opts={"level": level, "using": using, "condition": cond})

    def if_stmt(self) -> Stmt:
        self.take("IF")
        branches: list[tuple[str | None, list[Any]]] = []
        cond: str | None = self.span({"THEN"})
        self.take("THEN")
        while True:
            branches.append((cond, self.stmts({"ELSIF", "ELSEIF", "ELSE", "END"})))
            if self.accept("ELSIF") or self.accept("ELSEIF"):
                cond = self.span({"THEN"})
                self.take("THEN")
                continue
            if self.accept("ELSE"):
                branches.append((None, self.stmts({"END"})))
            break
        self.take("END")
        self.take("IF")
        self.take(";")
        return Stmt("if", branches=branches)

    def loop(self, label: str | None) -> Stmt:
        w = self.peek().up  # type: ignore[union-attr]
        self.i += 1
        st = Stmt("loop", label=label)
        if w == "WHILE":
            st.kind, st.text = "while", self.span({"LOOP"})
        elif w == "FOR":
            st.target = [x.strip().lower() for x in self.span({"IN"}).split(",")]
            self.take("IN")
            st.opts["reverse"] = self.accept("REVERSE")
            if self.accept("EXECUTE"):
                st.kind = "for_query"
                st.text = self.span({"LOOP", "USING"})
                st.opts["execute"] = True
                if self.accept("USING"):
                    st.args = self.list_of({"LOOP"})
            else:
                save = self.i
                lo = self.span({"LOOP"}, {";", ".."})
                if self.accept(".."):
                    st.kind = "for_range"
                    hi = self.span({"LOOP", "BY"})
                    step = self.span({"LOOP"}) if self.accept("BY") else "1"
                    st.args = [lo, hi, step]
                else:
                    self.i = save
                    st.kind = "for_query"
                    st.text = self.span({"LOOP"})
        if w != "LOOP":
            self.take("LOOP")
        st.body = self.stmts({"END"})
        self.take("END")
        self.take("LOOP")
        if self.peek() is not None and self.peek().word:  # type: ignore[union-attr]
            self.i += 1
        self.take(";")
        return st


def parse_block(src: str) -> Block:
    """Parses a DO body or a function body (one block, optional trailing semicolon).
    Statements' lines count from the body's first line, blank or not, as PostgreSQL's."""
    body = src.strip().rstrip(";")
    p = Parser(body, 1 + src[:len(src) - len(src.lstrip())].count("\n"))
    options = p.options()
    b = p.block()
    b.options = options
    if p.peek() is not None:
        raise SyntaxError_(f'syntax error at or near "{p.peek().text}"')  # type: ignore[union-attr]
    return b
