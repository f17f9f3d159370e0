"""One error hierarchy for the whole server, with the SQLSTATE pinned where each error is defined.

Lower layers raise these subclasses directly, so nothing needs translating on the
way up. `pgwire` turns any exception into ErrorResponse fields in exactly one
place (`to_fields`); an unexpected exception becomes XX000 there, is logged with
its traceback, and the server keeps serving.
"""

from __future__ import annotations


class SQLError(Exception):
    """An error that reaches the client as an ErrorResponse with a SQLSTATE."""

    sqlstate = "XX000"
    severity = "ERROR"
    where: str | None = None

    def __init__(
        self,
        message: str = "",
        *,
        detail: str | None = None,
        hint: str | None = None,
        position: int | None = None,
        sqlstate: str | None = None,
        severity: str | None = None,
        table: str | None = None,
        column: str | None = None,
        schema: str | None = None,
        constraint: str | None = None,
        routine: str | None = None,
        where: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail
        self.hint = hint
        self.position = position
        self.table = table
        self.column = column
        self.schema = schema  # the s field, beside t: the table's schema
        self.constraint = constraint
        self.routine = routine  # PostgreSQL's R field: some clients key their retries on it
        self.where = where  # the W field (CONTEXT): e.g. `COPY t, line 5, column c: "x"`
        if sqlstate is not None:
            self.sqlstate = sqlstate
        if severity is not None:
            self.severity = severity


def _error(name: str, code: str, doc: str) -> type[SQLError]:
    return type(name, (SQLError,), {"sqlstate": code, "__doc__": doc})


# Class 08: connection exception
ProtocolViolation = _error("ProtocolViolation", "08P01", "A malformed or out-of-order message.")
ConnectionFailure = _error("ConnectionFailure", "08006", "The connection failed.")
# Class 0A: feature not supported
FeatureNotSupported = _error("FeatureNotSupported", "0A000", "Valid SQL that Cumulo does not do yet.")
# Class 21/22: cardinality and data exceptions
CardinalityViolation = _error("CardinalityViolation", "21000", "A subquery returned several rows.")
DataException = _error("DataException", "22000", "A generic data exception.")
StringDataRightTruncation = _error("StringDataRightTruncation", "22001", "Value too long for type.")
NumericValueOutOfRange = _error("NumericValueOutOfRange", "22003", "Numeric value out of range.")
NullValueNotAllowed = _error("NullValueNotAllowed", "22004", "Null value not allowed.")
InvalidDatetimeFormat = _error("InvalidDatetimeFormat", "22007", "Invalid datetime format.")
DatetimeFieldOverflow = _error("DatetimeFieldOverflow", "22008", "Date/time field out of range.")
DivisionByZero = _error("DivisionByZero", "22012", "Division by zero.")
IntervalFieldOverflow = _error("IntervalFieldOverflow", "22015", "Interval field out of range.")
InvalidParameterValue = _error("InvalidParameterValue", "22023", "Invalid parameter value.")
ArraySubscriptError = _error("ArraySubscriptError", "2202E", "Bad array subscript or dimensions.")
InvalidEscapeSequence = _error("InvalidEscapeSequence", "22025", "Invalid escape sequence.")
InvalidTextRepresentation = _error("InvalidTextRepresentation", "22P02", "Bad input syntax for a type.")
InvalidBinaryRepresentation = _error("InvalidBinaryRepresentation", "22P03", "Bad binary input.")
BadCopyFileFormat = _error("BadCopyFileFormat", "22P04", "Bad COPY data.")
CharacterNotInRepertoire = _error("CharacterNotInRepertoire", "22021", "Invalid byte sequence.")
SequenceGeneratorLimitExceeded = _error("SequenceGeneratorLimitExceeded", "2200H",
                                        "A sequence reached its MAXVALUE or MINVALUE.")
InvalidXmlDocument = _error("InvalidXmlDocument", "2200M", "Text that is not a well-formed XML document.")
InvalidXmlContent = _error("InvalidXmlContent", "2200N", "Text that is not well-formed XML content.")
NotAnXmlDocument = _error("NotAnXmlDocument", "2200L", "XMLSERIALIZE(DOCUMENT x) of content.")
InvalidXmlComment = _error("InvalidXmlComment", "2200S", "xmlcomment() text with `--` or a final `-`.")
InvalidXmlProcessingInstruction = _error("InvalidXmlProcessingInstruction", "2200T",
                                         "xmlpi() with target xml or text holding `?>`.")
# Class 23: integrity constraint violation
IntegrityConstraintViolation = _error("IntegrityConstraintViolation", "23000", "Integrity violation.")
NotNullViolation = _error("NotNullViolation", "23502", "A NOT NULL column got a NULL.")
ForeignKeyViolation = _error("ForeignKeyViolation", "23503", "A foreign key has no referenced row.")
UniqueViolation = _error("UniqueViolation", "23505", "A duplicate key in a unique index.")
CheckViolation = _error("CheckViolation", "23514", "A CHECK constraint failed.")
ExclusionViolation = _error("ExclusionViolation", "23P01",
                            "Two rows conflict under an EXCLUDE constraint's operators.")
# Class 24/25/26: cursor, transaction and statement state
InvalidCursorState = _error("InvalidCursorState", "24000", "Invalid cursor state.")
ActiveSQLTransaction = _error("ActiveSQLTransaction", "25001", "Not allowed inside a transaction.")
ReadOnlySQLTransaction = _error("ReadOnlySQLTransaction", "25006", "A write in a READ ONLY transaction.")
NoActiveSQLTransaction = _error("NoActiveSQLTransaction", "25P01", "No transaction is in progress.")
InFailedSQLTransaction = _error(
    "InFailedSQLTransaction", "25P02", "Commands are ignored until the end of the transaction block."
)
InvalidSQLStatementName = _error("InvalidSQLStatementName", "26000", "No such prepared statement.")
# Class 28: authorization
InvalidAuthorizationSpecification = _error(
    "InvalidAuthorizationSpecification", "28000", "The role may not log in."
)
InvalidPassword = _error("InvalidPassword", "28P01", "Password authentication failed.")
# Class 34: cursors
InvalidCursorName = _error("InvalidCursorName", "34000", "No such cursor or portal.")
# Class 3D/3F: catalog names
InvalidCatalogName = _error("InvalidCatalogName", "3D000", "No such database.")
InvalidSchemaName = _error("InvalidSchemaName", "3F000", "No such schema.")
# Class 40: transaction rollback
TransactionRollback = _error("TransactionRollback", "40000", "The transaction was rolled back.")
SerializationFailure = _error(
    "SerializationFailure", "40001", "Concurrent update: the transaction must be retried."
)
StatementCompletionUnknown = _error(
    "StatementCompletionUnknown", "40003", "The outcome of the commit is unknown."
)
DeadlockDetected = _error("DeadlockDetected", "40P01", "A wait-for cycle between transactions.")
# Class 42: syntax error or access rule violation
SyntaxError_ = _error("SyntaxError", "42601", "The SQL text does not parse.")
InsufficientPrivilege = _error("InsufficientPrivilege", "42501", "Permission denied.")
GroupingError = _error("GroupingError", "42803", "A column must appear in GROUP BY.")
WindowingError = _error("WindowingError", "42P20", "Misuse of a window function.")
InvalidForeignKey = _error("InvalidForeignKey", "42830", "A foreign key without a unique target.")
NameTooLong = _error("NameTooLong", "42622", "An identifier is too long.")
DatatypeMismatch = _error("DatatypeMismatch", "42804", "An expression has the wrong type.")
CannotCoerce = _error("CannotCoerce", "42846", "No cast between these types.")
UndefinedColumn = _error("UndefinedColumn", "42703", "No such column.")
UndefinedFunction = _error("UndefinedFunction", "42883", "No such function or operator.")
UndefinedTable = _error("UndefinedTable", "42P01", "No such table.")
UndefinedParameter = _error("UndefinedParameter", "42P02", "No such parameter.")
UndefinedObject = _error("UndefinedObject", "42704", "No such object.")
DuplicateColumn = _error("DuplicateColumn", "42701", "A column name used twice.")
DuplicateCursor = _error("DuplicateCursor", "42P03", "A cursor name used twice.")
DuplicateDatabase = _error("DuplicateDatabase", "42P04", "The database exists already.")
DuplicatePreparedStatement = _error(
    "DuplicatePreparedStatement", "42P05", "A prepared statement name used twice."
)
DuplicateSchema = _error("DuplicateSchema", "42P06", "The schema exists already.")
DuplicateTable = _error("DuplicateTable", "42P07", "The table exists already.")
DuplicateObject = _error("DuplicateObject", "42710", "The object exists already.")
DuplicateAlias = _error("DuplicateAlias", "42712", "A FROM name used twice at one level.")
AmbiguousColumn = _error("AmbiguousColumn", "42702", "A column reference matches several columns.")
AmbiguousFunction = _error("AmbiguousFunction", "42725", "A function call matches several functions.")
WrongObjectType = _error("WrongObjectType", "42809", "The object is not of the expected kind.")
InvalidColumnReference = _error("InvalidColumnReference", "42P10", "Invalid column reference.")
InvalidTableDefinition = _error("InvalidTableDefinition", "42P16", "Invalid table definition.")
InvalidObjectDefinition = _error("InvalidObjectDefinition", "42P17", "Invalid object definition.")
DependentObjectsStillExist = _error(
    "DependentObjectsStillExist", "2BP01", "Other objects depend on this one."
)
# Class 53/54/55/57: resources, limits, object state, operator intervention
OutOfMemory = _error("OutOfMemory", "53200", "Out of memory.")
TooManyConnections = _error("TooManyConnections", "53300", "Too many connections.")
ProgramLimitExceeded = _error("ProgramLimitExceeded", "54000", "A program limit was exceeded.")
ObjectInUse = _error("ObjectInUse", "55006", "The object is in use.")
LockNotAvailable = _error("LockNotAvailable", "55P03", "The lock is not available.")
CantChangeRuntimeParam = _error("CantChangeRuntimeParam", "55P02",
                                "The setting cannot be changed now.")
ObjectNotInPrerequisiteState = _error(
    "ObjectNotInPrerequisiteState", "55000", "The object is not in the required state."
)
QueryCanceled = _error("QueryCanceled", "57014", "The statement was cancelled.")
AdminShutdown = _error("AdminShutdown", "57P01", "The server is shutting down.")
ConfigFileError = _error("ConfigFileError", "F0000", "A configuration file has an error.")
# Class 58/XX: system and internal errors
IOError_ = _error("IOError", "58030", "An I/O error.")
InternalError = _error("InternalError", "XX000", "An internal error.")


def _source(exc: BaseException) -> dict[str, str]:
    """PostgreSQL's F, L and R fields (psql's `\\errverbose` LOCATION, psycopg's
    `diag.source_file/line/function`): where in the server's source the error was raised,
    as PostgreSQL names its C file, line and function. Here that is the Python frame that
    raised it, the innermost of its traceback: a real place, not a made-up C one. An error
    that names PostgreSQL's routine (`routine`: pgJDBC retries on RevalidateCachedQuery)
    sends that name alone; one never raised (a notice) sends none. An internal error (XX000)
    names the frame too: where the bug is.

    >>> def _dup():
    ...     raise UniqueViolation("duplicate key value")
    >>> try:
    ...     _dup()
    ... except SQLError as e:
    ...     got = _source(e)
    >>> got["F"].startswith("<doctest"), got["R"], got["L"].isdigit()
    (True, '_dup', True)
    """
    if isinstance(exc, SQLError) and exc.routine is not None:
        return {"R": exc.routine}
    tb = exc.__traceback__
    if tb is None:
        return {}
    while tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code
    return {"F": code.co_filename.rsplit("/", 1)[-1], "L": str(tb.tb_lineno), "R": code.co_name}


def to_fields(exc: BaseException) -> dict[str, str]:
    """Turns any exception into ErrorResponse fields: the one place where errors become wire errors.

    An exception that is not a SQLError is an internal error: XX000 with its text,
    except MemoryError (53200 out of memory) and RecursionError (54001), which end
    only the statement that ran into the limit.
    """
    if isinstance(exc, SQLError):
        fields = {
            "S": exc.severity,
            "V": exc.severity,
            "C": exc.sqlstate,
            "M": exc.message or exc.__doc__ or exc.sqlstate,
        }
        for key, value in (
            ("D", exc.detail),
            ("H", exc.hint),
            ("P", None if exc.position is None else str(exc.position)),
            ("s", exc.schema),
            ("t", exc.table),
            ("c", exc.column),
            ("n", exc.constraint),
            ("W", exc.where),
        ):
            if value is not None:
                fields[key] = value
        fields.update(_source(exc))
        return fields
    if isinstance(exc, MemoryError):  # NB: the statement fails alone; its memory is freed
        return {"S": "ERROR", "V": "ERROR", "C": "53200", "M": "out of memory",
                "D": "The statement needed more memory than the server may use."}
    if isinstance(exc, RecursionError):
        return {"S": "ERROR", "V": "ERROR", "C": "54001", "M": "stack depth limit exceeded",
                "H": "The expression or query nests too deeply."}
    return {"S": "ERROR", "V": "ERROR", "C": "XX000", "M": f"internal error: {exc!r}",
            **_source(exc)}
