"""CREATE [OR REPLACE] TRIGGER, DROP TRIGGER, ALTER TABLE ... ENABLE | DISABLE TRIGGER.

A trigger is a catalog row (`catalog.model.Trigger`, pg_trigger's shape: tgtype's
bits, tgenabled, the arguments, UPDATE OF's attnums, WHEN's text). The checks
and their messages are PostgreSQL's CreateTrigger: the table, the kind of
trigger the table may have (INSTEAD OF ROW on views only), transition tables'
restrictions (REFERENCING: AFTER, one event, no column list), WHEN's references,
the function (which must return `trigger`), and the name (unique per table).
CREATE CONSTRAINT TRIGGER (AFTER ... FOR EACH ROW only, by the grammar) also
gets a pg_constraint row of contype `t` and its DEFERRABLE / INITIALLY DEFERRED.
What fires them is `dml.firetriggers` (a view's INSTEAD OF ones, `dml.viewdml`).
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

from ...errors import (
    FeatureNotSupported,
    SQLError,
    SyntaxError_,
    UndefinedFunction,
    UndefinedObject,
    UndefinedTable,
    WrongObjectType,
)
from ...pgtypes import oids as T
from ...pgwire.backend import Result
from ..catalog.model import Table, Trigger
from ..dml.deferstate import refuse_pending
from ..plpgsql.parser import Tok, tokenize
from ..privileges.check import check_function
from ..stmt import Stmt
from .names import find_relation, get_relation, missing_schema, skip_or_raise

if TYPE_CHECKING:
    from ..session import SQLSession

ROW, BEFORE, INSERT, DELETE, UPDATE, TRUNCATE, INSTEAD = 1, 2, 4, 8, 16, 32, 64
_EVENT_BITS = {"INSERT": INSERT, "DELETE": DELETE, "UPDATE": UPDATE, "TRUNCATE": TRUNCATE}

_TRIGGER_DDL = re.compile(
    r"(?:CREATE\s+(?:OR\s+REPLACE\s+)?(?:CONSTRAINT\s+)?TRIGGER|DROP\s+TRIGGER)\b"
    r"|ALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?:ONLY\s+)?\S+\s+(?:ENABLE|DISABLE)"
    r"\s+(?:ALWAYS\s+|REPLICA\s+)?TRIGGER\b|ALTER\s+TRIGGER\b", re.I)


def is_trigger_ddl(sql: str) -> bool:
    """Tells whether the text is a statement of this module (the router's test).

    >>> is_trigger_ddl("create or replace trigger t before insert on x execute function f()")
    True
    >>> is_trigger_ddl("ALTER TABLE t DISABLE TRIGGER ALL"), is_trigger_ddl("DROP TABLE t")
    (True, False)
    """
    return _TRIGGER_DDL.match(sql) is not None


class _Toks:
    """A cursor over the statement's tokens (PL/pgSQL's tokenizer: it keeps spans)."""

    def __init__(self, sql: str) -> None:
        self.sql = sql
        self.toks = [t for t in tokenize(sql) if t.text != ";"]
        self.i = 0

    def peek(self) -> Tok | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def at(self, *words: str) -> bool:
        t = self.peek()
        return t is not None and t.up in words

    def accept(self, *words: str) -> bool:
        if self.at(*words):
            self.i += 1
            return True
        t = self.peek()
        if t is not None and not t.word and t.text in words:
            self.i += 1
            return True
        return False

    def fail(self) -> SQLError:
        t = self.peek()
        if t is None:
            return SyntaxError_("syntax error at end of input")
        return SyntaxError_(f'syntax error at or near "{t.text}"', position=t.start + 1)

    def expect(self, *words: str) -> None:
        if not self.accept(*words):
            raise self.fail()

    def name(self) -> str:
        t = self.peek()
        if t is None or not (t.word or t.text.startswith('"')):
            raise self.fail()
        self.i += 1
        return t.text[1:-1].replace('""', '"') if t.text.startswith('"') else t.text.lower()

    def qualified(self) -> tuple[str | None, str]:
        first = self.name()
        if self.accept("."):
            return first, self.name()
        return None, first

    def parenthesised(self) -> str:
        """The source text inside the parentheses that start here."""
        self.expect("(")
        depth, start = 1, self.i
        while depth:
            t = self.peek()
            if t is None:
                raise self.fail()
            depth += t.text == "("
            depth -= t.text == ")"
            self.i += 1
        if self.i - 1 == start:
            return ""
        return self.sql[self.toks[start].start:self.toks[self.i - 2].end]


def analyse_trigger_ddl(session: SQLSession, sql: str) -> Stmt:
    """CREATE TRIGGER / DROP TRIGGER / ALTER TABLE ... ENABLE | DISABLE TRIGGER."""
    p = _Toks(sql.strip())
    if p.accept("DROP"):
        return _drop(sql, p)
    if p.accept("ALTER"):
        if p.accept("TRIGGER"):
            return _rename(sql, p)
        return _alter(sql, p)
    return _create(sql, p)


# -- CREATE TRIGGER ---------------------------------------------------------------------


@dataclasses.dataclass
class _Spec:
    name: str = ""
    replace: bool = False
    tgtype: int = 0
    update_cols: list[str] = dataclasses.field(default_factory=list)
    table: tuple[str | None, str] = (None, "")
    when: str = ""
    function: tuple[str | None, str] = (None, "")
    args: list[str] = dataclasses.field(default_factory=list)
    transitions: list[tuple[bool, bool, str]] = dataclasses.field(default_factory=list)
    constraint: bool = False  # CREATE CONSTRAINT TRIGGER
    from_table: tuple[str | None, str] | None = None  # its FROM referenced_table
    deferrable: bool = False
    initdeferred: bool = False


def _parse_create(p: _Toks) -> _Spec:
    spec = _Spec()
    p.expect("CREATE")
    if p.accept("OR"):
        p.expect("REPLACE")
        spec.replace = True
    spec.constraint = p.accept("CONSTRAINT")
    p.expect("TRIGGER")
    spec.name = p.name()
    if spec.constraint:  # NB: the grammar allows AFTER ... FOR EACH ROW only
        p.expect("AFTER")
    elif p.accept("BEFORE"):
        spec.tgtype |= BEFORE
    elif p.accept("INSTEAD"):
        p.expect("OF")
        spec.tgtype |= INSTEAD
    else:
        p.expect("AFTER")
    while True:
        t = p.peek()
        bit = _EVENT_BITS.get(t.up if t is not None else "")
        if bit is None:
            raise p.fail()
        p.i += 1
        spec.tgtype |= bit
        if bit == UPDATE and p.accept("OF"):
            spec.update_cols.append(p.name())
            while p.accept(","):
                spec.update_cols.append(p.name())
        if not p.accept("OR"):
            break
    p.expect("ON")
    spec.table = p.qualified()
    if spec.constraint:
        _constraint_attributes(p, spec)
        p.expect("FOR")
        p.expect("EACH")
        p.expect("ROW")
        spec.tgtype |= ROW
    else:
        if p.accept("REFERENCING"):
            p.expect("OLD", "NEW")
            while True:
                is_new = p.toks[p.i - 1].up == "NEW"
                is_table = p.accept("TABLE")
                if not is_table:
                    p.expect("ROW")
                p.accept("AS")
                spec.transitions.append((is_new, is_table, p.name()))
                if not p.accept("OLD", "NEW"):
                    break
        if p.accept("FOR"):
            p.accept("EACH")
            if p.accept("ROW"):
                spec.tgtype |= ROW
            else:
                p.expect("STATEMENT")
    if p.accept("WHEN"):
        spec.when = p.parenthesised().strip()
    p.expect("EXECUTE")
    if not p.accept("FUNCTION"):
        p.expect("PROCEDURE")
    spec.function = p.qualified()
    p.expect("(")
    while not p.accept(")"):
        t = p.peek()
        if t is None:
            raise p.fail()
        p.i += 1
        text = t.text
        if text.startswith("'") or text[:2].upper() == "E'":
            text = text[text.index("'") + 1:-1].replace("''", "'")
        elif text.startswith('"'):
            text = text[1:-1].replace('""', '"')
        elif t.word:
            text = text.lower()
        spec.args.append(text)
        if not p.accept(","):
            p.expect(")")
            break
    if p.peek() is not None:
        raise p.fail()
    return spec


def _constraint_attributes(p: _Toks, spec: _Spec) -> None:
    """[NOT] DEFERRABLE, INITIALLY DEFERRED | IMMEDIATE, as the grammar's ConstraintAttributeSpec
    (and FROM referenced_table, which pg_trigger.tgconstrrelid names)."""
    if p.accept("FROM"):
        spec.from_table = p.qualified()
    said: bool | None = None
    start = p.peek()
    while True:
        if p.accept("DEFERRABLE"):
            said = True
        elif p.at("NOT") and p.i + 1 < len(p.toks) and p.toks[p.i + 1].up == "DEFERRABLE":
            p.i += 2
            said = False
        elif p.accept("INITIALLY"):
            if p.accept("DEFERRED"):
                spec.initdeferred = True
            else:
                p.expect("IMMEDIATE")
                spec.initdeferred = False
        else:
            break
    if spec.initdeferred and said is False:
        raise SyntaxError_("constraint declared INITIALLY DEFERRED must be DEFERRABLE",
                           position=start.start + 1 if start is not None else None)
    spec.deferrable = bool(said) or spec.initdeferred


_REF = re.compile(r'\b(new|old)\s*\.', re.I)


def _check(spec: _Spec, table: Table) -> None:
    """PostgreSQL's CreateTrigger checks, in its order."""
    row = bool(spec.tgtype & ROW)
    if table.kind == "v":
        if not spec.tgtype & INSTEAD and row:
            raise WrongObjectType(f'"{table.name}" is a view',
                                  detail="Views cannot have row-level BEFORE or AFTER triggers.")
        if spec.tgtype & TRUNCATE:
            raise WrongObjectType(f'"{table.name}" is a view',
                                  detail="Views cannot have TRUNCATE triggers.")
    elif table.kind != "r":
        raise WrongObjectType(f'"{table.name}" is not a table or view')
    elif spec.tgtype & INSTEAD:
        raise WrongObjectType(f'"{table.name}" is a table',
                              detail="Tables cannot have INSTEAD OF triggers.")
    if spec.tgtype & TRUNCATE and row:
        raise FeatureNotSupported("TRUNCATE FOR EACH ROW triggers are not supported")
    if spec.tgtype & INSTEAD:
        if not row:
            raise FeatureNotSupported("INSTEAD OF triggers must be FOR EACH ROW")
        if spec.when:
            raise FeatureNotSupported("INSTEAD OF triggers cannot have WHEN conditions")
        if spec.update_cols:
            raise FeatureNotSupported("INSTEAD OF triggers cannot have column lists")
    if spec.transitions:
        _check_transitions(spec, table)
    if spec.when:
        refs = {m.group(1).lower() for m in _REF.finditer(spec.when)}
        if refs and not row:
            raise SQLError("statement trigger's WHEN condition cannot reference column values",
                           sqlstate="42P17")
        if "old" in refs and spec.tgtype & INSERT:
            raise SQLError("INSERT trigger's WHEN condition cannot reference OLD values",
                           sqlstate="42P17")
        if "new" in refs and spec.tgtype & DELETE:
            raise SQLError("DELETE trigger's WHEN condition cannot reference NEW values",
                           sqlstate="42P17")


