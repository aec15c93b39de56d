"""``POST /api/deployments/<name>/predictions/to-dataset/``: reviewed predictions into a dataset.

A thin view over `studio.deployments.into_dataset.add_predictions`; the deployment is
the owner's (another user's is not found), and so must the dataset be (another user's
answers as a missing id does: 400 at ``dataset``).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.generics import get_object_or_404
from rest_framework.request import Request
from rest_framework.response import Response

from studio.common.errors import FieldErrorsSerializer
from studio.datasets.api.serializers import DatasetVersionSerializer
from studio.datasets.models import Dataset
from studio.deployments import into_dataset
from studio.deployments.api.serializers import OwnedPrimaryKeyField
from studio.deployments.models import Deployment


class ToDatasetSerializer(serializers.Serializer[dict[str, Any]]):
    dataset = OwnedPrimaryKeyField(
        owner_path="owner",
        queryset=Dataset.objects.all(),
        help_text="one of your datasets whose input and output schemas are the deployment's",
    )
    ids = serializers.ListField(
        child=serializers.IntegerField(min_value=1),
        required=False,
        allow_empty=False,
        max_length=into_dataset.MAX_ROWS,
        help_text="the predictions to add; else give `reviewed: true` and the list's filters",
    )
    reviewed = serializers.BooleanField(
        required=False,
        help_text="add every reviewed prediction (a verdict or a correction) the filters select",
    )
    since = serializers.CharField(required=False, help_text="as the list's filter")
    until = serializers.CharField(required=False, help_text="as the list's filter")
    target = serializers.IntegerField(required=False, min_value=1, help_text="as the list's")
    failed = serializers.BooleanField(required=False, allow_null=True, default=None)
    verdict = serializers.ChoiceField(choices=["right", "wrong"], required=False)
    output_field = serializers.CharField(required=False)
    output_value = serializers.CharField(required=False, allow_blank=True)
    split = serializers.ChoiceField(
        choices=list(into_dataset.SPLITS),
        default="auto",
        help_text="where the rows go: train, test, or auto (the dataset's test fraction)",
    )
    message = serializers.CharField(required=False, allow_blank=True, default="", max_length=500)

    FILTERS = ("since", "until", "target", "verdict", "output_field", "output_value")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if ("ids" in attrs) == bool(attrs.get("reviewed")):
            raise serializers.ValidationError("give either `ids` or `reviewed: true`")
        return attrs

    def filters(self) -> dict[str, str] | None:
        """The list's filters as its query would carry them (None: ids were given)."""
        data = self.validated_data
        if "ids" in data:
            return None
        found = {key: str(data[key]) for key in self.FILTERS if key in data}
        if data.get("failed") is not None:
            found["failed"] = "true" if data["failed"] else "false"
        return found


class ToDatasetResultSerializer(serializers.Serializer[dict[str, Any]]):
    dataset = serializers.IntegerField()
    dataset_name = serializers.CharField()
    version = DatasetVersionSerializer(
        help_text="the new version: its rows are the parent's and these"
    )
    added = serializers.IntegerField(help_text="predictions added as rows")
    skipped = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="predictions left out, by why: wrong_without_correction, unreviewed, "
        "failed, already_in_dataset",
    )


class PredictionsToDatasetView(viewsets.ViewSet):
    """Add logged predictions, reviewed, to one of the owner's datasets as a new version."""

    field_errors_actions = ("to_dataset",)

    @extend_schema(
        operation_id="deployments_predictions_to_dataset",
        request=ToDatasetSerializer,
        responses={
            201: ToDatasetResultSerializer,
            400: OpenApiResponse(FieldErrorsSerializer, description="the request is not valid"),
            404: OpenApiResponse(description="no such deployment"),
        },
    )
    def to_dataset(self, request: Request, deployment_name: str) -> Response:
        deployment = get_object_or_404(
            Deployment.objects.filter(owner=request.user).select_related("target"),
            name=deployment_name,
        )
        body = ToDatasetSerializer(data=request.data, context={"request": request})
        body.is_valid(raise_exception=True)
        data = body.validated_data
        outcome = into_dataset.add_predictions(
            deployment,
            dataset=data["dataset"],
            ids=data.get("ids"),
            filters=body.filters(),
            split=data["split"],
            message=data["message"],
        )
        answer = {
            "dataset": data["dataset"].pk,
            "dataset_name": data["dataset"].name,
            "version": outcome.version,
            "added": outcome.added,
            "skipped": outcome.skipped,
        }
        return Response(ToDatasetResultSerializer(answer).data, status=status.HTTP_201_CREATED)
