"""information_schema views over the sample catalog, compared with PostgreSQL 15's rows for the
same schema (conftest.py's docstring), OIDs in generated names aside."""

from __future__ import annotations

from .conftest import C, P, rows


def _tuples(ctx, name, cols, where=lambda r: True):
    return sorted(tuple(r[c] for c in cols) for r in rows(ctx, name, "information_schema")
                  if where(r))


def test_schemata_and_tables(ctx):
    assert {r["schema_name"] for r in rows(ctx, "schemata", "information_schema")} == {
        "pg_catalog", "public", "information_schema", "pg_toast", "s"}
    tables = _tuples(ctx, "tables", ["table_schema", "table_name", "table_type",
                                     "is_insertable_into"],
                     lambda r: r["table_schema"] in ("public", "s"))
    assert tables == [("public", "c", "BASE TABLE", "YES"), ("public", "p", "BASE TABLE", "YES"),
                      ("s", "T", "BASE TABLE", "YES")]
    assert any(r["table_name"] == "pg_class" for r in rows(ctx, "tables", "information_schema"))


def test_columns(ctx):
    cols = {(r["table_name"], r["column_name"]): r for r in rows(ctx, "columns",
                                                                  "information_schema")}
    pid = cols[("p", "id")]
    assert (pid["ordinal_position"], pid["column_default"], pid["is_nullable"],
            pid["data_type"], pid["numeric_precision"], pid["numeric_precision_radix"],
            pid["numeric_scale"], pid["udt_name"], pid["dtd_identifier"]) == (
        1, "nextval('p_id_seq'::regclass)", "NO", "integer", 32, 2, 0, "int4", "1")
    name = cols[("p", "name")]
    assert (name["data_type"], name["character_maximum_length"],
            name["character_octet_length"]) == ("character varying", 50, 200)
    amount = cols[("c", "amount")]
    # NB: PostgreSQL's ordinal_position is attnum, so a dropped column leaves a gap.
    assert (amount["ordinal_position"], amount["numeric_precision"], amount["numeric_scale"],
            amount["numeric_precision_radix"], amount["is_nullable"]) == (4, 10, 2, 10, "YES")
    assert ("c", "gone") not in cols
    assert amount["is_identity"] == "NO" and amount["is_generated"] == "NEVER"


def test_constraints(ctx):
    tc = _tuples(ctx, "table_constraints", ["constraint_name", "table_name", "constraint_type",
                                            "nulls_distinct"])
    assert tc == [
        (f"2200_{P}_1_not_null", "p", "CHECK", None),
        (f"2200_{P}_2_not_null", "p", "CHECK", None),
        (f"2200_{C}_1_not_null", "c", "CHECK", None),
        ("c_amount_check", "c", "CHECK", None),
        ("c_p_id_amount_key", "c", "UNIQUE", "YES"),
        ("c_p_id_fkey", "c", "FOREIGN KEY", None),
        ("c_pkey", "c", "PRIMARY KEY", None),
        ("p_pkey", "p", "PRIMARY KEY", None),
    ]
    kcu = _tuples(ctx, "key_column_usage", ["constraint_name", "table_name", "column_name",
                                            "ordinal_position", "position_in_unique_constraint"])
    assert kcu == [
        ("c_p_id_amount_key", "c", "amount", 2, None), ("c_p_id_amount_key", "c", "p_id", 1, None),
        ("c_p_id_fkey", "c", "p_id", 1, 1), ("c_pkey", "c", "id", 1, None),
        ("p_pkey", "p", "id", 1, None),
    ]
    rc = _tuples(ctx, "referential_constraints", [
        "constraint_name", "unique_constraint_schema", "unique_constraint_name", "match_option",
        "update_rule", "delete_rule"])
    assert rc == [("c_p_id_fkey", "public", "p_pkey", "NONE", "NO ACTION", "CASCADE")]
    ccu = _tuples(ctx, "constraint_column_usage", ["table_name", "column_name",
                                                   "constraint_name"])
    assert ccu == [("c", "amount", "c_amount_check"), ("c", "amount", "c_p_id_amount_key"),
                   ("c", "id", "c_pkey"), ("c", "p_id", "c_p_id_amount_key"),
                   ("p", "id", "c_p_id_fkey"), ("p", "id", "p_pkey")]


def test_sequences_and_charsets(ctx):
    seqs = _tuples(ctx, "sequences", ["sequence_name", "data_type", "numeric_precision",
                                      "start_value", "minimum_value", "maximum_value",
                                      "increment", "cycle_option"])
    assert seqs == [("p_id_seq", "integer", 32, "1", "1", "2147483647", "1", "NO")]
    assert _tuples(ctx, "character_sets", ["character_set_name", "character_repertoire",
                                           "form_of_use", "default_collate_catalog"]) == [
        ("UTF8", "UCS", "UTF8", "cumulo")]


def test_check_constraints(ctx):
    got = _tuples(ctx, "check_constraints", ["constraint_name", "check_clause"])
    assert ("c_amount_check", "((amount > (0)::numeric))") in got
    assert (f"2200_{P}_2_not_null", "name IS NOT NULL") in got
    assert len(got) == 4
