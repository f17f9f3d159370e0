"""A PL/pgSQL subset: DO blocks (`parser` reads the code, `interp` runs it).

`DO [LANGUAGE plpgsql] $$ ... $$` runs an anonymous block in the session's
transaction, as PostgreSQL does; its RAISE NOTICEs reach the client.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ...errors import SQLError, SyntaxError_
from ...pgwire.backend import Result
from ..stmt import AnalyseTree, Stmt
from .interp import Interp, _Return, compile_options, top_level_nonatomic
from .parser import parse_block

if TYPE_CHECKING:
    from ..session import SQLSession

_DO = re.compile(r"DO\s+(?:LANGUAGE\s+(?P<l1>\w+)\s+)?(?P<code>\$(?P<tag>\w*)\$.*\$(?P=tag)\$"
                 r"|'(?:[^']|'')*')\s*(?:LANGUAGE\s+(?P<l2>\w+))?\s*;?\s*$", re.I | re.S)


def code_of(literal: str) -> str:
    """The text of a string constant: dollar-quoted or single-quoted."""
    if literal.startswith("$"):
        tag_end = literal.index("$", 1) + 1
        return literal[tag_end:len(literal) - tag_end]
    return literal[1:-1].replace("''", "'")


def analyse_do(session: SQLSession, sql: str, analyse_tree: AnalyseTree) -> Stmt:
    """DO [LANGUAGE plpgsql] code (`analyse_tree`: `statement`'s, for the block's statements).
    Outside a transaction block the code may COMMIT and ROLLBACK, as PostgreSQL's."""
    m = _DO.match(sql.strip())
    if m is None:
        raise SyntaxError_('syntax error at or near "DO"')
    lang = (m.group("l1") or m.group("l2") or "plpgsql").lower()
    if lang != "plpgsql":
        raise SQLError(f'language "{lang}" does not exist', sqlstate="42704")
    code = code_of(m.group("code"))
    parse_block(code)  # NB: a syntax error at analysis

    def run(s: SQLSession, p: list[Any]) -> Result:
        interp = Interp(s, analyse_tree)
        interp.nonatomic = top_level_nonatomic(s)
        compiled = compile_options(s, parse_block(code))  # NB: compiled per run, as PG's DO
        try:
            interp.run_body(lambda: interp.block(compiled))
        except _Return:
            pass
        return Result("DO")

    return Stmt(sql, "utility", run, None, [], -1, tag="DO")


__all__ = ["analyse_do", "code_of"]
