"""Scalar functions against PostgreSQL 15's recorded output (see cases.py)."""

from __future__ import annotations

import datetime as dt
import json
import pathlib
import re

import pytest

from cumulo.server.errors import SQLError
from cumulo.server.sql.expr.casts import to_text

from .cases import CASES
from .conftest import call

EXPECTED = json.loads(pathlib.Path(__file__).with_name("pg15_outputs.json").read_text())


def pg_text(v):
    """Returns PostgreSQL's text for a value (fractional seconds without trailing zeros)."""
    s = to_text(v)
    if isinstance(v, dt.datetime | dt.time):
        s = re.sub(r"(\.\d*?)0+(?=$|[+-]\d\d)", r"\1", s).replace(".+", "+")
        s = re.sub(r"\.(?=$|[+-]\d\d)", "", s)
    return s


@pytest.mark.parametrize(("sql", "name", "args", "types"), CASES, ids=[c[0] for c in CASES])
def test_matches_postgres(ctx, sql, name, args, types):
    want = EXPECTED[sql]
    if want is not None and want.startswith("ERROR "):
        with pytest.raises(SQLError) as info:
            call(name, *args, ctx=ctx, types=types)
        assert info.value.sqlstate == want.split()[1]
        return
    got = call(name, *args, ctx=ctx, types=types)
    assert (None if got is None else pg_text(got)) == want


def test_every_case_was_recorded():
    assert set(EXPECTED) == {c[0] for c in CASES}
