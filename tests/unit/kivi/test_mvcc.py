"""MVCC version store: golden scripts (golden/mvcc_*.txt) plus randomised checks against a model.

Script format: a command, `----`, the expected output, a blank line. Keys and
rows are letters; `key=-` writes a tombstone. UPDATE_GOLDENFILES=1 rewrites
the expected outputs. Unknown commands fail the test.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from cumulo.server.kivi.mvcc import VersionStore

GOLDEN = Path(__file__).parent / "golden"


def _row(v):
    return None if v == "-" else (v,)


def _show(row):
    return "-" if row is None else row[0]


def run_command(store: VersionStore, line: str) -> str:
    cmd, *args = line.split()
    if cmd == "apply":
        ts = int(args[0])
        writes = [(k.encode(), _row(v)) for k, v in (a.split("=") for a in args[1:])]
        store.apply(ts, writes)
        return "ok"
    if cmd in ("scan", "range"):
        ts = int(args[0])
        lo = hi = None
        rest = args[1:]
        if cmd == "range":
            lo = None if rest[0] == "-" else rest[0].encode()
            hi = None if rest[1] == "-" else rest[1].encode()
            rest = rest[2:]
        reverse = rest == ["reverse"]
        if rest and not reverse:
            raise ValueError(f"unknown scan option {rest}")
        out = [f"{k.decode()}={_show(r)}" for k, r in store.scan(lo, hi, ts, reverse)]
        return " ".join(out) or "(empty)"
    if cmd == "read":
        ts = int(args[0])
        rows = store.read_many([k.encode() for k in args[1:]], ts)
        return " ".join(f"{k}={_show(r)}" for k, r in zip(args[1:], rows, strict=True))
    if cmd == "latest":
        out = []
        for k in args:
            ts = store.latest_commit(k.encode())
            out.append(f"{k}={'-' if ts is None else ts}")
        return " ".join(out)
    if cmd == "collect":
        return f"dropped {store.collect(int(args[0]))}"
    if cmd == "compact":
        store.compact()
        return "ok"
    if cmd == "versions":
        lines = []
        for k, chain in store.items():
            lines.append(f"{k.decode()}: " + " ".join(f"{ts}={_show(r)}" for ts, r in chain))
        return "\n".join(lines) or "(empty)"
    raise ValueError(f"unknown command {cmd!r}")


def parse_script(text: str) -> list[tuple[list[str], list[str], str]]:
    """Splits a script into (comment lines, commands, expected output) blocks."""
    blocks = []
    for chunk in text.strip().split("\n\n"):
        lines = chunk.splitlines()
        comments = [ln for ln in lines if ln.startswith("#")]
        lines = [ln for ln in lines if not ln.startswith("#")]
        sep = lines.index("----")
        blocks.append((comments, lines[:sep], "\n".join(lines[sep + 1 :])))
    return blocks


@pytest.mark.parametrize("cache_limit", [0, 2, 1000])
@pytest.mark.parametrize("path", sorted(GOLDEN.glob("mvcc_*.txt")), ids=lambda p: p.stem)
def test_golden(path: Path, cache_limit: int):
    store = VersionStore(cache_limit=cache_limit)
    text = path.read_text()
    out_blocks = []
    failures = []
    for comments, cmds, expected in parse_script(text):
        outs = [run_command(store, c) for c in cmds]
        got = outs[-1]
        out_blocks.append(("\n".join(comments + cmds), got))
        if got != expected:
            failures.append(f"{cmds}:\n  expected {expected!r}\n  got      {got!r}")
    if os.environ.get("UPDATE_GOLDENFILES") and cache_limit == 1000:
        path.write_text("\n\n".join(f"{c}\n----\n{g}" for c, g in out_blocks) + "\n")
        return
    assert not failures, "\n".join(failures)


def test_unknown_command_rejected():
    with pytest.raises(ValueError):
        run_command(VersionStore(), "aply 1 a=1")


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("indexed", [False, True])
def test_against_model(seed: int, indexed: bool, monkeypatch):
    """Random applies, reads, scans and collects agree with a dict-of-versions model;
    `indexed`: with the point index (`_chain`) taken at a few reads, which `apply` then
    finds base keys by, and collected rows frozen (cold rows: a write warms them)."""
    if indexed:
        from cumulo.server.kivi import mvcc

        monkeypatch.setattr(mvcc, "POINT_INDEX_MIN", 4)
        monkeypatch.setattr(mvcc, "POINT_INDEX_STEP", 3)
        monkeypatch.setattr(mvcc, "FREEZE_ROWS", True)
    rnd = random.Random(seed)
    store = VersionStore(cache_limit=rnd.choice([0, 3, 50]))
    model: dict[bytes, dict[int, tuple | None]] = {}
    keys = [bytes([rnd.randrange(256)]) * rnd.randint(1, 2) for _ in range(40)]
    low_water = 0

    def visible(k, ts):
        vs = [t for t in model.get(k, {}) if t <= ts]
        return model[k][max(vs)] if vs else None

    for step in range(300):
        op = rnd.random()
        if op < 0.5:
            ts = rnd.randint(low_water + 1, low_water + 30)
            writes = {
                rnd.choice(keys): (None if rnd.random() < 0.2 else (step,))
                for _ in range(rnd.randint(1, 5))
            }
            if any(ts in model.get(k, {}) for k in writes):
                continue  # a commit ts holds one write set; replays repeat it exactly
            for k, r in writes.items():
                model.setdefault(k, {})[ts] = r
            store.apply(ts, list(writes.items()))
            if rnd.random() < 0.3:
                store.apply(ts, list(writes.items()))  # idempotent replay
        elif op < 0.8:
            ts = rnd.randint(low_water, low_water + 40)
            lo, hi = sorted(rnd.sample(keys, 2))
            reverse = rnd.random() < 0.5
            expect = [(k, visible(k, ts)) for k in sorted(model) if lo <= k < hi]
            expect = [(k, r) for k, r in expect if r is not None]
            if reverse:
                expect.reverse()
            assert list(store.scan(lo, hi, ts, reverse)) == expect
            assert chunked(store, lo, hi, ts, reverse, rnd.choice([1, 2, 5])) == expect
            keys_read = rnd.sample(keys, 5)
            assert store.read_many(keys_read, ts) == [visible(k, ts) for k in keys_read]
            for k in keys_read:
                assert store.latest_commit(k) == (max(model[k]) if model.get(k) else None)
        elif op < 0.9:
            low_water += rnd.randint(0, 10)
            store.collect(low_water)
            for k in list(model):
                older = [t for t in model[k] if t <= low_water]
                if older:
                    newest = max(older)
                    for t in older:
                        if t < newest or model[k][t] is None:
                            del model[k][t]
                if not model[k]:
                    del model[k]
        else:
            store.compact()
    assert [k for k, _ in store.items()] == sorted(model)


def chunked(store, lo, hi, ts, reverse, max_keys):
    """Reads [lo, hi) through `chunk` calls of at most max_keys keys each."""
    out = []
    while True:
        keys, rows, nxt = store.chunk(lo, hi, ts, reverse, max_keys)
        assert len(keys) <= 2 * max_keys  # base and cache each give at most max_keys
        out += list(zip(keys, rows, strict=True))
        if nxt is None:
            return out
        if reverse:
            hi = nxt
        else:
            lo = nxt


def test_chunks_resume():
    store = VersionStore(cache_limit=5)
    store.apply(1, [(bytes([i]), (i,)) for i in range(0, 40, 2)])
    store.apply(2, [(bytes([i]), (i,)) for i in range(1, 40, 2)])  # some sit in the cache
    for reverse in (False, True):
        lo, hi, seen = None, None, []
        while True:
            keys, rows, nxt = store.chunk(lo, hi, 5, reverse, 3)
            assert len(keys) <= 6
            seen += [r[0] for r in rows]
            if nxt is None:
                break
            if reverse:
                hi = nxt
            else:
                lo = nxt
        assert seen == (sorted(range(40), reverse=reverse))


def test_chunks_grow_to():
    # A scan that wants one row reads a few keys first: 2, then 16, then 64 at most, in order
    # past tombstones (what a LIMIT 1 scan meets at the front of TPC-C's new_order)
    store = VersionStore(cache_limit=5)
    store.apply(1, [(bytes([i]), (i,)) for i in range(100)])
    store.apply(2, [(bytes([i]), None) for i in range(30)])
    for reverse in (False, True):
        got = list(store.chunks(None, None, 2, reverse, 2, grow_to=64))
        assert [len(rows) for _, rows, _ in got] == (
            [0, 0, 52, 18] if not reverse else [2, 16, 52, 0])
        assert [r[0] for _, rows, _ in got for r in rows] == sorted(range(30, 100),
                                                                    reverse=reverse)
        assert [more for _, _, more in got][-1] is False


def test_point_index_never_answers_wrong(monkeypatch):
    """The point-read index (`_chain`) is a hint: reads agree with a model while the base is
    merged anew, appended to, split and dropped under it."""
    from cumulo.server.kivi import mvcc

    monkeypatch.setattr(mvcc, "POINT_INDEX_MIN", 8)
    monkeypatch.setattr(mvcc, "POINT_INDEX_STEP", 5)
    rnd = random.Random(3)
    store = VersionStore(cache_limit=4)
    model: dict[bytes, int] = {}
    ts = 0

    def write(keys: list[bytes]) -> None:
        nonlocal ts
        ts += 1
        store.apply(ts, [(k, (ts,)) for k in keys])
        model.update(dict.fromkeys(keys, ts))

    write([b"k%04d" % i for i in range(0, 200, 2)])
    store.compact()
    for step in range(400):
        k = b"k%04d" % rnd.randrange(260)
        got = store.read(k, ts)
        assert got == ((model[k],) if k in model else None), (step, k)
        if step % 37 == 0:
            write([b"k%04d" % rnd.randrange(1, 200, 2) for _ in range(6)])  # between: new layout
        if step % 53 == 0:
            write([b"k%04d" % (200 + step // 53 * 3 + j) for j in range(3)])  # above all
            store.compact()
        if step == 250:
            upper = store.split_off(b"k0150")
            assert upper.read(b"k0150", ts) == ((model[b"k0150"],) if b"k0150" in model else None)
            model = {key: v for key, v in model.items() if key < b"k0150"}
    assert store._pos_keys is store._keys and store._pos  # the index was in use


def test_point_index_misses_go_on_to_cache_and_cold(monkeypatch):
    """A key a point index of every base position misses is not in the base: `_chain` goes
    on to the write cache and the cold rows without bisecting the base (a cold row's UPDATE
    read), and finds what they hold; appends and a split leave an index that is not of
    every position, and reads bisect again."""
    from cumulo.server.kivi import mvcc

    monkeypatch.setattr(mvcc, "POINT_INDEX_MIN", 8)
    monkeypatch.setattr(mvcc, "FREEZE_ROWS", True)
    store = VersionStore(cache_limit=10_000)
    frozen = [b"k%05d" % i for i in range(0, 2000, 2)]
    store.apply(1, [(k, (1, k)) for k in frozen])
    store.collect(2)
    assert len(store._cold) == len(frozen) and not store._keys and not store._cache
    hot = [b"k%05d" % i for i in range(2000, 2100)]  # above every key: appended to the base
    store.apply(3, [(k, (3, k)) for k in hot])
    assert store._keys == hot
    store.apply(4, [(k, (4, k)) for k in frozen[:50]])  # cold keys written: hot, in the cache
    fresh = [b"k%05d" % i for i in range(1, 200, 2)]  # new keys among the cold ones: the cache
    store.apply(5, [(k, (5, k)) for k in fresh])
    model = {k: (1, k) for k in frozen} | {k: (3, k) for k in hot}
    model |= {k: (4, k) for k in frozen[:50]} | {k: (5, k) for k in fresh}
    probes = sorted(model) + [b"k%05d" % i for i in range(201, 2000, 2)] + [b"k09999", b"a"]
    for k in hot[:4]:  # enough point reads to index the base
        store.read(k, 9)
    assert store._pos_keys is store._keys and store._pos_n == len(store._keys)
    bisected: list[bytes] = []

    def bisect_left(keys: list[bytes], key: bytes, *a: int) -> int:
        bisected.append(key)
        return mvcc_bisect(keys, key, *a)

    mvcc_bisect = mvcc.bisect_left
    monkeypatch.setattr(mvcc, "bisect_left", bisect_left)
    for k in probes:
        assert store.read(k, 9) == model.get(k), k
    # writes find their keys by the index too: a base key, a cold one, a cached one, new ones
    written = [hot[5], frozen[60], fresh[3], b"k00203", b"k08000"]
    store.apply(6, [(k, (6, k)) for k in written])
    model |= {k: (6, k) for k in written}
    for k in probes + written:
        assert store.read(k, 9) == model.get(k), k
    assert not bisected  # the index answered every base key and every other key
    assert store.read(frozen[60], 5) == (1, frozen[60])  # the cold version, still in its chain
    store.compact()  # a new base: a new index, and appends to it
    store.apply(7, [(b"k09000", (7,))])
    model[b"k09000"] = (7,)
    for k in hot[:4]:
        store.read(k, 9)
    store.apply(8, [(b"k09001", (8,))])  # appended: the index misses the new position
    model[b"k09001"] = (8,)
    assert store.read(b"k09001", 9) == (8,)
    upper = store.split_off(b"k02050")  # the base shrinks in place: the index is dropped
    store.apply(9, [(b"k00201", (9,))])  # a new key among the cold ones: the cache
    model[b"k00201"] = (9,)
    for k in probes:
        want = model.get(k) if k < b"k02050" else None
        assert store.read(k, 9) == want, k
        assert upper.read(k, 9) == (model.get(k) if k >= b"k02050" else None), k
