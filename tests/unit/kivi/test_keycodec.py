"""Property tests: keys round-trip and their byte order is the SQL order of the tuples."""

from __future__ import annotations

import datetime as dt
import math
import uuid
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cumulo.server.errors import FeatureNotSupported
from cumulo.server.kivi.keycodec import (
    decode_key,
    encode_key,
    encode_key_desc,
    prefix_upper_bound,
    successor,
)
from cumulo.server.pgtypes import ranges as R

UTC = dt.UTC

ints = st.one_of(st.integers(-(2**63), 2**63 - 1), st.integers(-(2**200), 2**200))
floats = st.floats(allow_nan=True, allow_infinity=True)
decimals = st.one_of(
    st.decimals(allow_nan=False, allow_infinity=True, places=None),
    st.just(Decimal("NaN")),
    st.decimals(min_value=-1000, max_value=1000, places=3),
)
aware = st.datetimes(timezones=st.sampled_from([UTC, dt.timezone(dt.timedelta(hours=-5))]))
TYPES = {
    "int": ints,
    "float": floats,
    "decimal": decimals,
    "str": st.text(),
    "bytes": st.binary(),
    "bool": st.booleans(),
    "date": st.dates(),
    "time": st.times(),
    "ts": st.datetimes(),
    "tstz": aware,
    "interval": st.timedeltas(),
    "uuid": st.uuids(),
    "timetz": st.times(
        timezones=st.sampled_from([dt.timezone(dt.timedelta(hours=h)) for h in (-12, -5, 0, 3, 14)])
    ),
}

# No example database in the repo, no flaky health checks on a loaded CI machine.
PROPS = dict(database=None, suppress_health_check=list(HealthCheck), deadline=None)


def sql_sort_key(v):
    """The reference order: NaN above every number, NULL after everything."""
    if v is None:
        return (1, 0)
    if isinstance(v, dt.time) and v.tzinfo is not None:
        # PostgreSQL's timetz: by UTC time (not wrapped to a day), then by zone west of UTC.
        off = v.utcoffset().total_seconds()
        local = v.hour * 3600 + v.minute * 60 + v.second + v.microsecond / 1e6
        return (0, (0, (local - off, -off)))
    if isinstance(v, float) and math.isnan(v):
        return (0, (1, 0))
    if isinstance(v, Decimal) and v.is_nan():
        return (0, (1, 0))
    return (0, (0, v))


def tuple_key(t):
    return tuple(sql_sort_key(v) for v in t)


def sql_equal(a, b):
    return tuple_key(a) == tuple_key(b)


@st.composite
def schema_and_tuples(draw, n=6):
    schema = draw(st.lists(st.sampled_from(sorted(TYPES)), min_size=1, max_size=4))
    tuples = []
    for _ in range(draw(st.integers(2, n))):
        length = draw(st.integers(1, len(schema)))
        t = tuple(draw(st.one_of(st.none(), TYPES[c])) for c in schema[:length])
        tuples.append(t)
    return schema, tuples


@settings(max_examples=300, **PROPS)
@given(schema_and_tuples())
def test_round_trip(data):
    _, tuples = data
    for t in tuples:
        back = decode_key(encode_key(t))
        assert len(back) == len(t)
        assert sql_equal(back, t), (t, back)
        assert encode_key(back) == encode_key(t)


@settings(max_examples=300, **PROPS)
@given(schema_and_tuples())
def test_order_preserved(data):
    _, tuples = data
    for a in tuples:
        for b in tuples:
            ka, kb = encode_key(a), encode_key(b)
            ra, rb = tuple_key(a), tuple_key(b)
            assert (ka < kb) == (ra < rb), (a, b)
            assert (ka == kb) == (ra == rb), (a, b)


@settings(max_examples=200, **PROPS)
@given(schema_and_tuples(), st.lists(st.booleans(), min_size=4, max_size=4))
def test_descending_columns(data, desc):
    _, tuples = data

    def ref(t):
        out = []
        for v, d in zip(t, desc, strict=False):
            k = sql_sort_key(v)
            out.append(Rev(k) if d else k)
        return tuple(out)

    for a in tuples:
        assert sql_equal(decode_key(encode_key_desc(a, desc), desc), a)
        for b in tuples:
            if len(a) != len(b):
                continue  # prefixes of inverted elements are not comparable
            ka, kb = encode_key_desc(a, desc), encode_key_desc(b, desc)
            assert (ka < kb) == (ref(a) < ref(b)), (a, b, desc)


