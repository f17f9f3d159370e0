"""money's functions: the `money(x)` casts as calls, cashlarger / cashsmaller, cash_pl /
cash_mi, and cash_words, which spells an amount out as PostgreSQL 15's cash.c does (its
double space before "dollars" after a round thousand included).

>>> cash_words(1234), cash_words(100000), cash_words(-101)
('Twelve dollars and thirty four cents', 'One thousand  dollars and zero cents', 'Minus one dollar and one cent')
"""

from __future__ import annotations

from decimal import Decimal

from ...pgtypes import money
from ...pgtypes import oids as T
from .registry import register

_SMALL = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
          "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
          "eighteen", "nineteen", "twenty", "thirty", "forty", "fifty", "sixty", "seventy",
          "eighty", "ninety")
_BIG = _SMALL[18:]
_SCALES = ((10 ** 17, "quadrillion"), (10 ** 14, "trillion"), (10 ** 11, "billion"),
           (10 ** 8, "million"), (10 ** 5, "thousand"))


def _num_word(v: int) -> str:
    """cash.c's num_word: 0..999 in words."""
    tu = v % 100
    if v <= 20:
        return _SMALL[v]
    if not tu:
        return f"{_SMALL[v // 100]} hundred"
    if v % 10 == 0 and tu > 10:
        tens = _BIG[tu // 10]
    elif tu < 20:
        tens = ("and " if v > 99 else "") + _SMALL[tu]
    else:
        tens = f"{_BIG[tu // 10]} {_SMALL[tu % 10]}"
    return f"{_SMALL[v // 100]} hundred {tens}" if v > 99 else tens


@register("cash_words", args=[T.MONEY], returns=T.TEXT, oid=935)
def cash_words(cents: int) -> str:
    """The amount in English words, capitalised."""
    buf = "minus " if cents < 0 else ""
    val = abs(cents)
    dollars = val // 100
    for scale, word in _SCALES:
        part = (val // scale) % 1000
        if part:
            buf += f"{_num_word(part)} {word} "
    if dollars % 1000:
        buf += _num_word(dollars % 1000)
    if dollars == 0:
        buf += "zero"
    buf += " dollar and " if dollars == 1 else " dollars and "
    buf += _num_word(val % 100) + (" cent" if val % 100 == 1 else " cents")
    return buf[0].upper() + buf[1:]


@register("money", args=[T.INT4], returns=T.MONEY, oid=3811)
def int4_cash(v: int) -> int:
    """money(integer): whole units, the int4 -> money cast."""
    return money.from_int(v)


@register("money", args=[T.INT8], returns=T.MONEY, oid=3812)
def int8_cash(v: int) -> int:
    """money(bigint): whole units, the int8 -> money cast."""
    return money.from_int(v)


@register("money", args=[T.NUMERIC], returns=T.MONEY, oid=3824)
def numeric_cash(v: Decimal) -> int:
    """money(numeric): rounded half away from zero to the cent."""
    return money.from_numeric(v)


@register("cashlarger", args=[T.MONEY, T.MONEY], returns=T.MONEY, oid=898)
def cashlarger(a: int, b: int) -> int:
    """The larger amount (max(money)'s step)."""
    return max(a, b)


@register("cashsmaller", args=[T.MONEY, T.MONEY], returns=T.MONEY, oid=899)
def cashsmaller(a: int, b: int) -> int:
    """The smaller amount (min(money)'s step)."""
    return min(a, b)


@register("cash_pl", args=[T.MONEY, T.MONEY], returns=T.MONEY, oid=894)
def cash_pl(a: int, b: int) -> int:
    """money + money (22003 past int8)."""
    return money.checked(a + b)


@register("cash_mi", args=[T.MONEY, T.MONEY], returns=T.MONEY, oid=895)
def cash_mi(a: int, b: int) -> int:
    """money - money (22003 past int8)."""
    return money.checked(a - b)
