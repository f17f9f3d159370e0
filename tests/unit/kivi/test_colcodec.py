"""Cold segments encoded by columns (`kivi.colcodec`) give every value back exactly.

Seeded random segments whose columns each draw from one value type (or from all of
them, with Nones between) go through `Segment.encode`, then `rows`, `row`, `cut` and
a `ColdRows` scan; each value must come back of the same type and the same repr
(Decimal exponents, NaN payloads, -0.0, tzinfo objects, fold, subclasses). Segments
in the format before the column codec (one pickle a row, or plain marshal records)
still decode.
"""

from __future__ import annotations

import datetime as dt
import marshal
import pickle
import random
import uuid
from array import array
from decimal import Decimal
from itertools import accumulate
from typing import Any
from zoneinfo import ZoneInfo

from cumulo.server.kivi.coldrows import ColdRows, Segment
from cumulo.server.pgtypes.citext import CIText
from cumulo.server.pgtypes.fardate import DATE_MAX_DAYS, DATE_MIN_DAYS, date_of_days
from cumulo.server.pgtypes.infdate import (
    DATE_INF,
    DATE_NEG_INF,
    TS_INF,
    TS_NEG_INF,
    TSTZ_INF,
    Time24,
)
from cumulo.server.pgtypes.interval import Interval
from cumulo.server.pgtypes.jsonvalue import JsonText

_DECIMALS = ["1.10", "-0", "0E-7", "NaN", "-NaN", "sNaN", "NaN123", "Infinity", "-Infinity",
             "1E+3", "123456789012345678901234567890.123456789", "-0.00"]
_FLOATS = [0.0, -0.0, float("nan"), float("inf"), float("-inf"), 1e-310, 1.5]


def _kinds() -> dict[str, Any]:
    """Value makers by type: each takes a random generator."""
    return {
        "int": lambda r: r.choice([0, -1, 2**63 - 1, -2**63, 10**30, r.randrange(-999, 999)]),
        "bool": lambda r: r.random() < 0.5,
        "float": lambda r: r.choice(_FLOATS + [r.random()]),
        "decimal": lambda r: Decimal(r.choice(_DECIMALS + [str(r.randrange(10**6)) + ".25"])),
        "str": lambda r: r.choice(["", "N", "é\x00x", "AIR" * r.randrange(5)]),
        "bytes": lambda r: r.choice([b"", b"\x00\xff", bytes(range(r.randrange(9)))]),
        "bytearray": lambda r: bytearray(b"ab"),
        "date": lambda r: r.choice([dt.date.min, dt.date.max,
                                    dt.date(1992, 1, 1) + dt.timedelta(r.randrange(3000))]),
        "fardate": lambda r: r.choice([date_of_days(DATE_MAX_DAYS), date_of_days(DATE_MIN_DAYS),
                                       DATE_INF, DATE_NEG_INF]),
        "datetime": lambda r: r.choice([dt.datetime(2026, 1, 1, 5, 6, 7, r.randrange(10**6)),
                                        dt.datetime.min, dt.datetime.max]),
        "timestamptz": lambda r: r.choice([dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
                                           dt.datetime(1, 1, 1, tzinfo=dt.UTC),
                                           dt.datetime(2026, 1, 1, 0, 0, 0, r.randrange(10**6),
                                                       tzinfo=dt.UTC)]),
        "odd datetime": lambda r: r.choice([
            dt.datetime(2026, 11, 1, 1, 30, fold=1),
            dt.datetime(2026, 1, 1, tzinfo=ZoneInfo("Europe/Paris")),
            dt.datetime(2026, 1, 1, tzinfo=dt.timezone(dt.timedelta(hours=5))),
            TS_INF, TS_NEG_INF, TSTZ_INF]),
        "time": lambda r: r.choice([dt.time(1, 2, 3, 4), dt.time(0), Time24(),
                                    dt.time(5, tzinfo=dt.UTC)]),
        "interval": lambda r: r.choice([dt.timedelta(days=-3, microseconds=7),
                                        Interval(14, -3, 7_000_000)]),
        "list": lambda r: r.choice([[1, None, [2.5, "x"]], [Decimal("1.0"), None], [], (1, 2)]),
        "dict": lambda r: {"a": [1, {"b": None}], "n": Decimal("1.5")},
        "citext": lambda r: CIText("MiXed"),
        "json": lambda r: JsonText('{"a": 1}'),
        "uuid": lambda r: uuid.UUID(int=r.randrange(2**128)),
    }


