"""Django 5.2's contrib.postgres hstore and full-text search through its stock PostgreSQL backend,
against Cumulo and PG 15 (issue 16, Django item 10).

Django's own migration operations create the extension (`HStoreExtension`, which
also registers psycopg's hstore adapter by the OID it looks up in pg_type) and a
model with an `HStoreField` and a `SearchVectorField`; then the lookups Django
users write: `attrs__color`, `attrs__has_key`, `attrs__contains`, `attrs__keys`,
`SearchVector` with weights, `SearchQuery` (plain, raw, websearch),
`SearchRank`, and an UPDATE that fills the vector column.
Every answer must be PostgreSQL's.
"""

from __future__ import annotations

import pytest

from tests.django.test_django_orm import _configure

APP = "djpg"


def _operations() -> list:
    from django.contrib.postgres.fields import HStoreField
    from django.contrib.postgres.operations import HStoreExtension
    from django.contrib.postgres.search import SearchVectorField
    from django.db import migrations, models

    return [
        HStoreExtension(),
        migrations.CreateModel("Doc", [
            ("id", models.AutoField(primary_key=True)),
            ("title", models.TextField()),
            ("body", models.TextField()),
            ("attrs", HStoreField(null=True)),
            ("sv", SearchVectorField(null=True))]),
    ]


def _clean() -> None:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute(f"DROP TABLE IF EXISTS {APP}_doc")
        cur.execute("DROP EXTENSION IF EXISTS hstore")


def _scenario(port: int, password: str | None) -> list:
    _configure(port, password)
    from django.contrib.postgres.search import SearchQuery, SearchRank, SearchVector
    from django.contrib.postgres.signals import get_hstore_oids
    from django.db import connection
    from django.db.migrations.state import ProjectState

    get_hstore_oids.cache_clear()  # NB: cached per alias; the two servers' OIDs differ
    _clean()
    state = ProjectState()
    try:
        with connection.schema_editor() as editor:
            for op in _operations():
                new = state.clone()
                op.state_forwards(APP, new)
                op.database_forwards(APP, editor, state, new)
                state = new
        doc = state.apps.get_model(APP, "Doc")
        doc.objects.create(title="Cats", body="The cat sat on the mat",
                           attrs={"color": "black", "age": None})
        doc.objects.create(title="Dogs", body="A dog ran to the cats", attrs={"color": "brown"})
        doc.objects.create(title="Mice", body="Mice hide", attrs={})
        out: list = [
            list(doc.objects.filter(attrs__color="black").values_list("title", flat=True)),
            list(doc.objects.filter(attrs__has_key="age").values_list("title", flat=True)),
            list(doc.objects.filter(attrs__contains={"color": "brown"})
                 .values_list("title", "attrs")),
            list(doc.objects.order_by("id").values_list("attrs__keys", "attrs")),
        ]
        vec = SearchVector("title", weight="A") + SearchVector("body", weight="B")
        out.append(list(doc.objects.annotate(rank=SearchRank(vec, SearchQuery("cat")))
                        .filter(rank__gt=0).order_by("-rank", "id")
                        .values_list("title", "rank")))
        out.append(list(doc.objects.annotate(s=SearchVector("body")).filter(s="dog")
                        .values_list("title", flat=True)))
        doc.objects.update(sv=SearchVector("title", "body", config="english"))
        out.append(list(doc.objects.order_by("id").values_list("sv", flat=True)))
        out.append(list(doc.objects.filter(
            sv=SearchQuery("cat & !dog", search_type="raw", config="english"))
            .values_list("title", flat=True)))
        out.append(list(doc.objects.filter(
            sv=SearchQuery('"dog ran" or mice', search_type="websearch", config="english"))
            .order_by("id").values_list("title", flat=True)))
        out.append(list(doc.objects.annotate(s=SearchVector("body", config="english"))
                        .filter(s=SearchQuery("hiding", config="english"))
                        .values_list("title", flat=True)))
        return out
    finally:
        _clean()


def test_django_hstore_and_search_same_as_postgresql(cumulo_server, pg15):
    from tests.pg15 import PASSWORD

    theirs = _scenario(pg15.port, PASSWORD)
    assert theirs[0] == ["Cats"] and theirs[2] == [("Dogs", {"color": "brown"})]
    ours = _scenario(cumulo_server.port, None)
    assert ours == theirs


@pytest.fixture(autouse=True)
def _django_settings_left_for_others():
    yield
    from django.db import connections

    connections["default"].close()
