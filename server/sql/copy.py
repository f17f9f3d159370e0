"""COPY ... FROM STDIN and COPY ... TO STDOUT, in the text, csv and binary formats.

COPY FROM is how bulk loads arrive (`pgbench -i` sends 100,000 rows per
scale unit, asyncpg's `copy_records_to_table` uses the binary format), so
the hot path works a block at a time: CopyData is gathered into ~1 MiB
blocks, each block is split into columns and each column converted at once
(`copybatch`: `map(int, ...)` and friends, with `pgtypes.text` /
`pgtypes.binary`, the same input functions the wire uses, as the per-value
fallback for NULLs, escapes, quotes and bad values), and BATCH rows at a
time go to the table's `TableWriter`, which checks constraints a column at
a time, encodes the keys in one pass, checks the primary key with one range
probe and writes through `txn.put` in one call per space.

COPY TO runs the query compiler's plan for the table or query and sends one
CopyData per row, as PostgreSQL does (clients parse each message as a row),
each batch encoded a column at a time and framed in one join (`copyout`).
"""

from __future__ import annotations

import csv
import datetime as dt
import logging
import re
import struct
import time
from collections.abc import Callable, Collection, Iterator
from itertools import chain, repeat
from operator import itemgetter
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from ..errors import (
    BadCopyFileFormat,
    FeatureNotSupported,
    InvalidColumnReference,
    InvalidParameterValue,
    QueryCanceled,
    SQLError,
    SyntaxError_,
    UndefinedColumn,
    UniqueViolation,
    WrongObjectType,
)
from ..kivi.bulkgc import paused
from ..kivi.wirecols import joined
from ..pgtypes import oids as T
from ..pgtypes.binary import binary_decoder, binary_encoder
from ..pgtypes.text import text_decoder, text_encoder
from ..pgwire.backend import Result
from .context import ParamTypes
from .copybatch import (
    arrow_block,
    arrow_csv_block,
    arrow_decoder,
    column_decoder,
    fixed_binary_layout,
    may_hold_null,
    split_block,
    unpack_fixed_rows,
)
from .copybinary import Parsed, batches, supported, walk, whole_rows
from .copycontext import LineTexts, line_context, locate, row_context, with_context
from .copycsv import fields, records, simple_block
from .copyencoding import check_escaped_nul, decode_block
from .copyout import (
    ColumnCopy,
    binary_column,
    binary_rows,
    column_strings,
    csv_column,
    frame,
    gathered,
    lines,
    plain,
    text_column,
)
from .ddl.names import get_relation, parse_qualified
from .direct.colkeys import int_column_keys
from .direct.compositekeys import element_keys, key_kinds
from .dml.firetriggers import capturing, fire_held
from .dml.partrouter import leaf_groups
from .dml.values import compile_default
from .dml.writer import writer_for
from .parse import parse_sql, unquote_ident
from .plan import nodes as N
from .plan.builder import visible
from .plan.compiler import COMPILER, CompiledPlan
from .privileges.check import check_table, current_role
from .privileges.statements import check_needs, needs
from .stmt import Stmt

if TYPE_CHECKING:
    from .session import SQLSession

BATCH = 16384
# the errors of a row's own checks (NOT NULL, CHECK, a partition bound, a domain), which
# PostgreSQL raises as it reads the row's line (`CopyIn._row_error`)
_ROW_CHECKS = frozenset({"23502", "23514"})
# COPY TO's per-row chunks gather smaller batches: rows held longer cost more in the cyclic GC
# than the encoders save (2048-row batches used 10-20 % more CPU than 1k); a scan's pass as they are
OUT_BATCH = 512
_KEY_TYPES = {"int": pa.int64(), "text": pa.string(), "timestamp": pa.timestamp("us"),
              "timestamptz": pa.timestamp("us", tz="UTC")}
LOG_ROWS = 10_000  # a COPY FROM of at least this many rows gets a line in the server log
log = logging.getLogger("cumulo.copy")
FEED_CHUNK = 1 << 20  # parse text input in blocks of ~1 MiB, not per CopyData
BINARY_CHUNK = 1 << 22  # binary input converted in blocks of ~4 MiB as it arrives (`_stream`)
SIGNATURE = b"PGCOPY\n\xff\r\n\x00"
_HEAD = re.compile(r"COPY\s+(?P<rest>.*)$", re.I | re.S)
_ESC = re.compile(r"\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)")
_SIMPLE_ESC = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


def _unescape(m: re.Match[str]) -> str:
    s = m.group(1)
    if s in _SIMPLE_ESC:
        return _SIMPLE_ESC[s]
    if s[0] == "x" and len(s) > 1:
        return chr(int(s[1:], 16))
    if s[0] in "01234567":
        return chr(int(s, 8))
    return s


def _then(dec: Callable[[str], Any], typmod: Callable[[Any], Any] | None) -> Callable[[str], Any]:
    """A value decoder followed by the column's typmod (numeric(12,2) rounds, varchar(n) checks)."""
    if typmod is None:
        return dec
    return lambda v: typmod(dec(v))


def _column_then(dec: Callable[[Any], Any], typmod: Callable[[Any], Any] | None,
                 oid: int = 0, mod: int = -1) -> Callable[[Any], Any]:
    """A column decoder followed by the column's typmod, value by value, unless the whole
    column already fits: strings no longer than varchar(n)'s n, or exactly char(n)'s (the
    typmod would return each value as it is)."""
    if typmod is None:
        return dec
    n = mod - 4  # NB: VARHDRSZ, as PostgreSQL stores a length typmod
    if oid == T.VARCHAR and n >= 0:

        def varchar(col: Any) -> Any:
            vals = dec(col)
            return vals if max(map(len, vals), default=0) <= n else [typmod(v) for v in vals]

        return varchar
    if oid == T.BPCHAR and n >= 0:

        def bpchar(col: Any) -> Any:
            vals = dec(col)
            lens = set(map(len, vals))
            if lens <= {n}:
                return vals
            if max(lens) < n:  # NB: all short: blank-padded in C (pgbench's empty filler
                return list(map(str.ljust, vals, repeat(n)))  # cost 0.66 us a row)
            return [typmod(v) for v in vals]

        return bpchar
    return lambda col: [typmod(v) for v in dec(col)]


