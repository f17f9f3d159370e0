"""Large objects: PostgreSQL's lo_* functions, pg_largeobject and pg_largeobject_metadata.

- `pages`: storage, 2 KB pages in KiVi system spaces (no SQL-layer imports, so the
  catalogs can read it);
- `objects`: the session-level rules (lookup, privileges, descriptors);
- `functions`, `catalog`: register the SQL functions and the two catalogs when
  imported (the engine imports them);
- `comments`: COMMENT ON LARGE OBJECT. ALTER ... OWNER TO and GRANT/REVOKE live with
  the other objects' (`privileges.owner`, `privileges.grant`).
"""
