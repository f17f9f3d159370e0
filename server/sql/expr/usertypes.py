"""The types CREATE TYPE made, as the binder and the output functions see them.

Why a per-thread environment: type names are resolved by `types.type_by_name`,
a pure function called from many places that have no catalog at hand (casts,
column definitions, regtype input, format_type). The session installs its
catalog's user types here whenever it hands out a catalog snapshot
(`use`), the same way it installs its TimeZone for the output functions
(`pgtypes.zones.use`); plans are cached per catalog version, so a type made
or altered later re-binds them.

Values: an enum value is its label (`str`); the type's OID decides how it
compares (by `enumsortorder`, not alphabetically: `enum_sort_key`) and which
labels a cast accepts (`enum_input`). Array types of user types are entered
into `pgtypes.oids.ARRAY_OF` / `ELEMENT_OF` (OIDs are never reused within one
store), so the array codecs handle `mood[]` like any array.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from ...errors import InvalidTextRepresentation
from ...pgtypes import citext, enums, hstore, multiranges, ranges, tsearch
from ...pgtypes import oids as T
from ...pgtypes.records import COMPOSITES
from ..settings import visible_schemas

if TYPE_CHECKING:  # NB: annotations only: a KiVi node compiles expressions without the catalog
    from ..catalog.model import CatalogSnapshot, UserType


class TypeEnv:
    """The user types of one catalog snapshot, by name and by OID."""

    def __init__(self, cat: CatalogSnapshot) -> None:
        schemas = {s.oid: s.name for s in cat.schemas}
        self.by_oid: dict[int, UserType] = {}
        self.by_name: dict[str, UserType] = {}
        self.array_of: dict[int, int] = {}
        self.oid_by_name: dict[str, int] = {}
        self.multi_of: dict[int, UserType] = {}  # a range type's multirange OID -> the range
        for t in sorted(cat.types, key=lambda t: (schemas.get(t.schema_oid) != "public", t.oid)):
            self.by_oid[t.oid] = t
            self.by_name.setdefault(t.name, t)
            self.by_name[f"{schemas.get(t.schema_oid, '?')}.{t.name}"] = t
            self.oid_by_name.setdefault(t.name, t.oid)
            self.oid_by_name[f"{schemas.get(t.schema_oid, '?')}.{t.name}"] = t.oid
            if t.array_oid:
                self.array_of[t.oid] = t.array_oid
            if t.kind == "r" and t.multi_oid:
                self.oid_by_name.setdefault(t.multi_name, t.multi_oid)
                self.oid_by_name[f"{schemas.get(t.schema_oid, '?')}.{t.multi_name}"] = t.multi_oid
                self.multi_of[t.multi_oid] = t
                self.array_of[t.multi_oid] = t.multi_array_oid
        self.schema_names = schemas
        # enum_in's labels per enum type, installed in pgtypes.enums at every `use` (a snapshot
        # after a rolled-back ALTER TYPE ... RENAME VALUE has its own, older labels)
        self.enum_labels = {t.oid: (t.name, frozenset(t.labels)) for t in cat.types
                            if t.kind == "e"}


# The calling session's environment and extensions: context variables, a thread's own or a
# session greenlet's own (sessions of different databases share the event loop's thread).
_ENV: ContextVar[TypeEnv | None] = ContextVar("usertypes_env", default=None)
_EXTENSIONS: ContextVar[tuple[Any, ...]] = ContextVar("usertypes_extensions", default=())


class _Nothing:
    """What `_NOTHING` referred to."""


_NOTHING: weakref.ref[Any] = weakref.ref(_Nothing())  # NB: dead at once: calling it gives None
# A weak reference to the catalog `use` last installed in this context, `_NOTHING` when it has
# enums (`use` installs their labels process-wide again each time, since a session with an
# uncommitted ALTER TYPE ... RENAME VALUE has other labels): the session's `catalog()` calls it
# to skip `use` (a call and two context-variable sets) on the statements after the first of a
# catalog version. Weak: a dropped table's columnar copy must not live on in a thread's context.
INSTALLED: ContextVar[weakref.ref[Any]] = ContextVar("usertypes_installed", default=_NOTHING)
_envs: dict[int, tuple[tuple[UserType, ...], TypeEnv]] = {}
_lock = threading.Lock()


def use(cat: CatalogSnapshot) -> None:
    """Makes `cat`'s user types the ones this thread's statements resolve against."""
    _EXTENSIONS.set(cat.extensions)
    types = cat.types
    hit = _envs.get(id(types))
    if hit is not None and hit[0] is types:
        _ENV.set(hit[1])
        if hit[1].enum_labels:
            enums.LABELS.update(hit[1].enum_labels)
        INSTALLED.set(_NOTHING if hit[1].enum_labels else weakref.ref(cat))
        return
    env = TypeEnv(cat)
    with _lock:
        for oid, arr in env.array_of.items():
            T.ARRAY_OF.setdefault(oid, arr)
            T.ELEMENT_OF.setdefault(arr, oid)
        for t in cat.types:
            if t.kind == "c":
                COMPOSITES[t.oid] = tuple(a[1] for a in t.attrs)
            elif t.kind == "b" and t.name == "hstore":  # CREATE EXTENSION hstore's type
                hstore.OIDS.add(t.oid)
            elif t.kind == "b" and t.name == "citext":  # CREATE EXTENSION citext's type
                citext.OIDS.add(t.oid)
            elif t.kind == "d":  # NB: an element of `d[]` goes out as its base type
                T.DOMAIN_BASE[t.oid] = t.subtype
            elif t.kind == "r" and t.oid not in ranges.SUBTYPE:  # CREATE TYPE ... AS RANGE
                ranges.RANGE_TYPES[t.oid] = (t.subtype, t.name, t.array_oid, t.multi_oid,
                                             t.multi_array_oid)
                ranges.SUBTYPE[t.oid] = t.subtype
                multiranges.RANGE_OF[t.multi_oid] = t.oid
                multiranges.MULTIRANGE_OF[t.oid] = t.multi_oid
        enums.LABELS.update(env.enum_labels)
        if len(_envs) > 64:
            _envs.clear()
        _envs[id(types)] = (types, env)
    _ENV.set(env)
    INSTALLED.set(_NOTHING if env.enum_labels else weakref.ref(cat))


def current() -> TypeEnv | None:
    """The environment of this thread's session (None before any catalog was used)."""
    return _ENV.get()


