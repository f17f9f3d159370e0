"""Django 5.2's bulk paths through its stock PostgreSQL backend (psycopg 3), as an app uses them.

- `bulk_create` sends `INSERT ... SELECT * FROM UNNEST(%s::varchar(40)[], ...) RETURNING`;
- `bulk_update` sends one `CASE WHEN pk = %s THEN %s ... END` per field with a WHEN per
  row (a 500-row batch once failed with "too many nested parentheses");
- `in_bulk` sends `WHERE id IN (...)` with every key.

The same calls run against PostgreSQL 15, and the stored rows must match.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import django
from django.conf import settings


def _configure(port: int, password: str | None) -> None:
    db = {"ENGINE": "django.db.backends.postgresql", "NAME": "cumulo", "USER": "cumulo",
          "PASSWORD": password or "", "HOST": "127.0.0.1", "PORT": str(port)}
    if not settings.configured:
        settings.configure(DATABASES={"default": db}, INSTALLED_APPS=[], USE_TZ=True,
                           DEFAULT_AUTO_FIELD="django.db.models.BigAutoField")
        django.setup()
    from django.db import connections

    connections["default"].close()
    connections["default"].settings_dict.update(db)


def _model() -> type:
    from django.db import models

    class Item(models.Model):
        name = models.CharField(max_length=40)
        qty = models.IntegerField(null=True)
        price = models.DecimalField(max_digits=12, decimal_places=2)
        seen = models.DateTimeField()

        class Meta:
            app_label = "bulk"
            db_table = "django_bulk_item"

    return Item


_ITEM: list[type] = []


def _run(port: int, password: str | None) -> list[tuple]:
    _configure(port, password)
    from django.db import connection

    if not _ITEM:
        _ITEM.append(_model())
    item = _ITEM[0]
    with connection.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS django_bulk_item")
    with connection.schema_editor() as editor:
        editor.create_model(item)
    when = dt.datetime(2024, 5, 6, 7, 8, 9, tzinfo=dt.UTC)
    made = item.objects.bulk_create([
        item(name=f"n{i}", qty=None if i % 5 == 0 else i, price=Decimal(i) / 4, seen=when)
        for i in range(600)])
    assert all(m.pk is not None for m in made)  # RETURNING gave every key back
    for m in made:
        m.name = m.name.upper() + "'s"
        m.qty = (m.qty or 0) * 2
    item.objects.bulk_update(made, ["name", "qty"], batch_size=500)
    picked = item.objects.in_bulk([m.pk for m in made[::2]])
    assert len(picked) == 300
    rows = list(item.objects.order_by("id").values_list("name", "qty", "price", "seen"))
    connection.close()
    return rows


def test_bulk_create_update_and_in_bulk_match_postgresql(cumulo_server, pg15):
    ours = _run(cumulo_server.port, None)
    theirs = _run(pg15.port, "cumulo-pw")
    assert len(ours) == 600 and ours == theirs
    assert ours[1] == ("N1's", 2, Decimal("0.25"), dt.datetime(2024, 5, 6, 7, 8, 9, tzinfo=dt.UTC))
