"""TPC-H: data, queries and reference answers from DuckDB's tpch extension (see `data`)."""
