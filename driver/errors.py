"""PEP 249 exceptions, chosen from the server's SQLSTATE by one table.

The server says what went wrong with a five-character SQLSTATE whose first two
characters are the class. `SQLSTATE_CLASSES` maps each class to a PEP 249
exception, and `error_from_fields` is the only place that turns an
ErrorResponse into an exception, so every error raised by the driver carries
`.sqlstate`, `.detail`, `.hint` and every other field the server sent
(`.fields`, keyed by the protocol's one-letter codes).
"""

from __future__ import annotations


class Warning(Exception):  # noqa: A001 - the name is fixed by PEP 249
    """Important warnings such as data truncation (PEP 249)."""


class Error(Exception):
    """Base class of every error the driver raises (PEP 249)."""

    def __init__(self, message: str = "", fields: dict[str, str] | None = None):
        super().__init__(message)
        self.fields: dict[str, str] = dict(fields or {})
        self.message = message

    @property
    def sqlstate(self) -> str | None:
        """The five-character SQLSTATE, or None for errors detected by the driver."""
        return self.fields.get("C")

    @property
    def pgcode(self) -> str | None:
        """The SQLSTATE under psycopg2's name."""
        return self.sqlstate

    @property
    def severity(self) -> str | None:
        return self.fields.get("V") or self.fields.get("S")

    @property
    def detail(self) -> str | None:
        return self.fields.get("D")

    @property
    def hint(self) -> str | None:
        return self.fields.get("H")

    @property
    def position(self) -> int | None:
        pos = self.fields.get("P")
        return int(pos) if pos else None

    @property
    def routine(self) -> str | None:
        return self.fields.get("R")

    @property
    def schema_name(self) -> str | None:
        return self.fields.get("s")

    @property
    def table_name(self) -> str | None:
        return self.fields.get("t")

    @property
    def column_name(self) -> str | None:
        return self.fields.get("c")

    @property
    def constraint_name(self) -> str | None:
        return self.fields.get("n")


class InterfaceError(Error):
    """An error in the driver rather than in the database (PEP 249)."""


class DatabaseError(Error):
    """An error reported by the database (PEP 249)."""


class DataError(DatabaseError):
    """Bad data: division by zero, a value out of range (PEP 249)."""


class OperationalError(DatabaseError):
    """The database's operation failed: lost connection, cancel, serialization (PEP 249)."""


class IntegrityError(DatabaseError):
    """A constraint was violated (PEP 249)."""


class InternalError(DatabaseError):
    """The database hit an internal error (PEP 249)."""


class ProgrammingError(DatabaseError):
    """The statement is wrong: syntax, missing table, wrong arguments (PEP 249)."""


class NotSupportedError(DatabaseError):
    """The database does not support what was asked (PEP 249)."""


# SQLSTATE class (first two characters) -> exception. Anything else is a DatabaseError.
SQLSTATE_CLASSES: dict[str, type[DatabaseError]] = {
    "0A": NotSupportedError,  # feature not supported
    "08": OperationalError,  # connection exception
    "09": InternalError,  # triggered action exception
    "0L": ProgrammingError,  # invalid grantor
    "0P": ProgrammingError,  # invalid role specification
    "21": ProgrammingError,  # cardinality violation
    "22": DataError,  # data exception
    "23": IntegrityError,  # integrity constraint violation
    "24": InternalError,  # invalid cursor state
    "25": InternalError,  # invalid transaction state (psycopg2 agrees)
    "26": OperationalError,  # invalid SQL statement name: the statement went away
    "27": OperationalError,  # triggered data change violation
    "28": OperationalError,  # invalid authorization specification
    "2B": InternalError,  # dependent privilege descriptors still exist
    "2D": InternalError,  # invalid transaction termination
    "2F": InternalError,  # SQL routine exception
    "34": ProgrammingError,  # invalid cursor name
    "38": InternalError,  # external routine exception
    "39": InternalError,  # external routine invocation exception
    "3B": InternalError,  # savepoint exception
    "3D": ProgrammingError,  # invalid catalog name
    "3F": ProgrammingError,  # invalid schema name
    "40": OperationalError,  # transaction rollback: serialization failure, deadlock
    "42": ProgrammingError,  # syntax error or access rule violation
    "44": ProgrammingError,  # WITH CHECK OPTION violation
    "53": OperationalError,  # insufficient resources
    "54": OperationalError,  # program limit exceeded
    "55": OperationalError,  # object not in prerequisite state
    "57": OperationalError,  # operator intervention: cancel, shutdown
    "58": OperationalError,  # system error
    "F0": InternalError,  # configuration file error
    "HV": OperationalError,  # foreign data wrapper error
    "P0": InternalError,  # PL/pgSQL error
    "XX": InternalError,  # internal error
}


def class_for_sqlstate(sqlstate: str | None) -> type[DatabaseError]:
    """Returns the PEP 249 exception class for a SQLSTATE."""
    return SQLSTATE_CLASSES.get((sqlstate or "")[:2], DatabaseError)


def error_from_fields(fields: dict[str, str]) -> DatabaseError:
    """Builds the exception for an ErrorResponse's fields."""
    message = fields.get("M", "unknown error")
    exc = class_for_sqlstate(fields.get("C"))(message, fields)
    return exc
