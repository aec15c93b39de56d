"""Runs stored before dataset versions existed trained and tested on their dataset's version 1."""

from django.db import migrations
from django.db.models import OuterRef, Subquery


def record_version_1(apps, schema_editor):
    Run = apps.get_model("runs", "Run")
    DatasetVersion = apps.get_model("datasets", "DatasetVersion")
    first = DatasetVersion.objects.filter(dataset_id=OuterRef("dataset_id"), number=1)
    Run.objects.filter(dataset_version__isnull=True).update(
        dataset_version=Subquery(first.values("pk")[:1])
    )


class Migration(migrations.Migration):
    dependencies = [
        ("runs", "0005_dataset_version"),
        ("datasets", "0005_existing_datasets_become_version_1"),
    ]

    operations = [migrations.RunPython(record_version_1, migrations.RunPython.noop)]
