"""The columnar encoder's C-level passes (dates by ordinal, timestamps by subtraction,
Decimals by their text) give back exactly the values, scale and sign included, and fall
back to per-value objects where the fixed layout cannot hold them."""

from __future__ import annotations

import datetime as dt
import random
from decimal import Decimal

from cumulo.server.kivi.columnar.encode import encode

TEXTS = ["0.00", "-0.01", "1.50", "-20.07", "99999999.99", "-0.00", "NaN", "1E+2",
         "0.0000001", "-Infinity", "12345678901234567890.12", "7", "7.5", "1.000"]


def _same(values: list[object]) -> None:
    col = encode(values)
    back = col.to_pylist()
    assert [str(v) for v in back] == [str(v) for v in values]
    assert [type(v) for v in back] == [type(v) for v in values]


def test_decimal_columns_round_trip_and_keep_one_scale() -> None:
    rnd = random.Random(11)
    for _ in range(300):
        pool = rnd.sample(TEXTS, rnd.randint(1, 4))
        values = [None if rnd.random() < 0.1 else Decimal(rnd.choice(pool))
                  for _ in range(rnd.randint(1, 12))]
        _same(values)
    col = encode([Decimal("1.50"), None, Decimal("-2.25")])
    assert (col.kind, col.scale, col.values.tolist()) == ("dec", 2, [150, 0, -225])
    assert (col.lo, col.hi) == (Decimal("-2.25"), Decimal("1.50"))
    assert encode([Decimal("-0.00"), Decimal("1.00")]).kind == "obj"
    assert encode([Decimal("1.5"), Decimal("1.50")]).kind == "obj"


def test_date_and_timestamp_columns_round_trip() -> None:
    rnd = random.Random(12)
    days = [dt.date(rnd.randint(1, 9999), rnd.randint(1, 12), rnd.randint(1, 28))
            for _ in range(200)]
    _same(days + [dt.date.min, dt.date.max, None])
    stamps = [dt.datetime(rnd.randint(1, 9999), 1, 2, 3, 4, 5, rnd.randint(0, 999999))
              for _ in range(200)]
    _same(stamps + [dt.datetime.min, dt.datetime.max, None])
    assert encode(days).kind == "date" and encode(stamps).kind == "ts"


def test_string_dictionary_is_in_code_point_order() -> None:
    values = ["b", "a", "\U0001f600", "\uffff", "é", "", "a"]
    col = encode(values)
    assert col.dictionary.tolist() == sorted(set(values))
    assert col.to_pylist() == values
