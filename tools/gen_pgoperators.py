"""Regenerates server/sql/pgcatalog/operdata.py: PostgreSQL 15's operator catalogs, cut to Cumulo.

Usage: python tools/gen_pgoperators.py PG15_DSN CUMULO_DSN > server/sql/pgcatalog/operdata.py

Reads pg_operator, pg_opfamily, pg_opclass, pg_amop and pg_amproc from a throwaway
PostgreSQL 15 (the `pg15` test fixture's, or an initdb'ed one), then keeps an operator
only if a running Cumulo binds it to the same result type PostgreSQL does:
`pg_typeof(NULL::left OP NULL::right)` is asked of both servers (polymorphic operands
stand in as int4, int4[], int4range ...). Operator classes are kept for the input types
Cumulo has, their families with them, and the amop/amproc rows of kept families (an amop
row only when its operator is kept). Rerun it when the binder learns operators.
"""

from __future__ import annotations

import sys

import psycopg

_STAND_IN = {
    "anyelement": "int4", "anycompatible": "int4", "anynonarray": "int4", "anyenum": None,
    "anyarray": "int4[]", "anycompatiblearray": "int4[]", "anyrange": "int4range",
    "anycompatiblerange": "int4range", "anymultirange": "int4multirange",
    "anycompatiblemultirange": "int4multirange", "internal": None, "record": None,
}


def _typeof(conn: psycopg.Connection, expr: str) -> str | None:
    try:
        with conn.transaction():
            row = conn.execute(f"select pg_typeof({expr})::text").fetchone()
            return None if row is None else row[0]
    except psycopg.Error:
        return None


def _operand(typ: str) -> str | None:
    if typ in _STAND_IN:
        sub = _STAND_IN[typ]
        return None if sub is None else f"NULL::{sub}"
    return f"NULL::{typ}"


def kept_operators(pg: psycopg.Connection, cu: psycopg.Connection) -> set[int]:
    keep = set()
    rows = pg.execute("""select o.oid, oprname, oprkind, oprleft::regtype::text,
                                oprright::regtype::text
                         from pg_operator o where oprnamespace = 11 order by o.oid""").fetchall()
    for oid, name, kind, left, right in rows:
        r = _operand(right)
        lhs = _operand(left) if kind == "b" else ""
        if r is None or lhs is None:
            continue
        for spelled in (name, f"OPERATOR(pg_catalog.{name})"):
            expr = f"{lhs} {spelled} {r}"
            want = _typeof(pg, expr)
            if want is not None and _typeof(cu, expr) == want:
                keep.add(oid)
                break
    return keep


def _fn(oid: int, name: str) -> str:
    return "-" if not oid else f"{name}:{oid}"  # NB: regproc text: qualified when overloaded


EXTENSIONS = ("hstore",)  # NB: citext's operators are its own module's (not listed yet)


def extension_operators(pg_dsn: str, cu: psycopg.Connection, ext: str) -> list[str]:
    """An extension's operators as text rows (types and operators by name: their OIDs are
    the database's), for those Cumulo binds to PostgreSQL's result type."""
    with psycopg.connect(pg_dsn, autocommit=True) as admin:
        admin.execute("drop database if exists opr_gen_ext")
        admin.execute("create database opr_gen_ext")
    try:
        with psycopg.connect(pg_dsn.rsplit("/", 1)[0] + "/opr_gen_ext", autocommit=True) as pg:
            pg.execute(f"create extension {ext}")
            cu.execute(f"create extension if not exists {ext}")
            rows = pg.execute("""select oprname, oprkind, oprcanmerge, oprcanhash,
                coalesce(oprleft::regtype::text, '-'), oprright::regtype::text,
                oprresult::regtype::text, oprcom::regoperator::text,
                oprnegate::regoperator::text, oprcode::text, oprrest::text, oprjoin::text
                from pg_operator o join pg_depend d on d.objid = o.oid
                and d.classid = 'pg_operator'::regclass and d.deptype = 'e'
                join pg_extension e on e.oid = d.refobjid where e.extname = %s
                order by o.oid""", [ext]).fetchall()
            out = []
            for (name, kind, merge, hashes, left, right, res, com, neg, code, rest,
                 join) in rows:
                r = _operand(right)
                lhs = _operand(left) if kind == "b" else ""
                expr = f"{lhs} {name} {r}"
                want = _typeof(pg, expr)
                if r is None or lhs is None or want is None or _typeof(cu, expr) != want:
                    continue
                fields = [name, kind, "ft"[merge], "ft"[hashes], left.replace(" ", "_"),
                          right.replace(" ", "_"), res.replace(" ", "_"), com, neg,
                          code, rest, join]
                out.append(" ".join(fields))
            cu.execute(f"drop extension {ext}")
            return out
    finally:
        with psycopg.connect(pg_dsn, autocommit=True) as admin:
            admin.execute("drop database if exists opr_gen_ext")


