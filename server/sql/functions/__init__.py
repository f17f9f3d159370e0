"""The SQL function library: importing this package registers every function in `FUNCTIONS`.

The registry contract is in `registry.py`; each module below registers one
family of functions.
"""

from __future__ import annotations

# NB: pg_isolation_test_session_is_blocked reads the transaction layer's wait-for graph, so it
# lives there (ser's server/txn/isotest.py) and registers itself when imported.
from ...txn import isotest  # noqa: F401
from . import (  # noqa: F401  (imported to register)
    arrays,
    catalogfns,
    cryptofns,
    formatting,
    hstorefns,
    intervalfns,
    jsonbops,
    jsonfns,
    jsonpath,
    keywords,
    mathfns,
    misc,
    netfns,
    privfns,
    rangefns,
    regcasts,
    regex,
    strings,
    sysinfo,
    timefns,
    tochar,
    tsearchfns,
    varbinary,
)
from .registry import ANY, FUNCTIONS, FunctionContext, FunctionDef, register

__all__ = ["ANY", "FUNCTIONS", "FunctionContext", "FunctionDef", "register"]
