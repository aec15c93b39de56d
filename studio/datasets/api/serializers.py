"""Dataset representations."""

from __future__ import annotations

import json
from typing import Any

from rest_framework import serializers

from studio.common.fields import JSONField
from studio.common.jsondepth import TooDeep, loads
from studio.datasets.models import Dataset, DatasetVersion
from studio.datasets.versions import ROW_SPLITS


class RowErrorSerializer(serializers.Serializer[dict[str, Any]]):
    line = serializers.IntegerField()
    field = serializers.CharField(allow_blank=True)
    message = serializers.CharField()
    raw = serializers.CharField(
        required=False, help_text="the row's text in the file, truncated (when known)"
    )


class DatasetSerializer(serializers.ModelSerializer[Dataset]):
    errors = RowErrorSerializer(many=True, read_only=True)
    dropped_lines = serializers.ListField(
        child=serializers.IntegerField(),
        read_only=True,
        help_text="the line of each dropped row, capped",
    )
    errors_truncated = serializers.SerializerMethodField()
    latest_version = serializers.IntegerField(
        read_only=True, default=1, help_text="the number of the dataset's newest version"
    )

    latest_row_count = serializers.SerializerMethodField(
        help_text="the rows of the dataset's newest version (what a run trains on unless it "
        "picks a version); row_count is the upload's"
    )

    class Meta:
        model = Dataset
        fields = [
            "id",
            "name",
            "description",
            "format",
            "builtin_name",
            "builtin_limit",
            "size_bytes",
            "sha256",
            "input_schema",
            "output_schema",
            "column_mapping",
            "status",
            "row_count",
            "error_count",
            "errors",
            "errors_truncated",
            "test_fraction",
            "split_seed",
            "keep_valid_rows",
            "dropped_count",
            "dropped_lines",
            "created_at",
            "validated_at",
            "latest_version",
            "latest_row_count",
        ]
        read_only_fields = fields

    def get_errors_truncated(self, dataset: Dataset) -> bool:
        return dataset.error_count > len(dataset.errors)

    def get_latest_row_count(self, dataset: Dataset) -> int:
        annotated = getattr(dataset, "latest_row_count", None)  # the views' queryset
        if annotated is not None:
            return int(annotated)
        newest = dataset.versions.order_by("-number").values_list("row_count", flat=True).first()
        return dataset.row_count if newest is None else newest


class DatasetSummarySerializer(DatasetSerializer):
    """The list view: everything but the row errors and the dropped lines."""

    class Meta(DatasetSerializer.Meta):
        fields = [f for f in DatasetSerializer.Meta.fields if f not in ("errors", "dropped_lines")]
        read_only_fields = fields