def _check_transitions(spec: _Spec, table: Table) -> None:
    """REFERENCING OLD TABLE AS o NEW TABLE AS n: PostgreSQL's restrictions, in its order."""
    if table.kind == "v":
        raise WrongObjectType(f'"{table.name}" is a view',
                              detail="Triggers on views cannot have transition tables.")
    if spec.tgtype & (BEFORE | INSTEAD):
        raise SQLError("transition table name can only be specified for an AFTER trigger",
                       sqlstate="42P17")
    if spec.tgtype & TRUNCATE:
        raise FeatureNotSupported("TRUNCATE triggers with transition tables are not supported")
    if sum(bool(spec.tgtype & b) for b in (INSERT, UPDATE, DELETE)) != 1:
        raise FeatureNotSupported("transition tables cannot be specified for triggers with more "
                                  "than one event")
    if spec.update_cols:
        raise FeatureNotSupported("transition tables cannot be specified for triggers with "
                                  "column lists")
    names: dict[bool, str] = {}
    for is_new, is_table, name in spec.transitions:
        if not is_table:
            raise FeatureNotSupported(
                "ROW variable naming in the REFERENCING clause is not supported",
                hint="Use OLD TABLE or NEW TABLE for naming transition tables.")
        which = "NEW" if is_new else "OLD"
        if is_new and not spec.tgtype & (INSERT | UPDATE):
            raise SQLError("NEW TABLE can only be specified for an INSERT or UPDATE trigger",
                           sqlstate="42P17")
        if not is_new and not spec.tgtype & (DELETE | UPDATE):
            raise SQLError("OLD TABLE can only be specified for a DELETE or UPDATE trigger",
                           sqlstate="42P17")
        if is_new in names:
            raise SQLError(f"{which} TABLE cannot be specified multiple times", sqlstate="42P17")
        names[is_new] = name
    if names.get(True) is not None and names.get(True) == names.get(False):
        raise SQLError("OLD TABLE name and NEW TABLE name cannot be the same", sqlstate="42P17")


