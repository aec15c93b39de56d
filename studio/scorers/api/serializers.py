"""Code reward and version representations."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from studio.common.fields import JSONField
from studio.scorers.models import Scorer, ScorerVersion
from studio.scorers.trying import MAX_ROWS


class ScorerSerializer(serializers.ModelSerializer[Scorer]):
    latest_version = serializers.IntegerField(
        source="latest_number", read_only=True, allow_null=True
    )
    version_count = serializers.IntegerField(read_only=True)
    run_count = serializers.IntegerField(
        read_only=True, help_text="runs that use one of its versions (it cannot be deleted then)"
    )

    class Meta:
        model = Scorer
        fields = [
            "id",
            "name",
            "description",
            "kind",
            "latest_version",
            "version_count",
            "run_count",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields


class ScorerCreateSerializer(serializers.Serializer[dict[str, Any]]):
    name = serializers.CharField(max_length=200)
    description = serializers.CharField(required=False, allow_blank=True, default="")
    kind = serializers.ChoiceField(choices=Scorer.Kind.choices, default=Scorer.Kind.REWARD)
    source = serializers.CharField(trim_whitespace=False, help_text="the Python code")
    message = serializers.CharField(required=False, allow_blank=True, default="", max_length=500)


class ScorerUpdateSerializer(serializers.Serializer[dict[str, Any]]):
    name = serializers.CharField(max_length=200, required=False)
    description = serializers.CharField(required=False, allow_blank=True)


class ScorerVersionSerializer(serializers.ModelSerializer[ScorerVersion]):
    scorer = serializers.PrimaryKeyRelatedField(read_only=True)
    created_by = serializers.CharField(
        source="created_by.username",
        read_only=True,
        allow_null=True,
        help_text="who saved it (null: an account since deleted)",
    )

    class Meta:
        model = ScorerVersion
        fields = ["id", "scorer", "number", "source", "message", "created_at", "created_by"]
        read_only_fields = fields


class ScorerVersionSummarySerializer(serializers.ModelSerializer[ScorerVersion]):
    created_by = serializers.CharField(
        source="created_by.username",
        read_only=True,
        allow_null=True,
        help_text="who saved it (null: an account since deleted)",
    )

    class Meta:
        model = ScorerVersion
        fields = ["id", "number", "message", "created_at", "created_by"]
        read_only_fields = fields


class ScorerVersionCreateSerializer(serializers.Serializer[dict[str, Any]]):
    source = serializers.CharField(trim_whitespace=False, help_text="the Python code")
    message = serializers.CharField(required=False, allow_blank=True, default="", max_length=500)


class ScorerTemplateSerializer(serializers.Serializer[dict[str, Any]]):
    kind = serializers.ChoiceField(choices=Scorer.Kind.choices)
    source = serializers.CharField()


class ScorerImportSerializer(serializers.Serializer[dict[str, Any]]):
    file = serializers.FileField(required=False, help_text="an exported .reward.json file")
    name = serializers.CharField(required=False, allow_blank=True, default="", max_length=200)
    kind = serializers.ChoiceField(choices=Scorer.Kind.choices, required=False)
    description = serializers.CharField(required=False, allow_blank=True)
    versions = JSONField(required=False, help_text="[{source, message}], oldest first")


class ScorerTryRequestSerializer(serializers.Serializer[dict[str, Any]]):
    dataset = serializers.IntegerField(help_text="one of your datasets")
    dataset_version = serializers.IntegerField(
        required=False, min_value=1, help_text="its version number (default: the latest)"
    )
    rows = serializers.ListField(
        child=serializers.IntegerField(min_value=0),
        required=False,
        max_length=MAX_ROWS,
        help_text=f"row positions in the version, from 0 (at most {MAX_ROWS})",
    )
    limit = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_ROWS,
        default=5,
        help_text="without `rows`: the first N rows",
    )
    version = serializers.IntegerField(
        required=False, min_value=1, help_text="the version to run (default: the latest)"
    )
    source = serializers.CharField(
        required=False, trim_whitespace=False, help_text="unsaved code to run instead"
    )
    prediction_fields = serializers.DictField(
        child=serializers.CharField(),
        required=False,
        help_text="y_pred from the row: {prediction field: row field} ('output.x', 'input.x' "
        "or a bare name)",
    )
    prediction = JSONField(
        required=False,
        help_text="y_pred typed in: one object for every row, or a list, one per row",
    )


class ScorerTryRowSerializer(serializers.Serializer[dict[str, Any]]):
    index = serializers.IntegerField()
    y_true = serializers.JSONField(allow_null=True)
    y_pred = serializers.JSONField(allow_null=True)
    score = serializers.FloatField()
    feedback = serializers.CharField(allow_null=True)
    error = serializers.CharField(allow_null=True)
    output = serializers.CharField(allow_blank=True, help_text="what the code printed")


class ScorerTryResultSerializer(serializers.Serializer[dict[str, Any]]):
    version = serializers.IntegerField(allow_null=True, help_text="null: the unsaved source")
    rows = ScorerTryRowSerializer(many=True)
    mean_score = serializers.FloatField(allow_null=True)
    failed = serializers.IntegerField()
    elapsed_s = serializers.FloatField()
