"""Dataset endpoints: upload, built-ins, list / retrieve / rename / delete, errors, preview."""

from __future__ import annotations

import logging
from typing import Any

from django.db.models import ProtectedError, QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from studio.common.parsers import JSONParser
from studio.datasets import services
from studio.datasets.api.filters import DatasetFilter
from studio.datasets.api.serializers import (
    BuiltinCreateSerializer,
    DatasetCatalogueEntrySerializer,
    DatasetSerializer,
    DatasetSummarySerializer,
    DatasetUpdateSerializer,
    DatasetUploadSerializer,
    ErrorsSerializer,
    PreviewSerializer,
)
from studio.datasets.api.upload import SizeLimitHandler, guard_upload, too_large
from studio.datasets.models import Dataset

PREVIEW_MAX_ROWS = 200

logger = logging.getLogger(__name__)


def _service_error(error: services.DatasetError) -> ValidationError:
    return ValidationError({error.field or "non_field_errors": [str(error)]})


@extend_schema_view(
    list=extend_schema(operation_id="datasets_list"),
    retrieve=extend_schema(operation_id="datasets_retrieve"),
)
class DatasetViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet[Dataset],
):
    serializer_class = DatasetSerializer
    parser_classes = [JSONParser, MultiPartParser, FormParser]
    filterset_class = DatasetFilter
    ordering_fields = ["name", "created_at", "row_count", "size_bytes"]
    search_fields = ["name", "description"]
    _size_guard: SizeLimitHandler | None = None

    queryset = Dataset.objects.none()

    def get_queryset(self) -> QuerySet[Dataset]:
        if getattr(self, "swagger_fake_view", False):  # schema generation
            return Dataset.objects.none()
        return Dataset.objects.filter(owner=self.request.user).order_by("-created_at", "-pk")

    def get_serializer_class(self) -> type[DatasetSerializer]:
        if self.action == "list":
            return DatasetSummarySerializer
        return DatasetSerializer

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        # Before authentication: the session's CSRF check may already read the body.
        if request.method == "POST" and self.action == "create":
            self._size_guard = guard_upload(request._request)
        super().initial(request, *args, **kwargs)

    @extend_schema(
        operation_id="datasets_create",
        request={"multipart/form-data": DatasetUploadSerializer},
        responses={201: DatasetSerializer},
    )
    def create(self, request: Request) -> Response:
        payload = DatasetUploadSerializer(data=request.data)
        valid = payload.is_valid()
        if self._size_guard is not None and self._size_guard.exceeded:
            raise too_large(self._size_guard.limit)
        if not valid:
            raise ValidationError(payload.errors)
        data = payload.validated_data
        try:
            dataset = services.create_dataset_from_upload(
                owner=request.user,
                name=data["name"],
                description=data.get("description", ""),
                uploaded_file=data["file"],
                input_schema=data["input_schema"],
                output_schema=data["output_schema"],
                column_mapping=data.get("column_mapping") or {},
                test_fraction=data["test_fraction"],
                split_seed=data["split_seed"],
                dataset_format=data.get("format"),
            )
        except services.UploadTooLarge:
            raise too_large(int(self._size_guard.limit if self._size_guard else 0)) from None
        except services.DatasetError as error:
            raise _service_error(error) from None
        dataset.refresh_from_db()
        return Response(DatasetSerializer(dataset).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="datasets_update", request=DatasetUpdateSerializer, responses=DatasetSerializer
    )
    def update(self, request: Request, pk: str | None = None) -> Response:
        dataset = self.get_object()
        payload = DatasetUpdateSerializer(data=request.data, partial=True)
        payload.is_valid(raise_exception=True)
        for key, value in payload.validated_data.items():
            setattr(dataset, key, value)
        dataset.save(update_fields=list(payload.validated_data) or None)
        return Response(DatasetSerializer(dataset).data)

    @extend_schema(
        operation_id="datasets_partial_update",
        request=DatasetUpdateSerializer,
        responses=DatasetSerializer,
    )
    def partial_update(self, request: Request, pk: str | None = None) -> Response:
        return self.update(request, pk)

    @extend_schema(operation_id="datasets_destroy", responses={204: None})
    def destroy(self, request: Request, pk: str | None = None) -> Response:
        dataset = self.get_object()
        try:
            services.delete_dataset(dataset)
        except ProtectedError:
            return Response(
                {"detail": "runs use this dataset; delete them before the dataset"},
                status=status.HTTP_409_CONFLICT,
            )
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(operation_id="datasets_errors", responses=ErrorsSerializer)
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def errors(self, request: Request, pk: str | None = None) -> Response:
        dataset = self.get_object()
        return Response(
            {
                "status": dataset.status,
                "error_count": dataset.error_count,
                "truncated": dataset.error_count > len(dataset.errors),
                "errors": dataset.errors,
            }
        )

    @extend_schema(
        operation_id="datasets_preview",
        responses=PreviewSerializer,
        parameters=[
            OpenApiParameter("limit", OpenApiTypes.INT, OpenApiParameter.QUERY, default=20)
        ],
    )
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def preview(self, request: Request, pk: str | None = None) -> Response:
        dataset = self.get_object()
        raw = request.query_params.get("limit", "20")
        if not raw.isdigit() or not 1 <= int(raw) <= PREVIEW_MAX_ROWS:
            raise ValidationError(
                {"limit": [f"`limit` must be an int from 1 to {PREVIEW_MAX_ROWS}, got {raw!r}"]}
            )
        try:
            rows = services.preview_rows(dataset, limit=int(raw))
        except (OSError, ValueError) as error:
            raise ValidationError({"file": [f"the dataset cannot be read: {error}"]}) from None
        except Exception as error:  # a preview never answers 500: say what went wrong
            logger.exception("dataset %s: preview failed", dataset.pk)
            raise ValidationError({"file": [services.failure_reason(error)]}) from None
        return Response({"rows": rows})

    @extend_schema(operation_id="datasets_revalidate", request=None, responses=DatasetSerializer)
    @action(detail=True, methods=["post"], filter_backends=[], pagination_class=None)
    def revalidate(self, request: Request, pk: str | None = None) -> Response:
        dataset = self.get_object()
        if dataset.format != Dataset.Format.BUILTIN:
            dataset.status = Dataset.Status.UPLOADED
            dataset.save(update_fields=["status"])
            services.enqueue_validation(dataset.pk)
            dataset.refresh_from_db()
        return Response(DatasetSerializer(dataset).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(
        operation_id="datasets_catalogue", responses=DatasetCatalogueEntrySerializer(many=True)
    )
    @action(detail=False, methods=["get"], filter_backends=[], pagination_class=None)
    def catalogue(self, request: Request) -> Response:
        return Response(
            DatasetCatalogueEntrySerializer(services.builtin_catalogue(), many=True).data
        )

    @extend_schema(
        operation_id="datasets_builtin_create",
        request=BuiltinCreateSerializer,
        responses={201: DatasetSerializer},
    )
    @action(detail=False, methods=["post"], filter_backends=[], pagination_class=None)
    def builtin(self, request: Request) -> Response:
        payload = BuiltinCreateSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        try:
            dataset = services.create_builtin_dataset(owner=request.user, **payload.validated_data)
        except services.DatasetError as error:
            raise _service_error(error) from None
        return Response(DatasetSerializer(dataset).data, status=status.HTTP_201_CREATED)