def _create(sql: str, p: _Toks) -> Stmt:
    spec = _parse_create(p)

    def run(s: SQLSession, params: list[Any]) -> Result:
        cat = s.catalog()
        table = get_relation(cat, spec.table[0], spec.table[1], s.search_path())
        _check(spec, table)
        by_name = {c.name: c.attnum for c in table.live_columns}
        cols = []
        for c in spec.update_cols:
            if c not in by_name:
                raise SQLError(f'column "{c}" of relation "{table.name}" does not exist',
                               sqlstate="42703")
            cols.append(by_name[c])
        constrrelid = get_relation(cat, *spec.from_table, s.search_path()).oid \
            if spec.from_table is not None else 0
        fschema, fname = spec.function
        fns = [f for f in cat.functions if f.name == fname and not f.arg_types and (
            fschema is None or (cat.schema_by_oid(f.schema_oid) or f).name == fschema)]
        if not fns:
            shown = f"{fschema}.{fname}" if fschema else fname
            raise UndefinedFunction(f"function {shown}() does not exist")
        fn = fns[0]
        if fn.returns != T.TRIGGER:
            raise SQLError(f"function {fn.name} must return type trigger", sqlstate="42P17")
        check_function(s, fn)  # NB: EXECUTE on the function, at CREATE as PostgreSQL
        old = next((t for t in cat.triggers if t.table_oid == table.oid
                    and t.name == spec.name), None)
        if old is not None and not spec.replace:
            raise SQLError(f'trigger "{spec.name}" for relation "{table.name}" already exists',
                           sqlstate="42710")
        names = {is_new: name for is_new, _, name in spec.transitions}
        oid = old.oid if old is not None else s.store.allocate_oid()
        trig = Trigger(oid, spec.name,
                       table.oid, fn.oid, spec.tgtype, "O", tuple(spec.args), tuple(cols),
                       spec.when, names.get(False, ""), names.get(True, ""),
                       constraint_oid=(old.constraint_oid if old is not None and
                                       old.constraint_oid else s.store.allocate_oid())
                       if spec.constraint else 0,
                       deferrable=spec.deferrable, initdeferred=spec.initdeferred,
                       constrrelid=constrrelid)
        s.store.put(s.ensure_txn(), s.db.oid, trig)
        s.catalog_changed()
        return Result("CREATE TRIGGER")

    return Stmt(sql, "ddl", run, None, [], -1, tag="CREATE TRIGGER")


