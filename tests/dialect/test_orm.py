"""The SQLAlchemy ORM on `cumulo://`: an example application against a real server.

Models with relationships, session add/commit/query, lazy and eager loads,
upserts through `insert().on_conflict_do_update`, reflection of what the
models created, and `run_transaction` retrying a real serialization failure.
"""

from __future__ import annotations

import threading
from decimal import Decimal

import pytest
from sqlalchemy import (
    CheckConstraint,
    ForeignKey,
    Index,
    Numeric,
    String,
    create_engine,
    func,
    inspect,
    select,
    text,
)
from sqlalchemy.dialects import registry
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import (
    DeclarativeBase,
    Mapped,
    Session,
    joinedload,
    mapped_column,
    relationship,
    selectinload,
    sessionmaker,
)

from cumulo.dialect import run_transaction
from cumulo.dialect.asyncio import CumuloAsyncDialect
from cumulo.dialect.base import CumuloDialect


class Base(DeclarativeBase):
    pass


class Customer(Base):
    __tablename__ = "dlg_customer"
    __table_args__ = {"comment": "who buys"}

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(50), unique=True)
    email: Mapped[str | None] = mapped_column(String(100), comment="contact address")
    orders: Mapped[list[Order]] = relationship(
        back_populates="customer", cascade="all, delete-orphan", order_by="Order.id"
    )


