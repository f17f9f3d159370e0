"""PostgreSQL 15's SQL keywords and their categories (its kwlist.h).

The list was recorded from a throwaway PostgreSQL 15.18 (`select * from
pg_get_keywords()`): each entry is word:<catcode><barelabel 0/1>. quote_ident
(here, below everything that prints SQL) quotes the reserved ones; pg_get_keywords()
(`functions.keywords`) lists them all.
"""

from __future__ import annotations

from functools import cache

_KEYWORDS = """
    abort:U1 absolute:U1 access:U1 action:U1 add:U1 admin:U1 after:U1 aggregate:U1 all:R1
    also:U1 alter:U1 always:U1 analyse:R1 analyze:R1 and:R1 any:R1 array:R0 as:R0 asc:R1
    asensitive:U1 assertion:U1 assignment:U1 asymmetric:R1 at:U1 atomic:U1 attach:U1
    attribute:U1 authorization:T1 backward:U1 before:U1 begin:U1 between:C1 bigint:C1 binary:T1
    bit:C1 boolean:C1 both:R1 breadth:U1 by:U1 cache:U1 call:U1 called:U1 cascade:U1
    cascaded:U1 case:R1 cast:R1 catalog:U1 chain:U1 char:C0 character:C0 characteristics:U1
    check:R1 checkpoint:U1 class:U1 close:U1 cluster:U1 coalesce:C1 collate:R1 collation:T1
    column:R1 columns:U1 comment:U1 comments:U1 commit:U1 committed:U1 compression:U1
    concurrently:T1 configuration:U1 conflict:U1 connection:U1 constraint:R1 constraints:U1
    content:U1 continue:U1 conversion:U1 copy:U1 cost:U1 create:R0 cross:T1 csv:U1 cube:U1
    current:U1 current_catalog:R1 current_date:R1 current_role:R1 current_schema:T1
    current_time:R1 current_timestamp:R1 current_user:R1 cursor:U1 cycle:U1 data:U1 database:U1
    day:U0 deallocate:U1 dec:C1 decimal:C1 declare:U1 default:R1 defaults:U1 deferrable:R1
    deferred:U1 definer:U1 delete:U1 delimiter:U1 delimiters:U1 depends:U1 depth:U1 desc:R1
    detach:U1 dictionary:U1 disable:U1 discard:U1 distinct:R1 do:R1 document:U1 domain:U1
    double:U1 drop:U1 each:U1 else:R1 enable:U1 encoding:U1 encrypted:U1 end:R1 enum:U1
    escape:U1 event:U1 except:R0 exclude:U1 excluding:U1 exclusive:U1 execute:U1 exists:C1
    explain:U1 expression:U1 extension:U1 external:U1 extract:C1 false:R1 family:U1 fetch:R0
    filter:U0 finalize:U1 first:U1 float:C1 following:U1 for:R0 force:U1 foreign:R1 forward:U1
    freeze:T1 from:R0 full:T1 function:U1 functions:U1 generated:U1 global:U1 grant:R0
    granted:U1 greatest:C1 group:R0 grouping:C1 groups:U1 handler:U1 having:R0 header:U1
    hold:U1 hour:U0 identity:U1 if:U1 ilike:T1 immediate:U1 immutable:U1 implicit:U1 import:U1
    in:R1 include:U1 including:U1 increment:U1 index:U1 indexes:U1 inherit:U1 inherits:U1
    initially:R1 inline:U1 inner:T1 inout:C1 input:U1 insensitive:U1 insert:U1 instead:U1
    int:C1 integer:C1 intersect:R0 interval:C1 into:R0 invoker:U1 is:T1 isnull:T0 isolation:U1
    join:T1 key:U1 label:U1 language:U1 large:U1 last:U1 lateral:R1 leading:R1 leakproof:U1
    least:C1 left:T1 level:U1 like:T1 limit:R0 listen:U1 load:U1 local:U1 localtime:R1
    localtimestamp:R1 location:U1 lock:U1 locked:U1 logged:U1 mapping:U1 match:U1 matched:U1
    materialized:U1 maxvalue:U1 merge:U1 method:U1 minute:U0 minvalue:U1 mode:U1 month:U0
    move:U1 name:U1 names:U1 national:C1 natural:T1 nchar:C1 new:U1 next:U1 nfc:U1 nfd:U1
    nfkc:U1 nfkd:U1 no:U1 none:C1 normalize:C1 normalized:U1 not:R1 nothing:U1 notify:U1
    notnull:T0 nowait:U1 null:R1 nullif:C1 nulls:U1 numeric:C1 object:U1 of:U1 off:U1 offset:R0
    oids:U1 old:U1 on:R0 only:R1 operator:U1 option:U1 options:U1 or:R1 order:R0 ordinality:U1
    others:U1 out:C1 outer:T1 over:U0 overlaps:T0 overlay:C1 overriding:U1 owned:U1 owner:U1
    parallel:U1 parameter:U1 parser:U1 partial:U1 partition:U1 passing:U1 password:U1
    placing:R1 plans:U1 policy:U1 position:C1 preceding:U1 precision:C0 prepare:U1 prepared:U1
    preserve:U1 primary:R1 prior:U1 privileges:U1 procedural:U1 procedure:U1 procedures:U1
    program:U1 publication:U1 quote:U1 range:U1 read:U1 real:C1 reassign:U1 recheck:U1
    recursive:U1 ref:U1 references:R1 referencing:U1 refresh:U1 reindex:U1 relative:U1
    release:U1 rename:U1 repeatable:U1 replace:U1 replica:U1 reset:U1 restart:U1 restrict:U1
    return:U1 returning:R0 returns:U1 revoke:U1 right:T1 role:U1 rollback:U1 rollup:U1
    routine:U1 routines:U1 row:C1 rows:U1 rule:U1 savepoint:U1 schema:U1 schemas:U1 scroll:U1
    search:U1 second:U0 security:U1 select:R1 sequence:U1 sequences:U1 serializable:U1
    server:U1 session:U1 session_user:R1 set:U1 setof:C1 sets:U1 share:U1 show:U1 similar:T1
    simple:U1 skip:U1 smallint:C1 snapshot:U1 some:R1 sql:U1 stable:U1 standalone:U1 start:U1
    statement:U1 statistics:U1 stdin:U1 stdout:U1 storage:U1 stored:U1 strict:U1 strip:U1
    subscription:U1 substring:C1 support:U1 symmetric:R1 sysid:U1 system:U1 table:R1 tables:U1
    tablesample:T1 tablespace:U1 temp:U1 template:U1 temporary:U1 text:U1 then:R1 ties:U1
    time:C1 timestamp:C1 to:R0 trailing:R1 transaction:U1 transform:U1 treat:C1 trigger:U1
    trim:C1 true:R1 truncate:U1 trusted:U1 type:U1 types:U1 uescape:U1 unbounded:U1
    uncommitted:U1 unencrypted:U1 union:R0 unique:R1 unknown:U1 unlisten:U1 unlogged:U1
    until:U1 update:U1 user:R1 using:R1 vacuum:U1 valid:U1 validate:U1 validator:U1 value:U1
    values:C1 varchar:C1 variadic:R1 varying:U0 verbose:T1 version:U1 view:U1 views:U1
    volatile:U1 when:R1 where:R0 whitespace:U1 window:R0 with:R0 within:U0 without:U0 work:U1
    wrapper:U1 write:U1 xml:U1 xmlattributes:C1 xmlconcat:C1 xmlelement:C1 xmlexists:C1
    xmlforest:C1 xmlnamespaces:C1 xmlparse:C1 xmlpi:C1 xmlroot:C1 xmlserialize:C1 xmltable:C1
    year:U0 yes:U1 zone:U1
"""


def keywords() -> list[tuple[str, str, bool]]:
    """Returns (word, catcode, barelabel) for every keyword, in PostgreSQL's order."""
    out = []
    for item in _KEYWORDS.split():
        word, code = item.split(":")
        out.append((word, code[0], code[1] == "1"))
    return out


@cache
def _quoted_keywords() -> frozenset[str]:
    """Keywords quote_ident must quote: every category but the unreserved one."""
    return frozenset(word for word, code, _ in keywords() if code != "U")


def quote_ident(name: str) -> str:
    """Quotes an identifier as PostgreSQL's quote_ident does (only when needed).

    >>> quote_ident("a_1"), quote_ident("Order"), quote_ident("order"), quote_ident('a"b')
    ('a_1', '"Order"', '"order"', '"a""b"')
    """
    simple = (
        name != ""
        and name.isascii()
        and (name[0].islower() or name[0] == "_")
        and all(c.islower() or c.isdigit() or c == "_" for c in name)
    )
    if simple and name not in _quoted_keywords():
        return name
    return '"' + name.replace('"', '""') + '"'
