"""msgpack wire format: every request/reply and every row value type survives a round trip."""

from __future__ import annotations

import datetime as dt
import uuid
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cumulo.server.kivi import api, wire
from cumulo.server.kivi.wire import MESSAGES, packb, unpackb

values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**100), 2**100),
    st.floats(allow_nan=False),
    st.text(),
    st.binary(),
    st.decimals(allow_nan=False, allow_infinity=True),
    st.dates(),
    st.times(),
    st.datetimes(),
    st.datetimes(
        timezones=st.sampled_from([dt.UTC, dt.timezone(dt.timedelta(hours=5, minutes=30))])
    ),
    st.timedeltas(),
    st.uuids(),
)
json_like = st.recursive(
    st.one_of(st.none(), st.integers(-5, 5), st.text(max_size=3)),
    lambda sub: st.one_of(st.lists(sub, max_size=3), st.dictionaries(st.text(max_size=3), sub)),
    max_leaves=6,
)
rows = st.lists(st.one_of(values, json_like), max_size=6).map(tuple)

# No example database in the repo, no flaky health checks on a loaded CI machine.
PROPS = dict(database=None, suppress_health_check=list(HealthCheck), deadline=None)


@settings(max_examples=200, **PROPS)
@given(st.lists(st.one_of(rows, st.none()), max_size=5), st.one_of(st.none(), st.binary()))
def test_replies_round_trip(rs, resume):
    for msg in (api.ScanReply([r for r in rs if r is not None], resume), api.GetReply(rs)):
        back = unpackb(packb(msg))
        assert back == msg
        for a, b in zip(back.rows, msg.rows, strict=True):
            assert type(a) is type(b)
            if a is not None:
                assert [type(x) for x in a] == [type(x) for x in b]


def test_aware_datetimes_keep_their_offset():
    t = dt.datetime(2024, 5, 1, 12, tzinfo=dt.timezone(dt.timedelta(hours=-7)))
    back = unpackb(packb((t, dt.time(3, 4, tzinfo=dt.UTC))))
    assert back == (t, dt.time(3, 4, tzinfo=dt.UTC))
    assert back[0].utcoffset() == dt.timedelta(hours=-7)


_US = dt.timedelta(microseconds=1)
_MAX_US = (dt.datetime.max - dt.datetime(1, 1, 1)) // _US


def _packs_as_its_fields(t: dt.datetime) -> None:
    us = (t.replace(tzinfo=None) - dt.datetime(1, 1, 1)) // _US
    off = None if t.utcoffset() is None else t.utcoffset() // dt.timedelta(seconds=1)
    code = 13 if us in (0, _MAX_US) else 4
    assert packb(t) == msgpack.packb(msgpack.ExtType(code, msgpack.packb([us, off])))
    back = unpackb(packb(t))
    assert back == t and back.utcoffset() == t.utcoffset()


@settings(max_examples=300, **PROPS)
@given(st.datetimes(timezones=st.sampled_from(
    [None, dt.UTC, dt.timezone(dt.timedelta(0)), dt.timezone(dt.timedelta(hours=-3, minutes=-30))])))
def test_a_datetime_packs_as_its_fields_did(t):
    """`_default` builds a naive or UTC datetime's payload by hand: the same bytes as the
    general packer's [us, offset], so records and checkpoints written before read alike."""
    _packs_as_its_fields(t)


@pytest.mark.parametrize("t", [
    dt.datetime.min, dt.datetime.max, dt.datetime(1, 1, 1, 1, 11, 34, 967295),
    dt.datetime(1, 1, 1, 1, 11, 34, 967296), dt.datetime(2026, 11, 30, 21, 5)])
def test_a_datetime_at_an_edge_of_the_hand_packed_form(t):
    """The first and last instants, and the two around 2**32 us (a uint 32 below, a uint 64
    from there): naive and UTC."""
    _packs_as_its_fields(t)
    _packs_as_its_fields(t.replace(tzinfo=dt.UTC))


