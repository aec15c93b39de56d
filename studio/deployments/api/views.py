"""HTTP layer of deployments: thin views over `studio.deployments.services` and `.batch`.

Deployments are addressed by name (``/api/deployments/<name>/``), unique per
owner: another user's deployment is simply not found (404), and so are its batch
jobs and its logged predictions (``/api/deployments/<name>/predictions/``). Scripts send their
API token (``Authorization: Token <key>``); the browser its session. Every 400
of a request with a body answers ``{"errors": [{path, message}]}``.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db.models import QuerySet
from django.http import StreamingHttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import mixins, renderers, status, viewsets
from rest_framework.decorators import action
from rest_framework.generics import get_object_or_404
from rest_framework.request import Request
from rest_framework.response import Response

from studio.common.errors import FieldErrorsSerializer
from studio.common.renderers import CSVRenderer, JSONLinesRenderer
from studio.deployments import batch, prediction_log, prediction_review, services
from studio.deployments.api.serializers import (
    BatchCreateSerializer,
    BatchJobSerializer,
    DeploymentCreateSerializer,
    DeploymentSerializer,
    DeploymentSettingsSerializer,
    DeploymentTargetSerializer,
    PredictionLogPageSerializer,
    PredictionLogSerializer,
    PredictionReviewSerializer,
    PredictRequestSerializer,
    PredictResultSerializer,
    SwitchSerializer,
    UsageSerializer,
)
from studio.deployments.models import BatchJob, Deployment, DeploymentUsage, PredictionLog
from studio.runs.models import Run

NAME_PATTERN = r"[-a-zA-Z0-9_]+"
HISTORY_MAX = 200
USAGE_DAYS = 90

_INVALID = OpenApiResponse(FieldErrorsSerializer, description="the request is not valid")
_CONFLICT = OpenApiResponse(description="no provider to call, or nothing to roll back to")
_TOO_LARGE = OpenApiResponse(
    FieldErrorsSerializer,
    description="an input larger than the deployment's max_input_bytes (nothing was sent to "
    "the model), or a body over the server's request limit",
)


@extend_schema_view(
    list=extend_schema(operation_id="deployments_list"),
    retrieve=extend_schema(operation_id="deployments_retrieve"),
    destroy=extend_schema(operation_id="deployments_destroy", responses={204: None}),
)
class DeploymentViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """The signed-in user's deployments: deploy, predict, switch, roll back, usage."""

    serializer_class = DeploymentSerializer
    lookup_field = "name"
    lookup_value_regex = NAME_PATTERN
    filter_backends: list[Any] = []
    field_errors_actions = ("create", "predict", "switch", "rollback", "partial_update")

    def get_queryset(self) -> QuerySet[Deployment]:
        if getattr(self, "swagger_fake_view", False):  # schema generation
            return Deployment.objects.none()
        deployments = (
            Deployment.objects.filter(owner=self.request.user)
            .select_related(
                "target__run",
                "target__program_version__program",
                "previous__run",
                "previous__program_version__program",
            )
            .prefetch_related("usage")
        )
        if self.action != "list":
            return deployments
        # A target shows its run's name alone and its program's name and number: the list
        # reads no more of either (a run's row holds its results, tens of kB, and SQLite
        # reads a row through them to reach the columns stored after them).
        unread = [
            *(f"run__{f.name}" for f in Run._meta.concrete_fields if f.name not in ("id", "name")),
            "program_version__document",
            "program_version__layout",
        ]
        return deployments.defer(
            *(f"{target}__{field}" for target in ("target", "previous") for field in unread)
        )

    def _detail(self, deployment: Deployment, code: int = status.HTTP_200_OK) -> Response:
        fresh = self.get_queryset().get(pk=deployment.pk)
        return Response(self.get_serializer(fresh).data, status=code)

    @extend_schema(
        operation_id="deployments_create",
        request=DeploymentCreateSerializer,
        responses={201: DeploymentSerializer, 400: _INVALID},
    )
    def create(self, request: Request) -> Response:
        body = DeploymentCreateSerializer(data=request.data, context={"request": request})
        body.is_valid(raise_exception=True)
        data = body.validated_data
        deployment = services.deploy(
            owner=request.user,
            name=data["name"],
            run=data.get("run"),
            program_version=data.get("program_version"),
            max_input_bytes=data.get("max_input_bytes"),
        )
        return self._detail(deployment, status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="deployments_partial_update",
        request=DeploymentSettingsSerializer,
        responses={200: DeploymentSerializer, 400: _INVALID},
    )
    def partial_update(self, request: Request, name: str | None = None) -> Response:
        """Change the deployment's settings (its target changes through switch)."""
        deployment = self.get_object()
        body = DeploymentSettingsSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        services.configure(deployment, **body.validated_data)
        return self._detail(deployment)

    def perform_destroy(self, instance: Deployment) -> None:
        services.delete_deployment(instance)

    @extend_schema(
        operation_id="deployments_predict",
        request=PredictRequestSerializer,
        responses={
            200: PredictResultSerializer,
            400: _INVALID,
            409: _CONFLICT,
            413: _TOO_LARGE,
            502: OpenApiResponse(description="the provider failed the prediction"),
        },
    )
    @action(detail=True, methods=["post"])
    def predict(self, request: Request, name: str | None = None) -> Response:
        deployment = self.get_object()
        body = PredictRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        single = "input" in data
        result = services.predict(
            deployment,
            values=[data["input"]] if single else data["inputs"],
            path="input" if single else "inputs",
        )
        target, predictions = result["target"], result["predictions"]
        answer: dict[str, Any] = {
            "target": target.pk,
            "run": target.run_id,
            "program_version": target.program_version_id,
            "latency_s": result["latency_s"],
            "usage": result["usage"],
        }
        if single:
            answer["output"] = predictions[0].output
        else:
            answer["outputs"] = [p.output for p in predictions]
            answer["errors"] = [
                {"path": f"inputs[{i}]", "message": p.error}
                for i, p in enumerate(predictions)
                if p.error
            ]
        return Response(PredictResultSerializer(answer).data)

    @extend_schema(
        operation_id="deployments_switch",
        request=SwitchSerializer,
        responses={200: DeploymentSerializer, 400: _INVALID},
    )
    @action(detail=True, methods=["post"])
    def switch(self, request: Request, name: str | None = None) -> Response:
        deployment = self.get_object()
        body = SwitchSerializer(data=request.data, context={"request": request})
        body.is_valid(raise_exception=True)
        data = body.validated_data
        services.switch(
            deployment, run=data.get("run"), program_version=data.get("program_version")
        )
        return self._detail(deployment)

    @extend_schema(
        operation_id="deployments_rollback",
        request=None,
        responses={200: DeploymentSerializer, 409: _CONFLICT},
    )
    @action(detail=True, methods=["post"])
    def rollback(self, request: Request, name: str | None = None) -> Response:
        deployment = self.get_object()
        services.rollback(deployment)
        return self._detail(deployment)

    @extend_schema(
        operation_id="deployments_history",
        responses={200: DeploymentTargetSerializer(many=True)},
    )
    @action(detail=True, methods=["get"], pagination_class=None)
    def history(self, request: Request, name: str | None = None) -> Response:
        deployment = self.get_object()
        targets = deployment.targets.select_related("run", "program_version__program")
        return Response(DeploymentTargetSerializer(targets[:HISTORY_MAX], many=True).data)

    @extend_schema(operation_id="deployments_usage", responses={200: UsageSerializer})
    @action(detail=True, methods=["get"], pagination_class=None)
    def usage(self, request: Request, name: str | None = None) -> Response:
        deployment = self.get_object()
        rows = list(deployment.usage.all())
        since = timezone.localdate() - timedelta(days=USAGE_DAYS)
        by_source = {
            source: services.usage_totals(r for r in rows if r.source == source)
            for source in DeploymentUsage.Source.values
        }
        return Response(
            UsageSerializer(
                {
                    "totals": services.usage_totals(rows),
                    **by_source,
                    "days": [row for row in rows if row.day >= since],
                }
            ).data
        )


