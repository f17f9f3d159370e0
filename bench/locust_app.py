"""The web application the locust workload plays: a small shop, through SQLAlchemy Core.

This module is the child side of `workloads/locust.py`. Locust monkey-patches
the standard library with gevent as soon as it is imported, so it never runs
in the harness process: `python -m bench.locust_app URL USERS SECONDS` runs
one headless locust (library API: `Environment` + local runner) against one
database and prints one JSON line of results on stdout.

The schema (`TABLES`) is defined here once, as SQLAlchemy tables; the harness
turns it into DDL with the PostgreSQL dialect's compiler, so both sides agree
on it. Each simulated user holds a pooled connection while it runs one task,
chosen by weight the way a web shop's traffic mixes:

| task | weight | statements |
|---|---:|---|
| product page | 40 | SELECT one product by key |
| catalogue page | 20 | SELECT 20 products ORDER BY id LIMIT/OFFSET |
| order history | 15 | the customer's 10 latest orders joined with their line count |
| search | 10 | products whose name starts with a prefix, LIMIT 20 |
| place order | 10 | one transaction: INSERT an order and 3 lines, UPDATE 3 stocks |
| profile update | 5 | UPDATE one customer's email |

Wait time is zero: each user sends its next request as soon as it has the
answer, so requests/s measures the database plus the client stack (SQLAlchemy,
the DBAPI driver, gevent), the same stack for both systems. A transaction that
fails with 40001/40P01 is retried (up to RETRIES times) and counted; any other
error is a locust failure.
"""

from __future__ import annotations

import itertools
import json
import random
import sys
import time
from datetime import datetime
from decimal import Decimal

from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    ForeignKey,
    Integer,
    MetaData,
    Numeric,
    String,
    Table,
    func,
    select,
    update,
)

CUSTOMERS = 2_000
PRODUCTS = 1_000
ORDERS = 4_000  # preloaded, 3 lines each
LINES_PER_ORDER = 3
STOCK = 1_000_000  # per product: never runs out during a run
RETRIES = 5
NOW = datetime(2026, 6, 1, 12, 0, 0)  # orders placed during a run: newer than the preloaded
# Orders placed during a run get ids above this (each child numbers from its own base).
RUN_ORDER_BASE = 10_000_000

WEIGHTS = {
    "product page": 40,
    "catalogue page": 20,
    "order history": 15,
    "search": 10,
    "place order": 10,
    "profile update": 5,
}

metadata = MetaData()
customer = Table(
    "lc_customer",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("name", String(40), nullable=False),
    Column("email", String(80), nullable=False),
)
product = Table(
    "lc_product",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("name", String(40), nullable=False),
    Column("price", Numeric(10, 2), nullable=False),
    Column("stock", Integer, nullable=False),
)
order = Table(
    "lc_order",
    metadata,
    Column("id", BigInteger, primary_key=True, autoincrement=False),
    Column("customer_id", Integer, ForeignKey("lc_customer.id"), nullable=False, index=True),
    Column("created", DateTime, nullable=False),
    Column("total", Numeric(12, 2), nullable=False),
)
order_line = Table(
    "lc_order_line",
    metadata,
    Column("order_id", BigInteger, ForeignKey("lc_order.id"), primary_key=True),
    Column("line", Integer, primary_key=True, autoincrement=False),
    Column("product_id", Integer, ForeignKey("lc_product.id"), nullable=False),
    Column("qty", Integer, nullable=False),
    Column("price", Numeric(10, 2), nullable=False),
)
TABLES = [customer, product, order, order_line]


def product_name(i: int) -> str:
    """Returns product i's name; searchable by prefix ('p12' matches p12, p120-p129, ...)."""
    return f"p{i}"


def price_of(i: int) -> str:
    """Returns product i's price as a numeric literal."""
    return f"{i % 97 + 1}.{i % 100:02d}"