# -- DROP TRIGGER -------------------------------------------------------------------------


def _drop(sql: str, p: _Toks) -> Stmt:
    p.expect("TRIGGER")
    exists = False
    if p.accept("IF"):
        p.expect("EXISTS")
        exists = True
    name = p.name()
    p.expect("ON")
    schema, tname = p.qualified()
    p.accept("CASCADE") or p.accept("RESTRICT")
    if p.peek() is not None:
        raise p.fail()

    def run(s: SQLSession, params: list[Any]) -> Result:
        cat = s.catalog()
        if missing_schema(s, schema, exists):
            return Result("DROP TRIGGER")
        table = find_relation(cat, schema, tname, s.search_path())
        if table is None:
            full = f"{schema}.{tname}" if schema else tname
            skip_or_raise(s, f'relation "{full}"', exists, UndefinedTable)
            return Result("DROP TRIGGER")
        trig = next((t for t in cat.triggers if t.table_oid == table.oid and t.name == name),
                    None)
        if trig is None:
            if not exists:
                raise UndefinedObject(f'trigger "{name}" for table "{table.name}" does not exist')
            s.notice(f'trigger "{name}" for relation "{table.name}" does not exist, skipping')
            return Result("DROP TRIGGER")
        s.store.delete(s.ensure_txn(), s.db.oid, trig)
        s.catalog_changed()
        return Result("DROP TRIGGER")

    return Stmt(sql, "ddl", run, None, [], -1, tag="DROP TRIGGER")