_DEPLOYMENT_NAME = OpenApiParameter(
    "deployment_name", OpenApiTypes.STR, OpenApiParameter.PATH, description="the deployment"
)
_BATCH_ID = OpenApiParameter("batch_id", OpenApiTypes.INT, OpenApiParameter.PATH)


@extend_schema_view(
    list=extend_schema(operation_id="deployments_batches_list", parameters=[_DEPLOYMENT_NAME]),
    retrieve=extend_schema(
        operation_id="deployments_batches_retrieve", parameters=[_DEPLOYMENT_NAME, _BATCH_ID]
    ),
)
class BatchJobViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet,
):
    """Batch predictions of one deployment: start, follow, download the results."""

    serializer_class = BatchJobSerializer
    lookup_url_kwarg = "batch_id"
    lookup_value_regex = r"[0-9]+"
    filter_backends: list[Any] = []
    field_errors_actions = ("create",)

    def deployment(self) -> Deployment:
        return get_object_or_404(
            Deployment.objects.filter(owner=self.request.user),
            name=self.kwargs["deployment_name"],
        )

    def get_queryset(self) -> QuerySet[BatchJob]:
        if getattr(self, "swagger_fake_view", False):
            return BatchJob.objects.none()
        return BatchJob.objects.filter(
            owner=self.request.user, deployment__name=self.kwargs["deployment_name"]
        ).select_related("deployment")

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        self.deployment()  # an unknown deployment is a 404, not an empty list
        return super().list(request, *args, **kwargs)

    @extend_schema(
        operation_id="deployments_batches_create",
        parameters=[_DEPLOYMENT_NAME],
        request=BatchCreateSerializer,
        responses={201: BatchJobSerializer, 400: _INVALID},
    )
    def create(self, request: Request, deployment_name: str | None = None) -> Response:
        deployment = self.deployment()
        body = BatchCreateSerializer(data=request.data, context={"request": request})
        body.is_valid(raise_exception=True)
        data = body.validated_data
        job = batch.start_batch(deployment, dataset=data["dataset"], split=data["split"])
        return Response(BatchJobSerializer(job).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="deployments_batches_results_csv",
        parameters=[_DEPLOYMENT_NAME, _BATCH_ID],
        responses={(200, "text/csv"): OpenApiResponse(OpenApiTypes.STR)},
    )
    @action(
        detail=True,
        methods=["get"],
        url_path="results/csv",
        url_name="results-csv",
        renderer_classes=[renderers.JSONRenderer, CSVRenderer],
    )
    def results_csv(self, request: Request, **kwargs: Any) -> StreamingHttpResponse:
        job = self.get_object()
        response = StreamingHttpResponse(
            batch.csv_rows(job), content_type="text/csv; charset=utf-8"
        )
        response["Content-Disposition"] = f'attachment; filename="{_filename(job)}.csv"'
        return response

    @extend_schema(
        operation_id="deployments_batches_results_jsonl",
        parameters=[_DEPLOYMENT_NAME, _BATCH_ID],
        responses={(200, "application/x-ndjson"): OpenApiResponse(OpenApiTypes.STR)},
    )
    @action(
        detail=True,
        methods=["get"],
        url_path="results/jsonl",
        url_name="results-jsonl",
        renderer_classes=[renderers.JSONRenderer, JSONLinesRenderer],
    )
    def results_jsonl(self, request: Request, **kwargs: Any) -> StreamingHttpResponse:
        job = self.get_object()
        response = StreamingHttpResponse(batch.iter_lines(job), content_type="application/x-ndjson")
        response["Content-Disposition"] = f'attachment; filename="{_filename(job)}.jsonl"'
        return response


