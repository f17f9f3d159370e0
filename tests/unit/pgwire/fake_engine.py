"""A canned stand-in for the SQL engine, so pgwire can be tested while the real one is written.

It understands a handful of statement shapes, enough to drive every protocol
path: `select 1`, `select series N` (N int4 rows; also spelt
`select generate_series(1, N) n`), `select $1::int4, $2::text`
(echoes its parameters; their types come from the casts), `select typed`
(one row of many types; `select scalars` leaves out the arrays,
which asyncpg would introspect through the catalog), `begin`/`commit`/`rollback`, `set timezone = 'X'`,
`fail` (42601 with a position), `notice`, `sleep N [after M]` (cancellable, also during the M s before it), `stuck N` (ignores cancel), `oom` and `deep` (MemoryError, RecursionError),
`copy t from stdin`, `copy t to stdout`, `declare c cursor for select series N`.
Statements are separated by `;`.
"""

from __future__ import annotations

import datetime as dt
import re
import threading
import uuid
from decimal import Decimal
from typing import Any

from cumulo.server import waits
from cumulo.server.errors import QueryCanceled, SQLError, SyntaxError_, UndefinedTable
from cumulo.server.pgtypes import oids as T
from cumulo.server.pgwire.auth import md5_verifier, scram_verifier
from cumulo.server.pgwire.backend import Column, Prepared, Result, RoleInfo
from cumulo.server.pgwire.messages import copy_data

TYPED = [
    ("b", T.BOOL, True), ("i2", T.INT2, -12), ("i4", T.INT4, 123456), ("i8", T.INT8, 2**40),
    ("f4", T.FLOAT4, 1.5), ("f8", T.FLOAT8, 0.1), ("n", T.NUMERIC, Decimal("-1234.5600")),
    ("t", T.TEXT, "héllo"), ("v", T.VARCHAR, "v"), ("by", T.BYTEA, b"\x00\xff"),
    ("d", T.DATE, dt.date(2024, 2, 29)), ("tm", T.TIME, dt.time(3, 4, 5, 120000)),
    ("ts", T.TIMESTAMP, dt.datetime(2024, 1, 2, 3, 4, 5, 123000)),
    ("tz", T.TIMESTAMPTZ, dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.UTC)),
    ("iv", T.INTERVAL, dt.timedelta(days=1, seconds=7384)),
    ("u", T.UUID, uuid.UUID("12345678-1234-5678-1234-567812345678")),
    ("j", T.JSONB, '{"a": [1, 2]}'), ("ai", 1007, [1, None, 3]), ("at", 1009, ["a b", "c"]),
]
_CAST = {"int4": T.INT4, "int8": T.INT8, "int2": T.INT2, "text": T.TEXT, "bool": T.BOOL,
         "float8": T.FLOAT8, "numeric": T.NUMERIC, "date": T.DATE, "bytea": T.BYTEA,
         "timestamptz": T.TIMESTAMPTZ, "oid[]": 1028, "int4[]": 1007, "jsonb": T.JSONB,
         "uuid": T.UUID, "interval": T.INTERVAL, "timestamp": T.TIMESTAMP}
_PARAM = re.compile(r"\$(\d+)::([a-z0-9\[\]]+)")


class FakeCopyIn:
    def __init__(self, sink: list[bytes], fmt: str = "text") -> None:
        self.format, self.column_count, self.sink = fmt, 2, sink

    def feed(self, data: bytes) -> None:
        if data.startswith(b"bad"):
            raise SQLError("invalid input syntax for type integer", sqlstate="22P02")
        self.sink.append(bytes(data))

    def finish(self) -> str:
        end = b"\\.\n"
        return f"COPY {sum(1 for c in self.sink if c != end)}"

    def fail(self, message: str) -> None:
        self.sink.clear()


class FakeCopyOut:
    format, column_count, tag = "text", 2, "COPY 2"

    def chunks(self):
        yield b"1\ta\n"
        yield b"2\tb\n"

    def frames(self):
        yield b"".join(copy_data(c) for c in self.chunks())