class Rev:
    def __init__(self, k):
        self.k = k

    def __lt__(self, other):
        return other.k < self.k

    def __eq__(self, other):
        return self.k == other.k


@settings(max_examples=200, **PROPS)
@given(schema_and_tuples())
def test_prefix_bounds(data):
    _, tuples = data
    prefix = tuples[0][:1]
    p = encode_key(prefix)
    hi = prefix_upper_bound(p)
    for t in tuples:
        k = encode_key(t)
        inside = sql_equal(t[:1], prefix)
        assert (k.startswith(p)) == inside
        if inside:
            assert p <= k and (hi is None or k < hi)
        else:
            assert k < p or (hi is not None and k >= hi)
        assert k < successor(k)


def test_specific_orders():
    # PostgreSQL: -inf < numbers < inf < NaN; NULL last; -0.0 equals 0.0.
    vals = [float("-inf"), -1.5, 0.0, 2.0, float("inf"), float("nan"), None]
    keys = [encode_key((v,)) for v in vals]
    assert keys == sorted(keys)
    assert encode_key((-0.0,)) == encode_key((0.0,))
    decs = [
        Decimal("-Infinity"),
        Decimal("-10"),
        Decimal("-0.5"),
        Decimal(0),
        Decimal("0.001"),
        Decimal("1.5"),
        Decimal("15"),
        Decimal("Infinity"),
        Decimal("NaN"),
        None,
    ]
    keys = [encode_key((v,)) for v in decs]
    assert keys == sorted(keys)
    assert encode_key((Decimal("1.50"),)) == encode_key((Decimal("1.5"),))
    assert encode_key((Decimal("-0.00"),)) == encode_key((Decimal(0),))
    assert (
        encode_key(("a",)) < encode_key(("a\x00",)) < encode_key(("a\x00b",)) < encode_key(("ab",))
    )
    assert encode_key((1,)) < encode_key((1, None)) < encode_key((2,))
    assert encode_key((-(2**70),)) < encode_key((-(2**63),)) < encode_key((2**63 - 1,))
    assert encode_key((2**63 - 1,)) < encode_key((2**63,)) < encode_key((2**70,))
    t1 = dt.datetime(2024, 1, 1, 12, tzinfo=dt.timezone(dt.timedelta(hours=5)))
    t2 = dt.datetime(2024, 1, 1, 8, tzinfo=UTC)
    assert encode_key((t1,)) < encode_key((t2,))
    assert decode_key(encode_key((t1,)))[0] == t1
    assert decode_key(encode_key((t1,)))[0].tzinfo == UTC
    assert encode_key((True,)) > encode_key((False,))
    u = uuid.uuid4()
    assert decode_key(encode_key((u, b"\x00\xff", None))) == (u, b"\x00\xff", None)


def test_unsupported_type():
    with pytest.raises(FeatureNotSupported):
        encode_key(([1, 2],))


def test_prefix_upper_bound_edges():
    assert prefix_upper_bound(b"\xff\xff") is None
    assert prefix_upper_bound(b"a\xff") == b"b"
    assert prefix_upper_bound(b"") is None


def _ranges():
    def one(lo: int | None, hi: int | None, lo_inc: bool, hi_inc: bool) -> R.Range:
        flags = (R.LB_INF if lo is None else 0) | (R.UB_INF if hi is None else 0) | \
            (R.LB_INC if lo_inc and lo is not None else 0) | \
            (R.UB_INC if hi_inc and hi is not None else 0)
        return R.Range(3904, lo, hi, flags)

    bound = st.one_of(st.none(), st.integers(-50, 50))
    return st.one_of(st.just(R.empty_range(3904)),
                     st.builds(one, bound, bound, st.booleans(), st.booleans()))


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_ranges(), min_size=2, max_size=6))
def test_range_keys_round_trip_in_range_order(rs):
    """Ranges (an EXCLUDE constraint's index keys) decode back and sort as range_cmp."""
    for r in rs:
        assert decode_key(encode_key((r, 1))) == (r, 1)
    assert sorted(rs, key=lambda r: encode_key((r,))) == sorted(rs)