def main(pg_dsn: str, cu_dsn: str) -> None:
    with psycopg.connect(pg_dsn, autocommit=True) as pg, \
            psycopg.connect(cu_dsn, autocommit=True) as cu:
        keep = kept_operators(pg, cu)
        ext_ops = {ext: extension_operators(pg_dsn, cu, ext) for ext in EXTENSIONS}
        cu_types = {r[0] for r in cu.execute("select oid::int8 from pg_type")}
        ops = pg.execute("""select o.oid, oprname, oprkind, oprcanmerge, oprcanhash, oprleft,
            oprright, oprresult, oprcom, oprnegate, oprcode::oid, oprcode::text, oprrest::oid,
            oprrest::text, oprjoin::oid, oprjoin::text, obj_description(o.oid, 'pg_operator')
            from pg_operator o where oprnamespace = 11 order by o.oid""").fetchall()
        opcs = pg.execute("""select oid, opcmethod, opcname, opcfamily, opcintype, opcdefault,
            opckeytype from pg_opclass order by oid""").fetchall()
        opcs = [c for c in opcs if c[4] in cu_types]
        fams = {c[3] for c in opcs}
        opfs = [f for f in pg.execute(
            "select oid, opfmethod, opfname from pg_opfamily order by oid") if f[0] in fams]
        amops = [a for a in pg.execute("""select oid, amopfamily, amoplefttype, amoprighttype,
            amopstrategy, amoppurpose, amopopr, amopmethod, amopsortfamily from pg_amop
            order by oid""") if a[1] in fams and a[6] in keep]
        amprocs = [a for a in pg.execute("""select oid, amprocfamily, amproclefttype,
            amprocrighttype, amprocnum, amproc::oid, amproc::text, amproc::regprocedure::text
            from pg_amproc
            order by oid""") if a[1] in fams]
    w = sys.stdout.write
    w('"""PostgreSQL 15\'s operator catalogs for what Cumulo implements (generated: do not edit).\n\n'
      "Written by tools/gen_pgoperators.py from a throwaway PostgreSQL 15 and a running Cumulo:\n"
      "pg_operator rows whose operator Cumulo binds to PostgreSQL's result type, the operator\n"
      "classes of the types Cumulo has with their families, and those families' pg_amop rows\n"
      "(for kept operators) and pg_amproc rows. Functions are written name:oid.\n"
      '"""\n\n')
    w("# oid name kind canmerge canhash left right result com negate code rest join\n")
    w('OPERATORS = """\n')
    descr = {}
    for (oid, name, kind, merge, hash_, left, right, res, com, neg, code, codename, rest,
         restname, join, joinname, text) in ops:
        if oid not in keep:
            continue
        com = com if com in keep else 0
        neg = neg if neg in keep else 0
        w(f"{oid} {name} {kind} {'ft'[merge]} {'ft'[hash_]} {left} {right} {res} {com} {neg} "
          f"{_fn(code, codename)} {_fn(rest, restname)} {_fn(join, joinname)}\n")
        if text:
            descr[oid] = text
    w('"""\n\n# pg_description of the operators above\nOPERATOR_DESCRIPTIONS: dict[int, str] = {\n')
    for oid, text in descr.items():
        w(f"    {oid}: {text!r},\n")
    w("}\n\n# oid method name family intype default keytype\nOPCLASSES = \"\"\"\n")
    for oid, m, name, fam, typ, dflt, key in opcs:
        w(f"{oid} {m} {name} {fam} {typ} {'ft'[dflt]} {key}\n")
    w('"""\n\n# oid method name\nOPFAMILIES = """\n')
    for oid, m, name in opfs:
        w(f"{oid} {m} {name}\n")
    w('"""\n\n# oid family left right strategy purpose operator method sortfamily\nAMOPS = """\n')
    for row in amops:
        w(" ".join(str(v) for v in row) + "\n")
    w('"""\n\n# oid family left right number proc\nAMPROCS = """\n')
    for oid, fam, left, right, num, proc, procname, _ in amprocs:
        w(f"{oid} {fam} {left} {right} {num} {_fn(proc, procname)}\n")
    w('"""\n\n# the support functions as regprocedure, for pg_describe_object\n'
      "AMPROC_SIGNATURES: dict[int, str] = {\n")
    for oid, *_, signature in amprocs:
        w(f"    {oid}: {signature!r},\n")
    w("}\n\n# CREATE EXTENSION's operators: name kind canmerge canhash left right result com negate\n"
      "# code rest join, types by name (_ for a space) and com/negate as regoperator text: the\n"
      "# database numbers an extension's objects\nEXTENSION_OPERATORS: dict[str, str] = {\n")
    for ext, lines in ext_ops.items():
        w(f'    "{ext}": """\n' + "".join(line + "\n" for line in lines) + '""",\n')
    w("}\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