# -- ALTER TABLE ... ENABLE | DISABLE TRIGGER ------------------------------------------------


def _alter(sql: str, p: _Toks) -> Stmt:
    p.expect("TABLE")
    exists = False
    if p.accept("IF"):
        p.expect("EXISTS")
        exists = True
    p.accept("ONLY")
    schema, tname = p.qualified()
    enable = p.accept("ENABLE")
    if not enable:
        p.expect("DISABLE")
    mode = "O"
    if enable and p.accept("ALWAYS"):
        mode = "A"
    elif enable and p.accept("REPLICA"):
        mode = "R"
    p.expect("TRIGGER")
    which = "ALL" if p.accept("ALL") else "USER" if p.accept("USER") else p.name()
    if p.peek() is not None:
        raise p.fail()
    state = mode if enable else "D"

    def run(s: SQLSession, params: list[Any]) -> Result:
        cat = s.catalog()
        table = find_relation(cat, schema, tname, s.search_path())
        if table is None:
            full = f"{schema}.{tname}" if schema else tname
            skip_or_raise(s, f'relation "{full}"', exists, UndefinedTable)
            return Result("ALTER TABLE")
        refuse_pending(s, cat, table, "ALTER TABLE")  # NB: PG's AlterTable checks every action
        mine = [t for t in cat.triggers if t.table_oid == table.oid]
        if which not in ("ALL", "USER"):
            mine = [t for t in mine if t.name == which]
            if not mine:
                raise UndefinedObject(f'trigger "{which}" for table "{table.name}" does not '
                                      "exist")
        for t in mine:
            s.store.put(s.ensure_txn(), s.db.oid, dataclasses.replace(t, enabled=state))
        s.catalog_changed()
        return Result("ALTER TABLE")

    return Stmt(sql, "ddl", run, None, [], -1, tag="ALTER TABLE")


def _rename(sql: str, p: _Toks) -> Stmt:
    """ALTER TRIGGER name ON table RENAME TO new_name."""
    name = p.name()
    p.expect("ON")
    schema, tname = p.qualified()
    p.expect("RENAME")
    p.expect("TO")
    new = p.name()
    if p.peek() is not None:
        raise p.fail()

    def run(s: SQLSession, params: list[Any]) -> Result:
        cat = s.catalog()
        table = get_relation(cat, schema, tname, s.search_path())
        mine = {t.name: t for t in cat.triggers if t.table_oid == table.oid}
        if name not in mine:
            raise UndefinedObject(f'trigger "{name}" for table "{table.name}" does not exist')
        if new in mine:
            raise SQLError(f'trigger "{new}" for relation "{table.name}" already exists',
                           sqlstate="42710")
        s.store.put(s.ensure_txn(), s.db.oid, dataclasses.replace(mine[name], name=new))
        s.catalog_changed()
        return Result("ALTER TRIGGER")

    return Stmt(sql, "ddl", run, None, [], -1, tag="ALTER TRIGGER")

