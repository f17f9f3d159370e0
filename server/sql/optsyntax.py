"""Bare boolean storage parameters, `WITH (autovacuum_enabled)`, which sqlglot does not read.

PostgreSQL takes an option named without a value as `true` (`reloptions` then shows
`autovacuum_enabled=true`); sqlglot's property list wants `name = value` and fails at the
name. Here a name directly followed by `,` or `)` in a wrapped property list is read as
`name = TRUE`; and `ALTER TABLE t SET (autovacuum_enabled = on)` is read as the same list
(sqlglot's assignment there fails at `on`).

>>> import sqlglot
>>> t = sqlglot.parse_one("CREATE TABLE o (a int) WITH (autovacuum_enabled, fillfactor = 70)",
...                       read="postgres")
>>> [p.sql("postgres") for p in t.args["properties"].expressions]
['autovacuum_enabled=TRUE', 'fillfactor=70']
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp
from sqlglot.tokens import TokenType

_ENDS = (TokenType.COMMA, TokenType.R_PAREN)


def _bare_or_property(parser: Any) -> Any:
    cur, nxt = parser._curr, parser._next
    if cur is not None and nxt is not None and nxt.token_type in _ENDS \
            and cur.token_type not in (*_ENDS, TokenType.L_PAREN, TokenType.STRING) \
            and cur.text.replace("_", "a").isalnum():
        parser._advance()
        return parser.expression(exp.Property(this=exp.to_identifier(cur.text),
                                              value=exp.true()))
    return parser._parse_property()


def install(parser_class: Any) -> None:
    """Puts the bare-name reading into sqlglot's PostgreSQL parser's `WITH (...)` lists, and
    reads `ALTER ... SET (...)` as such a list too (sqlglot read it as assignments, where
    `autovacuum_enabled = on` is a syntax error)."""
    parser_class._parse_wrapped_properties = (
        lambda self: self._parse_wrapped_csv(lambda: _bare_or_property(self)))
    plain = parser_class._parse_alter_table_set

    def alter_set(self: Any) -> exp.Expression:
        if not self._match(TokenType.L_PAREN, advance=False):
            return plain(self)
        return self.expression(exp.AlterSet(expressions=self._parse_wrapped_properties()))

    parser_class._parse_alter_table_set = alter_set