class Order(Base):
    __tablename__ = "dlg_order"
    __table_args__ = (
        CheckConstraint("total >= 0", name="dlg_order_total_ck"),
        Index("dlg_order_customer_ix", "customer_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    customer_id: Mapped[int] = mapped_column(ForeignKey("dlg_customer.id", ondelete="CASCADE"))
    total: Mapped[Decimal] = mapped_column(Numeric(10, 2))
    status: Mapped[str] = mapped_column(String(20), server_default="new")
    customer: Mapped[Customer] = relationship(back_populates="orders")


class Stock(Base):
    __tablename__ = "dlg_stock"

    sku: Mapped[str] = mapped_column(String(20), primary_key=True)
    qty: Mapped[int]


@pytest.fixture(scope="module")
def engine(sync_url):
    eng = create_engine(sync_url)
    Base.metadata.drop_all(eng)
    Base.metadata.create_all(eng)
    yield eng
    Base.metadata.drop_all(eng)
    eng.dispose()


@pytest.fixture
def session(engine):
    with Session(engine) as s:
        yield s
    with engine.begin() as conn:
        for table in reversed(Base.metadata.sorted_tables):
            conn.execute(table.delete())


def _seed(session: Session) -> None:
    session.add_all([
        Customer(id=1, name="ada", email="ada@example.com", orders=[
            Order(id=10, total=Decimal("12.50")), Order(id=11, total=Decimal("7.25"))]),
        Customer(id=2, name="bob", orders=[Order(id=20, total=Decimal("100.00"))]),
        Customer(id=3, name="cy"),
    ])
    session.commit()


def test_entry_points_resolve_both_urls():
    # Not registered by any conftest: this is the setup.cfg entry point.
    assert registry.load("cumulo") is CumuloDialect
    assert registry.load("cumulo.async") is CumuloAsyncDialect
    assert CumuloDialect.supports_statement_cache and CumuloAsyncDialect.supports_statement_cache


def test_add_commit_query(session):
    _seed(session)
    names = session.scalars(select(Customer.name).order_by(Customer.name)).all()
    assert names == ["ada", "bob", "cy"]
    ada = session.scalars(select(Customer).where(Customer.name == "ada")).one()
    assert [o.total for o in ada.orders] == [Decimal("12.50"), Decimal("7.25")]  # lazy load
    assert ada.orders[0].status == "new"  # server default, fetched back
    totals = session.execute(
        select(Customer.name, func.sum(Order.total))
        .join(Order).group_by(Customer.name).order_by(Customer.name)
    ).all()
    assert totals == [("ada", Decimal("19.75")), ("bob", Decimal("100.00"))]


def test_eager_loads(session):
    _seed(session)
    session.expunge_all()
    joined = session.scalars(
        select(Customer).options(joinedload(Customer.orders)).order_by(Customer.id)
    ).unique().all()
    session.expunge_all()
    selectin = session.scalars(
        select(Customer).options(selectinload(Customer.orders)).order_by(Customer.id)
    ).all()
    for loaded in (joined, selectin):
        assert [(c.name, [o.id for o in c.orders]) for c in loaded] == [
            ("ada", [10, 11]), ("bob", [20]), ("cy", [])]


def test_update_delete_and_cascade(session):
    _seed(session)
    bob = session.get(Customer, 2)
    bob.email = "bob@example.com"
    bob.orders[0].status = "shipped"
    session.commit()
    assert session.scalar(select(Order.status).where(Order.id == 20)) == "shipped"
    session.delete(session.get(Customer, 1))
    session.commit()
    assert session.scalars(select(Order.id).order_by(Order.id)).all() == [20]


def test_autoincrement_ids_through_insertmanyvalues(session):
    session.add_all([Customer(name=f"c{i}") for i in range(25)])
    session.flush()
    ids = session.scalars(select(Customer.id).order_by(Customer.id)).all()
    assert len(set(ids)) == 25
    session.commit()


def test_upsert_on_conflict_do_update(session):
    stmt = insert(Stock).values([{"sku": "a", "qty": 1}, {"sku": "b", "qty": 2}])
    session.execute(stmt)
    upsert = insert(Stock).values([{"sku": "a", "qty": 5}, {"sku": "c", "qty": 7}])
    upsert = upsert.on_conflict_do_update(
        index_elements=[Stock.sku], set_={"qty": Stock.qty + upsert.excluded.qty})
    session.execute(upsert)
    nothing = insert(Stock).values(sku="b", qty=99).on_conflict_do_nothing()
    session.execute(nothing)
    session.commit()
    rows = session.execute(select(Stock.sku, Stock.qty).order_by(Stock.sku)).all()
    assert rows == [("a", 6), ("b", 2), ("c", 7)]


def test_upsert_returning(session):
    stmt = insert(Stock).values(sku="r", qty=1).returning(Stock.qty)
    assert session.scalar(stmt) == 1
    stmt = insert(Stock).values(sku="r", qty=3)
    stmt = stmt.on_conflict_do_update(
        index_elements=["sku"], set_={"qty": stmt.excluded.qty * 10}).returning(Stock.qty)
    assert session.scalar(stmt) == 30
    session.commit()


def test_reflection_of_the_models(engine):
    insp = inspect(engine)
    assert {"dlg_customer", "dlg_order", "dlg_stock"} <= set(insp.get_table_names())
    cols = {c["name"]: c for c in insp.get_columns("dlg_order")}
    assert cols["id"]["autoincrement"] is True
    assert "new" in cols["status"]["default"]
    assert str(cols["total"]["type"]) == "NUMERIC(10, 2)"
    assert insp.get_pk_constraint("dlg_order")["constrained_columns"] == ["id"]
    fk = insp.get_foreign_keys("dlg_order")[0]
    assert (fk["referred_table"], fk["referred_columns"], fk["options"].get("ondelete")) == (
        "dlg_customer", ["id"], "CASCADE")
    assert [i["name"] for i in insp.get_indexes("dlg_order")] == ["dlg_order_customer_ix"]
    assert [u["column_names"] for u in insp.get_unique_constraints("dlg_customer")] == [["name"]]
    assert insp.get_table_comment("dlg_customer")["text"] == "who buys"
    email = {c["name"]: c for c in insp.get_columns("dlg_customer")}["email"]
    assert email["comment"] == "contact address"
    checks = insp.get_check_constraints("dlg_order")
    assert [c["name"] for c in checks] == ["dlg_order_total_ck"]


def test_run_transaction_retries_a_real_serialization_failure(engine):
    with engine.begin() as conn:
        conn.execute(insert(Stock).values(sku="hot", qty=0))
    maker = sessionmaker(engine.execution_options(isolation_level="REPEATABLE READ"))
    attempts = []

    def bump(session: Session) -> int:
        attempts.append(1)
        qty = session.scalar(select(Stock.qty).where(Stock.sku == "hot"))
        if len(attempts) == 1:
            # A concurrent writer commits between our read and our write.
            t = threading.Thread(target=_bump_elsewhere, args=(engine,))
            t.start()
            t.join()
        session.execute(Stock.__table__.update().where(Stock.sku == "hot").values(qty=qty + 10))
        return qty

    assert run_transaction(maker, bump) == 1  # the retry saw the other writer's row
    assert len(attempts) == 2
    with engine.connect() as conn:
        assert conn.scalar(text("select qty from dlg_stock where sku = 'hot'")) == 11
        conn.execute(text("delete from dlg_stock"))
        conn.commit()


def _bump_elsewhere(engine) -> None:
    with engine.begin() as conn:
        conn.execute(text("update dlg_stock set qty = qty + 1 where sku = 'hot'"))


def test_run_transaction_does_not_retry_other_errors(engine):
    calls = []

    def fail(conn) -> None:
        calls.append(1)
        conn.execute(text("select 1/0"))

    with pytest.raises(Exception) as info:
        run_transaction(engine, fail)
    assert getattr(info.value.orig, "sqlstate", None) == "22012"
    assert calls == [1]