class JsonText(JSONField):
    """A JSON value that may also arrive as text (multipart forms send strings)."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, str):
            try:
                data = loads(data) if data.strip() else None
            except TooDeep as error:
                raise serializers.ValidationError(str(error)) from None
            except json.JSONDecodeError as error:
                raise serializers.ValidationError(f"not valid JSON: {error}") from None
        return super().to_internal_value(data)


class DatasetUploadSerializer(serializers.Serializer[dict[str, Any]]):
    file = serializers.FileField(help_text=".csv, .jsonl or .json")
    name = serializers.CharField(max_length=200)
    description = serializers.CharField(required=False, allow_blank=True, default="")
    input_schema = JsonText(help_text="JSON schema of a row's inputs")
    output_schema = JsonText(help_text="JSON schema of a row's targets")
    column_mapping = JsonText(required=False, allow_null=True, help_text="{field: column}")
    test_fraction = serializers.FloatField(
        required=False, default=0.2, min_value=0.0, max_value=0.99
    )
    split_seed = serializers.IntegerField(required=False, default=0)
    keep_valid_rows = serializers.BooleanField(
        required=False,
        default=False,
        help_text="drop the rows that do not validate (recorded) instead of refusing the file",
    )
    format = serializers.ChoiceField(
        choices=Dataset.Format.choices,
        required=False,
        help_text="csv, jsonl or json; default: from the file name",
    )


class DatasetUpdateSerializer(serializers.Serializer[dict[str, Any]]):
    name = serializers.CharField(max_length=200, required=False)
    description = serializers.CharField(required=False, allow_blank=True)


class BuiltinCreateSerializer(serializers.Serializer[dict[str, Any]]):
    builtin_name = serializers.CharField(help_text="a name from /api/datasets/catalogue/")
    name = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    limit = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, help_text="rows kept per split"
    )


class DatasetCatalogueEntrySerializer(serializers.Serializer[dict[str, Any]]):
    name = serializers.CharField()
    title = serializers.CharField()
    description = serializers.CharField()
    task = serializers.CharField()
    sizes = serializers.DictField(child=serializers.IntegerField())
    licence = serializers.CharField()
    source = serializers.CharField()
    input_data_model = serializers.CharField()
    output_data_model = serializers.CharField()
    input_schema = serializers.JSONField()
    output_schema = serializers.JSONField(allow_null=True)


class PreviewRowSerializer(serializers.Serializer[dict[str, Any]]):
    line = serializers.IntegerField()
    input = serializers.JSONField(allow_null=True)
    output = serializers.JSONField(allow_null=True)
    errors = RowErrorSerializer(many=True)


class PreviewSerializer(serializers.Serializer[dict[str, Any]]):
    rows = PreviewRowSerializer(many=True)


class ErrorsSerializer(serializers.Serializer[dict[str, Any]]):
    status = serializers.CharField()
    error_count = serializers.IntegerField()
    truncated = serializers.BooleanField()
    errors = RowErrorSerializer(many=True)


class DatasetVersionSerializer(serializers.ModelSerializer[DatasetVersion]):
    parent = serializers.IntegerField(
        source="parent.number", read_only=True, allow_null=True, help_text="the parent's number"
    )
    digest = serializers.SerializerMethodField(
        help_text="sha256 over the rows' splits and contents in row order "
        "(null until version 1's rows are indexed)"
    )

    class Meta:
        model = DatasetVersion
        fields = [
            "number",
            "parent",
            "source",
            "message",
            "row_count",
            "train_count",
            "test_count",
            "digest",
            "added",
            "removed",
            "changed",
            "created_at",
        ]
        read_only_fields = fields

    def get_digest(self, version: DatasetVersion) -> str | None:
        return version.digest or None


class DatasetVersionCreateSerializer(serializers.Serializer[dict[str, Any]]):
    parent = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, help_text="default: the latest version"
    )
    message = serializers.CharField(required=False, allow_blank=True, default="", max_length=500)
    add = serializers.ListField(
        child=JSONField(),
        required=False,
        default=list,
        help_text='rows to add: [{"input": {...}, "output": {...}, "split": train|test|auto}]',
    )
    remove = serializers.ListField(
        child=serializers.IntegerField(min_value=1),
        required=False,
        default=list,
        help_text="row ids of the parent to remove",
    )
    edit = serializers.ListField(
        child=JSONField(),
        required=False,
        default=list,
        help_text='rows to change: [{"row_id": 3, "input"?: {...}, "output"?: {...}}]',
    )


class VersionRowSerializer(serializers.Serializer[dict[str, Any]]):
    row_id = serializers.IntegerField(help_text="the row's number, kept across versions")
    split = serializers.ChoiceField(choices=ROW_SPLITS)
    input = serializers.JSONField()
    output = serializers.JSONField()


class VersionRowsSerializer(serializers.Serializer[dict[str, Any]]):
    count = serializers.IntegerField(help_text="rows of the version (of the split asked)")
    offset = serializers.IntegerField()
    rows = VersionRowSerializer(many=True)


class DiffRowSerializer(serializers.Serializer[dict[str, Any]]):
    row_id = serializers.IntegerField()
    split = serializers.ChoiceField(choices=ROW_SPLITS)
    input = serializers.JSONField(allow_null=True, help_text="after (null: removed)")
    output = serializers.JSONField(allow_null=True)
    previous_input = serializers.JSONField(allow_null=True, help_text="before (null: added)")
    previous_output = serializers.JSONField(allow_null=True)
    source_ref = serializers.CharField(allow_blank=True, help_text="where an added row came from")


class DiffRowsSerializer(serializers.Serializer[dict[str, Any]]):
    added = DiffRowSerializer(many=True)
    removed = DiffRowSerializer(many=True)
    changed = DiffRowSerializer(many=True)


class VersionDiffSerializer(serializers.Serializer[dict[str, Any]]):
    parent = serializers.IntegerField(allow_null=True, help_text="the parent's number")
    added = serializers.IntegerField()
    removed = serializers.IntegerField()
    changed = serializers.IntegerField()
    rows = DiffRowsSerializer(help_text="the first rows of each kind (at most 200)")
