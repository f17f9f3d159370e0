"""SQLAlchemy's testing plugin, with the cumulo dialect registered by name.

Run from this folder (its setup.cfg is the plugin's config):
    python -m pytest tests/dialect/sqla_suite --dburi cumulo://cumulo@127.0.0.1:PORT/cumulo
"""

from sqlalchemy.dialects import registry

registry.register("cumulo", "cumulo.dialect.base", "CumuloDialect")
# The plugin spells URLs as backend+driver, and our driver is also named "cumulo".
registry.register("cumulo.cumulo", "cumulo.dialect.base", "CumuloDialect")
registry.register("cumulo.async", "cumulo.dialect.asyncio", "CumuloAsyncDialect")

from sqlalchemy.testing.plugin.pytestplugin import *  # noqa: E402,F403
