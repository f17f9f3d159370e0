"""`run_transaction`: run a unit of work, retrying it when the server asks for a retry.

Cumulo is optimistic: under REPEATABLE READ and SERIALIZABLE a transaction
that lost a conflict fails with SQLSTATE 40001 (serialization_failure), or
40P01 (deadlock_detected), and the right reaction is to run the whole
transaction again from the start. Doing that by hand is easy to get wrong
(a retry must be a fresh transaction, with fresh reads), so this helper owns
the transaction: `fn` gets a Connection or Session inside a new transaction
each attempt, and must not commit itself. The shape follows
sqlalchemy-cockroachdb's helper of the same name.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from sqlalchemy import exc
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import Session, sessionmaker

RETRY_SQLSTATES = frozenset({"40001", "40P01"})
T = TypeVar("T")


def is_retryable(error: BaseException) -> bool:
    """Tells whether an error (SQLAlchemy-wrapped or raw driver) asks for a retry."""
    orig = error.orig if isinstance(error, exc.DBAPIError) else error
    return getattr(orig, "sqlstate", None) in RETRY_SQLSTATES


def run_transaction(
    target: Engine | Connection | Session | sessionmaker,
    fn: Callable[[Any], T],
    max_retries: int = 10,
    backoff: float = 0.005,
    max_backoff: float = 0.5,
) -> T:
    """Runs `fn` in a transaction and commits; reruns all of it on 40001/40P01.

    `target` is an Engine or Connection (fn gets a Connection) or a Session or
    sessionmaker (fn gets a Session). Backoff is exponential with full jitter;
    after `max_retries` retries the last error is raised.
    """
    attempt = 0
    while True:
        try:
            return _attempt(target, fn)
        except exc.DBAPIError as e:
            if not is_retryable(e) or attempt >= max_retries:
                raise
        attempt += 1
        time.sleep(_delay(attempt, backoff, max_backoff))


def _delay(attempt: int, backoff: float, max_backoff: float) -> float:
    """Exponential backoff with full jitter."""
    return random.uniform(0, min(max_backoff, backoff * (2**attempt)))


async def run_transaction_async(
    target: Any,
    fn: Callable[[Any], Awaitable[T]],
    max_retries: int = 10,
    backoff: float = 0.005,
    max_backoff: float = 0.5,
) -> T:
    """`run_transaction` for asyncio: an AsyncEngine (fn gets an AsyncConnection) or an
    async_sessionmaker (fn gets an AsyncSession); `fn` is a coroutine function."""
    from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker

    attempt = 0
    while True:
        try:
            if isinstance(target, AsyncEngine):
                async with target.begin() as conn:
                    return await fn(conn)
            if isinstance(target, async_sessionmaker):
                async with target.begin() as session:
                    return await fn(session)
            raise TypeError(f"run_transaction_async needs an AsyncEngine or async_sessionmaker, "
                            f"not {type(target).__name__}")
        except exc.DBAPIError as e:
            if not is_retryable(e) or attempt >= max_retries:
                raise
        attempt += 1
        await asyncio.sleep(_delay(attempt, backoff, max_backoff))


def _attempt(target: Any, fn: Callable[[Any], T]) -> T:
    if isinstance(target, Engine):
        with target.begin() as conn:
            return fn(conn)
    if isinstance(target, Connection):
        if target.in_transaction():
            raise exc.InvalidRequestError("run_transaction needs a Connection outside a transaction")
        with target.begin():
            return fn(target)
    if isinstance(target, sessionmaker):
        with target.begin() as session:
            return fn(session)
    if isinstance(target, Session):
        if target.in_transaction():
            raise exc.InvalidRequestError("run_transaction needs a Session outside a transaction")
        with target.begin():
            return fn(target)
    raise TypeError(f"run_transaction needs an Engine, Connection, Session or sessionmaker, "
                    f"not {type(target).__name__}")
