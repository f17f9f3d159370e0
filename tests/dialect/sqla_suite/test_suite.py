"""SQLAlchemy's third-party dialect compliance suite, run against `cumulo://`."""

from sqlalchemy.testing.suite import *  # noqa: F403
from sqlalchemy.testing.suite import ServerSideCursorsTest as _ServerSideCursorsTest


class ServerSideCursorsTest(_ServerSideCursorsTest):
    """The stock test recognises server-side cursors by driver name; ours are flagged."""

    def _is_server_side(self, cursor):
        return bool(getattr(cursor, "server_side", False))
