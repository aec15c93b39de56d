"""Provider params become a declared set per provider kind (studio.providers.params).

Rows stored before hold whatever was sent (``cache_dir``, ``model_path``, ``n_ctx``,
``timeout=1e9``...): each entry that is no setting of the row's kind, or is out of its
range, is moved from ``params`` to ``dropped_params``, so the row keeps only what a model
may be built from and says what it lost. Going back restores them.
"""

from django.db import migrations, models


def drop_refused(apps, schema_editor):
    from studio.providers.params import allowed_params

    Provider = apps.get_model("providers", "Provider")
    for provider in Provider.objects.all().iterator():
        kept, dropped = allowed_params(provider.kind, provider.model, provider.params)
        if not dropped:
            continue
        provider.dropped_params = {key: provider.params[key] for key in dropped}
        provider.params = kept
        provider.save(update_fields=["params", "dropped_params"])


def restore(apps, schema_editor):
    Provider = apps.get_model("providers", "Provider")
    for provider in Provider.objects.all().iterator():
        if not provider.dropped_params:
            continue
        provider.params = {**provider.params, **provider.dropped_params}
        provider.dropped_params = {}
        provider.save(update_fields=["params", "dropped_params"])


class Migration(migrations.Migration):
    dependencies = [("providers", "0002_one_default_per_kind")]

    operations = [
        migrations.AddField(
            model_name="provider",
            name="dropped_params",
            field=models.JSONField(
                blank=True,
                default=dict,
                editable=False,
                help_text="params removed because they are no settings of the provider's "
                "kind (migration 0003), with their values",
            ),
        ),
        migrations.AlterField(
            model_name="provider",
            name="params",
            field=models.JSONField(
                blank=True, default=dict, help_text="settings of the provider's kind (providers.params)"
            ),
        ),
        migrations.RunPython(drop_refused, restore),
    ]
