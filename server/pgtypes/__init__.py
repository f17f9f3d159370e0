"""PostgreSQL types: OIDs (`oids`), text formats (`text`), binary formats (`binary`), and the
per-column wire codecs pgwire builds from them (`codecs`). The interval value type (months, days
and microseconds) is `interval`, its text forms `intervaltext`."""
