"""What an account keeps besides Django's user: its library of DataModels."""

from django.conf import settings
from django.db import models


class SavedDataModel(models.Model):
    """A DataModel drawn in the editor's designer, offered in every program and upload.

    ``schema`` is the JSON schema pydantic emits for the class (``model_json_schema()``);
    ``class_path`` the import path it came from (``studio_editor.<Name>`` when drawn here).
    """

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="data_models"
    )
    name = models.CharField(max_length=200)
    class_path = models.CharField(max_length=300, blank=True, default="")
    schema = models.JSONField(help_text="the model's JSON schema")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "name"], name="data_model_name_per_owner")
        ]

    def __str__(self) -> str:
        return self.name
