"""ACLs as PostgreSQL keeps them: `grantee=privileges/grantor` items, letters per privilege.

An object's ACL is None until the first GRANT or REVOKE touches it: None means
the default of its kind (the owner has every privilege; PUBLIC has EXECUTE on
functions, CONNECT and TEMPORARY on databases), as a NULL `relacl` does in
PostgreSQL. The first change materializes that default and edits it, so
`\\dp` shows the same items PostgreSQL shows.

Items are stored by role OID (`16390=arwd/10`, PUBLIC is OID 0 and prints as
an empty grantee), so renaming a role renames it in every ACL; `aclitem_text`
prints them with names.

>>> default_acl("table", 10)
('10=arwdDxt/10',)
>>> add(default_acl("table", 10), 0, "r", 10)
('10=arwdDxt/10', '0=r/10')
>>> remove(add((), 5, "arw", 10), 5, "w")
('5=ar/10',)
>>> privileges_of(("10=arwdDxt/10", "0=r/10", "5=a*/10"), {5, 0})
'ra'
"""

from __future__ import annotations

from ..catalog.model import CatalogSnapshot

PUBLIC = 0
PG_DATABASE_OWNER = 6171  # the predefined role that owns `public` (PostgreSQL 15)

PRIV_LETTERS = {"SELECT": "r", "INSERT": "a", "UPDATE": "w", "DELETE": "d", "TRUNCATE": "D",
                "REFERENCES": "x", "TRIGGER": "t", "EXECUTE": "X", "USAGE": "U", "CREATE": "C",
                "CONNECT": "c", "TEMPORARY": "T", "TEMP": "T"}
LETTER_NAMES = {v: k for k, v in PRIV_LETTERS.items() if k != "TEMP"}
ALL_PRIVS = {"table": "arwdDxt", "view": "arwdDxt", "sequence": "rwU", "schema": "UC",
             "function": "X", "database": "CTc", "column": "arwx", "large object": "rw"}
_PUBLIC_DEFAULT = {"function": "X", "database": "Tc"}
# PostgreSQL's order of letters in an aclitem
_ORDER = "arwdDxtXUCTc"


def _norm(privs: str) -> str:
    """Orders privilege letters (each optionally followed by `*`) as aclitem_out does."""
    have = {p: privs[i + 1: i + 2] == "*" for i, p in enumerate(privs) if p != "*"}
    return "".join(p + ("*" if have[p] else "") for p in _ORDER if p in have)


def default_acl(kind: str, owner: int) -> tuple[str, ...]:
    """The ACL an object of `kind` owned by `owner` has before any GRANT or REVOKE."""
    items = [f"{owner}={ALL_PRIVS[kind]}/{owner}"]
    if kind in _PUBLIC_DEFAULT:
        items.insert(0, f"{PUBLIC}={_PUBLIC_DEFAULT[kind]}/{owner}")
    return tuple(items)


def parse_item(item: str) -> tuple[int, str, int]:
    """Splits a stored item into (grantee OID, privilege letters, grantor OID)."""
    grantee, rest = item.split("=", 1)
    privs, grantor = rest.split("/", 1)
    return int(grantee), privs, int(grantor)


def add(acl: tuple[str, ...], grantee: int, privs: str, grantor: int) -> tuple[str, ...]:
    """Returns `acl` with `privs` granted to `grantee` by `grantor` (merged into its item)."""
    out, done = [], False
    for item in acl:
        g, p, gr = parse_item(item)
        if g == grantee and gr == grantor:
            merged = p
            for i, c in enumerate(privs):
                if c == "*":
                    continue
                star = privs[i + 1: i + 2] == "*"
                if c not in merged:
                    merged += c + ("*" if star else "")
                elif star and (c + "*") not in merged:
                    merged = merged.replace(c, c + "*")
            out.append(f"{g}={_norm(merged)}/{gr}")
            done = True
        else:
            out.append(item)
    if not done:
        out.append(f"{grantee}={_norm(privs)}/{grantor}")
    return tuple(out)


def remove(acl: tuple[str, ...], grantee: int, privs: str,
           grant_option_only: bool = False) -> tuple[str, ...]:
    """Returns `acl` with `privs` (letters) revoked from `grantee`; empty items disappear."""
    out = []
    for item in acl:
        g, p, gr = parse_item(item)
        if g == grantee:
            if grant_option_only:
                p = "".join(c for i, c in enumerate(p)
                            if not (c == "*" and i > 0 and p[i - 1] in privs))
            else:
                p = _norm("".join(c + ("*" if p[i + 1: i + 2] == "*" else "")
                                  for i, c in enumerate(p) if c != "*" and c not in privs))
            if not p:
                continue
            item = f"{g}={p}/{gr}"
        out.append(item)
    return tuple(out)


