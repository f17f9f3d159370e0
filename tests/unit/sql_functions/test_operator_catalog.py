"""pgcatalog.operators and functions.regopers: doctests, and the data's internal consistency."""

from __future__ import annotations

import doctest

import pytest

from cumulo.server.pgtypes import oids as T
from cumulo.server.sql.functions import describeobj, regopers
from cumulo.server.sql.pgcatalog import opclasses, operators, systypes


@pytest.mark.parametrize("module", [operators, opclasses, regopers, describeobj])
def test_doctests(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_rows_name_only_what_cumulo_has():
    """Operand and result types are Cumulo's types, commutators and negators are listed rows,
    classes belong to listed families, and pg_amop names only listed operators."""
    rows = operators.OPERATOR_ROWS
    for r in rows.values():
        assert all(t in T.TYPES for t in r[7:10] if t), r
        assert r[10] in (0, *rows) and r[11] in (0, *rows), r
        assert (r[4] == "l") == (r[7] == 0), r
    assert all(c[5] in operators.OPFAMILY_ROWS for c in operators.OPCLASS_ROWS.values())
    assert all(a[6] in rows and a[1] in operators.OPFAMILY_ROWS for a in operators.pg_amop(None))
    # the btree classes index keys are stored under are all PostgreSQL's rows
    for oid, name, family, intype in systypes.BTREE_OPCLASSES + systypes.PATTERN_OPCLASSES:
        row = operators.OPCLASS_ROWS[oid]
        assert (row[2], row[5], row[6]) == (name, family, intype), oid