def _split_target(rest: str) -> tuple[str, str]:
    """Splits `COPY <target> <rest>` where the target may be a parenthesised query."""
    rest = rest.strip()
    if rest.startswith("("):
        depth, i, q = 0, 0, ""
        while i < len(rest):
            ch = rest[i]
            if q:
                if ch == q:
                    q = ""
            elif ch in "'\"":
                q = ch
            elif ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
                if depth == 0:
                    return rest[: i + 1], rest[i + 1:]
            i += 1
        raise SyntaxError_("syntax error at end of input")
    m = re.match(r'((?:"(?:[^"]|"")+"|[\w$]+)(?:\.(?:"(?:[^"]|"")+"|[\w$]+))?)\s*(\([^)]*\))?',
                 rest)
    if not m:
        raise SyntaxError_(f'syntax error at or near "{rest.split()[0] if rest else ""}"')
    return rest[: m.end()], rest[m.end():]


def _str_opt(v: str) -> str:
    v = v.strip()
    if v[:2].lower() == "e'":
        return v[2:-1].encode().decode("unicode_escape")
    if v.startswith("'") and v.endswith("'"):
        return v[1:-1].replace("''", "'")
    return v


_OPT_ITEM = re.compile(r"\s*(?P<k>[A-Za-z_]+(?:\s+(?:NOT\s+)?(?:NULL|QUOTE))?)\s*(?P<v>E?'(?:[^']|'')*'|"
                       r"\([^)]*\)|\*|[\w.]+)?\s*,?", re.I)


def parse_options(text: str) -> dict[str, Any]:
    """Parses COPY's options, new style `(FORMAT csv, ...)` or legacy `WITH CSV HEADER ...`."""
    t = text.strip()
    if t.upper().startswith("WITH"):
        t = t[4:].strip()
    opts: dict[str, Any] = {"format": "text"}
    if t.startswith("("):
        for m in _OPT_ITEM.finditer(t[1:t.rindex(")")]):
            k = " ".join(m.group("k").lower().split())
            v = m.group("v")
            if not k:
                continue
            opts[k] = _str_opt(v) if v is not None else True
        if isinstance(opts.get("format"), str):
            opts["format"] = opts["format"].lower()
        return opts
    tokens = re.findall(r"E?'(?:[^']|'')*'|\S+", t)
    i = 0
    while i < len(tokens):
        w = tokens[i].upper()
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if w in ("BINARY", "CSV"):
            opts["format"] = w.lower()
        elif w == "HEADER":
            opts["header"] = True
        elif w == "FREEZE":
            opts["freeze"] = True
        elif w in ("DELIMITER", "NULL", "QUOTE", "ESCAPE") and nxt is not None:
            if nxt.upper() == "AS":
                i += 1
                nxt = tokens[i + 1]
            opts[w.lower()] = _str_opt(nxt)
            i += 1
        elif w == "FORCE":
            kind = tokens[i + 1].upper() if i + 1 < len(tokens) else ""
            if kind == "NOT" and i + 2 < len(tokens) and tokens[i + 2].upper() == "NULL":
                kind, i = "NOT NULL", i + 1
            i += 2  # FORCE QUOTE cols / FORCE NOT NULL cols / FORCE NULL cols
            cols = [tokens[i]] if i < len(tokens) else []
            while i + 1 < len(tokens) and tokens[i].endswith(","):
                i += 1
                cols.append(tokens[i])
            key = {"QUOTE": "force_quote", "NOT NULL": "force_not_null",
                   "NULL": "force_null"}.get(kind)
            if key and cols:
                opts[key] = "*" if cols == ["*"] else "(" + " ".join(cols) + ")"
        i += 1
    return opts


def _truthy(v: Any) -> bool:
    return v is True or str(v).lower() in ("on", "true", "1", "yes")


# COPY FROM csv's per-column NULL options, as ProcessCopyOptions names them in its errors
_FORCE_NULLS = {"force_not_null": "force not null", "force_null": "force null"}


def check_force_nulls(opts: dict[str, Any], copy_from: bool) -> None:
    """FORCE_NOT_NULL and FORCE_NULL: a list of columns, for COPY FROM in csv only (the
    checks and messages of PostgreSQL 15's ProcessCopyOptions, in its order)."""
    for key, words in _FORCE_NULLS.items():
        v = opts.get(key)
        if v is None:
            continue
        if not (isinstance(v, str) and v.startswith("(")):
            raise InvalidParameterValue(
                f'argument to option "{key}" must be a list of column names')
        if opts["format"] != "csv":
            raise FeatureNotSupported(f"COPY {words} available only in CSV mode")
        if not copy_from:
            raise FeatureNotSupported(f"COPY {words} only available using COPY FROM")


def force_columns(opts: dict[str, Any], key: str, table: Any, positions: list[int]
                  ) -> frozenset[int]:
    """The indexes (in COPY's column list) of the columns FORCE_NOT_NULL or FORCE_NULL names:
    42703 for a column the table lacks, 42P10 for one the COPY leaves out."""
    v = opts.get(key)
    if v is None:
        return frozenset()
    by_name = {c.name: c.attnum - 1 for c in table.live_columns}
    out = set()
    for item in str(v).strip("() ").split(","):
        name = unquote_ident(item.strip())
        if name not in by_name:
            raise UndefinedColumn(f'column "{name}" of relation "{table.name}" does not exist')
        if by_name[name] not in positions:
            raise InvalidColumnReference(
                f'{key.upper()} column "{name}" not referenced by COPY')
        out.add(positions.index(by_name[name]))
    return frozenset(out)


