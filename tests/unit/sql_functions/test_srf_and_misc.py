"""Set-returning functions, sequences, advisory locks, uuid and pg_typeof."""

from __future__ import annotations

import datetime as dt
import threading
import uuid
from decimal import Decimal

import pytest

from cumulo.server.errors import SQLError
from cumulo.server.pgtypes import oids as T
from cumulo.server.sql.functions.registry import FUNCTIONS

from .conftest import P_SEQ, Ctx, P, call, make_catalog


def test_generate_series_integers():
    assert call("generate_series", 1, 5, types=[T.INT4, T.INT4]) == [1, 2, 3, 4, 5]
    assert call("generate_series", 5, 1, -2, types=[T.INT4, T.INT4, T.INT4]) == [5, 3, 1]
    assert call("generate_series", 5, 1, types=[T.INT4, T.INT4]) == []
    assert call("generate_series", Decimal("0.5"), Decimal("1.5"), Decimal("0.5"),
                types=[T.NUMERIC] * 3) == [Decimal("0.5"), Decimal("1.0"), Decimal("1.5")]
    with pytest.raises(SQLError) as info:
        call("generate_series", 1, 5, 0, types=[T.INT4, T.INT4, T.INT4])
    assert (info.value.sqlstate, info.value.message) == ("22023", "step size cannot equal zero")


def test_generate_series_timestamps():
    start, stop = dt.datetime(2024, 1, 1), dt.datetime(2024, 1, 1, 2)
    got = call("generate_series", start, stop, dt.timedelta(hours=1),
               types=[T.TIMESTAMP, T.TIMESTAMP, T.INTERVAL])
    assert got == [start, start + dt.timedelta(hours=1), stop]
    back = call("generate_series", stop, start, dt.timedelta(hours=-2),
                types=[T.TIMESTAMP, T.TIMESTAMP, T.INTERVAL])
    assert back == [stop, start]


def test_vector_subscripts_start_at_zero():
    assert call("generate_subscripts", [4, 5, 6], 1, types=[T.INT2VECTOR, T.INT4]) == [0, 1, 2]
    assert call("generate_subscripts", [4, 5, 6], 1, types=[T.ANYARRAY, T.INT4]) == [1, 2, 3]
    assert call("generate_subscripts", [4, 5], 1, True,
                types=[T.ANYARRAY, T.INT4, T.BOOL]) == [2, 1]
    assert call("generate_subscripts", [4, 5], 2, types=[T.ANYARRAY, T.INT4]) == []


def test_unnest_and_expandarray():
    assert call("unnest", [[1, 2], [3, None]], types=[T.ANYARRAY]) == [1, 2, 3, None]
    assert call("_pg_expandarray", [5, 7], types=[T.ANYARRAY]) == [(5, 1), (7, 2)]
    vec = next(d for d in FUNCTIONS["_pg_expandarray"] if d.args == (T.INT2VECTOR,))
    assert vec.out_columns == (("x", T.INT2), ("n", T.INT4))
    unnest_vec = next(d for d in FUNCTIONS["unnest"] if d.args == (T.OIDVECTOR,))
    assert unnest_vec.returns([T.OIDVECTOR]) == T.OID
    generic = next(d for d in FUNCTIONS["unnest"] if d.args == (T.ANYARRAY,))
    assert generic.returns([T.ARRAY_OF[T.TEXT]]) == T.TEXT


def test_regexp_matches_and_json_sets():
    assert call("regexp_matches", "a1b22", "[0-9]+", "g",
                types=[T.TEXT, T.TEXT, T.TEXT]) == [["1"], ["22"]]
    assert call("jsonb_each_text", '{"a": 1, "b": "x"}') == [("a", "1"), ("b", "x")]
    assert call("json_array_elements", '[1, {"a": 2}]') == ["1", '{"a": 2}']
    assert call("jsonb_object_keys", '{"bb": 1, "a": 2}') == ["a", "bb"]


def test_sequences(ctx):
    assert call("nextval", "p_id_seq", ctx=ctx, types=[T.TEXT]) == 1
    assert call("nextval", P_SEQ, ctx=ctx, types=[T.REGCLASS]) == 2
    assert call("currval", "public.p_id_seq", ctx=ctx, types=[T.TEXT]) == 2
    assert call("lastval", ctx=ctx) == 2
    assert call("setval", "p_id_seq", 10, ctx=ctx, types=[T.TEXT, T.INT8]) == 10
    with pytest.raises(SQLError) as info:
        call("nextval", P, ctx=ctx, types=[T.REGCLASS])
    assert (info.value.sqlstate, info.value.message) == ("42809", '"p" is not a sequence')
    with pytest.raises(SQLError) as info:
        call("nextval", "nope", ctx=ctx, types=[T.TEXT])
    assert info.value.sqlstate == "42P01"
    fresh = Ctx(make_catalog(), backend_pid=777)
    with pytest.raises(SQLError) as info:
        call("lastval", ctx=fresh)
    assert info.value.sqlstate == "55000"


