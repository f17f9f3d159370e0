"""Large objects (PostgreSQL's lo_* functions, pg_largeobject and its metadata): importing this
package registers the functions and the catalogs. Storage is in `pages`, the session-level
rules (privileges, descriptors) in `objects`."""

from __future__ import annotations

from . import catalog, functions  # noqa: F401  (imported to register)
from .objects import LargeObject

__all__ = ["LargeObject"]
