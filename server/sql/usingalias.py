"""`JOIN ... USING (...) AS alias` (PostgreSQL 14+), which sqlglot does not read or print.

The alias names the join's merged USING columns only (`j.id`), so it belongs to the
Join, not to its right-hand table: the parser keeps it as the Join's `join_alias`
argument (`plan.joinusing` reads it) and the generator prints it back after `USING (...)`,
so a view's stored text keeps it.

>>> import sqlglot
>>> from cumulo.server.sql import parse  # NB: installs both on sqlglot's PostgreSQL dialect
>>> q = sqlglot.parse_one("select j.id from a join b using (id) as j", read="postgres")
>>> q.args["joins"][0].args["join_alias"].name
'j'
>>> q.sql("postgres")
'SELECT j.id FROM a JOIN b USING (id) AS j'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlglot import exp
from sqlglot.tokens import TokenType

__all__ = ["generate_join", "parse_join"]

exp.Join.arg_types = {**exp.Join.arg_types, "join_alias": False}


def parse_join(original: Callable[..., exp.Join | None]) -> Callable[..., exp.Join | None]:
    """sqlglot's `_parse_join`, reading an `AS alias` after a USING list."""

    def parse(self: Any, *args: Any, **kwargs: Any) -> exp.Join | None:
        join = original(self, *args, **kwargs)
        if join is not None and join.args.get("using") and self._match(TokenType.ALIAS):
            join.set("join_alias", self._parse_id_var(any_token=False))
            if join.args["join_alias"] is None:
                self.raise_error("Expected an alias after AS")
        return join

    return parse


def generate_join(original: Callable[..., str]) -> Callable[..., str]:
    """sqlglot's `join_sql`, printing a USING join's alias."""

    def generate(self: Any, expression: exp.Join, *args: Any, **kwargs: Any) -> str:
        text = original(self, expression, *args, **kwargs)
        alias = expression.args.get("join_alias")
        return f"{text} AS {self.sql(alias)}" if alias is not None else text

    return generate