def test_advisory_locks_are_per_session():
    a, b = Ctx(make_catalog(), backend_pid=1001), Ctx(make_catalog(), backend_pid=1002)
    assert call("pg_try_advisory_lock", 42, ctx=a, types=[T.INT8]) is True
    assert call("pg_try_advisory_lock", 42, ctx=a, types=[T.INT8]) is True  # re-entrant
    assert call("pg_try_advisory_lock", 42, ctx=b, types=[T.INT8]) is False
    assert call("pg_advisory_unlock", 42, ctx=b, types=[T.INT8]) is False
    assert call("pg_advisory_unlock", 42, ctx=a, types=[T.INT8]) is True
    assert call("pg_try_advisory_lock", 42, ctx=b, types=[T.INT8]) is False  # still held once
    call("pg_advisory_unlock_all", ctx=a)
    assert call("pg_try_advisory_lock", 42, ctx=b, types=[T.INT8]) is True
    done = threading.Event()

    def waiter() -> None:
        call("pg_advisory_lock", 42, ctx=a, types=[T.INT8])
        done.set()

    t = threading.Thread(target=waiter)
    t.start()
    assert not done.wait(0.05)
    call("pg_advisory_unlock_all", ctx=b)
    assert done.wait(2)
    t.join()
    call("pg_advisory_unlock_all", ctx=a)


def test_uuid_typeof_and_clock(ctx):
    u = call("gen_random_uuid")
    assert isinstance(u, uuid.UUID) and u.version == 4 and u != call("gen_random_uuid")
    assert [call("pg_typeof", v) for v in (1, 2**40, "x", 1.5, Decimal(1), None, [1])] == [
        T.INT4, T.INT8, T.TEXT, T.FLOAT8, T.NUMERIC, T.UNKNOWN, T.ARRAY_OF[T.INT4]]
    assert str(call("pg_typeof", "x")) == "text"
    assert call("now", ctx=ctx) == ctx.statement_timestamp
    assert call("current_date", ctx=ctx) == dt.date(2024, 3, 1)
    assert all(d.volatile for d in FUNCTIONS["random"] + FUNCTIONS["now"] + FUNCTIONS["nextval"])


def test_timestamptz_functions_use_session_zone(ctx):
    ctx.settings["TimeZone"] = "America/New_York"
    v = dt.datetime(2024, 3, 1, 3, 0, tzinfo=dt.UTC)  # 22:00 on Feb 29 in New York
    trunc = call("date_trunc", "day", v, ctx=ctx, types=[T.TEXT, T.TIMESTAMPTZ])
    assert trunc == dt.datetime(2024, 2, 29, 5, 0, tzinfo=dt.UTC)
    assert call("extract", "day", v, ctx=ctx, types=[T.TEXT, T.TIMESTAMPTZ]) == 29
    assert call("to_char", v, "YYYY-MM-DD HH24 TZ", ctx=ctx,
                types=[T.TIMESTAMPTZ, T.TEXT]) == "2024-02-29 22 EST"


def test_registry_is_consistent():
    for name, defs in FUNCTIONS.items():
        assert name == name.lower(), name
        for d in defs:
            assert d.impl.__doc__, f"{name} has no docstring"
            if d.set_returning and d.out_columns:
                assert d.returns == T.RECORD, name


def test_advisory_lock_of_a_closed_session_is_free():
    class Engine:
        def __init__(self):
            self.open = []

        def sessions(self):
            return self.open

    class Session:
        def __init__(self, pid, engine):
            self.backend_pid, self.engine = pid, engine

    engine = Engine()
    a, b = Ctx(make_catalog(), backend_pid=2001), Ctx(make_catalog(), backend_pid=2002)
    a.session, b.session = Session(2001, engine), Session(2002, engine)
    engine.open = [a.session, b.session]
    assert call("pg_try_advisory_lock", 7, ctx=a, types=[T.INT8]) is True
    assert call("pg_try_advisory_lock", 7, ctx=b, types=[T.INT8]) is False
    engine.open = [b.session]  # a disconnects without unlocking
    assert call("pg_try_advisory_lock", 7, ctx=b, types=[T.INT8]) is True
    call("pg_advisory_unlock_all", ctx=b)
