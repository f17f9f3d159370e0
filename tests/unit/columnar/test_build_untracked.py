"""A built columnar copy is nearly invisible to Python's cyclic GC (`copy.Pack.compacted`):
no collection walks a pointer per row, and reads, stamps and `collect` of such packs
give what the row path gives."""

from __future__ import annotations

import gc

import pytest

from cumulo.server.kivi.columnar import copy as ccopy
from cumulo.server.kivi.mvcc import VersionStore


def key(i: int) -> bytes:
    return i.to_bytes(4, "big")


def gc_walk(root: object) -> int:
    """How many references a full GC pass follows from the tracked objects under root."""
    seen, todo, n = {id(root)}, [root], 0
    while todo:
        refs = [r for r in gc.get_referents(todo.pop()) if not isinstance(r, type)]  # classes
        n += len(refs)
        for r in refs:
            if gc.is_tracked(r) and id(r) not in seen:
                seen.add(id(r))
                todo.append(r)
    return n


def test_built_packs_are_untracked_and_read_as_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ccopy, "PACK_ROWS", 64)
    s = VersionStore()
    n = 640
    s.apply_lists(2, [key(i) for i in range(n)], [(i, f"s{i % 7}") for i in range(n)])
    snap = s.columnar(2)
    assert snap is not None
    packs = [v.pack for v in snap.views]
    assert len(packs) == n // 64
    assert all(p.compact for p in packs)
    big = ccopy.Pack(0, [key(i) for i in range(4096)], [(i, "s") for i in range(4096)],
                     None, None).compacted()
    assert gc_walk(big) < 64  # a few objects a pack, none per row
    assert packs[0].column(1).to_pylist()[:3] == ["s0", "s1", "s2"]
    # updates stamp the sorted packs (found by bisection over their keys), deletes too
    s.apply(3, [(key(i), (i, "new")) for i in range(0, n, 3)])
    s.apply(4, [(key(i), None) for i in range(1, n, 3)])
    for ts in (2, 3, 4):
        got = s.columnar(ts)
        assert got is not None
        assert sorted(got.rows()) == sorted(r for _, r in s.scan(None, None, ts))
    s.collect(4)  # two thirds of each pack ended: rewritten without them
    got = s.columnar(4)
    assert got is not None
    assert sorted(got.rows()) == sorted(r for _, r in s.scan(None, None, 4))
