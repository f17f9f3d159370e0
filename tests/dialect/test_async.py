"""The async engine and the ORM's AsyncSession on `cumulo+async://`."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import ForeignKey, String, func, select, text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship, selectinload

from cumulo.dialect import run_transaction_async

pytest.importorskip("greenlet")
from sqlalchemy.ext.asyncio import (  # noqa: E402 - needs greenlet
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)


class Base(DeclarativeBase):
    pass


class Author(Base):
    __tablename__ = "dlg_async_author"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(40))
    books: Mapped[list[Book]] = relationship(back_populates="author", order_by="Book.id")


class Book(Base):
    __tablename__ = "dlg_async_book"

    id: Mapped[int] = mapped_column(primary_key=True)
    author_id: Mapped[int] = mapped_column(ForeignKey("dlg_async_author.id"))
    title: Mapped[str] = mapped_column(String(80))
    author: Mapped[Author] = relationship(back_populates="books")


@pytest.fixture(scope="module")
def url(async_url):
    return async_url


def _run(coro):
    return asyncio.run(coro)


async def _with_schema(url: str, body):
    engine = create_async_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(Base.metadata.drop_all)
            await conn.run_sync(Base.metadata.create_all)
        return await body(engine)
    finally:
        async with engine.begin() as conn:
            await conn.run_sync(Base.metadata.drop_all)
        await engine.dispose()


def test_async_core_execute(url):
    async def body(engine):
        async with engine.begin() as conn:
            await conn.execute(Author.__table__.insert(), [{"name": "a"}, {"name": "b"}])
            ids = (await conn.execute(
                Author.__table__.insert().returning(Author.id), [{"name": "c"}])).scalars().all()
        async with engine.connect() as conn:
            names = (await conn.execute(select(Author.name).order_by(Author.id))).scalars().all()
            version = await conn.scalar(text("select current_setting('server_version')"))
        return ids, names, version

    ids, names, version = _run(_with_schema(url, body))
    assert len(ids) == 1 and names == ["a", "b", "c"]
    assert version.startswith("15")


def test_async_session_orm(url):
    async def body(engine):
        maker = async_sessionmaker(engine, expire_on_commit=False)
        async with maker() as session:
            session.add(Author(name="le guin", books=[Book(title="the dispossessed"),
                                                      Book(title="the lathe of heaven")]))
            session.add(Author(name="lem", books=[Book(title="solaris")]))
            await session.commit()
        async with maker() as session:
            authors = (await session.scalars(
                select(Author).options(selectinload(Author.books)).order_by(Author.name))).all()
            counts = (await session.execute(
                select(Author.name, func.count(Book.id)).join(Book)
                .group_by(Author.name).order_by(Author.name))).all()
            loaded = [(a.name, [b.title for b in a.books]) for a in authors]
            lem = authors[1]
            lem.name = "stanislaw lem"
            await session.commit()
        async with AsyncSession(engine) as session:
            renamed = await session.scalar(select(Author.name).where(Author.id == lem.id))
        return loaded, counts, renamed

    loaded, counts, renamed = _run(_with_schema(url, body))
    assert loaded == [("le guin", ["the dispossessed", "the lathe of heaven"]),
                      ("lem", ["solaris"])]
    assert counts == [("le guin", 2), ("lem", 1)]
    assert renamed == "stanislaw lem"


def test_async_rollback_and_errors(url):
    async def body(engine):
        async with engine.connect() as conn:
            await conn.execute(Author.__table__.insert(), [{"id": 1, "name": "kept"}])
            await conn.commit()
            await conn.execute(Author.__table__.insert(), [{"id": 2, "name": "dropped"}])
            await conn.rollback()
            try:
                await conn.execute(Author.__table__.insert(), [{"id": 1, "name": "dup"}])
            except Exception as e:  # noqa: BLE001 - the test inspects it
                error = e
            await conn.rollback()
            names = (await conn.execute(select(Author.name))).scalars().all()
        return names, error

    names, error = _run(_with_schema(url, body))
    assert names == ["kept"]
    assert getattr(error.orig, "sqlstate", None) == "23505"


def test_run_transaction_async_retries_a_real_serialization_failure(url):
    async def body(engine):
        async with engine.begin() as conn:
            await conn.execute(Author.__table__.insert(), [{"id": 1, "name": "v0"}])
        maker = async_sessionmaker(engine.execution_options(isolation_level="REPEATABLE READ"))
        attempts = []

        async def rename(session):
            attempts.append(1)
            name = await session.scalar(select(Author.name).where(Author.id == 1))
            if len(attempts) == 1:  # a concurrent writer commits between our read and write
                async with engine.begin() as other:
                    await other.execute(text("update dlg_async_author set name = 'v1'"))
            await session.execute(
                Author.__table__.update().where(Author.id == 1).values(name=name + "+"))
            return name

        seen = await run_transaction_async(maker, rename)
        async with engine.connect() as conn:
            final = await conn.scalar(select(Author.name))
        return seen, len(attempts), final

    assert _run(_with_schema(url, body)) == ("v1", 2, "v1+")


def test_async_stream_through_a_server_side_cursor(url):
    async def body(engine):
        async with engine.begin() as conn:
            await conn.execute(Author.__table__.insert(),
                               [{"id": i, "name": f"n{i}"} for i in range(1, 251)])
        async with engine.connect() as conn:
            result = await conn.stream(
                select(Author.id).order_by(Author.id).execution_options(yield_per=40))
            batches = [[r[0] for r in part] async for part in result.partitions()]
        return batches

    batches = _run(_with_schema(url, body))
    assert [len(b) for b in batches] == [40] * 6 + [10]
    assert [i for b in batches for i in b] == list(range(1, 251))
