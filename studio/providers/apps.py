from django.apps import AppConfig


class ProvidersConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "studio.providers"
    label = "providers"

    def ready(self) -> None:
        from django.conf import settings

        from studio.providers import keys, outgoing
        from studio.providers.redaction import install_in_celery

        # Django is set up in a worker before Celery replaces the log handlers.
        install_in_celery()
        # Every model of this process obeys the outgoing-request policy (a bad entry in
        # STUDIO_ALLOWED_OUTGOING stops the start, naming it).
        outgoing.check_allowed_outgoing(settings.STUDIO_ALLOWED_OUTGOING)
        outgoing.install()
        # No provider call may fall back to the server's own keys (keys.py).
        keys.scrub_environment(keys.parse_grants(settings.STUDIO_GRANTED_KEYS))
