"""EXCLUDE constraint syntax sqlglot does not read: operators of several tokens, and
DEFERRABLE / INITIALLY after the constraint.

sqlglot reads `EXCLUDE USING gist (room WITH =, during WITH &&)` into an
`ExcludeColumnConstraint`, but an element's operator as one token only, so
`WITH OPERATOR(pg_catalog.&&)` and `WITH ~=` (two tokens to it) fail, and it has
no key-constraint options: `EXCLUDE (x WITH =) DEFERRABLE INITIALLY DEFERRED`
(what Django's ExclusionConstraint emits with `deferrable=`) is a syntax error.
Here each element's operator is its tokens' text up to the next `,` or `)`
(`OPERATOR(schema.op)` gives `op`), and the options go into the node's
`meta["options"]`, as sqlglot keeps a UNIQUE's in `args["options"]`. `ALTER TABLE t ADD
EXCLUDE ...` (no CONSTRAINT name) is read as an added constraint too, and `NOT DEFERRABLE`
as a key constraint's option (any key's: `UNIQUE (a) NOT DEFERRABLE INITIALLY DEFERRED` is
PostgreSQL's 42601 about the pair, not a syntax error at NOT).

>>> import sqlglot
>>> t = sqlglot.parse_one("CREATE TABLE t (r int4range, EXCLUDE USING gist (r WITH "
...     "OPERATOR(pg_catalog.&&), r WITH ~=) DEFERRABLE INITIALLY DEFERRED)", read="postgres")
>>> c = t.this.expressions[1]
>>> [w.args["op"].name for w in c.this.args["columns"]], c.meta["options"]
(['&&', '~='], ['DEFERRABLE', 'INITIALLY DEFERRED'])
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp
from sqlglot.tokens import TokenType

_ENDS = (TokenType.COMMA, TokenType.R_PAREN)


def parse_with_operator(parser: Any) -> exp.Expression | None:
    """One EXCLUDE element: `key [opclass] [ASC|DESC] [NULLS ...] WITH operator`."""
    this = parser._parse_indexed_column()
    if not parser._match(TokenType.WITH):
        return this
    if parser._match(TokenType.OPERATOR):  # OPERATOR(pg_catalog.&&)
        parser._match_l_paren()
        text = ""
        while parser._curr is not None and parser._curr.token_type != TokenType.R_PAREN:
            text = "" if parser._curr.token_type == TokenType.DOT else text + parser._curr.text
            parser._advance()
        parser._match_r_paren()
    else:
        text = ""
        while parser._curr is not None and parser._curr.token_type not in _ENDS:
            text += parser._curr.text
            parser._advance()
    if not text:
        parser.raise_error("Expecting an operator")
    return parser.expression(exp.WithOperator(this=this, op=exp.Var(this=text)))


def parse_exclude(parser: Any) -> exp.Expression:
    """`EXCLUDE [USING method] (elements) ... [DEFERRABLE] [INITIALLY ...]`."""
    node = parser.expression(exp.ExcludeColumnConstraint(this=parser._parse_index_params()))
    node.meta["options"] = parser._parse_key_constraint_options()
    return node


def install(parser_class: Any) -> None:
    """Puts these parsers into sqlglot's PostgreSQL parser (`_parse_with_operator` serves
    EXCLUDE only)."""
    parser_class._parse_with_operator = parse_with_operator
    parser_class.CONSTRAINT_PARSERS = {**parser_class.CONSTRAINT_PARSERS, "EXCLUDE": parse_exclude}
    parser_class.ADD_CONSTRAINT_KEYWORDS = {*parser_class.ADD_CONSTRAINT_KEYWORDS, "EXCLUDE"}
    # NB: `NOT DEFERRABLE` after any key constraint (sqlglot knew NOT ENFORCED only)
    parser_class.KEY_CONSTRAINT_OPTIONS = {
        **parser_class.KEY_CONSTRAINT_OPTIONS,
        "NOT": (*parser_class.KEY_CONSTRAINT_OPTIONS.get("NOT", ()), "DEFERRABLE")}
