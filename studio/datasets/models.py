"""Uploaded datasets, validated row by row in a background task.

An upload with errors is kept as ``invalid`` with its report; rows are never
half-imported silently: the stored file is the user's own, and a dataset becomes
usable only when every row validates against its input / output schemas, or,
when the upload asked to keep the valid rows, with its bad rows dropped and
recorded (how many, which lines, and why in ``errors``).

A dataset's rows change only by new, immutable versions (`DatasetVersion`): version 1
is the upload (or the built-in) as validated; each later version stores only what it
changed against its parent (`DatasetRowChange`: rows added, removed or edited), never
a copy of the rows it keeps (`studio.datasets.versions`).
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


class DatasetVersion(models.Model):
    """One immutable state of a dataset's rows: its counts, its digest, its diff to its parent.

    Version 1 holds the dataset's own rows (the validated upload, or the built-in) and
    their row index (``index``: each row's sha256, in row order); every later version
    holds only its changes (`DatasetRowChange`) against ``parent``. Rows are numbered
    once and keep their number (``row_id``): version 1's rows are 1..n in file order,
    an added row takes ``next_row_id``.
    """

    class Source(models.TextChoices):
        UPLOAD = "upload"
        BUILTIN = "builtin"
        EDIT = "edit"
        PREDICTIONS = "predictions"

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField(help_text="1, 2, ... per dataset")
    parent = models.ForeignKey(
        "self", on_delete=models.CASCADE, null=True, blank=True, related_name="children"
    )
    source = models.CharField(max_length=12, choices=Source.choices)
    message = models.CharField(max_length=500, blank=True, default="")
    row_count = models.PositiveIntegerField(default=0)
    train_count = models.PositiveIntegerField(default=0)
    test_count = models.PositiveIntegerField(default=0)
    digest = models.CharField(
        max_length=64,
        blank=True,
        default="",
        help_text="sha256 over every row's split and content hash, in row order "
        "(empty until version 1's rows are indexed)",
    )
    added = models.PositiveIntegerField(default=0, help_text="rows added against the parent")
    removed = models.PositiveIntegerField(default=0, help_text="rows removed against the parent")
    changed = models.PositiveIntegerField(default=0, help_text="rows edited against the parent")
    next_row_id = models.PositiveBigIntegerField(default=1, help_text="the id of a row added next")
    index = models.FileField(
        upload_to="datasets/index/",
        blank=True,
        help_text="version 1: each row's sha256 (32 bytes), in row order",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["dataset", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "number"], name="dataset_version_number")
        ]

    def __str__(self) -> str:
        return f"{self.dataset_id} v{self.number}"


class DatasetRowChange(models.Model):
    """One row a version added, removed or edited, with its content before and after."""

    class Op(models.TextChoices):
        ADD = "add"
        REMOVE = "remove"
        EDIT = "edit"

    version = models.ForeignKey(DatasetVersion, on_delete=models.CASCADE, related_name="changes")
    row_id = models.PositiveBigIntegerField()
    op = models.CharField(max_length=6, choices=Op.choices)
    split = models.CharField(max_length=5, help_text="train or test (after the change)")
    input = models.JSONField(null=True, blank=True, help_text="after the change (null: removed)")
    output = models.JSONField(null=True, blank=True)
    row_hash = models.CharField(max_length=64, blank=True, default="")
    previous_input = models.JSONField(null=True, blank=True, help_text="before (edit, remove)")
    previous_output = models.JSONField(null=True, blank=True)
    source_ref = models.CharField(
        max_length=100, blank=True, default="", help_text="where the row came from (a prediction)"
    )

    class Meta:
        ordering = ["version", "row_id"]
        constraints = [
            models.UniqueConstraint(fields=["version", "row_id"], name="row_change_per_version")
        ]
