"""HTTP layer of evaluations: thin views over `studio.evaluations.services`."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from studio.evaluations import services
from studio.evaluations.api.serializers import EvaluationCreateSerializer, EvaluationSerializer
from studio.evaluations.models import Evaluation


class EvaluationViewSet(
    mixins.CreateModelMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet,
):
    """Paired evaluations of the signed-in user: a candidate against a baseline (the gate)."""

    serializer_class = EvaluationSerializer
    filter_backends: list[Any] = []

    def get_queryset(self) -> QuerySet[Evaluation]:
        if getattr(self, "swagger_fake_view", False):  # schema generation
            return Evaluation.objects.none()
        # Another user's evaluation is simply not found (404), never forbidden.
        return Evaluation.objects.filter(owner=self.request.user).select_related("dataset_version")

    @extend_schema(operation_id="evaluations_list")
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().list(request, *args, **kwargs)

    @extend_schema(operation_id="evaluations_retrieve")
    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().retrieve(request, *args, **kwargs)

    @extend_schema(
        operation_id="evaluations_create",
        request=EvaluationCreateSerializer,
        responses={202: EvaluationSerializer},
    )
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Queue the evaluation of a candidate against a baseline; poll its `url`."""
        serializer = EvaluationCreateSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        sides = {
            side: services.Side(
                version=data.get(f"{side}_version"),
                deployment=data.get(f"{side}_deployment"),
                provider=data.get(f"{side}_provider"),
            )
            for side in ("candidate", "baseline")
        }
        evaluation = services.start_evaluation(
            owner=request.user,
            candidate=sides["candidate"],
            baseline=sides["baseline"],
            dataset=data["dataset"],
            dataset_version=data.get("dataset_version"),
            split=data["split"],
            reward=data.get("reward"),
        )
        evaluation = self.get_queryset().get(pk=evaluation.pk)
        return Response(EvaluationSerializer(evaluation).data, status=status.HTTP_202_ACCEPTED)
