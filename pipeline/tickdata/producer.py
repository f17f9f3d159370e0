"""The tick producer: random-walk prices per product, as Avro container files in a spool folder.

The spool stands in for a Kafka topic: file `tick-<seq>.avro` holds ticks
`[seq * per_file, (seq + 1) * per_file)` and is written as `.tmp` then
renamed, so a reader never sees half a file, and the file sequence is the
topic's offset. Everything is a function of (seed, tick index), so a
restarted producer rewrites nothing it wrote before and, given the same
seed, any run produces the same ticks.

Tick i belongs to product `i % products` and is that product's
`i // products`-th tick, one second after its previous one.

    >>> t = ticks(0, 4, products=2, seed=1)
    >>> [r["product"] for r in t], t[2]["tik_open"] == t[0]["tik_close"]
    (['EURUSD', 'GBPUSD', 'EURUSD', 'GBPUSD'], True)
"""

from __future__ import annotations

import datetime as dt
import os
from typing import Any

import fastavro
import numpy as np

PER_FILE = 500
START = dt.datetime(2026, 1, 5, 8, 0, tzinfo=dt.UTC)
NAMES = ("EURUSD", "GBPUSD", "USDJPY", "AUDUSD", "USDCHF", "USDCAD", "NZDUSD", "EURGBP")
SCHEMA = fastavro.parse_schema({
    "type": "record", "name": "Tick", "namespace": "cumulo.tickdata",
    "fields": [
        {"name": "product", "type": "string"},
        {"name": "datetime", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "tik_open", "type": "double"}, {"name": "tik_high", "type": "double"},
        {"name": "tik_low", "type": "double"}, {"name": "tik_close", "type": "double"},
        {"name": "tik_up", "type": "double"}, {"name": "tik_down", "type": "double"},
    ],
})
SIGMA = 0.002  # per-tick volatility of the log price


def product_name(p: int) -> str:
    """EURUSD, GBPUSD, ... then P08, P09 ... (two-digit fallbacks keep the order stable)."""
    return NAMES[p] if p < len(NAMES) else f"P{p:02d}"


def _walk(product: int, n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Closes, and the high/low excursions, of a product's first n ticks.

    Three streams per product, so a longer walk extends a shorter one exactly.
    """
    steps = np.random.default_rng([seed, product, 0]).normal(0.0, SIGMA, n)
    closes = (1.0 + 0.1 * product) * np.exp(np.cumsum(steps))
    up = np.abs(np.random.default_rng([seed, product, 1]).normal(0.0, SIGMA / 2, n))
    down = np.abs(np.random.default_rng([seed, product, 2]).normal(0.0, SIGMA / 2, n))
    return closes, up, down


Walks = list[tuple[np.ndarray, np.ndarray, np.ndarray]]


def walks_for(total: int, products: int, seed: int) -> Walks:
    """The random walks behind the first `total` ticks, one per product."""
    per = total // products + 2
    return [_walk(p, per, seed) for p in range(products)]


def ticks(first: int, last: int, products: int, seed: int,
          walks: Walks | None = None) -> list[dict[str, Any]]:
    """Ticks first..last-1 as Avro records (dicts)."""
    out: list[dict[str, Any]] = []
    if last <= first:
        return out
    if walks is None:
        walks = walks_for(last, products, seed)
    for i in range(first, last):
        p, k = i % products, i // products
        closes, up, down = walks[p]
        close = float(closes[k])
        open_ = float(closes[k - 1]) if k else 1.0 + 0.1 * p
        out.append({
            "product": product_name(p), "datetime": START + dt.timedelta(seconds=k),
            "tik_open": open_, "tik_close": close,
            "tik_high": max(open_, close) * (1 + float(up[k])),
            "tik_low": min(open_, close) * (1 - float(down[k])),
            "tik_up": float(up[k]) * 1e4, "tik_down": float(down[k]) * 1e4,
        })
    return out


def file_name(seq: int) -> str:
    """The spool file of sequence number seq (names sort in production order)."""
    return f"tick-{seq:08d}.avro"


def write_file(spool: str, seq: int, records: list[dict[str, Any]]) -> str:
    """Writes one spool file atomically (tmp + rename); returns its path."""
    path = os.path.join(spool, file_name(seq))
    tmp = os.path.join(spool, f".{file_name(seq)}.tmp")
    with open(tmp, "wb") as f:
        fastavro.writer(f, SCHEMA, records, codec="null")
    os.replace(tmp, path)
    return path


def produce(spool: str, total: int, products: int, seed: int, per_file: int = PER_FILE,
            first_file: int = 0) -> list[int]:
    """Writes the files holding ticks [first_file * per_file, total) that are not there yet."""
    os.makedirs(spool, exist_ok=True)
    written: list[int] = []
    walks: Walks | None = None
    for seq in range(first_file, (total + per_file - 1) // per_file):
        if os.path.exists(os.path.join(spool, file_name(seq))):
            continue
        lo, hi = seq * per_file, min(total, (seq + 1) * per_file)
        if walks is None:
            walks = walks_for(total, products, seed)
        write_file(spool, seq, ticks(lo, hi, products, seed, walks))
        written.append(seq)
    return written


def spool_files(spool: str) -> list[str]:
    """The spool's complete files, in offset order."""
    return sorted(n for n in os.listdir(spool) if n.endswith(".avro"))


def read_spool(spool: str) -> list[dict[str, Any]]:
    """Every tick in the spool, in file order (for checks and the replay)."""
    out: list[dict[str, Any]] = []
    for name in spool_files(spool):
        with open(os.path.join(spool, name), "rb") as f:
            out.extend(fastavro.reader(f))
    return out
