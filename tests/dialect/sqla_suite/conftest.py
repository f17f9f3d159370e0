"""SQLAlchemy's testing plugin, with the cumulo dialect registered by name.

Run from this folder (its setup.cfg is the plugin's config):
    python -m pytest tests/dialect/sqla_suite --dburi cumulo://cumulo@127.0.0.1:PORT/cumulo

Tests listed in `known_failures.py` (open server bugs) are marked
`xfail(strict=True)` after the plugin has expanded the suite's classes.
"""

import pytest
from sqlalchemy.dialects import registry

registry.register("cumulo", "cumulo.dialect.base", "CumuloDialect")
# The plugin spells URLs as backend+driver, and our driver is also named "cumulo".
registry.register("cumulo.cumulo", "cumulo.dialect.base", "CumuloDialect")
registry.register("cumulo.async", "cumulo.dialect.asyncio", "CumuloAsyncDialect")

from known_failures import KNOWN_FAILURES, SERVER_ISSUE  # noqa: E402
from sqlalchemy.testing.plugin.pytestplugin import *  # noqa: E402,F403
from sqlalchemy.testing.plugin.pytestplugin import (  # noqa: E402
    pytest_collection_modifyitems as _expand_backends,
)


def pytest_collection_modifyitems(session, config, items):
    """Expands the suite per backend (the plugin's hook), then marks the known failures."""
    _expand_backends(session, config, items)
    for item in items:
        cls = item.cls.__name__.split("_cumulo", 1)[0] if item.cls else ""
        reason = KNOWN_FAILURES.get((cls, item.name))
        if reason:
            item.add_marker(pytest.mark.xfail(strict=True, reason=f"{reason} ({SERVER_ISSUE})"))
