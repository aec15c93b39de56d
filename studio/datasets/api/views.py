"""Dataset endpoints: upload, built-ins, list / retrieve / rename / delete, errors, preview,
and versions (list, create from edits, rows, diff)."""

from __future__ import annotations

from typing import Any

from django.db.models import F, Max, OuterRef, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from studio.common.errors import FieldErrorsSerializer
from studio.common.exceptions import DomainError, NotFound
from studio.common.parsers import JSONParser
from studio.datasets import services, versions
from studio.datasets.api.filters import DatasetFilter
from studio.datasets.api.serializers import (
    BuiltinCreateSerializer,
    DatasetCatalogueEntrySerializer,
    DatasetSerializer,
    DatasetSummarySerializer,
    DatasetUpdateSerializer,
    DatasetUploadSerializer,
    DatasetVersionCreateSerializer,
    DatasetVersionSerializer,
    ErrorsSerializer,
    PreviewSerializer,
    VersionDiffSerializer,
    VersionRowsSerializer,
)
from studio.datasets.api.upload import SizeLimitHandler, guard_upload
from studio.datasets.exceptions import DatasetError, DatasetUnreadable, UploadTooLarge
from studio.datasets.models import Dataset, DatasetVersion

PREVIEW_MAX_ROWS = 200
ROWS_PAGE_MAX = 200

