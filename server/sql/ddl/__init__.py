"""DDL: statements that change the catalog, written through the session's transaction."""