def line_of(order_id: int, line: int) -> tuple[int, int]:
    """Returns (product_id, qty) of a preloaded order's line, deterministically."""
    return (order_id * 7 + line * 131) % PRODUCTS + 1, line + 1


def preloaded_qty() -> int:
    """Returns the total quantity of the preloaded order lines."""
    return ORDERS * sum(line_of(1, n)[1] for n in range(1, LINES_PER_ORDER + 1))


def copy_rows() -> dict[str, list[tuple]]:
    """Returns the initial rows of every table, for COPY, keyed by table name."""
    created = datetime(2026, 1, 1, 12, 0, 0)
    lines = []
    orders = []
    for o in range(1, ORDERS + 1):
        total = 0
        for n in range(1, LINES_PER_ORDER + 1):
            pid, qty = line_of(o, n)
            lines.append((o, n, pid, qty, Decimal(price_of(pid))))
            total += qty * int(price_of(pid).replace(".", ""))
        orders.append((o, o % CUSTOMERS + 1, created, Decimal(total).scaleb(-2)))
    return {
        customer.name: [(i, f"customer {i}", f"c{i}@example.com") for i in range(1, CUSTOMERS + 1)],
        product.name: [
            (i, product_name(i), Decimal(price_of(i)), STOCK) for i in range(1, PRODUCTS + 1)
        ],
        order.name: orders,
        order_line.name: lines,
    }


def pick(rng: random.Random, weights: dict[str, int] = WEIGHTS) -> str:
    """Returns a task name chosen by weight."""
    return rng.choices(list(weights), weights=list(weights.values()))[0]


def is_retryable(exc: BaseException) -> bool:
    """True for serialization failures and deadlocks (40001, 40P01), whatever the driver."""
    orig = getattr(exc, "orig", exc)
    code = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
    return code in ("40001", "40P01")


class Shop:
    """The tasks, as functions of a SQLAlchemy engine; counts placed orders and retries."""

    def __init__(self, engine, seed: int, order_base: int) -> None:
        self.engine = engine
        self.rng = random.Random(seed)
        self.ids = itertools.count(order_base + 1)
        self.placed = 0
        self.placed_qty = 0
        self.retries = 0

    def run(self, task: str) -> None:
        """Runs one task by name."""
        for attempt in range(RETRIES + 1):
            try:
                return getattr(self, task.replace(" ", "_"))()
            except Exception as exc:
                if attempt == RETRIES or not is_retryable(exc):
                    raise
                self.retries += 1

    def product_page(self) -> None:
        with self.engine.connect() as conn:
            pid = self.rng.randint(1, PRODUCTS)
            row = conn.execute(select(product).where(product.c.id == pid)).one()
            assert row.id == pid

    def catalogue_page(self) -> None:
        with self.engine.connect() as conn:
            offset = self.rng.randrange(0, PRODUCTS - 20)
            rows = conn.execute(
                select(product.c.id, product.c.name, product.c.price)
                .order_by(product.c.id).limit(20).offset(offset)
            ).all()
            assert len(rows) == 20 and rows[0].id == offset + 1

    def order_history(self) -> None:
        with self.engine.connect() as conn:
            cid = self.rng.randint(1, CUSTOMERS)
            lines = (
                select(func.count())
                .where(order_line.c.order_id == order.c.id)
                .scalar_subquery()
            )
            conn.execute(
                select(order.c.id, order.c.created, order.c.total, lines.label("lines"))
                .where(order.c.customer_id == cid)
                .order_by(order.c.created.desc(), order.c.id.desc())
                .limit(10)
            ).all()

    def search(self) -> None:
        with self.engine.connect() as conn:
            prefix = product_name(self.rng.randint(1, PRODUCTS))[:3]
            rows = conn.execute(
                select(product.c.id, product.c.name)
                .where(product.c.name.startswith(prefix))
                .order_by(product.c.name).limit(20)
            ).all()
            assert rows and all(r.name.startswith(prefix) for r in rows)

    def place_order(self) -> None:
        oid = next(self.ids)
        cid = self.rng.randint(1, CUSTOMERS)
        picks = sorted(self.rng.sample(range(1, PRODUCTS + 1), LINES_PER_ORDER))
        qty = [self.rng.randint(1, 3) for _ in picks]
        with self.engine.begin() as conn:
            prices = dict(
                conn.execute(
                    select(product.c.id, product.c.price).where(product.c.id.in_(picks))
                ).all()
            )
            total = sum(prices[p] * q for p, q in zip(picks, qty, strict=True))
            conn.execute(
                order.insert(),
                {"id": oid, "customer_id": cid, "created": NOW, "total": total},
            )
            conn.execute(
                order_line.insert(),
                [
                    {"order_id": oid, "line": n, "product_id": p, "qty": q, "price": prices[p]}
                    for n, (p, q) in enumerate(zip(picks, qty, strict=True), 1)
                ],
            )
            for p, q in zip(picks, qty, strict=True):
                conn.execute(
                    update(product).where(product.c.id == p).values(stock=product.c.stock - q)
                )
        self.placed += 1
        self.placed_qty += sum(qty)

    def profile_update(self) -> None:
        cid = self.rng.randint(1, CUSTOMERS)
        with self.engine.begin() as conn:
            conn.execute(
                update(customer)
                .where(customer.c.id == cid)
                .values(email=f"c{cid}.{self.rng.randrange(10**6)}@example.com")
            )


