"""jsonb_set, jsonb_insert, jsonb_delete_path and the other jsonb/json functions that build a
changed copy of a document, plus the functions behind the jsonb operators (@>, ?, #>).

Why one module: they share PostgreSQL's `setPath` walk (jsonfuncs.c), whose corners users
hit: a path that runs into a scalar leaves the document unchanged, an array index past
either end appends or prepends when creating, a negative index counts from the end, and
a non-integer step on an array is 22P02. The walk works on the parsed value (`jsonfns.parse`)
and prints with `jsonb_text`, so the output keeps jsonb's key order (shorter keys first).

>>> jsonb_set('{"a": [1, 2]}', ["a", "-1"], '9', True)
'{"a": [1, 9]}'
>>> jsonb_set('{"a": [1, 2]}', ["a", "5"], '9', True), jsonb_insert('[1, 2]', ["0"], '0', False)
('{"a": [1, 2, 9]}', '[0, 1, 2]')
>>> jsonb_delete_path('{"a": {"b": 1, "c": 2}}', ["a", "b"])
'{"a": {"c": 2}}'
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from json.decoder import scanstring  # type: ignore[attr-defined]  # NB: in the stdlib, not its stubs
from typing import Any

from ...errors import (
    ArraySubscriptError,
    FeatureNotSupported,
    InvalidParameterValue,
    InvalidTextRepresentation,
    NullValueNotAllowed,
    SQLError,
)
from ...pgtypes import oids as T
from . import jsonpath as JP
from .jsonfns import jsonb_text, parse, quote
from .registry import register

J, JB, TEXTS = T.JSON, T.JSONB, T.ARRAY_OF[T.TEXT]
JSONPATH = 4072

# setPath's operations (jsonfuncs.c's JB_PATH_* flags)
CREATE, DELETE, REPLACE, INSERT_BEFORE, INSERT_AFTER = 1, 2, 4, 8, 16
CREATE_OR_INSERT = CREATE | INSERT_BEFORE | INSERT_AFTER
_INT_MIN = -(2**31)


def _index(step: str, level: int) -> int:
    """An array step as PostgreSQL's strtoint reads it (22P02 when it is not an integer)."""
    s = step.lstrip(" \t\n\r\f\v")
    body = s[1:] if s[:1] in "+-" else s
    if not body.isdigit() or not body.isascii() or not (_INT_MIN <= int(s) < 2**31):
        raise InvalidTextRepresentation(
            f'path element at position {level + 1} is not an integer: "{step}"')
    return int(s)


def _set_path(v: Any, path: list[str | None], level: int, new: Any, op: int) -> Any:
    """The value `v` with the path from `level` on set, inserted or deleted (setPath)."""
    if path[level] is None:
        raise NullValueNotAllowed(f"path element at position {level + 1} is null")
    if isinstance(v, dict):
        return _set_object(v, path, level, new, op)
    if isinstance(v, list):
        return _set_array(v, path, level, new, op)
    return v  # NB: a path running into a scalar changes nothing


def _set_object(v: dict, path: list[str | None], level: int, new: Any, op: int) -> dict:
    key = path[level]
    last = level == len(path) - 1
    out = dict(v)
    if key in v:
        if not last:
            out[key] = _set_path(v[key], path, level + 1, new, op)
        elif op & (INSERT_BEFORE | INSERT_AFTER):
            raise InvalidParameterValue("cannot replace existing key",
                                        hint="Try using the function jsonb_set to replace key value.")
        elif op & DELETE:
            del out[key]
        else:
            out[key] = new
    elif last and op & CREATE_OR_INSERT:
        out[str(key)] = new
    return out


def _set_array(v: list, path: list[str | None], level: int, new: Any, op: int) -> list:
    n = len(v)
    idx = _index(str(path[level]), level)
    if idx < 0:
        idx = _INT_MIN if -idx > n else n + idx
    idx = min(idx, n)
    last = level == len(path) - 1
    out: list = []
    done = False
    if (idx == _INT_MIN or n == 0) and last and op & CREATE_OR_INSERT:
        out.append(new)
        done = True
    for i, x in enumerate(v):
        if i != idx:
            out.append(x)
        elif not last:
            out.append(_set_path(x, path, level + 1, new, op))
        else:
            if op & (INSERT_BEFORE | CREATE):
                out.append(new)
            if op & (INSERT_AFTER | INSERT_BEFORE):
                out.append(x)
            if op & (INSERT_AFTER | REPLACE):
                out.append(new)
            done = True
    if op & CREATE_OR_INSERT and not done and last:
        out.append(new)
    return out


