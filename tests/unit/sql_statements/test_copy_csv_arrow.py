"""Arrow's csv split of a COPY block against the reference reader, `copycsv.fields`
(PostgreSQL's CopyReadAttributesCSV): seeded random blocks of quoted and unquoted fields,
NULL strings, doubled quotes, and lines of the wrong field count."""

from __future__ import annotations

import random

import pytest

from cumulo.server.sql.copybatch import arrow_csv_block
from cumulo.server.sql.copycsv import fields, simple_block

ATOMS = ["", "a", "b c", " ", '"x"', '"x,y"', '""', '"a""b"', "N", '"N"', "é", '""""']


@pytest.mark.parametrize("seed", range(4))
def test_arrow_split_reads_what_postgresql_reads(seed):
    rng = random.Random(seed)
    pattern = simple_block(",", '"', '"')
    split = refused = 0
    for _ in range(1500):
        n, count, null = rng.randint(1, 5), rng.randint(1, 6), rng.choice(["", "N"])
        lines = [",".join(rng.choice(ATOMS) for _ in range(
            n if rng.random() < 0.85 else rng.randint(1, 6))) for _ in range(count)]
        text = "\n".join(lines)
        if not pattern.fullmatch(text):  # NB: the caller's precondition
            continue
        want = [fields(line, ",", '"', '"', null) for line in lines]
        got = arrow_csv_block(text.encode(), ",", '"', null, n, count)
        if any(len(row) != n for row in want):
            assert got is None, text  # NB: the record reader then says which line is wrong
            refused += 1
            continue
        assert got is not None, text
        assert [list(row) for row in zip(*[a.to_pylist() for a in got], strict=True)] == want, text
        split += 1
    assert split > 500 and refused > 50
