from django.apps import AppConfig


class ScorersConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "studio.scorers"
    label = "scorers"
