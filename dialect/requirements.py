"""What the cumulo dialect supports, for SQLAlchemy's compliance suite.

Each closed requirement says why; an open one is there because Cumulo does
what PostgreSQL does.
"""

from sqlalchemy.testing import exclusions
from sqlalchemy.testing.requirements import SuiteRequirements


class Requirements(SuiteRequirements):
    """The suite's feature switches for `cumulo://`."""

    @property
    def server_side_cursors(self):
        # The driver streams rows through a named portal inside a transaction.
        return exclusions.open()
