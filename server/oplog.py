"""Operator logs: PostgreSQL's log line format, statement logging, and nothing else.

An operator reads the server log to learn what the server did (start, recovery,
checkpoints, shutdown) and, when asked to, what clients ran. So it holds lines
in PostgreSQL's default format (`log_line_prefix = '%m [%p] '`) and nothing a
client can flood it with:

    2026-11-28 09:01:02.345 UTC [4242] LOG:  database system is ready to accept connections

- Python levels map to PostgreSQL's severities: INFO is LOG, CRITICAL is FATAL.
- sqlglot's own warnings (it logs when it meets SQL it half understands) are
  dropped: they describe the client's text, not the server.
- A statement that nests too deeply (RecursionError) or runs out of memory is
  the client's problem and already reported to it (54001, 53200): its thousand-
  frame traceback is cut down to one line here.
- `log_statement` (none, ddl, mod, all) and `log_min_duration_statement` (ms;
  -1 off, 0 every statement) are read from the session's settings at each
  statement, so SET, the configuration file and ALTER SYSTEM all apply.

    >>> statement_class("insert into t values (1)"), statement_class(" DROP TABLE t")
    ('mod', 'ddl')
    >>> wants_statement("mod", "create table t (a int); select 1")
    True
    >>> wants_statement("ddl", "update t set a = 1")
    False
"""

from __future__ import annotations

import logging
import re
import sys
import time
from collections.abc import Mapping

log = logging.getLogger("cumulo.statement")

SEVERITY = {logging.DEBUG: "DEBUG", logging.INFO: "LOG", logging.WARNING: "WARNING",
            logging.ERROR: "ERROR", logging.CRITICAL: "FATAL"}


class PgFormatter(logging.Formatter):
    """Formats records as `2026-11-28 09:01:02.345 UTC [pid] LOG:  message`."""

    def format(self, record: logging.LogRecord) -> str:
        t = time.localtime(record.created)
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", t)
        ms = int(record.msecs)
        severity = SEVERITY.get(record.levelno, record.levelname)
        line = f"{stamp}.{ms:03d} {time.strftime('%Z', t)} [{record.process}] {severity}:  " \
            f"{record.getMessage()}"
        if record.exc_info and record.exc_info[1] is not None:
            line += "\n" + self.formatException(record.exc_info)
        return line


class ClientFaults(logging.Filter):
    """Turns the traceback of a client's too-deep or too-big statement into one line."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, RecursionError):
            record.msg, record.args = "stack depth limit exceeded (54001) in a client's statement", ()
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.exc_info = record.exc_text = None
        elif isinstance(exc, MemoryError):
            record.msg, record.args = "out of memory (53200) in a client's statement", ()
            record.exc_info = record.exc_text = None
        return True


def setup(level: str = "INFO") -> None:
    """Sends every log record to stderr in PostgreSQL's format (the `cumulo serve` log)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(PgFormatter())
    handler.addFilter(ClientFaults())
    root = logging.getLogger()
    for h in list(root.handlers):
        root.removeHandler(h)
    root.addHandler(handler)
    root.setLevel(level.upper())
    # NB: sqlglot warns about the client's SQL ("contains unsupported syntax"): not ours to log
    logging.getLogger("sqlglot").setLevel(logging.ERROR)


_DDL = re.compile(r"\s*(?:\(\s*)*(create|alter|drop|comment|grant|revoke|security|reindex|"
                  r"cluster|import|refresh)\b", re.I)
_MOD = re.compile(r"\s*(?:\(\s*)*(insert|update|delete|truncate|copy\s.*\bfrom\b|merge)\b",
                  re.I | re.S)
_LEVELS = {"none": 0, "ddl": 1, "mod": 2, "all": 3}


def statement_class(sql: str) -> str:
    """'ddl', 'mod' or 'all': the least log_statement level that logs the statement."""
    if _DDL.match(sql):
        return "ddl"
    if _MOD.match(sql):
        return "mod"
    return "all"


def wants_statement(level: str, sql: str) -> bool:
    """Whether log_statement = level logs this query string (any of its statements)."""
    wanted = _LEVELS.get(level, 0)
    if wanted == 0:
        return False
    if wanted == 3:
        return True
    return any(_LEVELS[statement_class(part)] <= wanted for part in sql.split(";") if part.strip())


def started(settings: Mapping[str, str], sql: str, extended: bool = False) -> float | None:
    """Logs a statement as log_statement asks; returns its start time if its duration may be
    logged (else None, so that the common case costs two dict lookups). `settings` are a
    session's values, where every setting has one (`settings.DEFAULTS`): read by subscript."""
    level = settings["log_statement"]
    threshold = settings["log_min_duration_statement"]
    if level != "none" and wants_statement(level, sql):
        log.info("%s: %s", "execute <unnamed>" if extended else "statement", sql)
        if threshold == "-1":
            return None
        return -time.perf_counter()  # NB: negative: the text is logged already
    if threshold == "-1":
        return None
    return time.perf_counter()


def finished(settings: Mapping[str, str], sql: str, start: float | None,
             extended: bool = False) -> None:
    """Logs `duration: … ms  statement: …` when the statement ran at least
    log_min_duration_statement."""
    if start is None:
        return
    logged = start < 0
    elapsed = (time.perf_counter() - abs(start)) * 1000.0
    limit = _ms(settings.get("log_min_duration_statement", "-1"))
    if limit < 0 or elapsed < limit:
        return
    if logged:
        log.info("duration: %.3f ms", elapsed)
    else:
        log.info("duration: %.3f ms  %s: %s", elapsed,
                 "execute <unnamed>" if extended else "statement", sql)


_UNITS = {"": 1.0, "ms": 1.0, "s": 1000.0, "min": 60000.0, "h": 3600000.0, "d": 86400000.0,
          "us": 0.001}


def _ms(value: str) -> float:
    """A time setting's value in ms ('250ms', '1s', '-1')."""
    m = re.fullmatch(r"\s*(-?\d+(?:\.\d+)?)\s*([a-z]*)\s*", value)
    if m is None or m.group(2) not in _UNITS:
        return -1.0
    return float(m.group(1)) * _UNITS[m.group(2)]

