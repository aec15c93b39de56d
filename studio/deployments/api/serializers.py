"""Serializers of the deployments API."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from studio.common.errors import FieldErrorSerializer
from studio.common.fields import JSONField
from studio.datasets.models import Dataset
from studio.deployments import services
from studio.deployments.batch import SPLITS
from studio.deployments.models import (
    LOG_RETENTION_DAYS_RANGE,
    MAX_INPUT_BYTES_RANGE,
    NAME_MAX_LENGTH,
    BatchJob,
    Deployment,
    DeploymentTarget,
    DeploymentUsage,
    PredictionLog,
)
from studio.programs.models import ProgramVersion
from studio.runs.models import Run


class OwnedPrimaryKeyField(serializers.PrimaryKeyRelatedField):
    """A primary key that resolves only among the requesting user's own rows.

    Another user's id answers exactly as a missing one.
    """

    def __init__(self, *, owner_path: str, **kwargs: Any) -> None:
        self.owner_path = owner_path
        super().__init__(**kwargs)

    def get_queryset(self) -> Any:
        request = self.context.get("request")
        queryset = super().get_queryset()
        if request is None:
            return queryset.none()
        return queryset.filter(**{self.owner_path: request.user})


class SchemaEntrySerializer(serializers.Serializer[dict[str, Any]]):
    name = serializers.CharField(help_text="the module's name in the program")
    schema = JSONField(help_text="its DataModel's JSON schema")


class DeploymentTargetSerializer(serializers.ModelSerializer):
    program = serializers.IntegerField(source="program_version.program_id", read_only=True)
    program_name = serializers.CharField(source="program_version.program.name", read_only=True)
    version_number = serializers.IntegerField(source="program_version.number", read_only=True)
    run_name = serializers.SerializerMethodField()
    input_schemas = SchemaEntrySerializer(many=True, read_only=True)
    output_schemas = SchemaEntrySerializer(many=True, read_only=True)

    class Meta:
        model = DeploymentTarget
        fields = [
            "id",
            "reason",
            "run",
            "run_name",
            "program",
            "program_name",
            "program_version",
            "version_number",
            "single_input",
            "input_schemas",
            "output_schemas",
            "created_at",
        ]
        read_only_fields = fields

    def get_run_name(self, target: DeploymentTarget) -> str | None:
        if target.run_id is None:
            return None
        return str(target.run)


class UsageTotalsSerializer(serializers.Serializer[dict[str, Any]]):
    requests = serializers.IntegerField(help_text="prediction requests (batch: chunks)")
    predictions = serializers.IntegerField()
    failures = serializers.IntegerField(help_text="predictions without an output")
    lm_calls = serializers.IntegerField()
    prompt_tokens = serializers.IntegerField()
    completion_tokens = serializers.IntegerField()
    total_tokens = serializers.IntegerField()
    cost = serializers.FloatField(help_text="US dollars")
    latency_s = serializers.FloatField(help_text="seconds, summed over predictions")
    mean_latency_s = serializers.FloatField(help_text="seconds per prediction")


class DeploymentSerializer(serializers.ModelSerializer):
    target = DeploymentTargetSerializer(read_only=True)
    previous = DeploymentTargetSerializer(read_only=True, allow_null=True)
    predict_url = serializers.SerializerMethodField()
    usage = serializers.SerializerMethodField()

    class Meta:
        model = Deployment
        fields = [
            "id",
            "name",
            "target",
            "previous",
            "predict_url",
            "usage",
            "max_input_bytes",
            "log_predictions",
            "log_sample_rate",
            "log_retention_days",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields

    def get_predict_url(self, deployment: Deployment) -> str:
        """Where scripts POST their inputs (absolute when the request is known)."""
        path = reverse("deployment-predict", kwargs={"name": deployment.name})
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request is not None else path

    @extend_schema_field(UsageTotalsSerializer)
    def get_usage(self, deployment: Deployment) -> dict[str, Any]:
        return services.usage_totals(deployment.usage.all())


def _max_input_bytes() -> serializers.IntegerField:
    low, high = MAX_INPUT_BYTES_RANGE
    return serializers.IntegerField(
        min_value=low,
        max_value=high,
        required=False,
        help_text="the largest input (compact UTF-8 JSON) a prediction or a batch row may "
        f"carry, {low:,} to {high:,} bytes; a larger one answers 413 and is never sent to "
        "the model (default 262,144: 256 kB)",
    )


class DeploymentSettingsSerializer(serializers.Serializer[dict[str, Any]]):
    max_input_bytes = _max_input_bytes()
    log_predictions = serializers.BooleanField(
        required=False,
        help_text="keep each prediction (input, output, target, latency, tokens, cost) in "
        "the prediction log, for the owner to review (default off)",
    )
    log_sample_rate = serializers.FloatField(
        min_value=0.0,
        max_value=1.0,
        required=False,
        help_text="the share of predictions kept while logging is on, 0 to 1 (default 1)",
    )
    log_retention_days = serializers.IntegerField(
        min_value=LOG_RETENTION_DAYS_RANGE[0],
        max_value=LOG_RETENTION_DAYS_RANGE[1],
        required=False,
        help_text=f"days a logged prediction is kept, {LOG_RETENTION_DAYS_RANGE[0]} to "
        f"{LOG_RETENTION_DAYS_RANGE[1]} (default 30); older ones are deleted",
    )


class DeploymentCreateSerializer(serializers.Serializer[dict[str, Any]]):
    name = serializers.SlugField(
        max_length=NAME_MAX_LENGTH,
        help_text="letters, digits, - and _; unique among your deployments; part of the URL",
    )
    run = OwnedPrimaryKeyField(
        owner_path="owner",
        queryset=Run.objects.all(),
        required=False,
        allow_null=True,
        help_text="a succeeded run: its trained program is served",
    )
    program_version = OwnedPrimaryKeyField(
        owner_path="program__owner",
        queryset=ProgramVersion.objects.all(),
        required=False,
        allow_null=True,
        help_text="a saved version, served with your default language provider",
    )

    max_input_bytes = _max_input_bytes()

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if (attrs.get("run") is None) == (attrs.get("program_version") is None):
            raise serializers.ValidationError("give either `run` or `program_version`")
        return attrs


class SwitchSerializer(DeploymentCreateSerializer):
    name = None  # type: ignore[assignment]
    max_input_bytes = None  # type: ignore[assignment]


class PredictRequestSerializer(serializers.Serializer[dict[str, Any]]):
    input = JSONField(
        required=False,
        help_text="one input: an object matching the program's Input DataModel "
        "(a list of objects, one per Input, for a program with several)",
    )
    inputs = serializers.ListField(
        child=JSONField(),
        required=False,
        max_length=services.MAX_INPUTS,
        help_text=f"several inputs (at most {services.MAX_INPUTS}), each as `input`",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if ("input" in attrs) == ("inputs" in attrs):
            raise serializers.ValidationError("give either `input` or `inputs`")
        if "inputs" in attrs and not attrs["inputs"]:
            raise serializers.ValidationError({"inputs": ["give at least one input"]})
        return attrs


class PredictUsageSerializer(serializers.Serializer[dict[str, Any]]):
    calls = serializers.IntegerField()
    failures = serializers.IntegerField()
    prompt_tokens = serializers.IntegerField()
    completion_tokens = serializers.IntegerField()
    total_tokens = serializers.IntegerField()
    cost = serializers.FloatField()


class PredictResultSerializer(serializers.Serializer[dict[str, Any]]):
    output = JSONField(
        required=False, allow_null=True, help_text="for `input`: the program's output JSON"
    )
    outputs = serializers.ListField(
        child=JSONField(allow_null=True),
        required=False,
        help_text="for `inputs`: one output per input, null where it failed",
    )
    errors = FieldErrorSerializer(
        many=True, required=False, help_text="for `inputs`: why each null output failed"
    )
    target = serializers.IntegerField(help_text="the deployment target that answered")
    run = serializers.IntegerField(allow_null=True)
    program_version = serializers.IntegerField()
    latency_s = serializers.FloatField()
    usage = PredictUsageSerializer()


class UsageDaySerializer(serializers.ModelSerializer):
    class Meta:
        model = DeploymentUsage
        fields = [
            "day",
            "source",
            "requests",
            "predictions",
            "failures",
            "lm_calls",
            "prompt_tokens",
            "completion_tokens",
            "cost",
            "latency_s",
        ]
        read_only_fields = fields


class UsageSerializer(serializers.Serializer[dict[str, Any]]):
    totals = UsageTotalsSerializer()
    api = UsageTotalsSerializer(help_text="calls to the predict endpoint")
    batch = UsageTotalsSerializer(help_text="batch jobs")
    days = UsageDaySerializer(many=True, help_text="newest first, the last 90 days")


class BatchJobSerializer(serializers.ModelSerializer):
    deployment = serializers.CharField(source="deployment.name", read_only=True)
    csv_url = serializers.SerializerMethodField()
    jsonl_url = serializers.SerializerMethodField()

    class Meta:
        model = BatchJob
        fields = [
            "id",
            "deployment",
            "target",
            "dataset",
            "dataset_name",
            "split",
            "state",
            "error",
            "total",
            "processed",
            "failures",
            "usage",
            "csv_url",
            "jsonl_url",
            "created_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields

    def _url(self, job: BatchJob, name: str) -> str:
        return reverse(name, kwargs={"deployment_name": job.deployment.name, "batch_id": job.pk})

    def get_csv_url(self, job: BatchJob) -> str:
        return self._url(job, "batch-results-csv")

    def get_jsonl_url(self, job: BatchJob) -> str:
        return self._url(job, "batch-results-jsonl")


class BatchCreateSerializer(serializers.Serializer[dict[str, Any]]):
    dataset = OwnedPrimaryKeyField(owner_path="owner", queryset=Dataset.objects.all())
    split = serializers.ChoiceField(choices=list(SPLITS), default="all")


class PredictionLogSerializer(serializers.ModelSerializer):
    inputs = JSONField(help_text="the input as sent (a list for several program inputs)")
    outputs = JSONField(allow_null=True, help_text="the output; null where it failed")
    correction = JSONField(allow_null=True, help_text="the right output, as its reviewer gave")

    class Meta:
        model = PredictionLog
        fields = [
            "id",
            "target",
            "source",
            "batch",
            "inputs",
            "outputs",
            "failed",
            "error",
            "latency_s",
            "prompt_tokens",
            "completion_tokens",
            "cost",
            "created_at",
            "verdict",
            "correction",
            "note",
            "reviewed_at",
        ]
        read_only_fields = fields


class PredictionLogPageSerializer(serializers.Serializer[dict[str, Any]]):
    results = PredictionLogSerializer(many=True)
    next = serializers.CharField(
        allow_null=True, help_text="the `cursor` of the next page; null on the last"
    )


class PredictionReviewSerializer(serializers.Serializer[dict[str, Any]]):
    verdict = serializers.ChoiceField(
        choices=PredictionLog.Verdict.choices,
        allow_null=True,
        required=False,
        help_text="right or wrong; null clears it",
    )
    correction = JSONField(
        allow_null=True,
        required=False,
        help_text="the right output, checked against the program's output DataModel; "
        "null clears it",
    )
    note = serializers.CharField(
        allow_blank=True, required=False, max_length=10_000, trim_whitespace=False
    )
