"""A SQL list split at its top-level commas: those in no parentheses and no quotes.

DDL that sqlglot does not read is matched as text here and there (ALTER TYPE's actions,
a partition key's items in the catalog), and their lists hold commas inside calls,
type modifiers and literals that do not separate items.

>>> split_top_level("add attribute a numeric(5,2), drop attribute b")
['add attribute a numeric(5,2)', 'drop attribute b']
>>> split_top_level("\\"a,b\\", date_trunc('month', ts), ',' ")
['"a,b"', "date_trunc('month', ts)", "','"]
"""

from __future__ import annotations


def split_top_level(text: str) -> list[str]:
    """The items of a comma-separated list, stripped (see the module docstring)."""
    out, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
    out.append(text[start:].strip())
    return out
