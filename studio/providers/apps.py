from django.apps import AppConfig


class ProvidersConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "studio.providers"
    label = "providers"

    def ready(self) -> None:
        from studio.providers.redaction import install_in_celery

        # Django is set up in a worker before Celery replaces the log handlers.
        install_in_celery()
