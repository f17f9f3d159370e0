"""TPC-C initial population (TPC-C v5.11 clause 4.3), plus CH-benCHmark's three extra tables.

Written from the specification. The generator is deterministic for a seed, so
Cumulo and PostgreSQL load identical data and the CH-benCHmark answers can be
compared row for row. Rows come out as COPY text lines per table, a batch at a
time, because COPY is how both systems load fastest and the generator must not
dominate the load time.

`Scale` shrinks the cardinalities for tests (a few hundred rows per table) while
keeping every relation the queries depend on: order lines of delivered orders
(o_id below the new-order cut-off) have delivery dates, undelivered ones have
none, and new_order holds the last 30% of each district's orders.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

SYLLABLES = ["BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"]
LOAD_TIME = datetime(2026, 1, 1, 12, 0, 0)
TABLES = [
    "warehouse", "item", "stock", "district", "customer", "history", "oorder", "new_order",
    "order_line",
]
CH_TABLES = ["region", "nation", "supplier"]
SUPPLIERS = 10_000


@dataclass(frozen=True)
class Scale:
    """Cardinalities; the defaults are the specification's per-warehouse figures."""

    warehouses: int = 1
    items: int = 100_000
    districts: int = 10
    customers: int = 3_000  # per district
    orders: int = 3_000  # per district
    suppliers: int = SUPPLIERS

    @property
    def new_order_from(self) -> int:
        """Returns the first undelivered o_id (2101 of 3000 in the specification)."""
        return self.orders - (self.orders * 900) // 3000 + 1

    @classmethod
    def tiny(cls, warehouses: int = 2) -> Scale:
        """Returns a scale small enough for a differential test (seconds to load)."""
        return cls(warehouses, items=200, districts=3, customers=30, orders=30, suppliers=50)


def last_name(n: int) -> str:
    """Returns the customer last name for a number 0..999 (clause 4.3.2.3)."""
    return SYLLABLES[n // 100] + SYLLABLES[(n // 10) % 10] + SYLLABLES[n % 10]


class Gen:
    """The random functions of clause 2.1.6 and 4.3.2 over one seeded generator."""

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)
        self.c_last = self.r.randint(0, 255)
        self.c_id = self.r.randint(0, 1023)
        self.ol_i_id = self.r.randint(0, 8191)

    def nurand(self, a: int, x: int, y: int) -> int:
        """Returns NURand(A, x, y) with this run's constant C."""
        c = {255: self.c_last, 1023: self.c_id, 8191: self.ol_i_id}[a]
        r = self.r.randint
        return (((r(0, a) | r(x, y)) + c) % (y - x + 1)) + x

    def astring(self, lo: int, hi: int) -> str:
        """Returns a random alphanumeric string of length lo..hi."""
        n = self.r.randint(lo, hi)
        return "".join(self.r.choices("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", k=n))

    def nstring(self, lo: int, hi: int) -> str:
        """Returns a random numeric string of length lo..hi."""
        return "".join(self.r.choices("0123456789", k=self.r.randint(lo, hi)))

    def data(self, lo: int, hi: int) -> str:
        """Returns i_data/s_data: 10% of them contain ORIGINAL."""
        s = self.astring(lo, hi)
        if self.r.random() < 0.1:
            at = self.r.randint(0, len(s) - 8)
            s = s[:at] + "ORIGINAL" + s[at + 8 :]
        return s

    def money(self, lo: float, hi: float) -> str:
        """Returns a decimal with two places uniformly in [lo, hi]."""
        return f"{self.r.randint(round(lo * 100), round(hi * 100)) / 100:.2f}"

    def tax(self) -> str:
        """Returns a tax rate 0.0000..0.2000."""
        return f"{self.r.randint(0, 2000) / 10000:.4f}"

    def zip(self) -> str:
        """Returns a zip code: four random digits and 11111."""
        return self.nstring(4, 4) + "11111"

    def address(self) -> list[str]:
        """Returns street_1, street_2, city, state, zip."""
        state = "".join(self.r.choices("ABCDEFGHIJKLMNOPQRSTUVWXYZ", k=2))
        return [self.astring(10, 20), self.astring(10, 20), self.astring(10, 20), state, self.zip()]


def _ts(t: datetime) -> str:
    return t.strftime("%Y-%m-%d %H:%M:%S")


