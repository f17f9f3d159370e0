"""`MERGE INTO t USING b JOIN c ON ... ON ...`: a join as MERGE's data source, which
sqlglot does not read (it reads one table, then expects ON).

The joins are kept on the source table (`Table.joins`, as sqlglot keeps a parenthesised
join), so `source.sql()` prints `b JOIN c ON ...` back; `dml.merge` takes it from there.

>>> import sqlglot
>>> from cumulo.server.sql import parse  # NB: installs it on sqlglot's PostgreSQL dialect
>>> m = sqlglot.parse_one("merge into t using b join c on b.id = c.id on t.id = b.id "
...                       "when matched then delete", read="postgres")
>>> m.args["using"].sql("postgres"), m.args["on"].sql("postgres")
('b JOIN c ON b.id = c.id', 't.id = b.id')
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlglot import exp
from sqlglot.tokens import TokenType

__all__ = ["parse_merge"]


def parse_merge(original: Callable[..., exp.Merge]) -> Callable[..., exp.Merge]:
    """sqlglot's `_parse_merge`, reading JOINs after the source table."""

    def parse(self: Any) -> exp.Merge:
        table = self._parse_table

        def source(*args: Any, **kwargs: Any) -> Any:
            node = table(*args, **kwargs)
            joins = []
            while node is not None and self._curr is not None and \
                    self._curr.token_type != TokenType.COMMA:  # NB: `USING b, c` is 42601
                join = self._parse_join()
                if join is None:
                    break
                joins.append(join)
            if joins and isinstance(node, exp.Table | exp.Subquery):
                node.set("joins", [*(node.args.get("joins") or []), *joins])
            return node

        self._parse_table = source  # NB: for this statement only: the target's parse is
        try:  # untouched (it is followed by AS, USING or an alias, never a JOIN)
            return original(self)
        finally:
            del self._parse_table

    return parse
