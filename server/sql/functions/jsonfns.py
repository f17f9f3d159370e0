"""JSON construction and access functions: to_json, json_build_object, the -> / ->> helpers.

json and jsonb values are text. `json` output keeps PostgreSQL's spacing
(`{"a" : 1}` from json_build_object, `[1,2]` from to_json of an array);
`jsonb` output is normalised as PostgreSQL prints it (keys ordered by length
then bytes, `{"a": 1, "b": [1, 2]}`). Numbers are parsed as Decimal so that
they print back unchanged.

NB: the functions see Python values, not SQL types; the binder marks json-typed
arguments of `any` parameters as `JsonText` (pgtypes.jsonvalue), which the
builders embed as JSON rather than as a string.
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from ...errors import InvalidParameterValue, SQLError
from ...pgtypes import oids as T
from ...pgtypes.jsonvalue import JsonText
from ...pgtypes.text import format_json_datetime
from ..expr.casts import to_text
from .registry import ANY, register

J, JB = T.JSON, T.JSONB


def quote(s: str) -> str:
    """Returns s as a JSON string literal, escaped as PostgreSQL escapes it."""
    out = ['"']
    for ch in s:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch in "\b\f\n\r\t":
            out.append({"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch])
        elif ch < " ":
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def value_json(v: Any, item_sep: str = ",") -> str:
    """Converts a SQL value to JSON text, as to_json does."""
    if v is None:
        return "null"
    if isinstance(v, JsonText):
        return str(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | Decimal):
        return str(v)
    if isinstance(v, float):
        text = to_text(v)
        return text if text not in ("NaN", "Infinity", "-Infinity") else quote(text)
    if isinstance(v, dt.datetime | dt.date | dt.time):
        return quote(format_json_datetime(v))  # timestamptz in the session zone
    if isinstance(v, list):
        return "[" + item_sep.join(value_json(x, item_sep) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(f"{quote(k)}:{value_json(x)}" for k, x in v.items()) + "}"
    if isinstance(v, uuid.UUID | str):
        return quote(str(v))
    return quote(to_text(v))


def parse(text: str) -> Any:
    """Parses JSON text, numbers as Decimal (22P02 on bad input)."""
    try:
        return json.loads(text, parse_float=Decimal, parse_int=Decimal)
    except (ValueError, TypeError):
        raise SQLError("invalid input syntax for type json", sqlstate="22P02") from None


def jsonb_text(v: Any) -> str:
    """Prints a parsed JSON value as jsonb output does."""
    if isinstance(v, dict):
        keys = sorted(v, key=lambda k: (len(k.encode()), k.encode()))
        return "{" + ", ".join(f"{quote(k)}: {jsonb_text(v[k])}" for k in keys) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(jsonb_text(x) for x in v) + "]"
    if isinstance(v, Decimal) and v.is_finite():  # jsonb numbers are numeric: never 1E+20
        return format(v, "f")
    return value_json(v)


def _compact(v: Any) -> str:
    if isinstance(v, dict):
        return "{" + ", ".join(f"{quote(k)}: {_compact(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_compact(x) for x in v) + "]"
    return value_json(v)


@register("to_json", args=[ANY], returns=J, strict=False)
def to_json(v: Any) -> str | None:
    """Converts a value to json."""
    return None if v is None else value_json(v)


@register("to_jsonb", args=[ANY], returns=JB, strict=False)
def to_jsonb(v: Any) -> str | None:
    """Converts a value to jsonb."""
    return None if v is None else jsonb_text(parse(value_json(v)))


@register("array_to_json", args=[T.ANYARRAY], returns=J)
def array_to_json(v: list[Any]) -> str:
    """Converts an array to a json array."""
    return value_json(v)


def _pairs(args: tuple[Any, ...]) -> list[tuple[str, Any]]:
    if len(args) % 2:
        raise InvalidParameterValue("argument list must have even number of elements",
                                    hint="The arguments of json_build_object() must consist of "
                                    "alternating keys and values.")
    out = []
    for n in range(0, len(args), 2):
        if args[n] is None:
            raise SQLError("null value not allowed for object key", sqlstate="22004")
        out.append((to_text(args[n]), args[n + 1]))
    return out


@register("json_build_object", args=None, returns=J, strict=False)
def json_build_object(*args: Any) -> str:
    """Builds a json object from alternating keys and values."""
    return "{" + ", ".join(f"{quote(k)} : {value_json(v)}" for k, v in _pairs(args)) + "}"


def row_json_object(*args: Any) -> str:
    """row_to_json's object: json_build_object's pairs without its spaces (`{"a":1,"b":2}`)."""
    return "{" + ",".join(f"{quote(k)}:{value_json(v)}" for k, v in _pairs(args)) + "}"


@register("jsonb_build_object", args=None, returns=JB, strict=False)
def jsonb_build_object(*args: Any) -> str:
    """Builds a jsonb object from alternating keys and values."""
    return jsonb_text({k: parse(value_json(v)) for k, v in _pairs(args)})


@register("json_build_array", args=None, returns=J, strict=False)
def json_build_array(*args: Any) -> str:
    """Builds a json array of the arguments."""
    return "[" + ", ".join(value_json(v) for v in args) + "]"


@register("jsonb_build_array", args=None, returns=JB, strict=False)
def jsonb_build_array(*args: Any) -> str:
    """Builds a jsonb array of the arguments."""
    return jsonb_text([parse(value_json(v)) for v in args])


def _out(v: Any, binary: bool) -> str:
    return jsonb_text(v) if binary else _compact(v)


def _as_text(v: Any, binary: bool) -> str | None:
    if v is None:
        return None
    if isinstance(v, str):
        return v
    return _out(v, binary)


def _field(doc: str, key: str) -> Any:
    v = parse(doc)
    return v.get(key) if isinstance(v, dict) else None


_MISSING = object()  # NB: not None, which is a JSON null element


def _element(doc: str, n: int, binary: bool = False) -> Any:
    """An array's element, or _MISSING. A jsonb scalar is stored as a one-element array in
    PostgreSQL, so `'5'::jsonb -> 0` (and `-> -1`) is the scalar itself."""
    v = parse(doc)
    if binary and not isinstance(v, list | dict):
        v = [v]
    if not isinstance(v, list):
        return _MISSING
    n = n + len(v) if n < 0 else n
    return v[n] if 0 <= n < len(v) else _MISSING


def _register_accessors(binary: bool, typ: int, prefix: str) -> None:
    def object_field(doc: str, key: str) -> str | None:
        """Returns a field of an object (the -> operator)."""
        v = parse(doc)
        return _out(v[key], binary) if isinstance(v, dict) and key in v else None

    def object_field_text(doc: str, key: str) -> str | None:
        """Returns a field of an object as text (the ->> operator)."""
        return _as_text(_field(doc, key), binary)

    def array_element(doc: str, n: int) -> str | None:
        """Returns an element of an array (negative n counts from the end)."""
        found = _element(doc, n, binary)
        return None if found is _MISSING else _out(found, binary)

    def array_element_text(doc: str, n: int) -> str | None:
        """Returns an element of an array as text."""
        found = _element(doc, n, binary)
        return None if found is _MISSING else _as_text(found, binary)

    def typeof(doc: str) -> str:
        """Returns the JSON type name of the value."""
        v = parse(doc)
        kinds = ((dict, "object"), (list, "array"), (str, "string"), (bool, "boolean"),
                 (Decimal, "number"))
        return next((name for py, name in kinds if isinstance(v, py)), "null")

    def array_length(doc: str) -> int:
        """Returns the number of elements of an array."""
        v = parse(doc)
        if not isinstance(v, list):
            raise InvalidParameterValue("cannot get array length of a " + (
                "non-array" if isinstance(v, dict) else "scalar"))
        return len(v)

    def extract_path_text(doc: str, *path: str) -> str | None:
        """Follows a path of keys and indexes and returns the value as text."""
        v: Any = parse(doc)
        for p in path:
            if isinstance(v, dict):
                v = v.get(p)
            elif isinstance(v, list) and p.lstrip("-").isdigit():
                v = v[int(p)] if -len(v) <= int(p) < len(v) else None
            else:
                return None
        return _as_text(v, binary)

    def object_keys(doc: str) -> Iterator[str]:
        """Yields an object's keys."""
        v = parse(doc)
        if not isinstance(v, dict):
            raise InvalidParameterValue(f"cannot call {prefix}_object_keys on a non-object")
        return iter(sorted(v, key=lambda k: (len(k), k)) if binary else list(v))

    def each(doc: str) -> Iterator[tuple[str, str]]:
        """Yields an object's (key, value) pairs."""
        v = parse(doc)
        if not isinstance(v, dict):
            raise InvalidParameterValue(f"cannot call {prefix}_each on a non-object")
        return ((k, _out(x, binary)) for k, x in v.items())

    def each_text(doc: str) -> Iterator[tuple[str, str | None]]:
        """Yields an object's (key, value as text) pairs."""
        v = parse(doc)
        if not isinstance(v, dict):
            raise InvalidParameterValue(f"cannot call {prefix}_each_text on a non-object")
        return ((k, _as_text(x, binary)) for k, x in v.items())

    def array_elements(doc: str) -> Iterator[str]:
        """Yields an array's elements."""
        v = parse(doc)
        if not isinstance(v, list):
            raise InvalidParameterValue("cannot extract elements from an object")
        return (_out(x, binary) for x in v)

    def array_elements_text(doc: str) -> Iterator[str | None]:
        """Yields an array's elements as text."""
        v = parse(doc)
        if not isinstance(v, list):
            raise InvalidParameterValue("cannot extract elements from an object")
        return (_as_text(x, binary) for x in v)

    register(f"{prefix}_object_field", args=[typ, T.TEXT], returns=typ)(object_field)
    register(f"{prefix}_object_field_text", args=[typ, T.TEXT],
             returns=T.TEXT)(object_field_text)
    register(f"{prefix}_array_element", args=[typ, T.INT4], returns=typ)(array_element)
    register(f"{prefix}_array_element_text", args=[typ, T.INT4],
             returns=T.TEXT)(array_element_text)
    register(f"{prefix}_typeof", args=[typ], returns=T.TEXT)(typeof)
    register(f"{prefix}_array_length", args=[typ], returns=T.INT4)(array_length)
    register(f"{prefix}_extract_path_text", args=None, returns=T.TEXT)(extract_path_text)
    register(f"{prefix}_object_keys", args=[typ], returns=T.TEXT,
             set_returning=True)(object_keys)
    register(f"{prefix}_each", args=[typ], returns=T.RECORD, set_returning=True,
             out_columns=[("key", T.TEXT), ("value", typ)])(each)
    register(f"{prefix}_each_text", args=[typ], returns=T.RECORD, set_returning=True,
             out_columns=[("key", T.TEXT), ("value", T.TEXT)])(each_text)
    register(f"{prefix}_array_elements", args=[typ], returns=typ,
             set_returning=True)(array_elements)
    register(f"{prefix}_array_elements_text", args=[typ], returns=T.TEXT,
             set_returning=True)(array_elements_text)

for _b, _t in ((False, J), (True, JB)):
    _register_accessors(_b, _t, "jsonb" if _b else "json")


@register("jsonb_pretty", args=[JB], returns=T.TEXT)
def jsonb_pretty(doc: str) -> str:
    """Prints jsonb indented by four spaces, as PostgreSQL does."""
    def pretty(v: Any, depth: int) -> str:
        pad, inner = "    " * depth, "    " * (depth + 1)
        if isinstance(v, dict) and v:
            keys = sorted(v, key=lambda k: (len(k.encode()), k.encode()))
            body = ",\n".join(f"{inner}{quote(k)}: {pretty(v[k], depth + 1)}" for k in keys)
            return "{\n" + body + "\n" + pad + "}"
        if isinstance(v, list) and v:
            body = ",\n".join(inner + pretty(x, depth + 1) for x in v)
            return "[\n" + body + "\n" + pad + "]"
        if isinstance(v, dict | list):  # NB: PostgreSQL breaks empty containers over two lines
            return ("{\n" + pad + "}") if isinstance(v, dict) else ("[\n" + pad + "]")
        return jsonb_text(v)

    return pretty(parse(doc), 0)
