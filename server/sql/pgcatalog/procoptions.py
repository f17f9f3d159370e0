"""A routine's SECURITY DEFINER and SET clauses as pg_get_functiondef prints them.

ruleutils puts SECURITY DEFINER on the options line (after the volatility and STRICT)
and each proconfig item on a line of its own: `SET name TO 'value'`, the name quoted as
an identifier, a list setting's (search_path's) items each quoted.

>>> print(config_lines(('search_path=pg_catalog, "a b"', "TimeZone=UTC")), end="")
 SET search_path TO 'pg_catalog', 'a b'
 SET "TimeZone" TO 'UTC'
"""

from __future__ import annotations

from .names import quote_ident

_LIST_SETTINGS = frozenset({"search_path", "temp_tablespaces", "session_preload_libraries",
                            "shared_preload_libraries", "local_preload_libraries"})


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def config_lines(config: tuple[str, ...]) -> str:
    """The ` SET name TO value` lines of proconfig's `name=value` items."""
    out = []
    for item in config:
        name, _, value = item.partition("=")
        if name.lower() in _LIST_SETTINGS:
            items = [i.strip() for i in value.split(",") if i.strip()]
            shown = ", ".join(_literal(i[1:-1].replace('""', '"') if i.startswith('"') else i)
                              for i in items) or "''"
        else:
            shown = _literal(value)
        out.append(f" SET {quote_ident(name)} TO {shown}\n")
    return "".join(out)