def rows(table: str, scale: Scale, seed: int = 42) -> Iterator[list[str]]:
    """Yields the rows of one table as lists of COPY text fields (None is \\N)."""
    g = Gen(seed * 1000 + TABLES.index(table) if table in TABLES else seed)
    s = scale
    if table == "warehouse":
        for w in range(1, s.warehouses + 1):
            yield [str(w), f"{30000 * s.districts}.00", g.tax(), g.astring(6, 10), *g.address()]
    elif table == "item":
        for i in range(1, s.items + 1):
            yield [str(i), g.astring(14, 24), g.money(1, 100), g.data(26, 50), str(g.r.randint(1, 10_000))]
    elif table == "stock":
        for w in range(1, s.warehouses + 1):
            for i in range(1, s.items + 1):
                dists = [g.astring(24, 24) for _ in range(10)]
                yield [str(w), str(i), str(g.r.randint(10, 100)), "0.00", "0", "0", g.data(26, 50), *dists]
    elif table == "district":
        for w in range(1, s.warehouses + 1):
            for d in range(1, s.districts + 1):
                yield [str(w), str(d), "30000.00", g.tax(), str(s.orders + 1), g.astring(6, 10), *g.address()]
    elif table == "customer":
        for w in range(1, s.warehouses + 1):
            for d in range(1, s.districts + 1):
                for c in range(1, s.customers + 1):
                    name = last_name(c - 1 if c <= 1000 else g.nurand(255, 0, 999))
                    credit = "BC" if g.r.random() < 0.1 else "GC"
                    street1, street2, city, state, zipc = g.address()
                    yield [
                        str(w), str(d), str(c), f"{g.r.randint(0, 5000) / 10000:.4f}", credit, name,
                        g.astring(8, 16), "50000.00", "-10.00", "10", "1", "0", street1, street2,
                        city, state, zipc, g.nstring(16, 16), _ts(LOAD_TIME), "OE", g.astring(300, 500),
                    ]
    elif table == "history":
        for w in range(1, s.warehouses + 1):
            for d in range(1, s.districts + 1):
                for c in range(1, s.customers + 1):
                    yield [str(c), str(d), str(w), str(d), str(w), _ts(LOAD_TIME), "10.00", g.astring(12, 24)]
    elif table in ("oorder", "new_order", "order_line"):
        yield from _orders(table, s, seed)
    elif table in CH_TABLES:
        yield from _ch(table, s)
    else:
        raise KeyError(table)


def _orders(table: str, s: Scale, seed: int) -> Iterator[list[str]]:
    """Yields oorder, new_order or order_line rows from one shared order stream."""
    g = Gen(seed * 1000 + 77)  # the same stream for all three tables keeps them consistent
    for w in range(1, s.warehouses + 1):
        for d in range(1, s.districts + 1):
            customers = list(range(1, s.customers + 1))
            g.r.shuffle(customers)
            for o in range(1, s.orders + 1):
                c = customers[(o - 1) % len(customers)]
                delivered = o < s.new_order_from
                carrier = str(g.r.randint(1, 10)) if delivered else None
                ol_cnt = g.r.randint(5, 15)
                entry = LOAD_TIME - timedelta(minutes=s.orders - o)
                lines = []
                for n in range(1, ol_cnt + 1):
                    amount = "0.00" if delivered else g.money(0.01, 9999.99)
                    lines.append([
                        str(w), str(d), str(o), str(n), str(g.r.randint(1, s.items)),
                        _ts(entry) if delivered else None, amount, str(w), "5.00", g.astring(24, 24),
                    ])
                if table == "oorder":
                    yield [str(w), str(d), str(o), str(c), carrier, str(ol_cnt), "1", _ts(entry)]
                elif table == "new_order":
                    if not delivered:
                        yield [str(w), str(d), str(o)]
                else:
                    yield from lines


def _ch(table: str, s: Scale) -> Iterator[list[str]]:
    """Yields CH-benCHmark's region and nation (from the suite's files) and supplier rows."""
    suite = Path(__file__).resolve().parents[3] / "shared" / "suites" / "ch"
    if table in ("region", "nation"):
        for line in (suite / f"chbenchmark_{table}_gen.tbl").read_text().splitlines():
            if line.strip():
                yield [f.strip() for f in line.split("|")]
        return
    nations = [int(line.split("|")[0]) for line in (suite / "chbenchmark_nation_gen.tbl").read_text().splitlines() if line.strip()]
    g = Gen(4242)
    for k in range(s.suppliers):
        yield [
            str(k), f"Supplier#{k:09d}", g.astring(10, 40), str(nations[k % len(nations)]),
            g.nstring(15, 15), g.money(-999.99, 9999.99), g.astring(25, 100),
        ]