def with_new_owner(acl: tuple[str, ...] | None, old: int, new: int) -> tuple[str, ...] | None:
    """An ACL after its object passes from `old` to `new`: the items granted to or by the old
    owner become the new owner's (PostgreSQL's aclnewowner).

    >>> with_new_owner(("10=rw/10", "5=r/10"), 10, 7)
    ('7=rw/7', '5=r/7')
    >>> with_new_owner(("10=rw/10", "7=r*/10"), 10, 7)  # merged, as aclnewowner merges
    ('7=r*w/7',)
    """
    if acl is None:
        return None
    merged: dict[tuple[int, int], str] = {}
    for item in acl:
        g, p, gr = parse_item(item)
        key = (new if g == old else g, new if gr == old else gr)
        both = merged.get(key, "") + p
        stars = {c for i, c in enumerate(both) if both[i + 1:i + 2] == "*"}
        merged[key] = "".join(c + ("*" if c in stars else "") for c in _ORDER if c in both)
    return tuple(f"{g}={p}/{gr}" for (g, gr), p in merged.items())


def _has_option(acl: tuple[str, ...], grantee: int, letter: str) -> bool:
    return any(g == grantee and (letter + "*") in p for g, p, _ in map(parse_item, acl))


def _strip(acl: tuple[str, ...], grantee: int, grantor: int, letters: str) -> tuple[str, ...]:
    """`acl` without `letters` in the one item `grantee` holds from `grantor`."""
    out = []
    for item in acl:
        g, p, gr = parse_item(item)
        if g == grantee and gr == grantor:
            p = _norm("".join(c + ("*" if p[i + 1: i + 2] == "*" else "")
                              for i, c in enumerate(p) if c != "*" and c not in letters))
            if not p:
                continue
            item = f"{g}={p}/{gr}"
        out.append(item)
    return tuple(out)


def revoke(acl: tuple[str, ...], grantee: int, privs: str, grant_option_only: bool,
           cascade: bool) -> tuple[str, ...] | None:
    """REVOKE [GRANT OPTION FOR] with PostgreSQL's recursive_revoke: a grantee left without
    the grant option of a privilege loses what it granted of it to others, when `cascade`;
    without it the result is None (`dependent privileges exist`).

    >>> acl = ("10=arwdDxt/10", "5=r*/10", "6=r*/5", "7=r/6")
    >>> revoke(acl, 5, "r", False, False) is None
    True
    >>> revoke(acl, 5, "r", False, True)
    ('10=arwdDxt/10',)
    >>> revoke(acl, 5, "r", True, True)
    ('10=arwdDxt/10', '5=r/10')
    """
    acl = remove(acl, grantee, privs, grant_option_only)
    todo = [(grantee, privs)]
    while todo:
        g, letters = todo.pop()
        lost = "".join(c for c in letters if c != "*" and not _has_option(acl, g, c))
        for item in acl:
            dg, dp, dgr = parse_item(item)
            taken = "".join(c for c in lost if c in dp)
            if dgr != g or dg == g or not taken:
                continue
            if not cascade:
                return None
            acl = _strip(acl, dg, g, taken)
            todo.append((dg, taken))
    return acl


def privileges_of(acl: tuple[str, ...], roles: set[int]) -> str:
    """The privilege letters `acl` gives to any of `roles` (PUBLIC included only if in `roles`)."""
    have = ""
    for item in acl:
        g, p, _ = parse_item(item)
        if g in roles:
            have += "".join(c for c in p if c != "*" and c not in have)
    return have


def role_name(cat: CatalogSnapshot, oid: int) -> str:
    """A role's name as an ACL prints it (a dropped role prints as its OID, as in PostgreSQL)."""
    r = next((r for r in cat.roles if r.oid == oid), None)
    if r is None and oid == PG_DATABASE_OWNER:
        return "pg_database_owner"
    return r.name if r is not None else str(oid)


def _quote_role(name: str) -> str:
    ok = name and (name[0].isalpha() or name[0] == "_") and all(
        c.isalnum() or c in "_$" for c in name) and name == name.lower()
    return name if ok else '"' + name.replace('"', '""') + '"'


def aclitem_text(cat: CatalogSnapshot, item: str) -> str:
    """Prints one stored item as aclitem_out does: `alice=arwd/cumulo`, `=r/cumulo` for PUBLIC."""
    g, p, gr = parse_item(item)
    grantee = "" if g == PUBLIC else _quote_role(role_name(cat, g))
    return f"{grantee}={p}/{_quote_role(role_name(cat, gr))}"


def acl_texts(cat: CatalogSnapshot, acl: tuple[str, ...] | None) -> list[str] | None:
    """An ACL as the aclitem[] of relacl/nspacl/proacl (None stays NULL)."""
    return None if acl is None else [aclitem_text(cat, i) for i in acl]


def column_acl_texts(cat: CatalogSnapshot, column_acls: tuple[str, ...]) -> dict[int, list[str]]:
    """A table's column privileges as pg_attribute.attacl, by attnum."""
    out: dict[int, list[str]] = {}
    for entry in column_acls:
        num, item = entry.split(":", 1)
        out.setdefault(int(num), []).append(aclitem_text(cat, item))
    return out