class CopyIn:
    """A COPY FROM STDIN in progress (pgwire's `CopyIn`)."""

    def __init__(self, s: SQLSession, table: Any, positions: list[int], opts: dict[str, Any]):
        self.s = s
        self.table = table
        self.positions = positions
        self.format = opts["format"]
        self.column_count = len(positions)
        self.delim = opts.get("delimiter", "," if self.format == "csv" else "\t")
        self.null = opts.get("null", "" if self.format == "csv" else "\\N")
        self.header = _truthy(opts.get("header", False))
        self.quote = opts.get("quote", '"')
        self.escape = opts.get("escape", self.quote)
        # NB: FORCE_NOT_NULL: an unquoted NULL string is that string; FORCE_NULL: a quoted
        # one is NULL too (both: NULL exactly when quoted), as NextCopyFrom applies them
        self.force_not_null = force_columns(opts, "force_not_null", table, positions)
        self.force_null = force_columns(opts, "force_null", table, positions)
        self.all_columns = frozenset(range(len(positions)))
        tz = s.settings.get("timezone")
        types = [table.columns[p].type_oid for p in positions]
        self.names = [table.columns[p].name for p in positions]
        self.writer = writer_for(s, table)
        self.captured: dict[Any, Any] = {}  # the rows for AFTER triggers' transition tables
        if self.writer.triggers is not None:  # NB: COPY FROM is an INSERT to them
            self.writer.triggers.statement(s, "BEFORE", "INSERT")
        self.pk_kinds = key_kinds([table.columns[i].type_oid for i in self.writer.pk],
                                  [True] * len(self.writer.pk))
        # NB: typmods (numeric(12,2), varchar(n) ...) are applied here, a column at a time,
        # so that a bad value's line can be named; the writer then skips those columns
        typmods = dict(self.writer.converters)
        self.converted = frozenset(p for p in positions if p in typmods)
        self.decoders = [_then(text_decoder(t, tz), typmods.get(p))
                         for t, p in zip(types, positions, strict=True)]
        self.bdecoders = [binary_decoder(t) for t in types]
        self.column_decoders = [
            column_decoder(t, tz, table.columns[p].typmod) if t == T.NUMERIC
            else _column_then(column_decoder(t, tz), typmods.get(p), t, table.columns[p].typmod)
            for t, p in zip(types, positions, strict=True)]
        # columns taken from Arrow's split of a block as they are (`copybatch.arrow_block`);
        # None: every column is wanted as Python strings, and `split_block` splits
        arrow = [arrow_decoder(t, tz, table.columns[p].typmod) if t == T.NUMERIC
                 else arrow_decoder(t, tz) if p not in typmods else None
                 for t, p in zip(types, positions, strict=True)]
        self.arrow_decoders = arrow if any(arrow) and self.delim.isascii() and \
            self.delim != "\n" else None
        self.started = time.monotonic()
        self.fixed = fixed_binary_layout(types)
        self.types = types
        self.typmods = [table.columns[p].typmod for p in positions]
        self.columnwise = self.format == "binary" and supported(types)
        # binary input is converted a block at a time as it comes while its rows are of the
        # column-wise shape (`_stream`); `body` once its header has been read
        self.streaming = self.columnwise
        self.body = False
        self.simple = simple_block(self.delim, self.quote, self.escape)
        # csv blocks split by Arrow (`copybatch.arrow_csv_block`): its quoting is
        # PostgreSQL's for the default ESCAPE, and its NULL rule the default one
        self.arrow_csv = self.format == "csv" and self.escape == self.quote and \
            not self.force_null and not self.force_not_null and \
            all(len(c) == 1 and c.isascii() and c not in "\n\r" for c in (self.delim, self.quote))
        self.parts: list[bytes] = []
        self.pending = 0
        self.held = 0  # bytes of an unfinished line or record the last block gave back
        self.rows: list[Any] = []  # tuples from the batch paths, lists otherwise
        # the same rows as columns, each a list of its blocks' parts, while every row came
        # from a column batch (the redo record and the write set then take them as they
        # are, `Transaction.put_bulk`, with the wire forms the parsers found: `joined`)
        self.cols: list[list[list[Any]]] | None = [[] for _ in positions]
        self.lines: list[int] = []  # each row's input line (text and csv), for CONTEXT
        self.texts = LineTexts()  # and the text of those lines (`_row_error`)
        self.count = 0
        self.line_no = 0
        self.ended = False
        self.ncols = len(table.columns)
        self.defaults = [(c.attnum - 1, compile_default(s, c, table)) for c in table.live_columns
                         if c.attnum - 1 not in positions and (c.default or c.identity)]
        self.ctx = s.exec_context([])
        self.identity_layout = positions == list(range(self.ncols)) and not self.defaults

    def _guard(self, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except BaseException as e:
            self.s.on_error(e)
            raise

    def feed(self, data: bytes) -> None:
        """Consumes one CopyData payload."""
        self._guard(self._feed, data)

    def _feed(self, data: bytes) -> None:
        self.parts.append(data)
        self.pending += len(data)
        if self.format == "binary":
            if self.streaming and self.pending >= max(BINARY_CHUNK, 2 * self.held):
                self._stream()
            return
        # NB: input given back (a line or quoted record longer than a block) is parsed again
        # only once as much again has come: linear, not quadratic, in a huge field
        if self.format != "binary" and self.pending >= max(FEED_CHUNK, 2 * self.held):
            with paused():  # NB: one block at a time (kivi.bulkgc)
                self._drain(final=False)

    def _drain(self, final: bool) -> None:
        """Parses the complete lines received so far (all of them when `final`).

        csv takes this path too while its input has no quote character: a line break can
        then only end a record, and the fields split exactly as text's do (no escapes).
        """
        whole = buf = b"".join(self.parts)
        self.parts, self.pending, self.held = [], 0, 0
        quoted = self.format == "csv" and self.quote.encode() in buf
        if not final:
            end = buf.rfind(b"\n")
            if end < 0:
                self.parts, self.pending, self.held = [buf], len(buf), len(buf)
                return
            rest, buf = buf[end + 1:], buf[:end]
            if rest:
                self.parts, self.pending = [rest], len(rest)
        elif buf.endswith(b"\n"):
            buf = buf[:-1]
        if quoted:
            if not self.ended and not self._csv_lines(buf):
                # NB: this block alone is read record by record, the next ones try the
                # csv module again; a record the block ends inside waits for the next
                self._csv(whole if final else buf + b"\n", final)
            return
        if buf and not self.ended:
            text = decode_block(buf, self.table.name, self.line_no)
            if "\r" in text:
                text = text.replace("\r\n", "\n")
                if text.endswith("\r"):
                    text = text[:-1]
            self._text_lines(text, self.format == "text" and "\\" in text)

    def _text_lines(self, text: str, has_esc: bool) -> None:
        """Decodes a block of lines (`text`, newline-separated) a column at a time (see
        `copybatch`); the block is split into lines only on the rare paths."""
        delim, n = self.delim, self.column_count
        if "\\." in text:
            lines = text.split("\n")
            if "\\." in lines:
                lines = lines[: lines.index("\\.")]
                self.ended = True
                if not lines:
                    return
                text = "\n".join(lines)
        first = self.line_no
        if self.header and first == 0:
            cut = text.find("\n")
            first = 1
            if cut < 0:
                self.line_no = first
                return
            text = text[cut + 1:]
        count = text.count("\n") + 1
        self.line_no = first + count
        self.texts.add_block(first, count, text)
        if has_esc:
            check_escaped_nul(text.split("\n"), self.table.name, first)
        nulls = self.all_columns if may_hold_null(text, self.null, delim) else frozenset()
        if nulls and self.arrow_csv:  # NB: csv without quotes: Arrow tells its NULLs apart
            got = arrow_csv_block(text.encode(), delim, self.quote, self.null, n, count)
            if got is not None:
                self._add_arrow(got, first, count)
                return
        fields: list[Any] | None = None
        if self.arrow_decoders is not None and not has_esc and not nulls and "\r" not in text:
            # NB: no NULL, no escape: Arrow splits it as `split_block` would; the columns
            # whose decoders want Python strings get them, the others stay Arrow arrays
            got = arrow_block(text.encode(), delim, n, count)
            if got is not None:
                fields = [a if dec is not None else a.to_pylist()
                          for a, dec in zip(got, self.arrow_decoders, strict=True)]
        if fields is None:
            fields = split_block(text, delim, n)
        if fields is None:
            self._bad_line(text.split("\n"), first)
        self._add_fields(fields, first, count, has_esc,  # type: ignore[arg-type]
                         nulls - self.force_not_null)

    def _csv_lines(self, buf: bytes) -> bool:
        """Loads a block of csv lines with quotes a column at a time, when each record is one
        line of n fields and no field is the NULL string (quoted or not, csv loses which);
        False, with nothing loaded, sends the block and the rest to the record-by-record
        reader (`_csv`), which says what is wrong where."""
        text = decode_block(buf, self.table.name, self.line_no)
        if "\r" in text:
            return False
        # NB: where csv and PostgreSQL may differ; with no quote (or escape) character in
        # the block the pattern matches whatever the text is
        if (self.quote in text or self.escape in text) and self.simple.fullmatch(text) is None:
            return False
        if self.arrow_csv and "\\." not in text and not (self.header and self.line_no == 0):
            count = text.count("\n") + 1
            got = arrow_csv_block(text.encode(), self.delim, self.quote, self.null,
                                  self.column_count, count)
            if got is not None:
                first = self.line_no
                self.line_no = first + count
                self.texts.add_block(first, count, text)
                self._add_arrow(got, first, count)
                return True
        lines = text.split("\n")
        if "\\." in lines:
            return False
        try:
            records = list(csv.reader(
                lines, delimiter=self.delim, quotechar=self.quote,
                escapechar=None if self.escape == self.quote else self.escape,
                doublequote=self.escape == self.quote, strict=True))
        except csv.Error:
            return False
        if len(records) != len(lines):  # NB: a quoted line break joined two lines
            return False
        first = before = self.line_no
        if self.header and first == 0:
            records = records[1:]
            first = 1
        if not records:
            self.line_no = first
            return True
        if set(map(len, records)) != {self.column_count}:
            return False
        # NB: every record has n fields: one flat list (a C-level chain) sliced per column
        # transposes about twice as fast as a map of itemgetter per column
        n = self.column_count
        flat = list(chain.from_iterable(records))
        fields = [flat[i::n] for i in range(n)]
        del flat
        # NB: without escapes other than doubled quotes, a field equal to the NULL string
        # shows in the text as that string, or, empty, as an empty field or a quoted ""
        # FORCE_NULL makes a quoted one NULL too, FORCE_NOT_NULL an unquoted one a value,
        # both: NULL when quoted (which is lost here)
        fnn, fn = self.force_not_null, self.force_null
        if (self.escape != self.quote or may_hold_null(text, self.null, self.delim)
                or (not self.null and self.quote * 2 in text)) and \
                any(self.null in values for i, values in enumerate(fields)
                    if (i in fnn) == (i in fn)):
            return False
        self.line_no = first + len(records)
        self.texts.add_block(before, len(lines), text)
        self._add_fields(fields, first, len(records), False, fn - fnn)
        return True

    def _add_arrow(self, arrays: list[pa.Array], first: int, count: int) -> None:
        """Adds a block of csv records split by Arrow: a column without NULLs goes to its
        Arrow decoder as it is, the others as Python values with None for NULL."""
        decoders = self.arrow_decoders
        fields: list[Any] = []
        nulls = set()
        for i, a in enumerate(arrays):
            if a.null_count:
                nulls.add(i)
                fields.append(a.to_pylist())
            elif decoders is not None and decoders[i] is not None:
                fields.append(a)
            else:
                fields.append(a.to_pylist())
        self._add_fields(fields, first, count, False, nulls, none_null=True)

    def _add_fields(self, fields: list[Any], first: int, count: int, has_esc: bool,
                    nulls: Collection[int], none_null: bool = False) -> None:
        """Converts a block's raw fields a column at a time and adds its rows; lines
        first + 1 ... first + count. `nulls`: the columns where a field equal to the NULL
        string is NULL (and may be there: an empty set spares a scan of every column);
        with `none_null`, their NULLs are None already and every string is a value."""
        null, delim = self.null, self.delim
        cols: list[Any] = []
        try:
            for i, values in enumerate(fields):
                if type(values) is not list:  # NB: an Arrow array (`_text_lines`)
                    cols.append(self.arrow_decoders[i](values))  # type: ignore[index,misc]
                    continue
                dec = self.decoders[i]
                if has_esc and "\\" in delim.join(values):
                    cols.append([None if v == null else dec(_ESC.sub(_unescape, v) if "\\" in v
                                                             else v) for v in values])
                elif none_null and i in nulls:
                    cols.append([None if v is None else dec(v) for v in values])
                elif i in nulls and null in values:
                    cols.append([None if v == null else dec(v) for v in values])
                else:
                    cols.append(self.column_decoders[i](values))
        except SQLError as e:
            fields = [v if type(v) is list else v.to_pylist() for v in fields]
            raw = [[None if v is None or (v == null and not none_null and (has_esc or i in nulls)) else
                    _ESC.sub(_unescape, v) if has_esc and "\\" in v else v
                    for v in values] for i, values in enumerate(fields)]
            found = locate(self.table.name, self.names, self.decoders, raw,
                           range(first + 1, first + 1 + count))
            raise (found or e) from None
        self._add_columns(cols)
        self.lines.extend(range(first + 1, first + 1 + count))
        if len(self.rows) >= BATCH:
            self._flush()

    def _add_columns(self, cols: list[Any]) -> None:
        """Adds a block's rows, given as columns."""
        self.rows.extend(zip(*cols, strict=True))
        if self.cols is not None:
            for mine, col in zip(self.cols, cols, strict=True):
                mine.append(col)

    def _add_row(self, row: Any) -> None:
        """Adds one row (the per-row paths): the batch is no longer kept as columns."""
        self.rows.append(row)
        self.cols = None

    def _bad_line(self, lines: list[str], first: int) -> None:
        """Raises 22P04 for the first line whose field count is wrong; for a short one, a
        field there is that does not convert comes first, as in PostgreSQL."""
        n = self.column_count
        for i, line in enumerate(lines):
            got = line.count(self.delim) + 1
            if got == n:
                continue
            where = line_context(self.table.name, first + i + 1, line)
            if got > n:
                raise BadCopyFileFormat("extra data after last expected column", where=where)
            if self.format == "csv" or "\\" not in line:  # NB: no text escapes to undo
                values = [None if v == self.null and k not in self.force_not_null else v
                          for k, v in enumerate(line.split(self.delim))]
                found = locate(self.table.name, self.names, self.decoders,
                               [[v] for v in values], [first + i + 1])
                if found is not None:
                    raise found
            raise BadCopyFileFormat(self._missing(got), where=where)

    def _missing(self, got: int) -> str:
        col = self.table.columns[self.positions[got]]
        return f'missing data for column "{col.name}"'

    def _csv(self, buf: bytes, final: bool) -> None:
        """Reads a block of csv input record by record, as PostgreSQL does (`copycsv`): the
        blocks the csv module cannot take alone. Unless `final`, a record the block ends
        inside goes back to the input, before what came after it."""
        text = decode_block(buf, self.table.name, self.line_no)
        if final and (text.endswith("\\.\n") or text.endswith("\\.\r\n")):
            text = text[: text.rindex("\\.")]
        tail: list[str] | None = None if final else []
        first = self.line_no == 0  # NB: earlier quote-free blocks may have taken the header
        base = self.line_no  # physical lines before this text (PostgreSQL counts those)
        seen = 0  # physical lines read before this record
        # NB: PostgreSQL counts a quoted field's line breaks, except in the very first record,
        # read before it knows the input's line ending: those are `skew`, and lines after
        # that record are numbered as if it had been one line
        skew = 0
        for record, spans in records(text, self.quote, self.escape, tail):
            if record == "\\." and spans == 1:
                self.ended = True  # NB: the end marker alone on a line ends the data
                return
            if base + seen == 0:
                skew = spans - 1
            seen += spans
            self.line_no = base + seen - skew
            if first and self.header:
                first = False
                continue
            first = False
            try:
                values = fields(record, self.delim, self.quote, self.escape, self.null)
            except SQLError as e:  # NB: a quoted section left open
                before = base + seen - spans
                line = 1 if before == 0 else before + 1 + record.count("\n") - skew
                raise with_context(e, line_context(self.table.name, line, record)) from None
            short = len(values) < self.column_count
            if len(values) > self.column_count:
                raise BadCopyFileFormat("extra data after last expected column",
                                        where=line_context(self.table.name, self.line_no, record))
            for i in self.force_not_null | self.force_null:
                if i >= len(values):
                    continue
                if values[i] is None and i in self.force_not_null:
                    values[i] = self.null
                elif i in self.force_null and values[i] == self.null:
                    values[i] = None
            if short:  # NB: PostgreSQL converts the fields there are before it misses one
                found = locate(self.table.name, self.names, self.decoders,
                               [[v] for v in values], [self.line_no])
                raise found or BadCopyFileFormat(
                    self._missing(len(values)),
                    where=line_context(self.table.name, self.line_no, record))
            try:
                self._add_row([None if v is None else dec(v)
                               for v, dec in zip(values, self.decoders, strict=True)])
            except SQLError as e:
                found = locate(self.table.name, self.names, self.decoders,
                               [[v] for v in values], [self.line_no])
                raise (found or e) from None
            self.lines.append(self.line_no)
            self.texts.add_record(self.line_no, record)
            if len(self.rows) >= BATCH:
                self._flush()
        if tail:  # NB: its line break included (the block's text ended with one)
            self.parts.insert(0, tail[0].encode())
            self.pending += len(self.parts[0])
            self.held = len(self.parts[0])

    def _header(self, b: bytes) -> int:
        """Checks the binary header at the start of `b`; returns where the rows start."""
        if not b.startswith(SIGNATURE):
            raise BadCopyFileFormat("COPY file signature not recognized")
        pos = len(SIGNATURE) + 4
        ext = struct.unpack_from("!i", b, pos)[0]
        return pos + 4 + ext

    def _stream(self) -> None:
        """Converts the whole rows of the binary input received so far, while they take
        the column-wise path (`copybinary.whole_rows`, `walk`): a block of a few MiB at a
        time, so the walk's arrays over the input stay small and conversion overlaps
        the client's sending. Anything else (a NULL, a value the per-field parser must
        read, an odd row) ends the streaming with the rest kept, from a row boundary, for
        `_binary` at the end, as if the input had begun there."""
        b = b"".join(self.parts)
        self.parts, self.pending = [b], len(b)
        pos = 0
        if not self.body:
            if len(b) < len(SIGNATURE) + 8 or not b.startswith(SIGNATURE):
                self.streaming = False  # NB: `_binary` names what is wrong
                return
            pos = self._header(b)
        view = memoryview(b)
        cut = whole_rows(view[pos:], self.types)
        parsed = walk(b[pos:pos + cut], self.types) if cut else None
        if cut is None or parsed is None:
            self.streaming = cut == 0  # NB: no whole row yet: wait for as much again
            self.held = len(b)
            return
        done = self._load_parsed(parsed)
        end = pos + cut if done is None else pos + done
        self.streaming = done is None
        self.body = True
        rest = b[end:]
        self.parts, self.pending, self.held = [rest], len(rest), 0

    def _load_parsed(self, parsed: Parsed) -> int | None:
        """Loads parsed rows a writer batch at a time; returns None when all are loaded,
        else the offset of the first row of a batch the per-field parser must read."""
        for lo, hi in batches(parsed, BATCH):
            with paused():  # NB: one writer batch at a time (kivi.bulkgc)
                got = parsed.columns(lo, hi, self.typmods)
                if got is None:
                    return int(parsed.starts[lo])
                cols, exact = got
                self._add_columns(cols)
                self._flush(frozenset(self.positions[i] for i in exact))
        return None

    def _binary(self) -> None:
        b = b"".join(self.parts)
        self.parts = []
        pos = 0 if self.body else self._header(b)
        n = self.column_count
        if self.columnwise and b.endswith(b"\xff\xff"):
            pos = self._binary_columns(b, pos)
        if pos < len(b) and self.fixed is not None and b.endswith(b"\xff\xff"):
            fast = unpack_fixed_rows(self.fixed, memoryview(b)[pos:-2])
            if fast is not None:
                self.rows.extend(fast)
                self.cols = None
                pos = len(b)
        while pos < len(b):
            count = struct.unpack_from("!h", b, pos)[0]
            pos += 2
            if count == -1:
                break
            if count != n:
                raise BadCopyFileFormat(f"row field count is {count}, expected {n}")
            row: list[Any] = []
            for dec in self.bdecoders:
                ln = struct.unpack_from("!i", b, pos)[0]
                pos += 4
                if ln < 0:
                    row.append(None)
                else:
                    row.append(dec(b[pos:pos + ln]))
                    pos += ln
            self._add_row(row)
            if len(self.rows) >= BATCH:
                self._flush()

    def _binary_columns(self, b: bytes, pos: int) -> int:
        """Loads the rows after `pos` a column at a time (`copybinary`); returns where the
        per-field parser must go on: the end, or the first row of a batch it must read."""
        parsed = walk(b[pos:-2], self.types)
        if parsed is None:
            return pos
        done = self._load_parsed(parsed)
        return len(b) if done is None else pos + done

    def _flush(self, converted: frozenset[int] | None = None) -> None:
        if not self.rows:
            return
        self.ctx.check_cancel()
        if converted is None:
            converted = frozenset() if self.format == "binary" else self.converted
        lines, self.lines = self.lines, []
        parts, self.cols = self.cols, [[] for _ in self.positions]
        cols = None if parts is None else list(map(joined, parts))
        if self.identity_layout:
            full, self.rows = self.rows, []
            self._insert(full, converted, lines, cols)
            self.texts.clear()
            return
        full = []
        for src in self.rows:
            r = [None] * self.ncols
            for p, v in zip(self.positions, src, strict=True):
                r[p] = v
            for p, f in self.defaults:
                r[p] = f(None, self.ctx)
            full.append(r)
        self.rows = []
        self._insert(full, converted, lines)
        self.texts.clear()

    def _insert(self, rows: list[Any], converted: frozenset[int], lines: list[int],
                cols: list[list[Any]] | None = None) -> None:
        try:
            self.count += self._write(rows, converted, cols)
        except UniqueViolation as e:
            at = self._duplicate_at(rows) if len(lines) == len(rows) else None
            if at is not None:  # NB: as PostgreSQL: the line of the row being inserted
                raise with_context(e, f"COPY {self.table.name}, line {lines[at]}") from None
            raise
        except SQLError as e:
            if e.sqlstate not in _ROW_CHECKS:
                raise
            raise (self._row_error(rows, converted, lines) or e) from None

    def _row_error(self, rows: list[Any], converted: frozenset[int],
                   lines: list[int]) -> SQLError | None:
        """The error of the first row the writer refuses alone (NOT NULL, CHECK, a partition
        bound), with its line as CONTEXT; None if no row fails alone (the batch failed on
        something else). PostgreSQL checks each row as it reads it, so its error is the
        first bad row's, with that line; the batch check finds the first bad column's.
        Rows BEFORE triggers may change are left alone (their error has no line)."""
        if self.writer.triggers is not None:
            return None
        for i, row in enumerate(rows):
            try:
                for lw, part in leaf_groups(self.writer, self.s, [row]):
                    lw.prepare_rows(self.s, part, converted)
            except SQLError as e:
                if len(lines) == len(rows):
                    line, text = lines[i], self.texts.text(lines[i])
                else:  # NB: binary input: PostgreSQL counts its rows as lines
                    line, text = self.count + i + 1, None
                return with_context(e, row_context(self.table.name, line, text))
        return None

    def _write(self, rows: list[Any], converted: frozenset[int],
               cols: list[list[Any]] | None) -> int:
        """`TableWriter.insert`, with the table's own rows written as one bulk batch.

        `Transaction.put_bulk` holds a batch of new keys whole in the conflict manager
        (no holder entry per key, the commit seals the set whole) and keeps `cols`, the
        same rows as columns, for the redo record (no transpose back at the commit).
        The checks (typmods, NOT NULL, CHECK, unique, foreign keys) are the writer's.
        """
        w, s = self.writer, self.s
        if self.table.kind == "v" and w.triggers is not None:  # NB: a view's INSTEAD OF
            for r in rows:  # INSERT triggers take the rows; one they skip still counts, as
                w.triggers.instead(s, "INSERT", list(r), None)  # in PostgreSQL's CopyFrom
            return len(rows)
        if self.table.partkey:  # NB: routed, each partition's rows one batch (dml.partrouter)
            return sum([self._bulk(lw, part, converted, None)
                        for lw, part in leaf_groups(w, s, rows)])
        return self._bulk(w, rows, converted, cols)

    def _bulk(self, w: Any, rows: list[Any], converted: frozenset[int],
              cols: list[list[Any]] | None) -> int:
        """`_write` of a batch to the table of writer `w` (the COPY's table or a partition)."""
        s = self.s
        if w.triggers is not None:  # NB: row triggers fire for COPY too: the row path
            with capturing(self.captured):
                return int(w.insert(s, rows, converted=converted))
        txn = s.txn
        tuples = w.prepare_rows(s, rows, converted)
        keys = self._column_keys(tuples, cols if tuples is rows else None, w)
        if keys is None:
            keys = w.new_keys(s, tuples)
        w.check_unique(s, txn, keys, tuples)  # NB: put_bulk keeps a repeated key's last row
        txn.put_bulk(w.space, keys, tuples, cols if tuples is rows and cols else None)
        for idx in w.indexes:
            txn.put(idx.space, w.index_entries(idx, keys, tuples))
        if w.fks:  # NB: after the writes, so rows of this batch can reference each other
            w.check_fks(s, txn, tuples, keys=keys)
        return len(tuples)

    def _column_keys(self, tuples: list[Any], cols: list[list[Any]] | None,
                     w: Any = None) -> list[bytes] | None:
        """The primary keys of a batch built a column at a time by Arrow and numpy
        (`direct.colkeys`, `direct.compositekeys`: integers, text, timestamps); None when
        the row path must encode them (another type, a NULL, a value out of range).
        `w`: the writer of the partition the batch goes to (the COPY's table's: None)."""
        w = w or self.writer
        kinds = self.pk_kinds if w is self.writer else key_kinds(
            [self.table.columns[i].type_oid for i in w.pk], [True] * len(w.pk))
        if not w.pk or kinds is None:
            return None
        arrays = []
        for i, kind in zip(w.pk, kinds, strict=True):
            values = cols[i] if cols else list(map(itemgetter(i), tuples))
            if kind.startswith("timestamp") and set(map(type, values)) != {dt.datetime}:
                return None  # NB: an infinity (a datetime subclass) has its own key
            try:
                arrays.append(pa.array(values, type=_KEY_TYPES[kind]))
            except (pa.ArrowException, TypeError, OverflowError, ValueError):
                return None
        if len(arrays) == 1 and kinds == ["int"]:
            return int_column_keys(arrays[0])
        return element_keys(arrays, kinds)

    def _duplicate_at(self, rows: list[Any]) -> int | None:
        """The first row whose primary key is stored already or repeats an earlier row's."""
        w = self.writer
        if not w.pk:
            return None
        keys = [w.key_of(r) for r in rows]
        seen: set[bytes] = set()
        for i, (k, old) in enumerate(zip(keys, self.s.txn.get(w.space, keys), strict=True)):
            if old is not None or k in seen:
                return i
            seen.add(k)
        return None

    def finish(self) -> str:
        """Ends the copy at CopyDone; returns `COPY n`."""
        return self._guard(self._finish)

    def _finish(self) -> str:
        if self.format == "text":
            with paused():
                self._drain(final=True)
        elif self.format == "csv":
            with paused():
                self._drain(final=True)
        else:
            self._binary()
        self._flush()
        if self.writer.triggers is not None:
            with capturing(self.captured):
                fire_held(self.s)
                self.writer.triggers.statement(self.s, "AFTER", "INSERT")
        took = time.monotonic() - self.started
        if self.count >= LOG_ROWS:
            log.info("COPY %s: %d rows in %.2f s (%.0f rows/s, %s format)", self.table.name,
                     self.count, took, self.count / max(took, 1e-9), self.format)
        return f"COPY {self.count}"

    def fail(self, message: str) -> None:
        """Ends the copy at CopyFail: the statement fails with 57014, its CONTEXT the line
        PostgreSQL was reading (those parsed, those still buffered, and the one begun)."""
        line = self.count + 1 if self.format == "binary" else \
            self.line_no + sum(p.count(b"\n") for p in self.parts) + 1
        err = QueryCanceled(f"COPY from stdin failed: {message}",
                            where=f"COPY {self.table.name}, line {line}")
        self.s.on_error(err)
        raise err


class CopyOut:
    """A COPY TO STDOUT (pgwire's `CopyOut`).

    Each batch of the plan is encoded a column at a time (`copyout`); `frames()` gives
    whole batches of CopyData messages, one message per row as PostgreSQL sends them,
    `chunks()` the same rows one payload at a time.
    """

    def __init__(self, s: SQLSession, plan: Any, opts: dict[str, Any],
                 rows: Any = None) -> None:
        self.s = s
        self.plan = plan  # its columns name and type the output
        self.rows = rows or plan  # what runs for the rows (`rows_plan`)
        self.format = opts["format"]
        self.column_count = len(plan.columns)
        self.column_types = [c.type_oid for c in plan.columns]
        self.delim = opts.get("delimiter", "," if self.format == "csv" else "\t")
        self.null = opts.get("null", "" if self.format == "csv" else "\\N")
        self.header = _truthy(opts.get("header", False))
        self.quote = opts.get("quote", '"')
        self.escape = opts.get("escape", self.quote)
        self.count = 0
        self._tag = "COPY 0"
        fq = opts.get("force_quote")
        names = [c.name for c in plan.columns]
        if fq is None or fq is True:
            self.force_quote: set[int] = set()
        elif str(fq).strip() == "*":
            self.force_quote = set(range(len(names)))
        else:
            wanted = [unquote_ident(x.strip()) for x in str(fq).strip("() ").split(",")]
            for w in wanted:
                if w not in names:
                    raise InvalidColumnReference(
                        f'FORCE_QUOTE column "{w}" not referenced by COPY')
            self.force_quote = {names.index(w) for w in wanted}

    @property
    def tag(self) -> str:
        """`COPY n`, final once the chunks are exhausted."""
        return self._tag

    def chunks(self) -> Iterator[bytes]:
        """Yields CopyData payloads, one per row (the binary header rides on the first)."""
        try:
            for payloads in self._batches():
                yield from payloads
        except BaseException as e:
            self.s.on_error(e)
            raise

    def frames(self) -> Iterator[bytes]:
        """Yields whole CopyData messages, a batch of rows at a time, each batch encoded a
        column at a time through Arrow (`copyout.ColumnCopy`)."""
        try:
            ctx = self.s.exec_context([])
            cols = self.plan.columns
            enc = ColumnCopy(self, [c.type_oid for c in cols], self.s.settings.get("timezone"))
            if self.header and not enc.binary:  # a header line is a CopyData of its own
                names = [self._fields([c.name], i, forced=False)[0] for i, c in enumerate(cols)]
                yield frame([(self.delim.join(names) + "\n").encode()])
            columns = self.rows.execute_columns(ctx) if isinstance(self.rows, CompiledPlan) \
                else None
            if columns is not None:  # a whole table: its stored columns, no tuple per row
                for batch, n in columns:
                    self.count += n
                    yield enc.columns(batch, n)
            else:
                for batch in gathered(self.rows.execute(ctx)):
                    ctx.check_cancel()
                    self.count += len(batch)
                    yield enc.rows(batch)
            yield enc.end()
            self._tag = f"COPY {self.count}"
        except BaseException as e:
            self.s.on_error(e)
            raise

    def _fields(self, vals: list[str | None], i: int, oid: int = 0, forced: bool = True
                ) -> list[str]:
        """One column's text values as text or csv fields (FORCE_QUOTE is not for headers)."""
        if self.format == "csv":
            return csv_column(vals, self.null, self.delim, self.quote, self.escape,
                              forced and i in self.force_quote, self.column_count == 1,
                              plain(oid, self.delim, self.null, self.quote))
        return text_column(vals, self.null, self.delim, plain(oid, self.delim))

    def _batches(self) -> Iterator[list[bytes]]:
        ctx = self.s.exec_context([])
        cols = self.plan.columns
        oids = [c.type_oid for c in cols]
        binary = self.format == "binary"
        head = b""
        if binary:
            bencs = [binary_encoder(o) for o in oids]
            head = SIGNATURE + struct.pack("!ii", 0, 0)
        else:
            tz = self.s.settings.get("timezone")
            encs = [text_encoder(o, tz) for o in oids]
            if self.header:  # a header line is a CopyData of its own, as in PostgreSQL
                names = [self._fields([c.name], i, forced=False)[0] for i, c in enumerate(cols)]
                yield [(self.delim.join(names) + "\n").encode()]
        for batch in gathered(self.rows.execute(ctx), OUT_BATCH):
            ctx.check_cancel()
            columns = list(zip(*batch, strict=True))
            n = len(batch)
            if binary:
                payloads = binary_rows([binary_column(c, e, o) for c, e, o in
                                        zip(columns, bencs, oids, strict=True)], n)
            else:
                payloads = lines([self._fields(column_strings(c, e, o), i, o) for i, (c, e, o) in
                                  enumerate(zip(columns, encs, oids, strict=True))],
                                 self.delim, n)
            if head:
                payloads[0] = head + payloads[0]
                head = b""
            self.count += n
            yield payloads
        if binary:
            yield [head + struct.pack("!h", -1)]
        self._tag = f"COPY {self.count}"


def analyse_copy(session: SQLSession, sql: str, param_oids: list[int]) -> Stmt:
    """Analyses a COPY statement."""
    m = _HEAD.match(sql)
    assert m is not None
    target, rest = _split_target(m.group("rest"))
    dm = re.match(r"\s*(FROM|TO)\s+(STDIN|STDOUT|'[^']*'|PROGRAM\b)", rest, re.I)
    if dm is None:
        raise SyntaxError_(f'syntax error at or near "{rest.split()[0] if rest.split() else ""}"')
    direction, where = dm.group(1).upper(), dm.group(2).upper()
    if where not in ("STDIN", "STDOUT"):
        raise FeatureNotSupported("COPY to or from a file is not supported; use STDIN/STDOUT",
                                  hint="Use psql's \\copy instead.")
    opts = parse_options(rest[dm.end():])
    if opts["format"] not in ("text", "csv", "binary"):
        raise SyntaxError_(f'COPY format "{opts["format"]}" not recognized')
    check_force_nulls(opts, direction == "FROM")
    if target.startswith("("):
        if direction == "FROM":
            raise SyntaxError_('syntax error at or near "("')
        query = target[1:-1]
        return _copy_out(session, sql, query, opts)
    cm = re.match(r"(.*?)\s*(?:\((.*)\))?\s*$", target, re.S)
    assert cm is not None  # the pattern matches any text
    name_text, cols_text = cm.group(1), cm.group(2)
    col_names = [parse_qualified(c)[1] for c in cols_text.split(",")] if cols_text else []
    if direction == "TO":
        cols = ", ".join('"' + c.replace('"', '""') + '"' for c in col_names) or "*"
        return _copy_out(session, sql, f"SELECT {cols} FROM {name_text}", opts)

    def run(s: SQLSession, p: list[Any]) -> Result:
        schema, name = parse_qualified(name_text)
        cat = s.catalog()
        table = get_relation(cat, schema, name, s.search_path())
        check_table(s, cat, current_role(s, cat), table, "a",
                    frozenset(col_names) if col_names else None)
        if table.kind == "v" and not any(
                t.table_oid == table.oid and t.tgtype & 0x45 == 0x45 and t.enabled != "D"
                for t in cat.triggers):  # NB: INSTEAD (64) | INSERT (4) | ROW (1)
            raise WrongObjectType(f'cannot copy to view "{table.name}"',
                                  hint="To enable copying to a view, provide an INSTEAD OF "
                                       "INSERT trigger.")
        if col_names:
            by_name = {c.name: c.attnum - 1 for c in table.live_columns}
            for c in col_names:
                if c not in by_name:
                    raise UndefinedColumn(
                        f'column "{c}" of relation "{table.name}" does not exist')
            positions = [by_name[c] for c in col_names]
        else:
            positions = [c.attnum - 1 for c in table.live_columns]
        return Result("COPY", copy_in=CopyIn(s, table, positions, opts))

    return Stmt(sql, "copy", run, None, [], -1, tag="COPY")


def rows_plan(plan: CompiledPlan) -> CompiledPlan:
    """The plan whose rows a COPY TO encodes: `COPY t TO`'s `SELECT *` compiles to a
    projection that restates each column of its scan, in order, which built every row
    tuple again (about a tenth of the COPY's CPU); the scan's rows serve as they are
    (`ColumnCopy` reads them a column at a time, by position)."""
    root = plan.root
    if not isinstance(root, N.Project) or len(plan.columns) != len(root.exprs):
        return plan
    child = root.child
    if len(child.cols) != len(root.exprs) or len(visible(child.cols)) != len(child.cols) or \
            any(e.kind != "col" or e.data != i for i, e in enumerate(root.exprs)):
        return plan
    return CompiledPlan(child)


def _copy_out(session: SQLSession, sql: str, query: str, opts: dict[str, Any]) -> Stmt:
    def run(s: SQLSession, p: list[Any]) -> Result:
        tree = parse_sql(query)
        check_needs(s, needs(tree))
        plan = COMPILER.plan_query(tree, s.catalog(), ParamTypes(), s.search_path())
        return Result("COPY", copy_out=CopyOut(s, plan, opts, rows_plan(plan)))

    return Stmt(sql, "copy", run, None, [], -1, tag="COPY")
