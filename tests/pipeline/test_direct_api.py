"""The direct table API (`conn.table(name)`) against a real `cumulo serve`, checked through SQL.

What the driver writes as Arrow batches must be what psycopg reads back with
plain SQL, in the same transaction semantics as SQL writes: invisible until
commit, undone by rollback, conflict-checked, refused in READ ONLY
transactions, and failing with PostgreSQL's SQLSTATEs.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import threading
from decimal import Decimal

import psycopg
import pyarrow as pa
import pytest

import cumulo.driver as cd
from cumulo.driver import aio

UTC = dt.UTC


@pytest.fixture
def conn(cumulo_server):
    c = cd.connect(cumulo_server.dsn())
    c.autocommit = True
    yield c
    c.close()


def _sql(server, query, params=None):
    with psycopg.connect(server.dsn(), autocommit=True) as c:
        cur = c.execute(query, params)
        return cur.fetchall() if cur.description else None


def _recreate(server, name, ddl):
    _sql(server, f"DROP TABLE IF EXISTS {name}")
    _sql(server, f"CREATE TABLE {name} ({ddl})")


ALL_TYPES = (
    "k bigint PRIMARY KEY, i2 smallint, i4 integer, f4 real, f8 double precision, b boolean, "
    "t text, vc varchar(10), by bytea, d date, ts timestamp, tz timestamptz, n numeric(12,3), "
    "u uuid, j jsonb, iv interval"
)


def test_every_type_round_trips_with_nulls_and_is_visible_to_sql(cumulo_server, conn):
    _recreate(cumulo_server, "d_types", ALL_TYPES)
    rows = {
        "k": [1, 2],
        "i2": pa.array([-7, None], pa.int16()), "i4": pa.array([2**31 - 1, None], pa.int32()),
        "f4": pa.array([1.5, None], pa.float32()), "f8": [2.25, None], "b": [True, None],
        "t": ["héllo", None], "vc": ["short", None], "by": [b"\x00\xff", None],
        "d": [dt.date(2024, 2, 29), None], "ts": [dt.datetime(2024, 1, 2, 3, 4, 5, 6), None],
        "tz": pa.array([dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC), None],
                       pa.timestamp("us", tz="UTC")),
        "n": pa.array([Decimal("12.345"), None], pa.decimal128(12, 3)),
        "u": ["12345678-1234-5678-1234-567812345678", None], "j": ['{"a": [1, 2]}', None],
        "iv": ["1 day 02:00:00", None],
    }
    assert conn.table("d_types").upsert(pa.table(rows)) == 2
    got = _sql(cumulo_server, "SELECT * FROM d_types ORDER BY k")
    assert got[1] == (2,) + (None,) * 15
    r = got[0]
    assert r[:9] == (1, -7, 2**31 - 1, 1.5, 2.25, True, "héllo", "short", b"\x00\xff")
    assert r[9:13] == (dt.date(2024, 2, 29), dt.datetime(2024, 1, 2, 3, 4, 5, 6),
                       dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC), Decimal("12.345"))
    assert str(r[13]) == "12345678-1234-5678-1234-567812345678"
    assert r[14] == {"a": [1, 2]} and r[15] == dt.timedelta(days=1, hours=2)
    back = conn.table("d_types").read()
    assert back.schema.field("tz").type == pa.timestamp("us", tz="UTC")
    assert back.schema.field("n").type == pa.decimal128(12, 3)
    assert back.column("k").to_pylist() == [1, 2]
    first = back.slice(0, 1).to_pylist()[0]
    assert first["by"] == b"\x00\xff" and first["d"] == dt.date(2024, 2, 29)
    assert first["j"] == '{"a": [1, 2]}' and first["iv"] == "1 day 02:00:00"
    assert back.slice(1, 1).to_pylist()[0] == {"k": 2, **{f: None for f in rows if f != "k"}}


def test_upsert_replaces_by_key_and_maintains_indexes(cumulo_server, conn):
    _recreate(cumulo_server, "d_up", "id int PRIMARY KEY, v text, w int")
    _sql(cumulo_server, "CREATE UNIQUE INDEX d_up_v ON d_up (v)")
    t = conn.table("d_up")
    t.upsert([{"id": 1, "v": "a", "w": 1}, {"id": 2, "v": "b", "w": 2}])
    t.upsert(pa.table({"id": [2, 3], "v": ["c", "b"], "w": [20, 30]}))  # 'b' moves from 2 to 3
    assert _sql(cumulo_server, "SELECT * FROM d_up ORDER BY id") == [
        (1, "a", 1), (2, "c", 20), (3, "b", 30)]
    assert _sql(cumulo_server, "SELECT id FROM d_up WHERE v = 'b'") == [(3,)]
    assert _sql(cumulo_server, "SELECT id FROM d_up WHERE v = 'c'") == [(2,)]
    t.upsert({"id": [4, 4], "v": ["x", "y"], "w": [1, 2]})  # the last row of a key wins
    assert t.get(4) == {"id": 4, "v": "y", "w": 2}
    assert t.get(99) is None
    assert t.delete([1, 99]) == 1
    assert _sql(cumulo_server, "SELECT id FROM d_up WHERE v = 'a'") == []
    with pytest.raises(cd.IntegrityError) as e:
        t.insert({"id": [5], "v": ["b"]})  # unique index on v
    assert e.value.sqlstate == "23505"


def test_writes_join_the_transaction(cumulo_server):
    _recreate(cumulo_server, "d_tx", "id int PRIMARY KEY, v int")
    c = cd.connect(cumulo_server.dsn())
    t = c.table("d_tx")
    t.upsert({"id": [1, 2], "v": [1, 2]})
    assert _sql(cumulo_server, "SELECT count(*) FROM d_tx") == [(0,)]  # not committed yet
    c.rollback()
    assert t.read().num_rows == 0
    t.upsert({"id": [1], "v": [10]})
    cur = c.cursor()
    cur.execute("INSERT INTO d_tx VALUES (2, 20)")
    assert t.read().column("v").to_pylist() == [10, 20]  # own writes, SQL's and the API's
    c.commit()
    assert _sql(cumulo_server, "SELECT * FROM d_tx ORDER BY id") == [(1, 10), (2, 20)]
    with pytest.raises(cd.IntegrityError) as e:
        t.insert({"id": [3, 1], "v": [0, 0]})
    assert e.value.sqlstate == "23505"
    with pytest.raises(cd.Error) as e:
        t.upsert({"id": [4], "v": [0]})
    assert e.value.sqlstate == "25P02"  # the failed transaction refuses more work
    c.rollback()
    assert _sql(cumulo_server, "SELECT count(*) FROM d_tx") == [(2,)]
    c.close()


def test_concurrent_upserts_of_one_key_conflict_under_repeatable_read(cumulo_server):
    _recreate(cumulo_server, "d_conf", "id int PRIMARY KEY, v int")
    a, b = cd.connect(cumulo_server.dsn()), cd.connect(cumulo_server.dsn())
    b.isolation_level = "REPEATABLE READ"
    b.table("d_conf").read()  # b's snapshot predates a's commit
    a.table("d_conf").upsert({"id": [1], "v": [1]})
    a.commit()
    with pytest.raises(cd.OperationalError) as e:
        b.table("d_conf").upsert({"id": [1, 2], "v": [2, 2]})
    assert e.value.sqlstate == "40001"
    b.rollback()
    # a writer blocked behind an active one proceeds when that one rolls back
    a.table("d_conf").upsert({"id": [5], "v": [5]})
    done = []
    th = threading.Thread(target=lambda: done.append(b.table("d_conf").upsert({"id": [5], "v": [6]})))
    th.start()
    th.join(0.3)
    a.rollback()
    th.join(10)
    assert done == [1]
    b.commit()
    assert _sql(cumulo_server, "SELECT * FROM d_conf ORDER BY id") == [(1, 1), (5, 6)]
    a.close()
    b.close()


def test_serializable_write_skew_through_the_api_fails_one(cumulo_server):
    _recreate(cumulo_server, "d_ser", "id int PRIMARY KEY, on_call boolean")
    _sql(cumulo_server, "INSERT INTO d_ser VALUES (1, true), (2, true)")
    a, b = cd.connect(cumulo_server.dsn()), cd.connect(cumulo_server.dsn())
    for c in (a, b):
        c.isolation_level = "SERIALIZABLE"
    assert sum(a.table("d_ser").read(where=[("on_call", "=", True)]).column("on_call").to_pylist()) == 2
    assert b.table("d_ser").read(where=[("on_call", "=", True)]).num_rows == 2
    a.table("d_ser").upsert({"id": [1], "on_call": [False]})
    b.table("d_ser").upsert({"id": [2], "on_call": [False]})
    a.commit()
    with pytest.raises(cd.OperationalError) as e:
        b.commit()
    assert e.value.sqlstate == "40001"
    assert _sql(cumulo_server, "SELECT count(*) FROM d_ser WHERE on_call") == [(1,)]
    a.close()
    b.close()


def test_scan_filters_ranges_and_projection(cumulo_server, conn):
    _recreate(cumulo_server, "d_scan", "sym text, ts timestamptz, px double precision, "
                                       "note text, PRIMARY KEY (sym, ts)")
    base = dt.datetime(2024, 1, 1, tzinfo=UTC)
    syms = ["AAA", "ABC", "BBB", "CCC"]
    data = {"sym": [s for s in syms for _ in range(5)],
            "ts": [base + dt.timedelta(minutes=m) for _ in syms for m in range(5)],
            "px": [float(i) for i in range(20)],
            "note": [None if i % 3 == 0 else f"n{i}" for i in range(20)]}
    conn.table("d_scan").upsert(pa.table(data))
    t = conn.table("d_scan")

    def ids(**kw):
        return t.read(**kw).column("px").to_pylist()

    assert ids(where=[("sym", "=", "BBB")]) == [10.0, 11.0, 12.0, 13.0, 14.0]
    assert ids(where=[("sym", "in", ["AAA", "CCC"]), ("ts", ">=", base + dt.timedelta(minutes=3))]
               ) == [3.0, 4.0, 18.0, 19.0]
    assert ids(where=[("sym", "startswith", "A"), ("note", "is null")]) == [0.0, 3.0, 6.0, 9.0]
    assert ids(where=[("not", ("sym", "<", "C"))]) == [15.0, 16.0, 17.0, 18.0, 19.0]
    assert ids(start=["ABC"], end=["CCC"]) == [float(i) for i in range(5, 15)]
    assert ids(where=[("px", ">", 100.0)]) == []
    proj = t.read(columns=["px", "sym"], where=[("sym", "=", "AAA")])
    assert proj.column_names == ["px", "sym"] and proj.num_rows == 5
    cuts = t.splits(4)
    assert 1 <= len(cuts) <= 3
    bounds = [None, *cuts, None]
    parts = [ids(lo=lo, hi=hi) for lo, hi in zip(bounds, bounds[1:], strict=False)]
    assert sorted(x for p in parts for x in p) == [float(i) for i in range(20)]
    assert all(parts)



def test_integer_keys_are_cut_by_value(cumulo_server, conn):
    """An integer-led key is cut in equal value steps (no pass over every key); the parts
    cover every row once, and a composite key's rows of one value stay in one part."""
    _recreate(cumulo_server, "d_icut", "id integer PRIMARY KEY, g integer")
    _sql(cumulo_server, "INSERT INTO d_icut SELECT i, i % 7 FROM generate_series(-500, 1499) i")
    _recreate(cumulo_server, "d_icut2", "k bigint, tag text, PRIMARY KEY (k, tag)")
    _sql(cumulo_server, "INSERT INTO d_icut2 SELECT k, t FROM generate_series(1, 40) k, "
                        "unnest(ARRAY['a', 'b']) t")
    _recreate(cumulo_server, "d_icut3", "id bigint PRIMARY KEY")

    def parts(name, col):
        t = conn.table(name)
        bounds = [None, *t.splits(4), None]
        return [t.read(lo=lo, hi=hi).column(col).to_pylist()
                for lo, hi in zip(bounds, bounds[1:], strict=False)]

    got = parts("d_icut", "id")
    assert [len(p) for p in got] == [500, 500, 500, 500]
    assert [x for p in got for x in p] == list(range(-500, 1500))
    got = parts("d_icut2", "k")
    assert [len(p) for p in got] == [20, 20, 20, 20]
    assert [x for p in got for x in p] == [k for k in range(1, 41) for _ in "ab"]
    assert parts("d_icut3", "id") == [[]]

