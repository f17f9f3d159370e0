"""An Alembic project on `cumulo://`: autogenerate, upgrade and downgrade, for real."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sqlalchemy import (
    Column,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    create_engine,
    inspect,
    text,
)

pytest.importorskip("alembic")
from alembic import command  # noqa: E402
from alembic.config import Config  # noqa: E402

ENV_PY = '''
from alembic import context
from sqlalchemy import create_engine

config = context.config
target_metadata = config.attributes["target_metadata"]
engine = create_engine(config.get_main_option("sqlalchemy.url"))
with engine.connect() as connection:
    context.configure(connection=connection, target_metadata=target_metadata,
                      include_name=lambda name, type_, parent: type_ != "table"
                      or name.startswith("dlg_al_"))
    with context.begin_transaction():
        context.run_migrations()
engine.dispose()
'''

TABLES = ("dlg_al_item", "dlg_al_owner", "alembic_version")


def _metadata(with_note: bool) -> MetaData:
    md = MetaData()
    Table("dlg_al_owner", md,
          Column("id", Integer, primary_key=True),
          Column("name", String(40), nullable=False, unique=True))
    item = Table("dlg_al_item", md,
                 Column("id", Integer, primary_key=True),
                 Column("owner_id", Integer, ForeignKey("dlg_al_owner.id")),
                 Column("title", String(80), nullable=False),
                 *([Column("note", String(200))] if with_note else []))
    Index("dlg_al_item_title_ix", item.c.title)
    return md


@pytest.fixture
def project(sync_url, tmp_path):
    url = sync_url
    engine = create_engine(url)
    with engine.begin() as conn:
        for name in TABLES:
            conn.execute(text(f"drop table if exists {name}"))
    cfg = Config(str(tmp_path / "alembic.ini"))
    cfg.set_main_option("script_location", str(tmp_path / "migrations"))
    cfg.set_main_option("sqlalchemy.url", url)
    command.init(cfg, str(tmp_path / "migrations"))
    (tmp_path / "migrations" / "env.py").write_text(ENV_PY)
    yield cfg, engine
    with engine.begin() as conn:
        for name in TABLES:
            conn.execute(text(f"drop table if exists {name}"))
    engine.dispose()


def _script(rev) -> str:
    return Path(rev.path).read_text()


def _ops(script: str, fn: str) -> list[str]:
    """The `op.*` calls of the script's upgrade() or downgrade() body."""
    body = script.split(f"def {fn}()", 1)[1].split("\ndef ", 1)[0]
    return re.findall(r"op\.(\w+)\(", body)


def test_autogenerate_upgrade_downgrade(project):
    cfg, engine = project
    cfg.attributes["target_metadata"] = _metadata(with_note=False)
    first = command.revision(cfg, message="create", autogenerate=True)
    assert sorted(_ops(_script(first), "upgrade")) == [
        "create_index", "create_table", "create_table"]
    command.upgrade(cfg, "head")
    insp = inspect(engine)
    assert {"dlg_al_owner", "dlg_al_item", "alembic_version"} <= set(insp.get_table_names())
    assert [i["name"] for i in insp.get_indexes("dlg_al_item")] == ["dlg_al_item_title_ix"]

    # Nothing changed: autogenerate must see the database and the models as equal.
    same = command.revision(cfg, message="noop", autogenerate=True)
    assert _ops(_script(same), "upgrade") == []
    command.upgrade(cfg, "head")

    cfg.attributes["target_metadata"] = _metadata(with_note=True)
    second = command.revision(cfg, message="note", autogenerate=True)
    assert _ops(_script(second), "upgrade") == ["add_column"]
    assert "'note'" in _script(second)
    command.upgrade(cfg, "head")
    cols = [c["name"] for c in inspect(engine).get_columns("dlg_al_item")]
    assert cols == ["id", "owner_id", "title", "note"]

    command.downgrade(cfg, "-2")  # back over "note" and "noop"
    cols = [c["name"] for c in inspect(engine).get_columns("dlg_al_item")]
    assert cols == ["id", "owner_id", "title"]
    command.downgrade(cfg, "base")
    assert not {"dlg_al_owner", "dlg_al_item"} & set(inspect(engine).get_table_names())
    with engine.connect() as conn:
        assert conn.scalar(text("select count(*) from alembic_version")) == 0
