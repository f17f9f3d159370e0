"""Arrays with lower bounds other than 1 (`pgtypes.arraybounds`): their doctests, and the
bounds kept through the text and binary codecs, KiVi's msgpack encoding (redo log,
checkpoints, sockets) and pickle (cold rows). The SQL behaviour against PostgreSQL 15 is
tests/integration/test_array_bounds_pg15.py."""

from __future__ import annotations

import doctest
import pickle

import pytest

from cumulo.server.errors import SQLError
from cumulo.server.kivi.wire import packb, unpackb
from cumulo.server.pgtypes import arraybounds
from cumulo.server.pgtypes import oids as T
from cumulo.server.pgtypes.arraybounds import Bounded, bounded
from cumulo.server.pgtypes.binary import binary_decoder, binary_encoder
from cumulo.server.pgtypes.text import text_decoder, text_encoder
from cumulo.server.sql import copycontext

INT4_ARRAY = T.ARRAY_OF[T.INT4]


def test_doctests() -> None:
    for module in (arraybounds, copycontext):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__


@pytest.mark.parametrize("text, lower", [
    ("[2:3]={1,2}", (2,)),
    ("[0:1][-1:0]={{1,2},{3,NULL}}", (0, -1)),
    ("  [2:2] = {7}", (2,)),
])
def test_text_input_keeps_bounds_and_output_shows_them(text: str, lower: tuple[int, ...]) -> None:
    v = text_decoder(INT4_ARRAY)(text)
    assert type(v) is Bounded and v.lower == lower
    out = text_encoder(INT4_ARRAY)(v)
    assert out.startswith(arraybounds.dims_text(v) + "={")
    assert text_decoder(INT4_ARRAY)(out) == v and text_decoder(INT4_ARRAY)(out).lower == lower


def test_default_bounds_stay_plain_lists() -> None:
    assert type(text_decoder(INT4_ARRAY)("[1:2]={1,2}")) is list
    assert type(text_decoder(INT4_ARRAY)("{1,2}")) is list
    assert text_encoder(INT4_ARRAY)([1, 2]) == "{1,2}"


@pytest.mark.parametrize("text, sqlstate", [
    ("[2:4]={1,2}", "22P02"),  # the dimensions do not match the braces
    ("[3:2]={1,2}", "2202E"),  # upper below lower
    ("[2:3]{1,2}", "22P02"),  # no '='
    ("[x]={1}", "22P02"),
    ("[2:3]=1", "22P02"),
])
def test_bad_dimensions(text: str, sqlstate: str) -> None:
    with pytest.raises(SQLError) as info:
        text_decoder(INT4_ARRAY)(text)
    assert info.value.sqlstate == sqlstate


def test_binary_round_trip_keeps_bounds() -> None:
    v = bounded([[1, None], [3, 4]], [0, 5])
    raw = binary_encoder(INT4_ARRAY)(v)
    back = binary_decoder(INT4_ARRAY)(raw)
    assert back == v and type(back) is Bounded and back.lower == (0, 5)
    assert type(binary_decoder(INT4_ARRAY)(binary_encoder(INT4_ARRAY)([1, 2]))) is list


def test_vectors_stay_plain_lists() -> None:
    """int2vector's lower bound is 0 on the wire, and its own rule everywhere else."""
    raw = binary_encoder(T.INT2VECTOR)([1, 2])
    assert type(binary_decoder(T.INT2VECTOR)(raw)) is list


def test_storage_encodings_keep_bounds() -> None:
    v = bounded([1, 2], [2])
    row = unpackb(packb((1, v, [3])))
    assert type(row[1]) is Bounded and row[1].lower == (2,) and type(row[2]) is list
    again = pickle.loads(pickle.dumps(v))
    assert type(again) is Bounded and again == v and again.lower == (2,)


def test_equality_counts_the_bounds() -> None:
    """array_eq: the same elements under other bounds are another array, either side."""
    a = bounded([1, 2], [2])
    assert a != [1, 2] and [1, 2] != a and not a == [1, 2] and not [1, 2] == a
    assert a == bounded([1, 2], [2]) and a != bounded([1, 2], [3])
