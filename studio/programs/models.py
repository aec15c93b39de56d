"""Programs and their immutable versions.

A version's ``document`` is exactly `optimizer_core.Program.to_json()`; the
editor's node positions live beside it in ``layout``. Saving creates a new
version; runs point at the version they trained.
"""

from django.conf import settings
from django.db import models


class Program(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="programs"
    )
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "name"], name="program_name_per_owner")
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def latest_version(self) -> "ProgramVersion | None":
        return self.versions.order_by("-number").first()


class ProgramVersion(models.Model):
    program = models.ForeignKey(Program, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    document = models.JSONField(help_text="optimizer_core.Program.to_json()")
    layout = models.JSONField(default=dict, blank=True, help_text="editor node positions")
    message = models.CharField(max_length=500, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["program", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["program", "number"], name="version_number_per_program")
        ]

    def __str__(self) -> str:
        return f"{self.program.name} v{self.number}"