_PREDICTION_ID = OpenApiParameter("prediction_id", OpenApiTypes.INT, OpenApiParameter.PATH)
_LIST_FILTERS = [
    _DEPLOYMENT_NAME,
    OpenApiParameter("since", OpenApiTypes.DATETIME, description="made at or after (ISO 8601)"),
    OpenApiParameter("until", OpenApiTypes.DATETIME, description="made before (ISO 8601)"),
    OpenApiParameter("target", OpenApiTypes.INT, description="the target (version) that answered"),
    OpenApiParameter("failed", OpenApiTypes.BOOL, description="only failures, or only successes"),
    OpenApiParameter(
        "verdict", OpenApiTypes.STR, enum=["right", "wrong", "none"], description="none: unreviewed"
    ),
    OpenApiParameter(
        "output_field",
        OpenApiTypes.STR,
        description="an output field whose value must be `output_value` (a scan of the rows "
        "in the time range: narrow it with since/until on a large log)",
    ),
    OpenApiParameter(
        "output_value",
        OpenApiTypes.STR,
        description='read as JSON where it parses (3, true, "3"), else as a string',
    ),
    OpenApiParameter("cursor", OpenApiTypes.STR, description="the `next` of the previous page"),
    OpenApiParameter(
        "limit", OpenApiTypes.INT, description=f"rows per page, 1 to {prediction_log.PAGE_MAX}"
    ),
]


class PredictionLogViewSet(viewsets.GenericViewSet):
    """A deployment's logged predictions, newest first, and their review (owner only)."""

    serializer_class = PredictionLogSerializer
    lookup_url_kwarg = "prediction_id"
    lookup_value_regex = r"[0-9]+"
    filter_backends: list[Any] = []
    pagination_class = None
    field_errors_actions = ("page", "partial_update")

    def deployment(self) -> Deployment:
        return get_object_or_404(
            Deployment.objects.filter(owner=self.request.user),
            name=self.kwargs["deployment_name"],
        )

    def get_queryset(self) -> QuerySet[PredictionLog]:
        if getattr(self, "swagger_fake_view", False):
            return PredictionLog.objects.none()
        return PredictionLog.objects.filter(deployment=self.deployment())

    @extend_schema(
        operation_id="deployments_predictions_list",
        parameters=_LIST_FILTERS,
        responses={200: PredictionLogPageSerializer, 400: _INVALID},
    )
    def page(self, request: Request, deployment_name: str | None = None) -> Response:
        """One page of the log, newest first (routed by hand: a page is an object, not the
        list a viewset's ``list`` would be documented as)."""
        rows, cursor = prediction_log.page(self.deployment(), dict(request.query_params.items()))
        return Response(PredictionLogPageSerializer({"results": rows, "next": cursor}).data)

    @extend_schema(
        operation_id="deployments_predictions_review",
        parameters=[_DEPLOYMENT_NAME, _PREDICTION_ID],
        request=PredictionReviewSerializer,
        responses={200: PredictionLogSerializer, 400: _INVALID},
    )
    def partial_update(self, request: Request, **kwargs: Any) -> Response:
        """Mark the prediction right or wrong, give the correct output, leave a note."""
        row = self.get_object()
        body = PredictionReviewSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        row = prediction_review.review(row, **body.validated_data)
        return Response(PredictionLogSerializer(row).data)


def _filename(job: BatchJob) -> str:
    return f"{job.deployment.name}-batch-{job.pk}"
