from django.apps import AppConfig


class AccountsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "studio.accounts"
    label = "accounts"

    def ready(self) -> None:
        from studio.accounts import signals

        signals.connect()