def _value(rng: random.Random, kinds: dict[str, Any], col: str, none_share: float) -> Any:
    if rng.random() < none_share:
        return None
    return kinds[rng.choice(list(kinds)) if col == "mixed" else col](rng)


def _same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(map(_same, a.values(), b.values()))
    if isinstance(a, dt.datetime | dt.time):  # UTC stays the one UTC object; fold is kept
        za, zb = a.tzinfo, b.tzinfo
        if a.fold != b.fold or (za is not zb and (za is dt.UTC or type(za) is not type(zb)
                                                   or za != zb)):
            return False
    return repr(a) == repr(b)


def _check(seg: Segment, rows: list[tuple[Any, ...]]) -> None:
    assert _same(seg.rows(0, seg.n), rows)
    for i in range(0, seg.n, 7):
        assert _same(seg.row(i), rows[i])
        assert _same(seg.rows(i, min(seg.n, i + 5)), rows[i:i + 5])
    cut = seg.cut(3, seg.n - 2)
    assert _same(cut.rows(0, cut.n), rows[3:-2]) and _same(cut.row(1), rows[4])


def test_every_value_type_round_trips_through_a_segment():
    kinds = _kinds()
    names = list(kinds)
    rng = random.Random(11)
    seen: set[str] = set()
    for trial in range(len(names) + 30):
        n = rng.randrange(12, 300)
        if trial < len(names):  # every type alone in a column, with and without Nones
            cols = [names[trial], "int", names[trial]]
        else:
            cols = [rng.choice(names + ["mixed"]) for _ in range(rng.randrange(1, 9))]
        nones = [rng.choice([0.0, 0.0, 0.3, 1.0]) for _ in cols]
        rows = [tuple(_value(rng, kinds, col, share) for col, share in zip(cols, nones, strict=True))
                for _ in range(n)]
        keys = [i.to_bytes(4, "big") for i in range(n)]
        seg = Segment.encode(keys, rows, 7)
        assert not seg.pickled  # one arity: by columns, never a pickle a row
        seen.update(kind for _, kind, _, _ in seg.conv)
        _check(seg, rows)
        cold = ColdRows()
        cold.add(seg)
        cold.kill(keys[5])
        ks, rs = cold.take(None, None, n, False)
        assert ks == keys[:5] + keys[6:] and _same(rs, rows[:5] + rows[6:])
    assert seen == {"D", "E", "d", "U", "T", "P"}  # every way of converting a column was taken
    lineitem = (1, Decimal("17.00"), Decimal("21168.23"), dt.date(1996, 3, 13), "N", "TRUCK")
    seg = Segment.encode([b"k%04d" % i for i in range(100)], [lineitem] * 100, 1)
    assert [c for c, kind, _, _ in seg.conv if kind == "E"] == [1, 2, 3, 4, 5]  # one value each
    assert seg.nbytes < 100 * len(pickle.dumps(lineitem, 5))  # smaller than a pickle a row


def _old_segment(keys: list[bytes], rows: list[tuple[Any, ...]], pickled: bool) -> Segment:
    """A segment as the encoder before the column codec wrote it."""
    if pickled:
        blobs, arity = [pickle.dumps(r, 5) for r in rows], -1
    else:
        blobs, arity = [marshal.dumps(r, 2)[5:] for r in rows], len(rows[0])
    roffs = array("I", accumulate(map(len, blobs), initial=0))
    return Segment(len(keys), len(keys[0]), b"".join(keys), None, b"".join(blobs), roffs,
                   pickled, arity, bytearray(b"\x01") * len(keys), 3)


def test_segments_of_the_earlier_format_still_decode():
    kinds = _kinds()
    rng = random.Random(5)
    rows = [tuple(kinds[name](rng) for name in kinds) for _ in range(40)]
    keys = [i.to_bytes(2, "big") for i in range(40)]
    _check(_old_segment(keys, rows, True), rows)
    plain = [(i, -0.0, "s", b"b", None, True, [1, [None]]) for i in range(40)]
    _check(_old_segment(keys, plain, False), plain)
    ragged = [rows[0], rows[1][:3]] * 20  # rows of several arities are still pickled a row each
    seg = Segment.encode(keys, ragged, 3)
    assert seg.pickled
    _check(seg, ragged)
