"""The parts of the spark and locust workloads that need no server: answers, data, the shop.

The shop's tasks run here against an in-memory SQLite through SQLAlchemy (the
same Core statements the locust child sends to both databases), so a task
that miscounts what it placed is caught without starting anything.
"""

from __future__ import annotations

import random
from collections import Counter
from decimal import Decimal

import pytest
from sqlalchemy import create_engine, func, select

from bench import locust_app as app
from bench.core import BenchError
from bench.systems import System
from bench.workloads import locust, spark


def brute(rows: int) -> tuple[int, int, int, float, int]:
    ids = range(1, rows + 1)
    return (rows, sum(ids), sum(i % 100 for i in ids), sum(i * 0.5 for i in ids),
            sum(len(f"n{i}") for i in ids))


@pytest.mark.parametrize("rows", [1, 9, 10, 99, 100, 101, 1234, 10_000, 100_001])
def test_spark_expected_matches_brute_force(rows):
    assert spark.expected(rows) == brute(rows)


def test_spark_rows_are_what_expected_describes():
    lines = [spark.row_text(i).rstrip("\n").split("\t") for i in range(1, 251)]
    got = (len(lines), sum(int(a) for a, *_ in lines), sum(int(g) for _, g, *_ in lines),
           sum(float(x) for *_, x, _ in lines), sum(len(n) for *_, n in lines))
    assert got == spark.expected(250)


def test_spark_check_accepts_the_answer_and_rejects_others():
    want = spark.expected(1000)
    spark.check(want, want, "read")
    spark.check((want[0], want[1], want[2], want[3] * (1 + 1e-12), want[4]), want, "read")
    for k in range(5):
        wrong = list(want)
        wrong[k] = wrong[k] + 1
        with pytest.raises(BenchError, match="read"):
            spark.check(tuple(wrong), want, "read")
    with pytest.raises(BenchError):
        spark.check((want[0], want[1], want[2], None, want[4]), want, "read")


def test_spark_options():
    s = System("postgres", "PostgreSQL", "127.0.0.1", 5999)
    assert spark.jdbc_url(s) == (
        "jdbc:postgresql://127.0.0.1:5999/cumulo?user=cumulo&reWriteBatchedInserts=true"
    )
    read = spark.read_options(s, 1_000_000)
    assert (read["partitionColumn"], read["lowerBound"], read["upperBound"],
            read["numPartitions"]) == ("id", "1", "1000000", "4")
    assert read["pushDownAggregate"] == "false"  # every row must cross the wire
    assert spark.write_options(s)["numPartitions"] == "4"
    assert spark.missing() is None or isinstance(spark.missing(), str)


def test_shop_data_is_consistent():
    rows = app.copy_rows()
    customers = {r[0] for r in rows["lc_customer"]}
    products = {r[0]: Decimal(r[2]) for r in rows["lc_product"]}
    assert len(customers) == app.CUSTOMERS and len(products) == app.PRODUCTS
    lines: dict[int, Decimal] = Counter()
    for order_id, _, product_id, qty, price in rows["lc_order_line"]:
        assert Decimal(price) == products[product_id]
        lines[order_id] += qty * Decimal(price)
    assert len(rows["lc_order_line"]) == app.ORDERS * app.LINES_PER_ORDER
    for order_id, customer_id, _, total in rows["lc_order"]:
        assert customer_id in customers and Decimal(total) == lines[order_id]
    assert sum(r[3] for r in rows["lc_order_line"]) == app.preloaded_qty()
    assert all(name.startswith("p") for _, name, _, _ in rows["lc_product"])


def test_pick_follows_the_weights():
    rng = random.Random(1)
    counts = Counter(app.pick(rng) for _ in range(20_000))
    assert set(counts) == set(app.WEIGHTS)
    assert counts.most_common(1)[0][0] == "product page"
    assert counts["profile update"] < counts["place order"] < counts["catalogue page"]


class _Fails(Exception):
    def __init__(self, sqlstate):
        self.sqlstate = sqlstate


def test_is_retryable():
    assert app.is_retryable(_Fails("40001")) and app.is_retryable(_Fails("40P01"))
    assert not app.is_retryable(_Fails("23505")) and not app.is_retryable(ValueError())
    wrapped = RuntimeError()
    wrapped.orig = _Fails("40001")
    assert app.is_retryable(wrapped)


def test_shop_tasks_on_sqlite_keep_the_books():
    engine = create_engine("sqlite://")
    app.metadata.create_all(engine)
    rows = app.copy_rows()
    with engine.begin() as conn:
        for table in app.metadata.sorted_tables:
            cols = [c.name for c in table.columns]
            conn.execute(table.insert(), [dict(zip(cols, r, strict=True)) for r in rows[table.name]])
    shop = app.Shop(engine, seed=3, order_base=app.RUN_ORDER_BASE)
    for name in app.WEIGHTS:
        shop.run(name)
    for _ in range(5):
        shop.run("place order")
    assert shop.placed == 6 and shop.retries == 0
    with engine.connect() as conn:
        orders = conn.execute(
            select(func.count()).select_from(app.order).where(app.order.c.id > app.ORDERS)
        ).scalar()
        qty = conn.execute(
            select(func.sum(app.order_line.c.qty)).where(app.order_line.c.order_id > app.ORDERS)
        ).scalar()
        stock = conn.execute(select(func.sum(app.product.c.stock))).scalar()
    assert orders == shop.placed and qty == shop.placed_qty
    assert app.PRODUCTS * app.STOCK - stock == shop.placed_qty


def test_shop_gives_up_on_other_errors():
    engine = create_engine("sqlite://")  # no tables: every task fails, none is retried
    shop = app.Shop(engine, seed=1, order_base=0)
    with pytest.raises(Exception, match="no such table"):
        shop.run("product page")
    assert shop.retries == 0


def test_locust_ddl_and_urls():
    statements = locust.ddl()
    tables = [s.split()[2] for s in statements if s.startswith("CREATE TABLE")]
    assert tables == ["lc_customer", "lc_product", "lc_order", "lc_order_line"]
    assert any(s.startswith("CREATE INDEX") and "lc_order (customer_id)" in s for s in statements)
    s = System("cumulo", "Cumulo", "127.0.0.1", 6001)
    assert locust.url_for(s, "cumulo") == "cumulo://cumulo@127.0.0.1:6001/cumulo"
    assert locust.scheme() in ("cumulo", "postgresql+psycopg")


def test_locust_parse_child():
    out = 'gevent noise\n{"requests": 3, "rps": 1.5}\nbye\n'
    assert locust.parse_child(out) == {"requests": 3, "rps": 1.5}
    with pytest.raises(BenchError, match="no result"):
        locust.parse_child("Traceback ...\n")
