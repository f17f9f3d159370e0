"""The five TPC-C transactions (clause 2.4 to 2.8), one terminal at a time, over psycopg 3.

Written from the specification, with keying and think times off. Each
transaction is one database transaction at REPEATABLE READ on both systems, so
both do the same work under the same rules; a serialization failure (40001) or
deadlock (40P01) is retried, and counted. Where the specification reads a row
and then updates it, the code uses `UPDATE ... RETURNING`, which needs no
`SELECT ... FOR UPDATE` and saves a round trip on both systems alike.

`clock` is injectable: a deterministic clock plus a seeded generator make a
single-terminal run produce identical data on Cumulo and PostgreSQL, which the
CH-benCHmark answer check relies on.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import psycopg
from psycopg import errors

from .data import Gen, Scale, last_name

MIX = [("new_order", 45), ("payment", 43), ("order_status", 4), ("delivery", 4), ("stock_level", 4)]
RETRYABLE = (errors.SerializationFailure, errors.DeadlockDetected)


class Rollback(Exception):
    """New-Order's 1% of transactions with an unused item number, rolled back on purpose."""


def ticking_clock(start: datetime, step: timedelta = timedelta(seconds=1)) -> Callable[[], datetime]:
    """Returns a clock that advances by `step` on every call (deterministic runs)."""
    now = [start]

    def tick() -> datetime:
        now[0] += step
        return now[0]

    return tick


@dataclass
class Counts:
    """What one terminal did: commits per transaction type, retries, rollbacks."""

    committed: dict[str, int] = field(default_factory=lambda: {name: 0 for name, _ in MIX})
    retries: int = 0
    rollbacks: int = 0
    failures: dict[str, int] = field(default_factory=dict)

    def merge(self, other: Counts) -> None:
        """Adds another terminal's counts to these."""
        for k, v in other.committed.items():
            self.committed[k] = self.committed.get(k, 0) + v
        self.retries += other.retries
        self.rollbacks += other.rollbacks
        for k, v in other.failures.items():
            self.failures[k] = self.failures.get(k, 0) + v


