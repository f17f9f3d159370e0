"""The SQL function library: importing this package registers every function in `FUNCTIONS`.

The registry contract is in `registry.py`; each module below registers one
family of functions.
"""

from __future__ import annotations

from . import (  # noqa: F401  (imported to register)
    arrays,
    catalogfns,
    cryptofns,
    degtrig,
    describeobj,
    dumpfns,
    formatting,
    geoconv,
    geomfns,
    geoops,
    geopreds,
    hstorefns,
    intervalfns,
    isotest,
    jsonbops,
    jsonfns,
    jsonmodify,
    jsonpath,
    jsonpathops,
    jsontsfns,
    keywords,
    mathfns,
    misc,
    miscfns15,
    moneyfns,
    netfns,
    pgcipherfns,
    pgcryptfns,
    privfns,
    rangefns,
    regcasts,
    regcollations,
    regex,
    regexp15,
    regopers,
    strings,
    sysinfo,
    tidfns,
    timefns,
    tochar,
    trgmfns,
    tsdebug,
    tsdictfns,
    tsearchfns,
    tsqcmp,
    tsvectorfns,
    txidfns,
    unaccentfns,
    varbinary,
    xmlfns,
)
from .registry import ANY, FUNCTIONS, FunctionContext, FunctionDef, register

__all__ = ["ANY", "FUNCTIONS", "FunctionContext", "FunctionDef", "register"]
