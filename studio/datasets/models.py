"""Uploaded datasets, validated row by row in a background task.

An upload with errors is kept as ``invalid`` with its report; rows are never
half-imported silently: the stored file is the user's own, and a dataset becomes
usable only when every row validates against its input / output schemas, or,
when the upload asked to keep the valid rows, with its bad rows dropped and
recorded (how many, which lines, and why in ``errors``).
"""

from django.conf import settings
from django.db import models


class Dataset(models.Model):
    class Format(models.TextChoices):
        CSV = "csv"
        JSONL = "jsonl"
        JSON = "json"
        BUILTIN = "builtin"

    class Status(models.TextChoices):
        UPLOADED = "uploaded"
        VALIDATING = "validating"
        VALID = "valid"
        INVALID = "invalid"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="datasets"
    )
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True, default="")
    format = models.CharField(max_length=10, choices=Format.choices)
    builtin_name = models.CharField(
        max_length=100, blank=True, default="", help_text="catalogue name"
    )
    builtin_limit = models.PositiveIntegerField(
        null=True, blank=True, help_text="built-ins: at most this many rows per split"
    )
    file = models.FileField(upload_to="datasets/%Y/%m/", blank=True)
    size_bytes = models.BigIntegerField(default=0)
    sha256 = models.CharField(max_length=64, blank=True, default="")
    input_schema = models.JSONField(help_text="JSON schema of a row's inputs")
    output_schema = models.JSONField(help_text="JSON schema of a row's targets")
    column_mapping = models.JSONField(default=dict, blank=True, help_text="field -> column")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.UPLOADED)
    row_count = models.PositiveIntegerField(default=0)
    error_count = models.PositiveIntegerField(default=0)
    errors = models.JSONField(
        default=list, blank=True, help_text="[{line, field, message}], capped"
    )
    test_fraction = models.FloatField(default=0.2)
    split_seed = models.IntegerField(default=0)
    keep_valid_rows = models.BooleanField(
        default=False, help_text="drop the rows that do not validate instead of refusing the file"
    )
    dropped_count = models.PositiveIntegerField(
        default=0, help_text="rows dropped because they do not validate (keep_valid_rows)"
    )
    dropped_lines = models.JSONField(
        default=list, blank=True, help_text="the line of each dropped row, capped"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    validated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["owner", "status"], name="dataset_owner_status")]

    def __str__(self) -> str:
        return self.name
