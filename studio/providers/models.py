"""Language / embedding model configurations per user; API keys encrypted at rest."""

from django.conf import settings
from django.db import models


class Provider(models.Model):
    class Kind(models.TextChoices):
        LANGUAGE = "language"
        EMBEDDING = "embedding"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="providers"
    )
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.LANGUAGE)
    model = models.CharField(max_length=300, help_text='litellm name, e.g. "openai/gpt-4o-mini"')
    api_base = models.URLField(blank=True, default="")
    encrypted_api_key = models.BinaryField(blank=True, default=b"", editable=False)
    params = models.JSONField(
        default=dict, blank=True, help_text="settings of the provider's kind (providers.params)"
    )
    dropped_params = models.JSONField(
        default=dict,
        blank=True,
        editable=False,
        help_text="params removed because they are no settings of the provider's kind "
        "(migration 0003), with their values",
    )
    is_default = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "name"], name="provider_name_per_owner"),
            # At most one default per user and kind (language / embedding).
            models.UniqueConstraint(
                fields=["owner", "kind"],
                condition=models.Q(is_default=True),
                name="one_default_provider_per_kind",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.model})"
