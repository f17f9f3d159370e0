"""What keeps a role from being dropped: PostgreSQL's DROP ROLE DETAIL lines.

DROP ROLE refuses (2BP01) while the role owns an object or holds a privilege on one
in this database; the DETAIL names each, as getObjectDescription words it, in
checkSharedDependencies' order (by object OID). REASSIGN OWNED and DROP OWNED
(`ddl.owned`) clear what this lists.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..catalog.model import CatalogSnapshot
from ..pgcatalog.typetext import format_type
from ..privileges.acl import parse_item
from ..privileges.check import relation_noun


def role_dependents(cat: CatalogSnapshot, role_oid: int, path: list[str],
                    large_objects: Sequence[Any] = ()) -> list[str]:
    """What keeps a role from being dropped in this database, as PostgreSQL's DETAIL lines
    (`owner of table t`, `privileges for table t`), in its order: by object OID
    (checkSharedDependencies sorts them). A name outside the search `path` is qualified.
    `large_objects` are the database's (`largeobj.objects.LargeObject`: not catalog objects)."""
    out: list[tuple[int, int, str]] = []
    objects: list[tuple[str, Any, int | None, tuple[str, ...]]] = [
        ("database", d, None, d.acl or ()) for d in cat.databases]
    objects += [("schema", s, None, s.acl or ()) for s in cat.schemas]
    objects += [(relation_noun(t), t, t.schema_oid, (t.acl or ()) + tuple(
        e.split(":", 1)[1] for e in t.column_acls)) for t in cat.tables]
    objects += [("sequence", q, q.schema_oid, q.acl or ()) for q in cat.sequences]
    objects += [("function", f, f.schema_oid, f.acl or ()) for f in cat.functions]
    objects += [("type", t, t.schema_oid, ()) for t in cat.types]
    objects += [("collation", c, c.schema_oid, ()) for c in cat.collations]
    objects += [("large object", lo, None, lo.acl or ()) for lo in large_objects]
    for noun, obj, schema_oid, acl in objects:
        label = _described(cat, noun, obj, schema_oid, path)
        if obj.owner == role_oid:
            out.append((obj.oid, 1, f"owner of {label}"))
        if any(role_oid in parse_item(i)[::2] for i in acl):
            out.append((obj.oid, 0, f"privileges for {label}"))
    return [text for _, _, text in sorted(out)]


def _described(cat: CatalogSnapshot, noun: str, obj: Any, schema_oid: int | None,
               path: list[str]) -> str:
    """`function f(integer,text)` as getObjectDescription words a function; others by name,
    schema-qualified when the schema is not on the search path."""
    name = obj.name
    if schema_oid is not None:
        schema = cat.schema_by_oid(schema_oid)
        if schema is not None and schema.name not in path:
            name = f"{schema.name}.{name}"
    if noun != "function":
        return f"{noun} {name}"
    return f"function {name}({','.join(format_type(a, None) or '' for a in obj.arg_types)})"
