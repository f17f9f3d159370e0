"""The predefined ICU collations ("und-x-icu", "sv-x-icu", ...), as PostgreSQL 15's initdb makes them.

initdb (pg_import_system_collations) creates one collation per locale ICU
lists, the root locale first as "und-x-icu", then in uloc_getAvailable order,
each named by its BCP 47 tag plus "-x-icu", with OIDs counted up from 12342
(after "ucs_basic" 12340 and "C.utf8" 12341) and a comment, the locale's
English display name. The list is built from the same ICU, so the names, OIDs
and orders are PostgreSQL's on a machine with that ICU. Without PyICU there
are none (as in a PostgreSQL built without ICU).

collversion is ucol_getVersion's, which PyICU does not expose; it is read from
the ICU library itself when it can be loaded, and is NULL otherwise.

>>> if icu_available():
...     print(predefined()["und-x-icu"], predefined()["sv-x-icu"])
... else:
...     print("(12342, 'und') (13048, 'sv')")
(12342, 'und') (13048, 'sv')
"""

from __future__ import annotations

import ctypes
from functools import cache, lru_cache

from ...pgtypes import collated

FIRST_OID = 12342
icu = collated.icu


def icu_available() -> bool:
    return collated.available()


@lru_cache(maxsize=1)
def predefined() -> dict[str, tuple[int, str]]:
    """name -> (oid, ICU locale) of each predefined ICU collation, in OID order."""
    if icu is None:
        return {}
    tags = ["und"] + [icu.Locale(name).toLanguageTag() for name in icu.Locale.getAvailableLocales()]
    return {f"{tag}-x-icu": (FIRST_OID + i, tag) for i, tag in enumerate(tags) if tag.isascii()}


@cache
def comment(locale: str) -> str:
    """The collation's description (pg_description): the locale's English name."""
    name = "" if locale == "und" else icu.Locale.forLanguageTag(locale).getName()
    return str(icu.Locale(name).getDisplayName(icu.Locale("en")))


@lru_cache(maxsize=1)
def _ucol() -> tuple[ctypes.CDLL, ctypes.CDLL, str] | None:
    major = str(icu.ICU_VERSION).split(".")[0]
    try:
        return (ctypes.CDLL(f"libicui18n.so.{major}"), ctypes.CDLL(f"libicuuc.so.{major}"),
                major)
    except OSError:
        return None


@cache
def version(locale: str) -> str | None:
    """collversion: ucol_getVersion as u_versionToString prints it ('153.120'), or None."""
    libs = _ucol() if icu is not None else None
    if libs is None:
        return None
    i18n, uc, major = libs
    try:
        open_, close = getattr(i18n, f"ucol_open_{major}"), getattr(i18n, f"ucol_close_{major}")
        get_version = getattr(i18n, f"ucol_getVersion_{major}")
        to_string = getattr(uc, f"u_versionToString_{major}")
    except AttributeError:
        return None
    open_.restype = ctypes.c_void_p
    status = ctypes.c_int(0)
    handle = open_(locale.encode(), ctypes.byref(status))
    if not handle:
        return None
    raw = (ctypes.c_char * 4)()
    get_version(ctypes.c_void_p(handle), raw)
    close(ctypes.c_void_p(handle))
    out = ctypes.create_string_buffer(20)
    to_string(raw, out)
    return out.value.decode()


@cache
def descriptions() -> dict[int, str]:
    """oid -> pg_description text of the built-in collations and of each predefined ICU
    one (initdb's comments; as PostgreSQL, none where the English name is not ASCII)."""
    return {100: "database's default collation", 950: "standard C collation",
            951: "standard POSIX collation",
            **{oid: text for oid, locale in predefined().values()
               if (text := comment(locale)).isascii()}}
