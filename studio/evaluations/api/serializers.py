"""Serializers of the evaluations API."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.reverse import reverse

from studio.common.fields import JSONField
from studio.datasets.models import Dataset
from studio.deployments.models import Deployment
from studio.evaluations.models import Evaluation
from studio.evaluations.services import SPLITS
from studio.programs.models import ProgramVersion
from studio.providers.models import Provider
from studio.runs.api.serializers import OwnedPrimaryKeyField, PairedComparisonSerializer


class VerdictSerializer(PairedComparisonSerializer):
    """The candidate against the baseline, row by row (baseline as "before")."""

    mean_baseline = serializers.FloatField(help_text="the baseline's mean reward")
    mean_candidate = serializers.FloatField(help_text="the candidate's mean reward")
    regression = serializers.BooleanField(
        help_text="the verdict is a significant loss: the gate fails"
    )


class EvaluationSerializer(serializers.ModelSerializer):
    dataset_version = serializers.IntegerField(
        source="dataset_version.number", read_only=True, allow_null=True
    )
    url = serializers.SerializerMethodField()
    result = serializers.SerializerMethodField(help_text="null until the evaluation succeeded")

    class Meta:
        model = Evaluation
        fields = [
            "id",
            "url",
            "state",
            "candidate_version",
            "candidate_deployment",
            "candidate_provider",
            "baseline_version",
            "baseline_deployment",
            "baseline_provider",
            "dataset",
            "dataset_version",
            "split",
            "reward",
            "result",
            "candidate_rewards",
            "baseline_rewards",
            "error",
            "usage",
            "created_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields

    def get_url(self, evaluation: Evaluation) -> str:
        return reverse("evaluation-detail", kwargs={"pk": evaluation.pk})

    @extend_schema_field(VerdictSerializer(allow_null=True))
    def get_result(self, evaluation: Evaluation) -> dict[str, Any] | None:
        return evaluation.result


def _version(side: str) -> Any:
    return OwnedPrimaryKeyField(
        queryset=ProgramVersion.objects.select_related("program"),
        owner_path="program__owner",
        required=False,
        allow_null=True,
        help_text=f"the {side}: a program version of yours (or name a deployment)",
    )


def _deployment(side: str) -> Any:
    return OwnedPrimaryKeyField(
        queryset=Deployment.objects.select_related("target__run"),
        owner_path="owner",
        required=False,
        allow_null=True,
        help_text=f"the {side}: a deployment of yours (what it serves now)",
    )


def _provider(side: str) -> Any:
    return OwnedPrimaryKeyField(
        queryset=Provider.objects.all(),
        owner_path="owner",
        required=False,
        allow_null=True,
        help_text=f"the provider the {side}'s program calls (default: for a version, your "
        "default language provider; for a deployment, the one it predicts with)",
    )


class EvaluationCreateSerializer(serializers.Serializer[dict[str, Any]]):
    candidate_version = _version("candidate")
    candidate_deployment = _deployment("candidate")
    candidate_provider = _provider("candidate")
    baseline_version = _version("baseline")
    baseline_deployment = _deployment("baseline")
    baseline_provider = _provider("baseline")
    dataset = OwnedPrimaryKeyField(queryset=Dataset.objects.all(), owner_path="owner")
    dataset_version = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        help_text="the dataset's version number (default: its latest)",
    )
    split = serializers.ChoiceField(choices=list(SPLITS), default="test")
    reward = JSONField(
        required=False,
        allow_null=True,
        default=None,
        help_text='{"name": ..., "params": {...}} or a name, as a run\'s reward '
        '(default "exact_match"); a judge may name its "provider" (default: the baseline\'s) '
        'and "program", a code reward {"code": {"name", "version"}} of your library',
    )