def _modify(doc: str, path: list[str | None], new: Any, op: int, what: str) -> str:
    v = parse(doc)
    if not isinstance(v, dict | list):
        raise InvalidParameterValue(f"cannot {what} path in scalar")
    if not path:
        return jsonb_text(v)
    return jsonb_text(_set_path(v, path, 0, new, op))


@register("jsonb_set", args=[JB, TEXTS, JB, T.BOOL], returns=JB, oid=3305)
def jsonb_set(doc: str, path: list[str | None], new: str, create: bool) -> str:
    """Replaces (or, with create_if_missing, adds) the value at `path`."""
    return _modify(doc, path, parse(new), CREATE if create else REPLACE, "set")


@register("jsonb_insert", args=[JB, TEXTS, JB, T.BOOL], returns=JB, oid=3579)
def jsonb_insert(doc: str, path: list[str | None], new: str, after: bool) -> str:
    """Inserts before (or after) the array element at `path`, or adds a missing key."""
    return _modify(doc, path, parse(new), INSERT_AFTER if after else INSERT_BEFORE, "set")


@register("jsonb_delete_path", args=[JB, TEXTS], returns=JB, oid=3304)
def jsonb_delete_path(doc: str, path: list[str | None]) -> str:
    """`jsonb #- text[]`: the document without the value at `path`."""
    v = parse(doc)
    if not isinstance(v, dict | list):
        raise InvalidParameterValue("cannot delete path in scalar")
    if not v or not path:  # NB: PostgreSQL returns an empty container before reading the path
        return jsonb_text(v)
    return jsonb_text(_set_path(v, path, 0, None, DELETE))


_TREATMENTS = ("delete_key", "return_target", "use_json_null", "raise_exception")


@register("jsonb_set_lax", args=[JB, TEXTS, JB, T.BOOL, T.TEXT], returns=JB, strict=False,
          oid=5054)
def jsonb_set_lax(doc: str | None, path: list[str | None] | None, new: str | None,
                  create: bool | None, treatment: str | None) -> str | None:
    """jsonb_set whose SQL NULL replacement is treated as `null_value_treatment` says. Not
    strict, yet a NULL target, path or create_if_missing answers NULL before anything else."""
    if doc is None or path is None or create is None:
        return None
    if treatment is None:
        raise InvalidParameterValue(
            'null_value_treatment must be "delete_key", "return_target", "use_json_null", '
            'or "raise_exception"')
    if new is not None:
        return jsonb_set(doc, path, new, create)
    if treatment == "raise_exception":
        raise NullValueNotAllowed(
            "JSON value must not be null",
            detail='Exception was raised because null_value_treatment is "raise_exception".',
            hint="To avoid, either change the null_value_treatment argument or ensure that an "
                 "SQL NULL is not passed.")
    if treatment == "use_json_null":
        return jsonb_set(doc, path, "null", create)
    if treatment == "delete_key":
        return jsonb_delete_path(doc, path)
    if treatment == "return_target":
        return doc
    raise InvalidParameterValue(
        'null_value_treatment must be "delete_key", "return_target", "use_json_null", '
        'or "raise_exception"')


# --- strip_nulls -----------------------------------------------------------------------


