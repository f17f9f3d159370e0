"""Text under an ICU collation: a `str` that orders (and, nondeterministic, equals) by ICU.

Why a value type, as `pgtypes.citext`: the engine compares, hashes and sorts
values with Python's operators, so a value that carries its collation gets
`<`, ORDER BY, min/max, GROUP BY, DISTINCT, hash joins and IN lists right
everywhere without each operator knowing. A column declared with an ICU
collation stores such values (the table writer wraps them), and `x COLLATE
"sv-x-icu"` wraps its operand; `COLLATE "C"` makes a plain str again.

Each (locale, deterministic) pair is a subclass of `Collated` with its ICU
`Collator` as a class attribute (`collated_type`). The order is the
collator's, as PostgreSQL's varstr_cmp under ICU: a deterministic collation
breaks a tie by code point (so equality and hashing stay the str ones), a
nondeterministic one does not, and its equality and hash are the collator's
(its sort key), so `'abc' = 'ABC'` under `und-u-ks-level2` and both are one
GROUP BY group or one UNIQUE key. Keys (`kivi.keycodec`) encode the ICU sort
key, bytes comparable by memcmp, so indexes order as the collator does.

PyICU (import `icu`) is optional: without it `available()` is false and any use
of an ICU collation is 0A000 naming `pip install 'cumulo[icu]'`.

>>> if available():
...     sv = collated_type("sv", True)
...     print(sorted(map(sv, ["ö", "z", "a", "ä"])), sorted(["ö", "z", "a", "ä"]))
...     ci = collated_type("und-u-ks-level2", False)
...     print(ci("abc") == "ABC", hash(ci("abc")) == hash(ci("ABC")), len({ci("a"), ci("A")}))
... else:
...     print("['a', 'z', 'ä', 'ö'] ['a', 'z', 'ä', 'ö']"); print("True True 1")
['a', 'z', 'ä', 'ö'] ['a', 'z', 'ä', 'ö']
True True 1
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any, ClassVar

from ..errors import FeatureNotSupported

try:
    import icu  # type: ignore[import-not-found,import-untyped,unused-ignore]
except ImportError:  # NB: optional: `pip install 'cumulo[icu]'`
    icu = None

INSTALL_HINT = "Install PyICU to use them: pip install 'cumulo[icu]'"
_str_eq, _str_lt, _str_gt = str.__eq__, str.__lt__, str.__gt__


def available() -> bool:
    """Whether ICU collations can be used (PyICU importable)."""
    return icu is not None


class Collated(str):
    """A text value ordered by an ICU collator (a subclass per collation: `collated_type`)."""

    __slots__ = ()
    collator: ClassVar[Any]
    locale: ClassVar[str]
    deterministic: ClassVar[bool]

    def _cmp(self, other: str) -> int:
        c: int = self.collator.compare(self, other)
        if c == 0 and self.deterministic:
            return -1 if _str_lt(self, other) else int(_str_gt(self, other))
        return c

    def __lt__(self, other: str) -> bool:
        if not isinstance(other, str):
            return NotImplemented
        return self._cmp(other) < 0

    def __le__(self, other: str) -> bool:
        if not isinstance(other, str):
            return NotImplemented
        return self._cmp(other) <= 0

    def __gt__(self, other: str) -> bool:
        if not isinstance(other, str):
            return NotImplemented
        return self._cmp(other) > 0

    def __ge__(self, other: str) -> bool:
        if not isinstance(other, str):
            return NotImplemented
        return self._cmp(other) >= 0

    def __reduce__(self) -> tuple[Any, ...]:
        return restore, (self.locale, self.deterministic, str(self))

    def sort_key(self) -> bytes:
        """The ICU sort key (memcmp order is the collator's), without its final NUL."""
        return bytes(self.collator.getSortKey(str(self)))[:-1]


class _Nondeterministic(Collated):
    """Equality and hash by the collator: values it ranks equal are one value."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, str):
            return NotImplemented
        return _str_eq(self, other) or self.collator.compare(self, other) == 0

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, str):
            return NotImplemented
        return not _str_eq(self, other) and self.collator.compare(self, other) != 0

    def __hash__(self) -> int:
        return hash(self.collator.getSortKey(str(self)))


def require_icu() -> None:
    """0A000 when PyICU is missing."""
    if icu is None:
        raise FeatureNotSupported("ICU is not supported in this build", hint=INSTALL_HINT)


@cache
def collator(locale: str) -> Any:
    """The ICU collator of a locale (a BCP 47 tag such as 'de-u-co-phonebk'; 'und': root)."""
    require_icu()
    return icu.Collator.createInstance(icu.Locale(locale))


@cache
def collated_type(locale: str, deterministic: bool) -> type[Collated]:
    """The value class of one ICU collation."""
    base = Collated if deterministic else _Nondeterministic
    return type(f"Collated[{locale}]", (base,), {
        "__slots__": (), "collator": collator(locale), "locale": locale,
        "deterministic": deterministic})


def restore(locale: str, deterministic: bool, text: str) -> Collated:
    """A value again from its parts (pickling, KiVi's wire)."""
    return collated_type(locale, deterministic)(text)


def wrapper(locale: str, deterministic: bool) -> Any:
    """fn(v) -> v under the collation (None stays None), for a column or a COLLATE clause."""
    cls = collated_type(locale, deterministic)

    def wrap(v: Any) -> Any:
        return v if v is None or type(v) is cls else cls(v)
    return wrap


def collated(keys: Iterable[tuple]) -> bool:
    """Whether the first non-NULL of some sort keys ((flag, value) / (flag,)) is ICU text."""
    return isinstance(next((k[1] for k in keys if len(k) > 1), None), Collated)


def memcmp_keys(keys: list[tuple]) -> list[tuple] | None:
    """ORDER BY's keys ((flag, value) or (flag,) for NULL, `codegen.sort_key_function`) with
    each text value replaced by its ICU sort key, bytes that sort by memcmp (a deterministic
    collation adds the text to break ties), when the first value is ICU-collated: one
    getSortKey per row instead of a collator call per comparison. None: not collated.

    >>> if available():
    ...     sv = collated_type("sv", True)
    ...     ks = memcmp_keys([(0, sv("ö")), (1,), (0, "z")])
    ...     print([k[2] if len(k) > 1 else None for k in sorted(ks)])
    ... else:
    ...     print("['z', 'ö', None]")
    ['z', 'ö', None]
    """
    first = next((k[1] for k in keys[:64] if len(k) > 1), None)
    if not isinstance(first, Collated):
        return None
    key = first.collator.getSortKey
    if first.deterministic:
        return [(k[0], key(str(k[1])), str(k[1])) if len(k) > 1 else k for k in keys]
    return [(k[0], key(str(k[1]))) if len(k) > 1 else k for k in keys]


def plain(v: Any) -> Any:
    """A value under a code-point collation ("C", "POSIX", "default"): a plain str."""
    return str(v) if isinstance(v, Collated) else v