def lookup(name: str) -> UserType | None:
    """A user type by (lower-cased, possibly schema-qualified) name."""
    env = current()
    return None if env is None else env.by_name.get(name)


def by_oid(oid: int) -> UserType | None:
    """A user type by OID (None for built-in types and unknown OIDs)."""
    if oid < 16384:
        return None
    env = current()
    return None if env is None else env.by_oid.get(oid)


def has_extension(name: str) -> bool:
    """Was CREATE EXTENSION `name` run in this thread's catalog?"""
    return any(e.name == name for e in _EXTENSIONS.get())


def hstore_oid() -> int:
    """The OID of the hstore type CREATE EXTENSION made in this catalog (0: none)."""
    t = lookup("hstore")
    return t.oid if t is not None and t.kind == "b" else 0


def is_enum(oid: int) -> bool:
    t = by_oid(oid)
    return t is not None and t.kind == "e"


def qualified_name(t: UserType) -> str:
    """The type's name as format_type prints it: schema-qualified outside the search_path
    (pg_dump sets it to '' so that every type it prints is qualified)."""
    env = current()
    schema = env.schema_names.get(t.schema_oid, "") if env else ""
    return t.name if schema == "" or schema in visible_schemas() else f"{schema}.{t.name}"


def enum_input(oid: int) -> Callable[[Any], str]:
    """enum_in: the label itself, or 22P02 for a label the type does not have."""
    t = by_oid(oid)
    labels = frozenset(t.labels) if t else frozenset()
    name = t.name if t else str(oid)

    def check(v: Any) -> str:
        s = str(v)
        if s not in labels:
            raise InvalidTextRepresentation(f'invalid input value for enum {name}: "{s}"')
        return s

    return check


def enum_sort_key(oid: int) -> Callable[[str], float]:
    """label -> enumsortorder, the order enum comparisons and ORDER BY follow."""
    t = by_oid(oid)
    order = dict(zip(t.labels, t.sort_orders, strict=True)) if t else {}
    return lambda label: order.get(label, float("inf"))


def has_sort_key(oid: int) -> bool:
    """True for the types `enum_ordered` rewrites."""
    return oid in (T.JSONB, T.INET, T.CIDR, T.TID, tsearch.TSVECTOR, tsearch.TSQUERY) \
        or oid in hstore.OIDS \
        or is_enum(oid)


ENUM_FUNCTIONS = ("enum_range", "enum_first", "enum_last")


def composite_fields(oid: int) -> tuple[tuple[str, int], ...] | None:
    """A composite type's (field name, type OID)s, for `(value).field`; None otherwise."""
    t = by_oid(oid)
    if t is None or t.kind != "c":
        return None
    return tuple((a[0], a[1]) for a in t.attrs)


def field_typmod(oid: int, i: int) -> int:
    """The typmod of a composite type's field i (-1 for records and unknown types)."""
    t = by_oid(oid)
    return t.attrs[i][2] if t is not None and t.kind == "c" and i < len(t.attrs) else -1


def lookup_oid(name: str) -> int:
    """The OID a user type name denotes (a range's multirange name too); 0 if none."""
    env = current()
    return 0 if env is None else env.oid_by_name.get(name, 0)


def range_constructor(name: str) -> tuple[str, int] | None:
    """("range", oid) or ("multirange", oid) when `name` is a user range (multirange) type,
    whose name is also its constructor function's."""
    oid = lookup_oid(name)
    if not oid:
        return None
    env = current()
    t = by_oid(oid)
    if t is not None and t.kind == "r":
        return ("range", oid)
    if env is not None and oid in env.multi_of:
        return ("multirange", oid)
    return None


def multirange_owner(oid: int) -> UserType | None:
    """The user range type whose multirange type is `oid`."""
    env = current()
    return None if env is None else env.multi_of.get(oid)