def test_errors_carry_sqlstates(cumulo_server, conn):
    _recreate(cumulo_server, "d_err", "id int PRIMARY KEY, v int NOT NULL, s varchar(3)")
    _recreate(cumulo_server, "d_nopk", "v int")
    t = conn.table("d_err")
    cases = [
        (lambda: conn.table("no_such_table").upsert({"id": [1]}), "42P01"),
        (lambda: t.upsert({"id": [1], "zz": [1]}), "42703"),
        (lambda: t.upsert({"id": [1], "v": [None]}), "23502"),
        (lambda: t.upsert({"id": [1], "v": [1], "s": ["toolong"]}), "22001"),
        (lambda: t.upsert({"id": [2**40], "v": [1]}), "22003"),
        (lambda: t.upsert({"v": [1]}), "22023"),
        (lambda: conn.table("d_nopk").upsert({"v": [1]}), "22023"),
        (lambda: t.read(where=[("zz", "=", 1)]), "42703"),
    ]
    for fn, state in cases:
        with pytest.raises(cd.Error) as e:
            fn()
        assert e.value.sqlstate == state, (state, e.value)
    ro = cd.connect(cumulo_server.dsn())
    ro.readonly = True
    with pytest.raises(cd.Error) as e:
        ro.table("d_err").upsert({"id": [1], "v": [1]})
    assert e.value.sqlstate == "25006"
    ro.close()
    assert conn.table("d_nopk").insert({"v": [1, 1]}) == 2  # append to a table without a key
    assert _sql(cumulo_server, "SELECT count(*) FROM d_nopk") == [(2,)]


def test_asyncio_twin(cumulo_server):
    _recreate(cumulo_server, "d_aio", "id int PRIMARY KEY, v text")

    async def main():
        c = await aio.connect(cumulo_server.dsn())
        t = c.table("d_aio")
        async with c.transaction():
            assert await t.upsert({"id": [1, 2, 3], "v": ["a", "b", "c"]}) == 3
            assert await t.delete([2]) == 1
        assert await t.get(3) == {"id": 3, "v": "c"}
        got = [b async for b in t.scan(where=[("id", ">", 0)])]
        assert pa.Table.from_batches(got).column("v").to_pylist() == ["a", "c"]
        with pytest.raises(cd.IntegrityError):
            await t.insert({"id": [1], "v": ["z"]})
        await c.close()

    asyncio.run(main())
    assert _sql(cumulo_server, "SELECT * FROM d_aio ORDER BY id") == [(1, "a"), (3, "c")]
