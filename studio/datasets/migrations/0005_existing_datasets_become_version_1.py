"""Every dataset stored before versions existed becomes its version 1.

Its counts come from the dataset; its row index and digest are built from its file the
first time a version of it is read (`studio.datasets.versions.ensure_index`), so this
migration reads no file and stays fast however many datasets there are.
"""

from django.db import migrations


def create_first_versions(apps, schema_editor):
    Dataset = apps.get_model("datasets", "Dataset")
    DatasetVersion = apps.get_model("datasets", "DatasetVersion")
    have = set(DatasetVersion.objects.filter(number=1).values_list("dataset_id", flat=True))
    DatasetVersion.objects.bulk_create(
        [
            DatasetVersion(
                dataset_id=dataset.pk,
                number=1,
                source="builtin" if dataset.format == "builtin" else "upload",
                row_count=dataset.row_count,
                next_row_id=dataset.row_count + 1,
            )
            for dataset in Dataset.objects.exclude(pk__in=have).only("pk", "format", "row_count")
        ],
        batch_size=500,
    )


class Migration(migrations.Migration):
    dependencies = [("datasets", "0004_versions")]

    operations = [migrations.RunPython(create_first_versions, migrations.RunPython.noop)]