_NUMBER = OpenApiParameter("number", OpenApiTypes.INT, OpenApiParameter.PATH)
_INVALID = OpenApiResponse(FieldErrorsSerializer, description="the request is not valid")
_NOT_FOUND = OpenApiResponse(description="no such dataset or version")


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
    field_errors_actions = ("versions", "version_rows")
    _size_guard: SizeLimitHandler | None = None

    queryset = Dataset.objects.none()

    def get_queryset(self) -> QuerySet[Dataset]:
        if getattr(self, "swagger_fake_view", False):  # schema generation
            return Dataset.objects.none()
        return (
            Dataset.objects.filter(owner=self.request.user)
            .annotate(
                latest_version=Coalesce(Max("versions__number"), Value(1)),
                latest_row_count=Coalesce(
                    Subquery(
                        DatasetVersion.objects.filter(dataset=OuterRef("pk"))
                        .order_by("-number")
                        .values("row_count")[:1]
                    ),
                    F("row_count"),
                ),
            )
            .order_by("-created_at", "-pk")
        )

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
            raise UploadTooLarge(self._size_guard.limit)
        if not valid:
            raise ValidationError(payload.errors)
        data = payload.validated_data
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
            keep_valid_rows=data["keep_valid_rows"],
            dataset_format=data.get("format"),
        )
        dataset.refresh_from_db()
        return Response(DatasetSerializer(dataset).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="datasets_update", request=DatasetUpdateSerializer, responses=DatasetSerializer
    )
    def update(self, request: Request, pk: str | None = None) -> Response:
        dataset = self.get_object()
        payload = DatasetUpdateSerializer(data=request.data, partial=True)
        payload.is_valid(raise_exception=True)
        services.update_dataset(dataset, **payload.validated_data)
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
        services.delete_dataset(self.get_object())
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
            raise DomainError(
                f"`limit` must be an int from 1 to {PREVIEW_MAX_ROWS}, got {raw!r}", path="limit"
            )
        return Response({"rows": services.preview_dataset(dataset, limit=int(raw))})

    @extend_schema(
        operation_id="datasets_revalidate", request=None, responses={202: DatasetSerializer}
    )
    @action(detail=True, methods=["post"], filter_backends=[], pagination_class=None)
    def revalidate(self, request: Request, pk: str | None = None) -> Response:
        dataset = services.revalidate_dataset(self.get_object())
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
        dataset = services.create_builtin_dataset(owner=request.user, **payload.validated_data)
        return Response(DatasetSerializer(dataset).data, status=status.HTTP_201_CREATED)

    # Versions -----------------------------------------------------------------------------

    def _version(self, dataset: Dataset, number: str) -> DatasetVersion:
        version = versions.get_version(dataset, int(number))
        if version is None:
            raise NotFound(f"dataset {dataset.name!r} has no version {number}")
        version.dataset = dataset
        return services.index_soon(dataset) if version.number == 1 else version

    @extend_schema(
        methods=["GET"],
        operation_id="datasets_versions_list",
        responses={200: DatasetVersionSerializer(many=True), 404: _NOT_FOUND},
    )
    @extend_schema(
        methods=["POST"],
        operation_id="datasets_versions_create",
        request=DatasetVersionCreateSerializer,
        responses={
            201: DatasetVersionSerializer,
            400: _INVALID,
            404: _NOT_FOUND,
            413: OpenApiResponse(description="too many rows change in one version"),
        },
    )
    @action(
        detail=True,
        methods=["get", "post"],
        filter_backends=[],
        pagination_class=None,
        parser_classes=[JSONParser],
    )
    def versions(self, request: Request, pk: str | None = None) -> Response:
        dataset = self.get_object()
        if request.method == "GET":
            services.index_soon(dataset)
            rows = dataset.versions.select_related("parent").order_by("-number")
            return Response(DatasetVersionSerializer(rows, many=True).data)
        body = DatasetVersionCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        parent = None
        if data.get("parent") is not None:
            parent = versions.get_version(dataset, data["parent"])
            if parent is None:
                raise DatasetError(f"dataset has no version {data['parent']}", path="parent")
        version = versions.create_version(
            dataset,
            parent=parent,
            add=data["add"],
            remove=data["remove"],
            edit=data["edit"],
            message=data["message"],
        )
        return Response(DatasetVersionSerializer(version).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="datasets_versions_retrieve",
        parameters=[_NUMBER],
        responses={200: DatasetVersionSerializer, 404: _NOT_FOUND},
    )
    @action(
        detail=True,
        methods=["get"],
        url_path=r"versions/(?P<number>[0-9]+)",
        filter_backends=[],
        pagination_class=None,
    )
    def version(self, request: Request, pk: str | None = None, number: str = "1") -> Response:
        version = self._version(self.get_object(), number)
        return Response(DatasetVersionSerializer(version).data)

    @extend_schema(
        operation_id="datasets_versions_rows",
        parameters=[
            _NUMBER,
            OpenApiParameter("split", OpenApiTypes.STR, enum=["train", "test"]),
            OpenApiParameter("offset", OpenApiTypes.INT, default=0),
            OpenApiParameter("limit", OpenApiTypes.INT, default=50),
        ],
        responses={200: VersionRowsSerializer, 400: _INVALID, 404: _NOT_FOUND},
    )
    @action(
        detail=True,
        methods=["get"],
        url_path=r"versions/(?P<number>[0-9]+)/rows",
        filter_backends=[],
        pagination_class=None,
    )
    def version_rows(self, request: Request, pk: str | None = None, number: str = "1") -> Response:
        version = self._version(self.get_object(), number)
        split = request.query_params.get("split") or None
        if split not in (None, "train", "test"):
            raise DomainError(f"`split` must be train or test, got {split!r}", path="split")
        offset = _int_query(request, "offset", 0, high=10**9)
        limit = _int_query(request, "limit", 50, low=1, high=ROWS_PAGE_MAX)
        try:
            rows, count = versions.rows_page(version, split=split, offset=offset, limit=limit)
        except (OSError, ValueError) as error:
            raise DatasetUnreadable(f"the dataset cannot be read: {error}") from None
        return Response(
            {
                "count": count,
                "offset": offset,
                "rows": [
                    {"row_id": r.row_id, "split": r.split, "input": r.input, "output": r.output}
                    for r in rows
                ],
            }
        )

    @extend_schema(
        operation_id="datasets_versions_diff",
        parameters=[_NUMBER],
        responses={200: VersionDiffSerializer, 404: _NOT_FOUND},
    )
    @action(
        detail=True,
        methods=["get"],
        url_path=r"versions/(?P<number>[0-9]+)/diff",
        filter_backends=[],
        pagination_class=None,
    )
    def version_diff(self, request: Request, pk: str | None = None, number: str = "1") -> Response:
        version = self._version(self.get_object(), number)
        return Response(versions.version_diff(version))


def _int_query(request: Request, name: str, default: int, *, low: int = 0, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    if not raw.isdigit() or not low <= int(raw) <= high:
        message = f"`{name}` must be an int from {low} to {high}, got {raw!r}"
        raise DomainError(message, path=name)
    return int(raw)
