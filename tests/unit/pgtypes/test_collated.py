"""ICU-collated text values (`pgtypes.collated`): their order, equality and hash, their keys
(memcmp order is the collator's; a nondeterministic collation's equal strings are one key),
and that they stay collated through KiVi's wire and pickling (cold segments). Without PyICU
an ICU collation is 0A000 naming the extra to install."""

from __future__ import annotations

import doctest
import pickle

import pytest

from cumulo.server.errors import FeatureNotSupported
from cumulo.server.kivi import wire
from cumulo.server.kivi.keycodec import decode_key, encode_key
from cumulo.server.pgtypes import collated
from cumulo.server.sql.expr import collate
from cumulo.server.sql.pgcatalog import icucollations

icu = pytest.importorskip("icu", reason="PyICU (pip install 'cumulo[icu]') is not installed")

WORDS = ["z", "ä", "a", "å", "ö", "Z", "b", "B", "ab", "a b", "", "Ä"]


@pytest.mark.parametrize("module", [collated, collate, icucollations],
                         ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_doctests(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def test_keys_order_as_the_collator():
    sv = collated.collated_type("sv", True)
    by_value = sorted(map(sv, WORDS))
    by_key = sorted(map(sv, WORDS), key=lambda v: encode_key((v, 1)))
    assert by_value == by_key
    assert [tuple(decode_key(encode_key((v, 7)))) for v in by_value] == [
        (v, 7) for v in by_value]  # NB: the text follows the sort key


def test_nondeterministic_values_and_keys():
    ci = collated.collated_type("und-u-ks-level2", False)
    assert ci("Abc") == "aBC" and encode_key((ci("Abc"),)) == encode_key((ci("aBC"),))
    assert ci("abc") != "abd" and encode_key((ci("abc"),)) < encode_key((ci("abd"),))
    assert len({ci("x"), ci("X"), ci("y")}) == 2


def test_collated_values_survive_wire_and_pickle():
    sv = collated.collated_type("sv", True)
    ci = collated.collated_type("und-u-ks-level2", False)
    for v in (sv("ä"), ci("Abc")):
        for back in (wire.unpackb(wire.packb([v]))[0], pickle.loads(pickle.dumps(v))):
            assert type(back) is type(v) and str(back) == str(v)


def test_without_pyicu_icu_collations_name_the_extra(monkeypatch):
    monkeypatch.setattr(collated, "icu", None)
    with pytest.raises(FeatureNotSupported) as e:
        collated.require_icu()
    assert "pip install 'cumulo[icu]'" in (e.value.hint or "")
