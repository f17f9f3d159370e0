"""PostgreSQL's HINT for a column reference that names no column: the closest column.

`select nam from t` is 42703 with `Perhaps you meant to reference the column "t.name".`
PostgreSQL (parse_relation.c, errorMissingColumn) scores every column of every relation
in FROM, innermost query level first, by Levenshtein distance to the name written, plus,
for a qualified reference, the distance between the qualifier and the relation's name;
join results themselves are skipped (their columns are their inputs'). A column more than
half of whose letters differ, or a total above 3, is no suggestion; two equally close ones
are both named, three are none.

>>> rels = [("t", ["name", "id"]), ("u", ["nome", "idx"])]
>>> column_hint([rels], None, "nam")
'Perhaps you meant to reference the column "t.name".'
>>> column_hint([rels], None, "nme")
'Perhaps you meant to reference the column "t.name" or the column "u.nome".'
>>> column_hint([rels], "j", "idx"), column_hint([rels], None, "zzz")
('Perhaps you meant to reference the column "u.idx".', None)
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["column_hint", "levenshtein"]

MAX_FUZZY_DISTANCE = 3

Relations = Sequence[tuple[str, Sequence[str]]]  # (relation name, its column names)


def levenshtein(a: str, b: str) -> int:
    """The edit distance between `a` and `b` (insert, delete, substitute: 1 each).

    >>> levenshtein("name", "nme"), levenshtein("", "ab")
    (1, 2)
    """
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def column_hint(levels: Sequence[Relations], qualifier: str | None, name: str) -> str | None:
    """The HINT of 42703 for `[qualifier.]name`, given each query level's relations
    (innermost first), or None when no column is close enough."""
    distance = MAX_FUZZY_DISTANCE + 1
    first: tuple[str, str | None] | None = None  # (relation, column); column None: exact
    second: tuple[str, str] | None = None
    for rels in levels:
        for rel, columns in rels:
            penalty = levenshtein(qualifier, rel) if qualifier is not None else 0
            exact = False
            for col in columns:
                if not col:
                    continue
                exact = exact or col == name
                d = levenshtein(col, name)
                if d > len(name) // 2:
                    continue
                d += penalty
                if d < distance:
                    distance, first, second = d, (rel, col), None
                elif d == distance:
                    if second is not None:  # NB: three equally close: none is a suggestion
                        first = second = None
                        distance = d - 1
                    elif first is not None:
                        second = (rel, col)
                    elif distance <= MAX_FUZZY_DISTANCE:
                        first = (rel, col)
            if exact and penalty == 0:
                first, second = (rel, None), None
                break
        else:
            continue
        break
    if first is None:
        return None
    if first[1] is None:
        return (f'There is a column named "{name}" in table "{first[0]}", but it cannot be '
                "referenced from this part of the query.")
    if second is None:
        return f'Perhaps you meant to reference the column "{first[0]}.{first[1]}".'
    return (f'Perhaps you meant to reference the column "{first[0]}.{first[1]}" or the '
            f'column "{second[0]}.{second[1]}".')
