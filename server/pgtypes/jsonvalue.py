"""A json/jsonb value seen by a function that takes "any": text that is already JSON.

Why: json and jsonb values travel through the executor as their text, so a
function declared over `any` (json_build_object, to_json, jsonb_build_array)
cannot tell the jsonb `{"b": 1}` from the text `'{"b": 1}'`. PostgreSQL embeds
the first as an object and the second as a string. The binder marks json-typed
arguments of such functions with `mark`, and the JSON builders embed a
`JsonText` verbatim instead of quoting it.

>>> mark('{"b": 1}')
JsonText('{"b": 1}')
>>> mark(['1', None])
[JsonText('1'), None]
"""

from __future__ import annotations

from typing import Any


class JsonText(str):
    """JSON text that a JSON builder embeds as JSON, not as a string."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"JsonText({str.__repr__(self)})"


def mark(v: Any) -> Any:
    """Returns a json value (or a json[] array, nested) with every element marked as JSON."""
    if v is None or isinstance(v, JsonText):
        return v
    if isinstance(v, list):
        return [mark(x) for x in v]
    return JsonText(v)
