"""ROWS FROM (f(...), g(...)) and multi-argument unnest(a, b, ...) in FROM.

PostgreSQL runs each function and zips their rows: the result has as many
rows as the longest function returns, the columns of a function that ran
out are NULL, and WITH ORDINALITY numbers the zipped rows. `unnest(a, b)`
is defined as `ROWS FROM (unnest(a), unnest(b))`. The plan is one
`FunctionScan` whose first call is `call` and the others `more`; the
executor zips them (`exec.runner.run_function`).

Example:
    >>> import sqlglot
    >>> q = sqlglot.parse_one("select * from unnest(array[1], array['a'])", read="postgres")
    >>> [f.sql("postgres") for f in functions_of(q.args["from_"].this)]
    ['UNNEST(ARRAY[1])', "UNNEST(ARRAY['a'])"]
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from ...errors import FeatureNotSupported
from ...pgtypes import oids as T
from ..expr.binder import Binder, Scope
from . import nodes as N

ORDINALITY = "ordinality"


def functions_of(item: exp.Expression) -> list[exp.Expr]:
    """The function calls of a ROWS FROM item or of a multi-argument unnest."""
    if isinstance(item, exp.Unnest):
        return [exp.Anonymous(this="unnest", expressions=[a]) for a in item.expressions]
    out: list[exp.Expr] = []  # sqlglot types Func apart from Expression
    for f in item.args.get("rows_from") or []:
        if isinstance(f, exp.Unnest):
            out.extend(functions_of(f) if len(f.expressions) > 1 else
                       [exp.Anonymous(this="unnest", expressions=list(f.expressions))])
        elif isinstance(f, exp.Table) and isinstance(f.this, exp.Func):
            out.append(f.this)
        elif isinstance(f, exp.Func):
            out.append(f)
        else:
            raise FeatureNotSupported("only function calls are allowed in ROWS FROM")
    return out


def rows_from(planner: Any, item: exp.Expression, outer: Scope | None, alias: str | None,
              col_names: list[str]) -> N.FunctionScan:
    """Plans ROWS FROM / unnest(a, b, ...) as one zipping FunctionScan."""
    b = Binder(planner, Scope([], parent=outer))
    calls: list[tuple[Any, bool]] = []
    cols: list[N.PCol] = []
    for fn in functions_of(item):
        e = b.bind(fn)
        if e.kind not in ("srf", "call"):
            raise FeatureNotSupported("only function calls are allowed in FROM")
        fd = e.data
        qual = alias or e.name
        if fd.out_columns:
            cols += [N.PCol(n, t, qualifier=qual) for n, t in fd.out_columns]
            calls.append((e, True))
        else:
            cols.append(N.PCol(e.name, e.type, qualifier=qual))
            calls.append((e, False))
    ordinality = bool(item.args.get("ordinality")) or bool(item.args.get("offset"))
    if ordinality:
        off = item.args.get("offset")
        name = off.name if isinstance(off, exp.Identifier) else ORDINALITY
        cols.append(N.PCol(name, T.INT8, qualifier=alias or cols[0].qualifier))
    for c, n in zip(cols, col_names, strict=False):
        c.name = n
    (first, multi), *more = calls
    return N.FunctionScan(cols, call=first, ordinality=ordinality, multi=multi, more=more)