class FakeSession:
    def __init__(self, engine: FakeEngine, user: str, options: dict[str, str]) -> None:
        self.engine, self.user, self.options = engine, user, options
        self.backend_pid = engine.next_pid()
        self.in_block = self.failed = False
        self.changed: dict[str, str] = {}
        self.notices: list[SQLError] = []
        self.cursors: dict[str, list[Column]] = {}
        self.cancelled = waits.Flag()
        self.copied: list[bytes] = []
        self.syncs = self.closed = self.failures = 0
        self.inbox: list[tuple[int, str, str]] = []
        self.notify_hook: Any = None
        self.terminate_hook: Any = None
        self.peer: tuple[str | None, int | None] | None = None
        self.params = {
            "application_name": options.get("application_name", ""), "client_encoding": "UTF8",
            "DateStyle": "ISO, MDY", "default_transaction_read_only": "off",
            "in_hot_standby": "off", "integer_datetimes": "on", "IntervalStyle": "postgres",
            "is_superuser": "on", "server_encoding": "UTF8", "server_version": "15.0 (Cumulo)",
            "session_authorization": user, "standard_conforming_strings": "on", "TimeZone": "UTC",
        }

    @property
    def transaction_status(self) -> str:
        return "E" if self.failed else "T" if self.in_block else "I"

    def parameter_status(self) -> dict[str, str]:
        return dict(self.params)

    @property
    def parameters_changed(self) -> dict[str, str]:
        return self.changed

    def take_changed_parameters(self) -> dict[str, str]:
        out, self.changed = self.changed, {}
        return out

    def take_notices(self) -> list[SQLError]:
        out, self.notices = self.notices, []
        return out

    def take_notifications(self) -> list[tuple[int, str, str]]:
        out, self.inbox = self.inbox, []
        return out

    def setting(self, name: str) -> str | None:
        return self.params.get(name)

    @property
    def setting_values(self) -> dict[str, str]:
        return self.params

    def simple_read(self, sql: str) -> None:
        return None  # the fake has no fast lanes: everything goes the general way

    def read_point(self, prepared: Prepared, params: list[Any]) -> None:
        return None

    def check_prepared(self, prepared: Prepared) -> None:
        pass

    def still_valid(self, prepared: Prepared) -> bool:
        return False

    def can_batch(self, prepared: Prepared) -> bool:
        return False

    def execute_many(self, prepared: Prepared, seq: list[list[Any]]
                     ) -> tuple[list[Result], BaseException | None]:
        raise AssertionError("can_batch said no")

    def watch_statements(self, named: Any, drop: Any) -> None:
        pass

    def connected_from(self, addr: str | None, port: int | None) -> None:
        self.peer = (addr, port)

    def terminate(self) -> None:
        if self.terminate_hook is not None:
            self.terminate_hook()

    def simple_query(self, sql: str):
        parts = [p.strip() for p in sql.split(";") if p.strip()]
        if not parts:
            yield Result("", empty=True)
            return
        for part in parts:
            yield self._run(part, [])

    def prepare(self, sql: str, param_oids: list[int]) -> Prepared:
        text = sql.strip().rstrip(";")
        if text.lower() == "fail":
            self._failed()
            raise SyntaxError_('syntax error at or near "fail"', position=1)
        oids = list(param_oids)
        for m in _PARAM.finditer(text):
            i = int(m.group(1)) - 1
            oids += [0] * (i + 1 - len(oids))
            oids[i] = oids[i] or _CAST[m.group(2)]
        return Prepared(sql, oids, self._columns(text), text)

    def execute(self, prepared: Prepared, params: list[Any]) -> Result:
        if prepared.handle == "":
            return Result("", empty=True)
        return self._run(prepared.handle, params)

    def sql_prepared(self, name: str) -> Prepared | None:
        return None  # NB: no SQL PREPARE here

    def close_sql_prepared(self, name: str) -> None:
        pass  # NB: no SQL PREPARE here

    def cursor_columns(self, name: str) -> list[Column] | None:
        return self.cursors.get(name)

    def close_cursor(self, name: str) -> None:
        self.cursors.pop(name, None)

    def sync(self) -> str:
        self.syncs += 1
        return self.transaction_status

    def statement_failed(self, exc: BaseException) -> None:
        self.failures += 1
        self._failed()

    def cancel(self) -> None:
        self.cancelled.set()

    @property
    def cancel_flag(self) -> waits.Flag:
        return self.cancelled

    def reset_cancel(self) -> None:
        self.cancelled.clear()

    def close(self) -> None:
        self.closed += 1

    def _failed(self) -> None:
        if self.in_block:
            self.failed = True

    def _columns(self, text: str) -> list[Column] | None:
        low = text.lower()
        if low == "select 1":
            return [Column("?column?", T.INT4)]
        if low.startswith(("select series", "select generate_series")):
            return [Column("n", T.INT4, table_oid=16384, attnum=1)]
        if low in ("select typed", "select scalars"):
            return [Column(n, oid) for n, oid, _ in TYPED if low == "select typed" or
                    oid not in T.ELEMENT_OF]
        if low.startswith("select $"):
            return [Column(m.group(2), _CAST[m.group(2)]) for m in _PARAM.finditer(text)]
        return None

    def _run(self, text: str, params: list[Any]) -> Result:
        low = text.lower()
        if self.failed and low not in ("commit", "rollback"):
            raise SQLError("current transaction is aborted, commands ignored until end of "
                           "transaction block", sqlstate="25P02")
        try:
            return self._dispatch(text, low, params)
        except SQLError:
            self._failed()
            raise

    def _dispatch(self, text: str, low: str, params: list[Any]) -> Result:
        cols = self._columns(text)
        if low == "select 1":
            return Result("SELECT", cols, iter([(1,)]), done=False)
        if low.startswith(("select series", "select generate_series")):
            n = int(re.findall(r"\d+", low)[-1])
            return Result("SELECT", cols, iter([(i,) for i in range(1, n + 1)]), done=False)
        if low in ("select typed", "select scalars"):
            names = {c.name for c in cols}
            row = tuple(v for n, _, v in TYPED if n in names)
            return Result("SELECT", cols, iter([row]), done=False)
        if low.startswith("select $"):
            return Result("SELECT", cols, iter([tuple(params)]), done=False)
        if low in ("begin", "start transaction"):
            self.in_block = True
            return Result("BEGIN")
        if low in ("commit", "end", "rollback"):
            tag = "ROLLBACK" if self.failed or low == "rollback" else "COMMIT"
            self.in_block = self.failed = False
            return Result(tag)
        if low.startswith("set timezone"):
            self.params["TimeZone"] = self.changed["TimeZone"] = text.split("'")[1]
            return Result("SET")
        if low == "fail":
            raise SyntaxError_('syntax error at or near "fail"', position=1)
        if low in ("missing", "select * from missing"):
            raise UndefinedTable('relation "missing" does not exist')
        if low in ("notice", "drop table if exists x"):
            self.notices.append(SQLError('table "x" does not exist, skipping',
                                         severity="NOTICE", sqlstate="00000"))
            return Result("DROP TABLE")
        if low == "oom":  # what a statement past the server's memory limit raises
            raise MemoryError()
        if low == "deep":
            raise RecursionError("maximum recursion depth exceeded")
        if low.startswith("stuck"):  # ignores cancel, like a statement that never checks
            waits.Event().wait(float(low.split()[1]))
            return Result("SELECT", [Column("slept", T.BOOL)], iter([(True,)]), done=False)
        if low.startswith("sleep"):
            parts = low.split()
            if len(parts) > 2:  # `sleep N after M`: M seconds of "parsing" first
                waits.Event().wait(float(parts[3]))
            if self.cancelled.wait(float(parts[1])):
                self.cancelled.clear()
                raise QueryCanceled("canceling statement due to user request")
            return Result("SELECT", [Column("slept", T.BOOL)], iter([(True,)]), done=False)
        if low.startswith("copy") and "from stdin" in low:
            self.copied = []
            fmt = "binary" if "binary" in low else "text"
            return Result("COPY", copy_in=FakeCopyIn(self.copied, fmt))
        if low.startswith("copy") and "to stdout" in low:
            return Result("COPY", copy_out=FakeCopyOut())
        m = re.match(r"declare (\w+) cursor for (.*)", text, re.I)
        if m:
            self.cursors[m.group(1)] = self._columns(m.group(2)) or []
            return Result("DECLARE CURSOR")
        raise SyntaxError_(f'syntax error at or near "{text.split()[0]}"', position=1)


class FakeEngine:
    """Roles: `trust` (no password), `md5user`/`scramuser`/`plainuser` with password 'pw', and
    `nologin`. Databases: any but `nodb`."""

    def __init__(self) -> None:
        self.roles = {
            "trust": RoleInfo("trust"), "nologin": RoleInfo("nologin", can_login=False),
            "md5user": RoleInfo("md5user", password=md5_verifier("md5user", "pw")),
            "scramuser": RoleInfo("scramuser", password=scram_verifier("pw")),
            "plainuser": RoleInfo("plainuser", password="pw"),
        }
        self.sessions: list[FakeSession] = []
        self._pid = 1000
        self._lock = threading.Lock()

    def next_pid(self) -> int:
        with self._lock:
            self._pid += 1
            return self._pid

    def role(self, name: str) -> RoleInfo | None:
        return self.roles.get(name)

    def open_session(self, user: str, database: str, options: dict[str, str]) -> FakeSession:
        if database == "nodb":
            raise SQLError(f'database "{database}" does not exist', sqlstate="3D000")
        s = FakeSession(self, user, options)
        self.sessions.append(s)
        return s

    def load(self) -> int:
        return len(self.sessions)

    def close(self) -> None:
        pass