def test_every_message_type_round_trips():
    row = (1, "x", Decimal("-1.50"), [1, 2])
    samples = [
        api.Scan(
            1,
            5,
            b"a",
            None,
            (0, 2),
            ("in", ("col", 0), [1, None]),
            10,
            api.AggSpec((0,), (("count_star", None), ("sum", 1))),
            True,
            True,
            7,
        ),
        api.ScanReply([row], b"z"),
        api.Get(1, 5, [b"a", b"b"]),
        api.GetReply([row, None]),
        api.Apply(9, [api.Write(1, b"k", row), api.Write(2, b"k", None)], []),  # NB: a
        # sequence field travels as a list: the default () would come back []
        api.LatestCommit(1, [b"k"]),
        api.LatestCommitReply([3, None]),
        api.DropSpace(4),
        api.Collect(8),
        api.Checkpoint(8),
        api.Ack({"n": 1}),
        api.RegionData(1, b"", b"m", [b"a"], [[(5, row), (3, None)]], 4),
        api.SplitRegion(1, b"m"),
        api.ExportRegion(1, b""),
        api.ImportRegion(api.RegionData(1, b"m", None)),
        api.DropRegion(1, b"m"),
        api.NodeStatus(),
        api.NodeStatusReply("n1", 7, [(1, b"", None, 3)]),
        api.Apply(9, [api.Write(1, b"k", row)], [api.SpaceWrites(2, [b"a", b"b"], [row, None])]),
    ]
    own = {n for n, c in MESSAGES.items() if c.__module__ == api.__name__}  # not registered ones
    assert {type(s).__name__ for s in samples} == own - {"AggSpec", "Write", "SpaceWrites"}
    for s in samples:
        back = unpackb(packb(s))
        assert back == s, s
    assert type(unpackb(packb(samples[0])).filter) is tuple
    assert str(unpackb(packb(Decimal("NaN")))) == "NaN"
    chains = unpackb(packb(samples[11])).chains
    assert type(chains[0][0][1]) is tuple and type(chains[0][0][1][3]) is list


def test_a_write_travels_as_a_write():
    """`api.Write` is a NamedTuple (cheap per row), sent as a message all the same: it comes
    back a Write, its row a tuple (nested tuples too), ints beyond 64 bits included."""
    w = api.Write(1, b"k", (1, "x", (2, 3)))
    assert type(unpackb(packb(w))) is api.Write
    back = unpackb(packb(api.Apply(9, [w, api.Write(2, b"d", None), api.Write(3, b"b", (1 << 70,))])))
    assert [type(x) for x in back.writes] == [api.Write] * 3
    assert back.writes[0] == w and type(back.writes[0].row) is tuple and back.writes[0].row[2] == (2, 3)
    assert back.writes[1].row is None and back.writes[2].row == (1 << 70,)
    with pytest.raises(AttributeError):
        w.row = None  # type: ignore[misc]


def test_unsupported_value():
    with pytest.raises(TypeError):
        packb(object())


def test_the_shared_packer_after_an_error_a_large_message_and_between_threads():
    """`packb` reuses one packer: what a failed message had packed is dropped, a message
    above `_KEEP` bytes (after which the packer is replaced) and the next come out whole,
    and threads packing at once (one has the packer, the others make their own) each get
    their own message's bytes."""
    with pytest.raises(TypeError):
        packb([1, "x", object()])
    assert unpackb(packb([1, (2, 1 << 70)])) == [1, (2, 1 << 70)]  # NB: OverflowError's way
    assert packb([3]) == msgpack.packb([3])
    big = ["x" * 1000] * (wire._KEEP // 1000 + 5)
    assert unpackb(packb(big)) == big and packb([4]) == msgpack.packb([4])

    def work(n: int) -> list[bool]:
        return [unpackb(packb([n, i, "v" * (i % 50), dt.date(2000, 1, 1 + n)])) ==
                [n, i, "v" * (i % 50), dt.date(2000, 1, 1 + n)] for i in range(3000)]

    with ThreadPoolExecutor(4) as pool:
        assert all(all(ok) for ok in pool.map(work, range(4)))


def test_subclasses_travel_as_their_base():
    import enum

    class Color(enum.IntEnum):
        RED = 1

    assert unpackb(packb((Color.RED, bytearray(b"ab")))) == (1, b"ab")
    assert uuid.UUID(int=1) == unpackb(packb(uuid.UUID(int=1)))


def test_registered_messages_travel_and_names_stay_unique():
    from dataclasses import dataclass

    from cumulo.server.cluster import services
    from cumulo.server.kivi.wire import register_messages
    from cumulo.server.txn.conflicts import Acquire, Woken

    for m in (Acquire(3, 7, ((1, b"k"), (2, b"\x00"))), Woken((4, 5)),
              services.LogRecord(9, b"payload"), services.Forget(1, 2), services.Reset()):
        assert unpackb(packb(m)) == m
    assert unpackb(packb([Woken((1,))])) == [Woken((1,))]  # a manager's list of outputs

    @dataclass(frozen=True)
    class Get:  # the name of a kivi.api message
        x: int

    with pytest.raises(ValueError, match="named Get"):
        register_messages(Get)
