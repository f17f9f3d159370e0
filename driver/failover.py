"""Choosing among several hosts: failover order and load balancing.

With several hosts the driver tries them in order and moves on when a host
cannot be reached or refuses connections for a reason another host may not
have (too many connections, shutting down, starting up). It does not move on
for a wrong password or a missing database: every host would say the same.
With `load_balance=true` it connects to every host, asks each for its load
(the number of sessions in pg_stat_activity; the Cumulo server answers the
same query), keeps the connection to the least-loaded one and closes the
others; a host that cannot answer counts as the most loaded.
"""

from __future__ import annotations

from cumulo.driver.errors import DatabaseError, Error, OperationalError

LOAD_QUERY = "SELECT count(*) FROM pg_stat_activity"

# SQLSTATEs after which another host may do better.
_RETRY_STATES = {"53300", "57P01", "57P02", "57P03", "08006", "08001", "08004"}


def try_next_host(exc: BaseException) -> bool:
    """Tells whether a failed connection attempt should go on to the next host."""
    if isinstance(exc, OSError):
        return True
    if isinstance(exc, DatabaseError):
        return exc.sqlstate is None or exc.sqlstate in _RETRY_STATES
    return isinstance(exc, OperationalError)


def least_loaded(loads: list[int | None]) -> int:
    """Returns the index of the least-loaded host; unknown loads last, ties to the first."""
    big = float("inf")
    return min(range(len(loads)), key=lambda i: (big if loads[i] is None else loads[i], i))


def all_failed(errors: list[tuple[tuple[str, int], BaseException]]) -> Error:
    """Returns the error raised when no host accepted a connection."""
    if len(errors) == 1 and isinstance(errors[0][1], Error):
        return errors[0][1]
    text = "; ".join(f"{h}:{p_}: {e}" for (h, p_), e in errors)
    last = errors[-1][1] if errors else None
    fields = last.fields if isinstance(last, Error) else None
    return OperationalError(f"could not connect to any host: {text}", fields)