def approx_rows(s: Scale) -> int:
    """Returns about how many rows `load` writes (order lines average 10 per order)."""
    per_district = 2 * s.customers + s.orders * 11 + (s.orders - s.new_order_from + 1)
    return s.items + s.suppliers + s.warehouses * (s.items + s.districts * per_district)


def copy_text(batch: list[list[str | None]]) -> bytes:
    """Returns rows as COPY text data (fields have no tabs, newlines or backslashes)."""
    return "".join(["\t".join(["\\N" if f is None else f for f in r]) + "\n" for r in batch]).encode()


def batches(table: str, scale: Scale, size: int = 20_000, seed: int = 42) -> Iterator[bytes]:
    """Yields COPY text data for a table, `size` rows at a time."""
    batch: list[list[str | None]] = []
    for r in rows(table, scale, seed):
        batch.append(r)
        if len(batch) >= size:
            yield copy_text(batch)
            batch = []
    if batch:
        yield copy_text(batch)


def ddl() -> str:
    """Returns the TPC-C and CH-benCHmark DDL from the suite (PostgreSQL dialect)."""
    suite = Path(__file__).resolve().parents[3] / "shared" / "suites" / "ch"
    return (suite / "tpcc_ddl-postgres.sql").read_text() + "\n" + (
        suite / "chbenchmark_ddl-postgres.sql"
    ).read_text()


def cached_batches(
    table: str, scale: Scale, cache_dir: str | None, seed: int = 42, size: int = 20_000
) -> Iterator[bytes]:
    """Yields `batches(table, ...)`, generating them once per cache_dir.

    Generating a warehouse takes ~12 s of Python (random strings for 100k stock
    rows and 30k customers), so the first system's load writes the COPY data to
    a file and the second one reads it back: both get identical bytes, and the
    generator is not counted twice. Without a cache_dir it just generates.
    """
    if cache_dir is None:
        yield from batches(table, scale, size, seed)
        return
    path = _cache_path(table, scale, cache_dir, seed)
    if path.exists():
        with path.open("rb") as f:
            while chunk := f.readlines(size * 100):  # about `size` rows of ~100 bytes
                yield b"".join(chunk)
        return
    partial = path.with_suffix(".part")
    with partial.open("wb") as f:
        for data in batches(table, scale, size, seed):
            f.write(data)
            yield data
    partial.rename(path)  # complete files only: an interrupted load regenerates


def _cache_path(table: str, scale: Scale, cache_dir: str, seed: int) -> Path:
    key = f"w{scale.warehouses}-i{scale.items}-d{scale.districts}-c{scale.customers}"
    return Path(cache_dir) / f"tpcc-{key}-o{scale.orders}-s{scale.suppliers}-{seed}-{table}.copy"


def generated(scale: Scale, cache_dir: str, seed: int = 42) -> bool:
    """Returns whether every table's COPY data is already in cache_dir."""
    return all(_cache_path(t, scale, cache_dir, seed).exists() for t in [*CH_TABLES, *TABLES])


def generate(scale: Scale, cache_dir: str, seed: int = 42, progress=None) -> None:
    """Writes every table's COPY data to cache_dir (before any timed load)."""
    for table in [*CH_TABLES, *TABLES]:
        for data in cached_batches(table, scale, cache_dir, seed):
            if progress:
                progress(data.count(b"\n"))


def load(
    conn, scale: Scale, seed: int = 42, progress=None, cache_dir: str | None = None
) -> dict[str, int]:
    """Creates every table on a psycopg 3 connection and loads it with COPY; returns row counts.

    Each COPY of a batch commits on its own (autocommit), so no system has to hold
    a whole table's load in one transaction. After the load every table's
    `count(*)` must equal the rows sent, or the load fails.
    """
    conn.autocommit = True
    with conn.cursor() as cur:
        for stmt in ddl().split(";"):
            if stmt.strip():
                cur.execute(stmt)
        counts = {}
        for table in [*CH_TABLES, *TABLES]:
            n = 0
            for data in cached_batches(table, scale, cache_dir, seed):
                with cur.copy(f"COPY {table} FROM STDIN") as copy:
                    copy.write(data)
                lines = data.count(b"\n")
                n += lines
                if progress:
                    progress(lines)
            counts[table] = n
        for table, n in counts.items():
            (got,) = cur.execute(f"SELECT count(*) FROM {table}").fetchone()
            if got != n:
                raise RuntimeError(f"{table}: count(*) = {got} after loading {n} rows")
    return counts
