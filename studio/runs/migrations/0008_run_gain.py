"""Runs keep their verdict (`Run.gain`), so the runs list shows it without the test rows.

Runs stored before the column get theirs from the per-row rewards they hold, computed as
a run that ends now stores it (`studio.runs.significance.paired_gain`).
"""

from django.db import migrations, models

BATCH = 200


def store_gains(apps, schema_editor):
    from studio.runs.significance import paired_gain

    Run = apps.get_model("runs", "Run")
    rows = (
        Run.objects.filter(gain__isnull=True, after_rewards__isnull=False)
        .only("pk", "before_rewards", "after_rewards")
        .order_by("pk")
    )
    batch = []
    for run in rows.iterator(chunk_size=BATCH):
        run.gain = paired_gain(run.before_rewards, run.after_rewards)
        if run.gain is not None:
            batch.append(run)
        if len(batch) >= BATCH:
            Run.objects.bulk_update(batch, ["gain"])
            batch = []
    if batch:
        Run.objects.bulk_update(batch, ["gain"])


class Migration(migrations.Migration):
    dependencies = [("runs", "0007_run_owner_created")]

    operations = [
        migrations.AddField(
            model_name="run",
            name="gain",
            field=models.JSONField(
                blank=True,
                help_text="after against before on the test rows, paired "
                "(significance.comparison): stored when the run ends, so that a list shows "
                "the verdict without the rows",
                null=True,
            ),
        ),
        migrations.RunPython(store_gains, migrations.RunPython.noop),
    ]