def _strip(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _strip(x) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [_strip(x) for x in v]
    return v


@register("jsonb_strip_nulls", args=[JB], returns=JB, oid=3262)
def jsonb_strip_nulls(doc: str) -> str:
    """Drops every object field whose value is null, at any depth (array nulls stay)."""
    return jsonb_text(_strip(parse(doc)))


class _Raw(str):
    """A json number kept as written: json_strip_nulls re-emits the input's tokens."""


def _reject(name: str) -> Any:
    raise SQLError("invalid input syntax for type json", sqlstate="22P02")


def _json_tokens(v: Any) -> str:
    """Prints a json value parsed with duplicate keys and raw numbers kept, without blanks."""
    if isinstance(v, _Raw):
        return str(v)
    if isinstance(v, str):
        return quote(v)
    if isinstance(v, tuple):  # an object: its (key, value) pairs in input order
        return "{" + ",".join(f"{quote(k)}:{_json_tokens(x)}" for k, x in v if x is not None) + "}"
    if isinstance(v, list):
        return "[" + ",".join(_json_tokens(x) for x in v) + "]"
    return "null" if v is None else "true" if v else "false"


@register("json_strip_nulls", args=[J], returns=J, oid=3261)
def json_strip_nulls(doc: str) -> str:
    """Drops null-valued object fields of a json value, keeping its key order, duplicate
    keys and number spellings, and writing no blanks (as PostgreSQL re-emits the tokens)."""
    try:
        v = json.loads(doc, object_pairs_hook=tuple, parse_float=_Raw, parse_int=_Raw,
                       parse_constant=_reject)
    except ValueError:
        raise SQLError("invalid input syntax for type json", sqlstate="22P02") from None
    return _json_tokens(v)


# --- json_object / jsonb_object ----------------------------------------------------------


def _depth(a: Any) -> int:
    return 1 + _depth(a[0]) if isinstance(a, list) and a else 1 if isinstance(a, list) else 0


def _pairs_of(a: list) -> list[tuple[str | None, str | None]]:
    """The (key, value) pairs of json_object's one-array form: flat, or rows of two."""
    if not a:
        return []
    if _depth(a) == 1:
        if len(a) % 2:
            raise ArraySubscriptError("array must have even number of elements")
        return list(zip(a[0::2], a[1::2], strict=True))
    if _depth(a) == 2:
        if any(len(row) != 2 for row in a):
            raise ArraySubscriptError("array must have two columns")
        return [(row[0], row[1]) for row in a]
    raise ArraySubscriptError("wrong number of array subscripts")


def _zip_pairs(keys: list, values: list) -> list[tuple[str | None, str | None]]:
    if _depth(keys) > 1 or _depth(values) > 1:
        raise ArraySubscriptError("wrong number of array subscripts")
    if len(keys) != len(values):
        raise ArraySubscriptError("mismatched array dimensions")
    return list(zip(keys, values, strict=True))


def _checked(pairs: list[tuple[str | None, str | None]]) -> list[tuple[str, str | None]]:
    out = []
    for k, v in pairs:
        if k is None:
            raise NullValueNotAllowed("null value not allowed for object key")
        out.append((k, v))
    return out


def _json_object_text(pairs: list[tuple[str | None, str | None]]) -> str:
    body = ", ".join(f"{quote(k)} : {'null' if v is None else quote(v)}"
                     for k, v in _checked(pairs))
    return "{" + body + "}"


def _jsonb_object_text(pairs: list[tuple[str | None, str | None]]) -> str:
    return jsonb_text(dict(_checked(pairs)))


@register("json_object", args=[TEXTS], returns=J, oid=3202)
def json_object(a: list) -> str:
    """json_object('{k1, v1, k2, v2}') or '{{k1, v1}, {k2, v2}}': values are strings."""
    return _json_object_text(_pairs_of(a))


@register("json_object", args=[TEXTS, TEXTS], returns=J, oid=3203)
def json_object_kv(keys: list, values: list) -> str:
    """json_object(keys, values): pairs the two arrays' elements."""
    return _json_object_text(_zip_pairs(keys, values))


@register("jsonb_object", args=[TEXTS], returns=JB, oid=3263)
def jsonb_object(a: list) -> str:
    """jsonb_object('{k1, v1, ...}'): as json_object, as jsonb (a repeated key keeps its last)."""
    return _jsonb_object_text(_pairs_of(a))


@register("jsonb_object", args=[TEXTS, TEXTS], returns=JB, oid=3264)
def jsonb_object_kv(keys: list, values: list) -> str:
    """jsonb_object(keys, values)."""
    return _jsonb_object_text(_zip_pairs(keys, values))


# --- extract_path, existence, containment ------------------------------------------------


def _extract(doc: str, path: tuple[str | None, ...]) -> str | None:
    """The value at `path` (get_jsonb_path_all): NULL for a missing step, a NULL step or
    a step that is not an integer on an array, or any step into a scalar."""
    if any(p is None for p in path):
        return None
    v: Any = parse(doc)
    for p in path:
        if isinstance(v, dict):
            if p not in v:
                return None
            v = v[p]
        elif isinstance(v, list):
            try:
                i = _index(str(p), 0)
            except SQLError:
                return None
            if i < 0:
                i += len(v)
            if not 0 <= i < len(v):
                return None
            v = v[i]
        else:
            return None
    return jsonb_text(v)


@register("jsonb_extract_path", args=None, returns=JB, oid=3217)
def jsonb_extract_path(doc: str, *path: str | None) -> str | None:
    """`jsonb #> text[]`, with the path as VARIADIC arguments."""
    return _extract(doc, path)


_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")


def _children(s: str, i: int) -> list[tuple[str | None, int]]:
    """The members of the object or array at s[i]: (key or None, where its value starts)."""
    close = "}" if s[i] == "{" else "]"
    out: list[tuple[str | None, int]] = []
    i = _WS.match(s, i + 1).end()  # type: ignore[union-attr]
    while s[i] != close:
        key = None
        if close == "}":
            key, i = scanstring(s, i + 1)
            i = _WS.match(s, i).end()  # type: ignore[union-attr]
            if s[i] != ":":
                raise ValueError(i)
            i = _WS.match(s, i + 1).end()  # type: ignore[union-attr]
        out.append((key, i))
        i = _WS.match(s, _value_end(s, i)).end()  # type: ignore[union-attr]
        if s[i] == ",":
            i = _WS.match(s, i + 1).end()  # type: ignore[union-attr]
        elif s[i] != close:
            raise ValueError(i)
    return out


def _value_end(s: str, i: int) -> int:
    """Where the json value starting at s[i] ends."""
    c = s[i]
    if c == '"':
        return scanstring(s, i + 1)[1]
    if c in "{[":
        kids = _children(s, i)
        j = _value_end(s, kids[-1][1]) if kids else i + 1
        return s.index("}" if c == "{" else "]", j) + 1
    for word in ("true", "false", "null"):
        if s.startswith(word, i):
            return i + len(word)
    m = _NUMBER.match(s, i)
    if m is None or m.end() == i:
        raise ValueError(i)
    return m.end()


def _lookup(s: str, i: int, path: tuple[str | None, ...], level: int) -> tuple[int, int] | None:
    """The span of the value at `path` below s[i]; of repeated keys the last match wins."""
    if level == len(path):
        return i, _value_end(s, i)
    if s[i] == "{":
        found = None
        for key, start in _children(s, i):
            if key == path[level]:
                found = _lookup(s, start, path, level + 1) or found
        return found
    if s[i] == "[":
        kids = _children(s, i)
        try:
            n = _index(str(path[level]), level)
        except SQLError:
            return None
        n = n + len(kids) if n < 0 else n
        return _lookup(s, kids[n][1], path, level + 1) if 0 <= n < len(kids) else None
    return None


@register("json_extract_path", args=None, returns=J, oid=3951)
def json_extract_path(doc: str, *path: str | None) -> str | None:
    """`json #> text[]`, with the path as VARIADIC arguments: the value's text as written in
    the document (its blanks and number spellings), as PostgreSQL's json functions return it.

    >>> json_extract_path('{"a": {"b":  [1,2.50]}, "c": 1}', "a", "b", "-1")
    '2.50'
    """
    if any(p is None for p in path):
        return None
    try:
        span = _lookup(doc, _WS.match(doc).end(), path, 0)  # type: ignore[union-attr]
    except (ValueError, IndexError):
        raise SQLError("invalid input syntax for type json", sqlstate="22P02") from None
    return None if span is None else doc[span[0]:span[1]]


def _has_key(v: Any, key: str) -> bool:
    if isinstance(v, dict):
        return key in v
    if isinstance(v, list):
        return any(isinstance(x, str) and x == key for x in v)
    return isinstance(v, str) and v == key


@register("jsonb_exists", args=[JB, T.TEXT], returns=T.BOOL, oid=4047)
def jsonb_exists(doc: str, key: str) -> bool:
    """`jsonb ? text`: a top-level key, or a string element of a top-level array."""
    return _has_key(parse(doc), key)


@register("jsonb_exists_any", args=[JB, TEXTS], returns=T.BOOL, oid=4048)
def jsonb_exists_any(doc: str, keys: list[str | None]) -> bool:
    """`jsonb ?| text[]` (NULL elements are ignored)."""
    v = parse(doc)
    return any(k is not None and _has_key(v, k) for k in keys)


@register("jsonb_exists_all", args=[JB, TEXTS], returns=T.BOOL, oid=4049)
def jsonb_exists_all(doc: str, keys: list[str | None]) -> bool:
    """`jsonb ?& text[]` (NULL elements are ignored)."""
    v = parse(doc)
    return all(k is None or _has_key(v, k) for k in keys)


def _contained(sub: Any, sup: Any, top: bool) -> bool:
    """PostgreSQL's jsonb containment: objects by key, arrays as sets of elements, and at
    the top a scalar is contained in an array holding it."""
    if isinstance(sub, dict):
        return isinstance(sup, dict) and all(
            k in sup and _contained(x, sup[k], False) for k, x in sub.items())
    if isinstance(sub, list):
        return isinstance(sup, list) and all(
            any(_contained(x, y, False) for y in sup) for x in sub)
    if isinstance(sup, list) and top:
        return any(not isinstance(y, dict | list) and type(y) is type(sub) and y == sub
                   for y in sup)
    return not isinstance(sup, dict | list) and type(sub) is type(sup) and sub == sup


@register("jsonb_contains", args=[JB, JB], returns=T.BOOL, oid=4046)
def jsonb_contains(a: str, b: str) -> bool:
    """`jsonb @> jsonb`."""
    return _contained(parse(b), parse(a), True)


@register("jsonb_contained", args=[JB, JB], returns=T.BOOL, oid=4050)
def jsonb_contained(a: str, b: str) -> bool:
    """`jsonb <@ jsonb`."""
    return _contained(parse(a), parse(b), True)


# --- jsonb_path_*_tz: the timezone-aware forms, which evaluate as the plain ones here ----


def _path_tz(fn: Callable[[str, str], Any], on_error: Any) -> Callable[..., Any]:
    """fn(target, path) with PostgreSQL's `vars` and `silent` parameters: `vars` must be an
    object, and one naming variables is refused (0A000: the evaluator has no variables);
    `silent` turns the path's errors about the data into `on_error` (NULL, or no rows)."""

    def call(doc: str, path: str, variables: str = "{}", silent: bool = False) -> Any:
        v = parse(variables)
        if not isinstance(v, dict):
            raise InvalidParameterValue(
                '"vars" argument is not an object',
                detail='Jsonpath parameters should be encoded as key-value pairs of "vars" object.')
        if v:
            raise FeatureNotSupported("jsonpath variables are not supported by Cumulo's evaluator")
        try:
            return fn(doc, path)
        except SQLError as e:
            if not silent or e.sqlstate in ("42601", "0A000"):
                raise
            return on_error

    return call


for _name, _fn, _ret, _oid, _none in (
        ("jsonb_path_exists_tz", JP.jsonb_path_exists, T.BOOL, 1177, None),
        ("jsonb_path_match_tz", JP.jsonb_path_match, T.BOOL, 2030, None),
        ("jsonb_path_query_tz", JP.jsonb_path_query, JB, 1179, []),
        ("jsonb_path_query_array_tz", JP.jsonb_path_query_array, JB, 1180, "[]"),
        ("jsonb_path_query_first_tz", JP.jsonb_path_query_first, JB, 2023, None)):
    _impl = _path_tz(_fn, _none)
    _impl.__doc__ = f"{_fn.__name__} with vars and silent: {_fn.__doc__}"
    _srf = _name == "jsonb_path_query_tz"
    register(_name, args=[JB, JSONPATH, JB, T.BOOL], returns=_ret, set_returning=_srf,
             oid=_oid)(_impl)
    register(_name, args=[JB, JSONPATH, JB], returns=_ret, set_returning=_srf)(_impl)
    register(_name, args=[JB, JSONPATH], returns=_ret, set_returning=_srf)(_impl)
