"""SQLAlchemy `Enum` on the stock postgresql dialect, and an Alembic migration of an enum (issue 16).

Each scenario runs against Cumulo and against a throwaway PostgreSQL 15 through
`postgresql+psycopg://`, SQLAlchemy's own PostgreSQL dialect, and the two
servers' results must be equal: `metadata.create_all` emits CREATE TYPE,
rows round-trip as Python enums and sort in the declared order (not
alphabetically), the inspector reflects the enum (`get_enums`, the column's
ENUM type with its labels), `drop_all` drops the type; an Alembic project
creates a table with an enum column, adds a label with ALTER TYPE ... ADD VALUE
BEFORE, and downgrades back to nothing.
"""

from __future__ import annotations

import enum
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

pytest.importorskip("alembic")
from alembic import command  # noqa: E402
from alembic.config import Config  # noqa: E402


class Status(enum.Enum):
    draft = "draft"
    live = "live"
    gone = "gone"


def _url(server, password: str | None = None) -> str:
    auth = "cumulo" if password is None else f"cumulo:{password}"
    return f"postgresql+psycopg://{auth}@127.0.0.1:{server.port}/cumulo"


def _orm_scenario(url: str) -> dict:
    engine = sa.create_engine(url)
    md = sa.MetaData()
    doc = sa.Table("sqla_enum_doc", md,
                   sa.Column("id", sa.Integer, primary_key=True),
                   sa.Column("status", sa.Enum(Status, name="sqla_status"), nullable=False),
                   sa.Column("tags", postgresql.ARRAY(sa.Enum(Status, name="sqla_status"))))
    out: dict = {}
    try:
        md.drop_all(engine)
        md.create_all(engine)
        with engine.begin() as c:
            c.execute(doc.insert(), [{"id": 1, "status": Status.gone, "tags": [Status.live]},
                                     {"id": 2, "status": Status.draft, "tags": []},
                                     {"id": 3, "status": Status.live, "tags": None}])
            out["sorted"] = c.execute(sa.select(doc.c.id, doc.c.status)
                                      .order_by(doc.c.status)).all()
            out["where"] = c.execute(sa.select(doc.c.id).where(doc.c.status > Status.draft)
                                     .order_by(doc.c.id)).scalars().all()
            out["tags"] = c.execute(sa.select(doc.c.tags).order_by(doc.c.id)).scalars().all()
        insp = sa.inspect(engine)
        out["enums"] = [(e["name"], e["labels"]) for e in insp.get_enums()
                        if e["name"] == "sqla_status"]
        col = next(c for c in insp.get_columns("sqla_enum_doc") if c["name"] == "status")
        out["column"] = (type(col["type"]).__name__, col["type"].enums, col["type"].name)
        with engine.begin() as c:
            with pytest.raises(sa.exc.DataError):
                with c.begin_nested():
                    c.execute(sa.text("insert into sqla_enum_doc values (9, 'bogus')"))
        md.drop_all(engine)
        out["after_drop"] = [e["name"] for e in sa.inspect(engine).get_enums()
                             if e["name"] == "sqla_status"]
    finally:
        engine.dispose()
    return out


def test_sqlalchemy_enum_like_pg15(cumulo_server, pg15):
    """create_all / insert / order / reflect / drop_all of an Enum column: PG 15's results."""
    got = _orm_scenario(_url(cumulo_server))
    want = _orm_scenario(_url(pg15, pg15_password(pg15)))
    assert got == want
    assert [s for _, s in got["sorted"]] == [Status.draft, Status.live, Status.gone]
    assert got["enums"] == [("sqla_status", ["draft", "live", "gone"])]


def pg15_password(pg15) -> str:
    from tests.pg15 import PASSWORD

    return PASSWORD


ENV_PY = '''
from alembic import context
from sqlalchemy import create_engine

config = context.config
engine = create_engine(config.get_main_option("sqlalchemy.url"))
with engine.connect() as connection:
    context.configure(connection=connection, target_metadata=None)
    with context.begin_transaction():
        context.run_migrations()
engine.dispose()
'''

REV_1 = '''
"""create ticket with an enum"""
import sqlalchemy as sa
from alembic import op

revision = "a1"
down_revision = None


def upgrade():
    op.create_table("alem_ticket", sa.Column("id", sa.Integer, primary_key=True),
                    sa.Column("state", sa.Enum("open", "closed", name="alem_state"), nullable=False))


def downgrade():
    op.drop_table("alem_ticket")
    sa.Enum(name="alem_state").drop(op.get_bind())
'''

REV_2 = '''
"""add a label to the enum"""
from alembic import op

revision = "a2"
down_revision = "a1"


def upgrade():
    with op.get_context().autocommit_block():
        op.execute("ALTER TYPE alem_state ADD VALUE IF NOT EXISTS 'pending' BEFORE 'closed'")
    op.execute("INSERT INTO alem_ticket VALUES (1, 'pending'), (2, 'open'), (3, 'closed')")


def downgrade():
    op.execute("DELETE FROM alem_ticket")
'''


def _alembic_scenario(url: str, tmp: Path) -> dict:
    engine = sa.create_engine(url)
    with engine.begin() as c:
        c.execute(sa.text("drop table if exists alem_ticket"))
        c.execute(sa.text("drop table if exists alembic_version"))
        c.execute(sa.text("drop type if exists alem_state"))
    cfg = Config(str(tmp / "alembic.ini"))
    cfg.set_main_option("script_location", str(tmp / "migrations"))
    cfg.set_main_option("sqlalchemy.url", url)
    command.init(cfg, str(tmp / "migrations"))
    (tmp / "migrations" / "env.py").write_text(ENV_PY)
    (tmp / "migrations" / "versions" / "a1_create.py").write_text(REV_1)
    (tmp / "migrations" / "versions" / "a2_label.py").write_text(REV_2)
    out: dict = {}
    try:
        command.upgrade(cfg, "head")
        with engine.connect() as c:
            out["labels"] = c.execute(sa.text(
                "select enumlabel from pg_enum e join pg_type t on t.oid = e.enumtypid "
                "where t.typname = 'alem_state' order by enumsortorder")).scalars().all()
            out["rows"] = c.execute(sa.text(
                "select id, state::text from alem_ticket order by state, id")).all()
        out["reflected"] = sa.inspect(engine).get_columns("alem_ticket")[1]["type"].enums
        command.downgrade(cfg, "base")
        with engine.connect() as c:
            out["left"] = c.execute(sa.text(
                "select count(*) from pg_type where typname in ('alem_state', '_alem_state')"
            )).scalar()
    finally:
        engine.dispose()
    return out


def test_alembic_enum_migration_like_pg15(cumulo_server, pg15, tmp_path):
    """Alembic upgrade (CREATE TYPE, ADD VALUE BEFORE) and downgrade (DROP TYPE): PG 15's results."""
    got = _alembic_scenario(_url(cumulo_server), tmp_path / "cu")
    want = _alembic_scenario(_url(pg15, pg15_password(pg15)), tmp_path / "pg")
    assert got == want
    assert got["labels"] == ["open", "pending", "closed"]
    assert got["left"] == 0
