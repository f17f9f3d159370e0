"""PostgreSQL types: OIDs (`oids`), text formats (`text`), binary formats (`binary`), and the
per-column wire codecs pgwire builds from them (`codecs`)."""
