"""What the cumulo dialect supports, for SQLAlchemy's compliance suite.

`SuiteRequirements` starts from a lowest-common-denominator database and
closes most features; Cumulo speaks PostgreSQL 15's SQL and catalogs, so the
features PostgreSQL has are opened here (the same set SQLAlchemy's own test
requirements open for PostgreSQL). Each requirement that stays closed, or is
closed here, says why, in words a user would accept.
"""

from sqlalchemy.testing import exclusions
from sqlalchemy.testing.requirements import SuiteRequirements

_OPEN = exclusions.open
_CLOSED = exclusions.closed


class Requirements(SuiteRequirements):
    """The suite's feature switches for `cumulo://` and `cumulo+async://`."""

    # -- DDL -------------------------------------------------------------------
    create_table_as = property(lambda self: _OPEN())
    create_temp_table_as = property(lambda self: _OPEN())
    table_ddl_if_exists = property(lambda self: _OPEN())
    index_ddl_if_exists = property(lambda self: _OPEN())
    schema_create_delete = property(lambda self: _OPEN())
    views = property(lambda self: _OPEN())
    temporary_views = property(lambda self: _OPEN())
    create_or_replace_view = property(lambda self: _OPEN())
    unicode_ddl = property(lambda self: _OPEN())
    server_defaults = property(lambda self: _OPEN())
    expression_server_defaults = property(lambda self: _OPEN())
    # SQLAlchemy warns that a Computed() without `persisted` becomes STORED:
    # like PostgreSQL before 18, Cumulo has only stored generated columns.
    computed_columns = property(
        lambda self: exclusions.warns_if(
            lambda config: True,
            r"Computed column .* is being created as 'STORED'",
            assert_=False,
        )
    )
    computed_columns_stored = property(lambda self: _OPEN())
    computed_columns_default_persisted = property(lambda self: _OPEN())
    computed_columns_reflect_persisted = property(lambda self: _OPEN())
    identity_columns = property(lambda self: _OPEN())
    identity_columns_standard = property(lambda self: _OPEN())
    deferrable_fks = property(lambda self: _OPEN())
    # Like PostgreSQL 15, Cumulo has only STORED generated columns.
    computed_columns_virtual = property(lambda self: _CLOSED())
    # Like PostgreSQL, ON UPDATE CASCADE is enforced, so a primary-key update
    # does not leave referencing rows behind.
    non_updating_cascade = property(lambda self: _CLOSED())

    # -- reflection ------------------------------------------------------------
    reflects_pk_names = property(lambda self: _OPEN())
    cross_schema_fk_reflection = property(lambda self: _OPEN())
    foreign_key_constraint_name_reflection = property(lambda self: _OPEN())
    implicit_default_schema = property(lambda self: _OPEN())
    default_schema_name_switch = property(lambda self: _OPEN())
    reflect_tables_no_columns = property(lambda self: _OPEN())
    comment_reflection = property(lambda self: _OPEN())
    comment_reflection_full_unicode = property(lambda self: _OPEN())
    constraint_comment_reflection = property(lambda self: _OPEN())
    temp_table_comment_reflection = property(lambda self: _OPEN())
    column_collation_reflection = property(lambda self: _OPEN())
    foreign_key_constraint_option_reflection_ondelete = property(lambda self: _OPEN())
    fk_constraint_option_reflection_ondelete_restrict = property(lambda self: _OPEN())
    fk_constraint_option_reflection_ondelete_noaction = property(lambda self: _OPEN())
    foreign_key_constraint_option_reflection_onupdate = property(lambda self: _OPEN())
    fk_constraint_option_reflection_onupdate_restrict = property(lambda self: _OPEN())
    temp_table_names = property(lambda self: _OPEN())
    has_temp_table = property(lambda self: _OPEN())
    index_reflects_included_columns = property(lambda self: _OPEN())
    indexes_check_column_order = property(lambda self: _OPEN())
    indexes_with_expressions = property(lambda self: _OPEN())
    reflect_indexes_with_expressions = property(lambda self: _OPEN())
    inline_check_constraint_reflection = property(lambda self: _OPEN())
    check_constraint_reflection = property(lambda self: _OPEN())
    unique_constraints_reflect_as_index = property(lambda self: _OPEN())
    reflect_table_options = property(lambda self: _OPEN())

    # -- queries ---------------------------------------------------------------
    table_value_constructor = property(lambda self: _OPEN())
    boolean_col_expressions = property(lambda self: _OPEN())
    nullsordering = property(lambda self: _OPEN())
    intersect = property(lambda self: _OPEN())
    except_ = property(lambda self: _OPEN())
    window_functions = property(lambda self: _OPEN())
    window_range = property(lambda self: _OPEN())
    window_range_numeric = property(lambda self: _OPEN())
    window_range_non_numeric = property(lambda self: _OPEN())
    ctes = property(lambda self: _OPEN())
    ctes_with_update_delete = property(lambda self: _OPEN())
    ctes_with_values = property(lambda self: _OPEN())
    ctes_on_dml = property(lambda self: _OPEN())
    tuple_in = property(lambda self: _OPEN())
    update_from = property(lambda self: _OPEN())
    delete_from = property(lambda self: _OPEN())
    mod_operator_as_percent_sign = property(lambda self: _OPEN())
    percent_schema_names = property(lambda self: _OPEN())
    order_by_label_with_expression = property(lambda self: _OPEN())
    supports_distinct_on = property(lambda self: _OPEN())
    aggregate_order_by = property(lambda self: _OPEN())
    regexp_match = property(lambda self: _OPEN())
    regexp_replace = property(lambda self: _OPEN())
    fetch_first = property(lambda self: _OPEN())
    fetch_ties = property(lambda self: _OPEN())
    fetch_no_order_by = property(lambda self: _OPEN())
    fetch_offset_with_options = property(lambda self: _OPEN())
    fetch_expression = property(lambda self: _OPEN())
    supports_bitwise_or = property(lambda self: _OPEN())
    supports_bitwise_and = property(lambda self: _OPEN())
    supports_bitwise_not = property(lambda self: _OPEN())
    supports_bitwise_xor = property(lambda self: _OPEN())
    supports_bitwise_shift = property(lambda self: _OPEN())
    # Like PostgreSQL: FETCH FIRST n PERCENT is not SQL PostgreSQL accepts.
    fetch_percent = property(lambda self: _CLOSED())

    # -- types -----------------------------------------------------------------
    uuid_data_type = property(lambda self: _OPEN())
    datetime_interval = property(lambda self: _OPEN())
    datetime_timezone = property(lambda self: _OPEN())
    time_timezone = property(lambda self: _OPEN())
    timestamp_microseconds = property(lambda self: _OPEN())
    datetime_historic = property(lambda self: _OPEN())
    datetime_timezone_historic = property(lambda self: _OPEN())
    date_historic = property(lambda self: _OPEN())
    array_type = property(lambda self: _OPEN())
    json_type = property(lambda self: _OPEN())
    precision_numerics_enotation_small = property(lambda self: _OPEN())
    precision_numerics_many_significant_digits = property(lambda self: _OPEN())
    precision_numerics_retains_significant_digits = property(lambda self: _OPEN())
    infinity_floats = property(lambda self: _OPEN())

    # -- transactions and connections -----------------------------------------
    autocommit = property(lambda self: _OPEN())
    skip_autocommit_rollback = property(lambda self: _OPEN())
    isolation_level = property(lambda self: _OPEN())
    savepoints = property(lambda self: _OPEN())
    # Cumulo has no PREPARE TRANSACTION: its distributed commit is internal
    # (the transaction manager's own two-phase protocol), not exposed as XA.
    two_phase_transactions = property(lambda self: _CLOSED())

    @property
    def server_side_cursors(self):
        # Both drivers stream rows through a named portal inside a transaction.
        return exclusions.open()

    @property
    def async_dialect(self):
        """Open when the suite runs through `cumulo+async://`."""
        return exclusions.only_if(
            lambda config: config.db.dialect.is_async, "the dialect is the sync one"
        )

    def get_isolation_levels(self, config):
        """The four SQL levels plus AUTOCOMMIT; READ COMMITTED is the default, as in PG."""
        return {
            "default": "READ COMMITTED",
            "supported": [
                "AUTOCOMMIT",
                "READ COMMITTED",
                "READ UNCOMMITTED",
                "REPEATABLE READ",
                "SERIALIZABLE",
            ],
        }