class Terminal:
    """One TPC-C terminal bound to a home warehouse."""

    def __init__(
        self,
        conn: psycopg.Connection,
        scale: Scale,
        w_id: int,
        seed: int,
        clock: Callable[[], datetime] = datetime.now,
        max_tries: int = 20,
    ) -> None:
        self.conn = conn
        self.scale = scale
        self.w_id = w_id
        self.g = Gen(seed)
        self.r = self.g.r
        self.clock = clock
        self.max_tries = max_tries
        self.counts = Counts()
        conn.autocommit = False
        conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ

    def next(self) -> str:
        """Runs one transaction chosen by the standard mix; returns its name."""
        name = self.r.choices([n for n, _ in MIX], [w for _, w in MIX])[0]
        self.run(name)
        return name

    def run(self, name: str) -> None:
        """Runs the named transaction with its inputs drawn once, retrying 40001/40P01."""
        inputs = getattr(self, f"_{name}_inputs")()
        for attempt in range(self.max_tries):
            try:
                with self.conn.transaction():
                    getattr(self, name)(self.conn.cursor(), *inputs)
                self.counts.committed[name] += 1
                return
            except Rollback:
                self.counts.rollbacks += 1
                return
            except RETRYABLE as exc:
                self.counts.retries += 1
                if attempt == self.max_tries - 1:  # given up: counted, and the terminal goes on
                    code = exc.sqlstate or "40001"
                    self.counts.failures[code] = self.counts.failures.get(code, 0) + 1
                    return
                time.sleep(self.r.random() * 0.001 * min(attempt + 1, 10))  # back off a little

    # -- inputs (drawn before the first try, so a retry repeats the same transaction) --

    def _other_warehouse(self) -> int:
        if self.scale.warehouses == 1:
            return self.w_id
        w = self.r.randint(1, self.scale.warehouses - 1)
        return w if w < self.w_id else w + 1

    def _customer(self) -> tuple[int | None, str | None]:
        """Returns (c_id, None) 40% of the time, else (None, c_last)."""
        if self.r.random() < 0.6:
            return None, last_name(self.g.nurand(255, 0, min(999, self.scale.customers - 1)))
        return self.g.nurand(1023, 1, self.scale.customers), None

    def _new_order_inputs(self):
        s = self.scale
        d_id = self.r.randint(1, s.districts)
        c_id = self.g.nurand(1023, 1, s.customers)
        lines = []
        for _ in range(self.r.randint(5, 15)):
            supply = self.w_id if self.r.random() < 0.99 else self._other_warehouse()
            lines.append((self.g.nurand(8191, 1, s.items), supply, self.r.randint(1, 10)))
        if self.r.random() < 0.01:
            lines[-1] = (s.items + 1, lines[-1][1], lines[-1][2])  # unused: forces the rollback
        return d_id, c_id, lines, self.clock()

    def _payment_inputs(self):
        d_id = self.r.randint(1, self.scale.districts)
        if self.r.random() < 0.85:
            c_w, c_d = self.w_id, d_id
        else:
            c_w, c_d = self._other_warehouse(), self.r.randint(1, self.scale.districts)
        c_id, c_last = self._customer()
        return d_id, c_w, c_d, c_id, c_last, self.g.money(1, 5000), self.clock()

    def _order_status_inputs(self):
        return (self.r.randint(1, self.scale.districts), *self._customer())

    def _delivery_inputs(self):
        return self.r.randint(1, 10), self.clock()

    def _stock_level_inputs(self):
        return self.r.randint(1, self.scale.districts), self.r.randint(10, 20)

    # -- the transactions --

    def new_order(self, cur, d_id, c_id, lines, now) -> None:
        """Clause 2.4: enters an order of 5 to 15 lines, updating stock."""
        w = self.w_id
        cur.execute(
            "SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse"
            " WHERE w_id = %s AND c_w_id = w_id AND c_d_id = %s AND c_id = %s",
            (w, d_id, c_id),
        )
        cur.fetchone()
        cur.execute(
            "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = %s AND d_id = %s"
            " RETURNING d_next_o_id - 1, d_tax",
            (w, d_id),
        )
        o_id, _tax = cur.fetchone()
        all_local = int(all(supply == w for _, supply, _ in lines))
        cur.execute(
            "INSERT INTO oorder (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt,"
            " o_all_local) VALUES (%s, %s, %s, %s, %s, NULL, %s, %s)",
            (o_id, d_id, w, c_id, now, len(lines), all_local),
        )
        cur.execute("INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (%s, %s, %s)", (o_id, d_id, w))
        rows = []
        for number, (i_id, supply, qty) in enumerate(lines, 1):
            cur.execute("SELECT i_price, i_name, i_data FROM item WHERE i_id = %s", (i_id,))
            item = cur.fetchone()
            if item is None:
                raise Rollback  # clause 2.4.2.3: "Item number is not valid"
            cur.execute(
                f"SELECT s_quantity, s_data, s_dist_{d_id:02d} FROM stock"
                " WHERE s_i_id = %s AND s_w_id = %s",
                (i_id, supply),
            )
            s_qty, _s_data, dist_info = cur.fetchone()
            new_qty = s_qty - qty if s_qty - qty >= 10 else s_qty - qty + 91
            cur.execute(
                "UPDATE stock SET s_quantity = %s, s_ytd = s_ytd + %s, s_order_cnt = s_order_cnt + 1,"
                " s_remote_cnt = s_remote_cnt + %s WHERE s_i_id = %s AND s_w_id = %s",
                (new_qty, qty, int(supply != w), i_id, supply),
            )
            rows.append((o_id, d_id, w, number, i_id, supply, qty, item[0] * qty, dist_info))
        cur.executemany(
            "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,"
            " ol_quantity, ol_amount, ol_dist_info) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
            rows,
        )

    def _find_customer(self, cur, c_w, c_d, c_id, c_last) -> int:
        """Returns the customer id; by last name it is the middle one ordered by c_first."""
        if c_id is not None:
            return c_id
        cur.execute(
            "SELECT c_id FROM customer WHERE c_w_id = %s AND c_d_id = %s AND c_last = %s"
            " ORDER BY c_first",
            (c_w, c_d, c_last),
        )
        ids = [r[0] for r in cur.fetchall()]
        if not ids:  # scaled-down data lacks some names: fall back to an id
            return self.r.randint(1, self.scale.customers)
        return ids[(len(ids) - 1) // 2]

    def payment(self, cur, d_id, c_w, c_d, c_id, c_last, amount, now) -> None:
        """Clause 2.5: records a customer's payment in warehouse, district and customer."""
        w = self.w_id
        cur.execute(
            "UPDATE warehouse SET w_ytd = w_ytd + %s WHERE w_id = %s RETURNING w_name", (amount, w)
        )
        (w_name,) = cur.fetchone()
        cur.execute(
            "UPDATE district SET d_ytd = d_ytd + %s WHERE d_w_id = %s AND d_id = %s RETURNING d_name",
            (amount, w, d_id),
        )
        (d_name,) = cur.fetchone()
        c_id = self._find_customer(cur, c_w, c_d, c_id, c_last)
        cur.execute(
            "SELECT c_credit FROM customer WHERE c_w_id = %s AND c_d_id = %s AND c_id = %s",
            (c_w, c_d, c_id),
        )
        (credit,) = cur.fetchone()
        if credit == "BC":
            note = f"{c_id} {c_d} {c_w} {d_id} {w} {amount} | "
            cur.execute(
                "UPDATE customer SET c_balance = c_balance - %s, c_ytd_payment = c_ytd_payment + %s,"
                " c_payment_cnt = c_payment_cnt + 1, c_data = substr(%s || c_data, 1, 500)"
                " WHERE c_w_id = %s AND c_d_id = %s AND c_id = %s",
                (amount, amount, note, c_w, c_d, c_id),
            )
        else:
            cur.execute(
                "UPDATE customer SET c_balance = c_balance - %s, c_ytd_payment = c_ytd_payment + %s,"
                " c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = %s AND c_d_id = %s AND c_id = %s",
                (amount, amount, c_w, c_d, c_id),
            )
        cur.execute(
            "INSERT INTO history (h_c_d_id, h_c_w_id, h_c_id, h_d_id, h_w_id, h_date, h_amount, h_data)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
            (c_d, c_w, c_id, d_id, w, now, amount, f"{w_name[:10]}    {d_name[:10]}"),
        )

    def order_status(self, cur, d_id, c_id, c_last) -> None:
        """Clause 2.6: reads a customer's balance and the lines of its last order."""
        w = self.w_id
        c_id = self._find_customer(cur, w, d_id, c_id, c_last)
        cur.execute(
            "SELECT c_balance, c_first, c_middle, c_last FROM customer"
            " WHERE c_w_id = %s AND c_d_id = %s AND c_id = %s",
            (w, d_id, c_id),
        )
        cur.fetchone()
        cur.execute(
            "SELECT o_id, o_carrier_id, o_entry_d FROM oorder WHERE o_w_id = %s AND o_d_id = %s"
            " AND o_c_id = %s ORDER BY o_id DESC LIMIT 1",
            (w, d_id, c_id),
        )
        order = cur.fetchone()
        if order:
            cur.execute(
                "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line"
                " WHERE ol_w_id = %s AND ol_d_id = %s AND ol_o_id = %s",
                (w, d_id, order[0]),
            )
            cur.fetchall()

    def delivery(self, cur, carrier, now) -> None:
        """Clause 2.7: delivers the oldest undelivered order of every district."""
        w = self.w_id
        for d_id in range(1, self.scale.districts + 1):
            cur.execute(
                "SELECT min(no_o_id) FROM new_order WHERE no_w_id = %s AND no_d_id = %s", (w, d_id)
            )
            (o_id,) = cur.fetchone()
            if o_id is None:
                continue
            cur.execute(
                "DELETE FROM new_order WHERE no_w_id = %s AND no_d_id = %s AND no_o_id = %s",
                (w, d_id, o_id),
            )
            cur.execute(
                "UPDATE oorder SET o_carrier_id = %s WHERE o_w_id = %s AND o_d_id = %s AND o_id = %s"
                " RETURNING o_c_id",
                (carrier, w, d_id, o_id),
            )
            (c_id,) = cur.fetchone()
            cur.execute(
                "UPDATE order_line SET ol_delivery_d = %s WHERE ol_w_id = %s AND ol_d_id = %s"
                " AND ol_o_id = %s",
                (now, w, d_id, o_id),
            )
            cur.execute(
                "SELECT sum(ol_amount) FROM order_line WHERE ol_w_id = %s AND ol_d_id = %s"
                " AND ol_o_id = %s",
                (w, d_id, o_id),
            )
            (total,) = cur.fetchone()
            cur.execute(
                "UPDATE customer SET c_balance = c_balance + %s, c_delivery_cnt = c_delivery_cnt + 1"
                " WHERE c_w_id = %s AND c_d_id = %s AND c_id = %s",
                (total or 0, w, d_id, c_id),
            )

    def stock_level(self, cur, d_id, threshold) -> None:
        """Clause 2.8: counts recently sold items whose stock is below a threshold."""
        w = self.w_id
        cur.execute("SELECT d_next_o_id FROM district WHERE d_w_id = %s AND d_id = %s", (w, d_id))
        (next_o,) = cur.fetchone()
        cur.execute(
            "SELECT count(DISTINCT s_i_id) FROM order_line, stock WHERE ol_w_id = %s AND ol_d_id = %s"
            " AND ol_o_id < %s AND ol_o_id >= %s AND s_w_id = %s AND s_i_id = ol_i_id"
            " AND s_quantity < %s",
            (w, d_id, next_o, next_o - 20, w, threshold),
        )
        cur.fetchone()


def consistency(conn: psycopg.Connection) -> list[str]:
    """Returns the violated consistency conditions 1-4 of clause 3.3.2 (empty when consistent)."""
    checks = {
        "1: w_ytd = sum(d_ytd)": "SELECT count(*) FROM warehouse w WHERE w_ytd <>"
        " (SELECT sum(d_ytd) FROM district WHERE d_w_id = w_id)",
        "2: d_next_o_id - 1 = max(o_id)": "SELECT count(*) FROM district WHERE d_next_o_id - 1 <>"
        " (SELECT max(o_id) FROM oorder WHERE o_w_id = d_w_id AND o_d_id = d_id)",
        "3: new_order ids are contiguous": "SELECT count(*) FROM (SELECT no_w_id, no_d_id,"
        " max(no_o_id) - min(no_o_id) + 1 AS span, count(*) AS n FROM new_order"
        " GROUP BY no_w_id, no_d_id) x WHERE span <> n",
        "4: sum(o_ol_cnt) = count(order_line)": "SELECT count(*) FROM district WHERE"
        " (SELECT sum(o_ol_cnt) FROM oorder WHERE o_w_id = d_w_id AND o_d_id = d_id) <>"
        " (SELECT count(*) FROM order_line WHERE ol_w_id = d_w_id AND ol_d_id = d_id)",
    }
    bad = []
    with conn.cursor() as cur:
        for name, sql in checks.items():
            cur.execute(sql)
            n = cur.fetchone()[0]
            if n:
                bad.append(f"condition {name}: {n} violations")
    conn.rollback() if not conn.autocommit else None
    return bad


def run_seeded(conn: psycopg.Connection, scale: Scale, transactions: int, seed: int = 7) -> Counts:
    """Runs a deterministic single-terminal mix (same data on any system); returns the counts."""
    clock = ticking_clock(datetime(2026, 2, 1))
    terminals = [
        Terminal(conn, scale, w, seed * 100 + w, clock) for w in range(1, scale.warehouses + 1)
    ]
    rng = random.Random(seed)
    for _ in range(transactions):
        rng.choice(terminals).next()
    total = Counts()
    for t in terminals:
        total.merge(t.counts)
    conn.autocommit = True
    return total