def main(argv: list[str]) -> int:
    """Runs one headless locust against URL with USERS users for SECONDS; prints JSON."""
    url, users, seconds = argv[0], int(argv[1]), float(argv[2])
    order_base = int(argv[3]) if len(argv) > 3 else RUN_ORDER_BASE

    import gevent
    from locust import User, events, task
    from locust.env import Environment
    from sqlalchemy import create_engine

    engine = create_engine(url, pool_size=users, max_overflow=0, pool_pre_ping=False)
    shop = Shop(engine, seed=users, order_base=order_base)

    class WebUser(User):
        @task
        def visit(self) -> None:
            name = pick(shop.rng)
            start = time.perf_counter()
            exc = None
            try:
                shop.run(name)
            except Exception as e:  # a failed request is a locust failure, not a crash
                exc = e
            self.environment.events.request.fire(
                request_type="sql", name=name, response_time=(time.perf_counter() - start) * 1e3,
                response_length=0, exception=exc, context={},
            )

    env = Environment(user_classes=[WebUser], events=events, stop_timeout=60)
    runner = env.create_local_runner()
    runner.start(users, spawn_rate=max(users, 1))
    runner.spawning_greenlet.join()
    gevent.sleep(min(1.0, seconds / 10))  # every user has a connection before timing starts
    env.stats.reset_all()
    placed0, qty0, retries0 = shop.placed, shop.placed_qty, shop.retries
    start = time.perf_counter()
    gevent.sleep(seconds)
    elapsed = time.perf_counter() - start
    total = env.stats.total
    requests, failures = total.num_requests, total.num_failures
    p95 = total.get_response_time_percentile(0.95)
    per_task = {
        name: entry.num_requests for (name, _), entry in env.stats.entries.items()
    }
    errors = [f"{e.name}: {e.error}"[:300] for e in list(env.stats.errors.values())[:5]]
    runner.quit()
    engine.dispose()
    print(json.dumps({
        "users": users, "seconds": elapsed, "requests": requests, "failures": failures,
        "rps": requests / elapsed if elapsed else 0.0, "p95_ms": p95,
        "timed_placed": shop.placed - placed0, "placed": shop.placed,
        "placed_qty": shop.placed_qty, "timed_qty": shop.placed_qty - qty0,
        "retries": shop.retries - retries0, "per_task": per_task, "errors": errors,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
