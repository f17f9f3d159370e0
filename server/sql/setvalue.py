"""The right-hand side of SET (and ALTER SYSTEM SET) as a setting's text.

`SET search_path = a, 'b c'` names a list; quotes, E'' strings and DEFAULT
are undone here. A leaf module: the statement analysers that read a SET-like
value (utility, adminstmts) share it.

>>> set_value("'UTC'")
'UTC'
>>> set_value('public, "my schema"')
'public, "my schema"'
>>> set_value("0644"), set_value("'0644'")
('644', '0644')
>>> split_commas("a, 'b,c'")
['a', " 'b,c'"]
"""

from __future__ import annotations

import re

# An integer literal with leading zeros: PostgreSQL 15's lexer reads it as the decimal
# number (0644 is 644), where the quoted '0644' stays text (an octal file mode)
_ZERO_LED = re.compile(r"-?0[0-9]+")


def set_value(text: str) -> str:
    """Turns the right-hand side of SET into the setting's text."""
    parts = []
    for item in split_commas(text):
        v = item.strip()
        if v.upper() == "DEFAULT":
            return ""
        if v[:2].lower() == "e'" and v.endswith("'"):
            v = v[2:-1].encode().decode("unicode_escape")
        elif v.startswith("'") and v.endswith("'"):
            v = v[1:-1].replace("''", "'")
        elif v.startswith('"') and v.endswith('"'):
            v = v[1:-1].replace('""', '"') if "," not in text else v
        elif _ZERO_LED.fullmatch(v):
            v = str(int(v))
        parts.append(v)
    return ", ".join(parts)


def split_commas(text: str) -> list[str]:
    """Splits at the commas outside quotes."""
    out, cur, q = [], [], ""
    for ch in text:
        if q:
            cur.append(ch)
            if ch == q:
                q = ""
        elif ch in "'\"":
            q = ch
            cur.append(ch)
        elif ch == ",":
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return out
