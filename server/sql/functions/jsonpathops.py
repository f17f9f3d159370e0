"""The jsonpath type's functions: jsonb_path_*(jsonb, jsonpath) and the @? / @@ operators.

A jsonpath value is its normalized text (`pgtypes.jsonpathtext`), which the
SQL/JSON path evaluator of `jsonpath` reads like any path text, so these are
the text-path functions under jsonpath's signature. `jsonb @? jsonpath` and
`jsonb @@ jsonpath` are jsonb_path_exists_opr and jsonb_path_match_opr:
PostgreSQL runs them silent, so a path error or a non-boolean result is NULL.

>>> jsonb_path_exists_opr('{"a": [1, 2]}', '$."a"[*]?(@ > 1)'), jsonb_path_match_opr('{"a": 1}', '$."a"')
(True, None)
"""

from __future__ import annotations

from ...errors import FeatureNotSupported, SQLError
from ...pgtypes import oids as T
from . import jsonpath as J
from .registry import register

JB, JSONPATH = T.JSONB, 4072

register("jsonb_path_query", args=[JB, JSONPATH], returns=JB, set_returning=True)(
    J.jsonb_path_query)
register("jsonb_path_query_array", args=[JB, JSONPATH], returns=JB)(J.jsonb_path_query_array)
register("jsonb_path_query_first", args=[JB, JSONPATH], returns=JB)(J.jsonb_path_query_first)
register("jsonb_path_exists", args=[JB, JSONPATH], returns=T.BOOL)(J.jsonb_path_exists)
register("jsonb_path_match", args=[JB, JSONPATH], returns=T.BOOL)(J.jsonb_path_match)


def _silent(e: SQLError, path: str) -> None:
    """Silent mode hides the path's errors about the data; a path the evaluator cannot read
    (arithmetic, item methods) is 0A000, never a quiet NULL."""
    if e.sqlstate == "42601":
        raise FeatureNotSupported(f"jsonpath not supported by Cumulo's evaluator: {path}") from e


@register("jsonb_path_exists_opr", args=[JB, JSONPATH], returns=T.BOOL)
def jsonb_path_exists_opr(doc: str, path: str) -> bool | None:
    """`jsonb @? jsonpath`: does the path select anything (NULL on a path error)?"""
    try:
        return J.exists(doc, path)
    except SQLError as e:
        _silent(e, path)
        return None


@register("jsonb_path_match_opr", args=[JB, JSONPATH], returns=T.BOOL)
def jsonb_path_match_opr(doc: str, path: str) -> bool | None:
    """`jsonb @@ jsonpath`: the predicate's result (NULL when not a single boolean)."""
    try:
        return J.jsonb_path_match(doc, path)
    except SQLError as e:
        _silent(e, path)
        return None
