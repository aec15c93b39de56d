"""Code reward endpoints: CRUD, immutable versions, templates, try on dataset rows, import /
export. Everything is the owner's: another user's scorer is a 404."""

from __future__ import annotations

import json
from typing import Any

from django.db.models import Count, Max, QuerySet
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from studio.common.errors import FieldErrorsSerializer
from studio.common.parsers import JSONParser
from studio.scorers import services, templates, trying
from studio.scorers.api.serializers import (
    ScorerCreateSerializer,
    ScorerImportSerializer,
    ScorerSerializer,
    ScorerTemplateSerializer,
    ScorerTryRequestSerializer,
    ScorerTryResultSerializer,
    ScorerUpdateSerializer,
    ScorerVersionCreateSerializer,
    ScorerVersionSerializer,
    ScorerVersionSummarySerializer,
)
from studio.scorers.exceptions import VersionNotFound
from studio.scorers.models import Scorer, ScorerVersion

_INVALID = OpenApiResponse(
    FieldErrorsSerializer, description="the request or its source is not valid"
)


@extend_schema_view(
    list=extend_schema(operation_id="scorers_list"),
    retrieve=extend_schema(operation_id="scorers_retrieve"),
    destroy=extend_schema(
        operation_id="scorers_destroy",
        description="Delete it and its versions; 409 while a run uses one of its versions.",
    ),
)
class ScorerViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet[Scorer],
):
    serializer_class = ScorerSerializer
    filterset_fields = {"name": ["exact", "icontains"], "kind": ["exact"]}
    ordering_fields = ["name", "created_at", "updated_at"]
    search_fields = ["name", "description"]
    queryset = Scorer.objects.none()
    field_errors_actions = frozenset({"create", "create_version", "try_", "import_"})

    def get_queryset(self) -> QuerySet[Scorer]:
        if getattr(self, "swagger_fake_view", False):  # schema generation
            return Scorer.objects.none()
        return (
            Scorer.objects.filter(owner=self.request.user)
            .annotate(
                version_count=Count("versions", distinct=True),
                latest_number=Max("versions__number"),
                run_count=Count("versions__uses__run", distinct=True),
            )
            .order_by("-updated_at", "-pk")
        )

    def _data(self, scorer: Scorer) -> dict[str, Any]:
        return dict(ScorerSerializer(self.get_queryset().get(pk=scorer.pk)).data)

    def _version(self, scorer: Scorer, number: str | int) -> ScorerVersion:
        version = scorer.versions.filter(number=int(number)).first()
        if version is None:
            raise VersionNotFound(int(number))
        return version

    @extend_schema(
        operation_id="scorers_create",
        request=ScorerCreateSerializer,
        responses={201: ScorerSerializer, 400: _INVALID},
        description="A new code reward (or metric) and its version 1; the code must load "
        "in the sandbox (400 at `source` with the reason and line otherwise).",
    )
    def create(self, request: Request) -> Response:
        payload = ScorerCreateSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        scorer = services.create_scorer(owner=request.user, **payload.validated_data)
        return Response(self._data(scorer), status=status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="scorers_update", request=ScorerUpdateSerializer, responses=ScorerSerializer
    )
    def update(self, request: Request, pk: str | None = None) -> Response:
        scorer = self.get_object()
        payload = ScorerUpdateSerializer(data=request.data, partial=True)
        payload.is_valid(raise_exception=True)
        services.update_scorer(scorer, **payload.validated_data)
        return Response(self._data(scorer))

    @extend_schema(
        operation_id="scorers_partial_update",
        request=ScorerUpdateSerializer,
        responses=ScorerSerializer,
    )
    def partial_update(self, request: Request, pk: str | None = None) -> Response:
        return self.update(request, pk)

    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        services.delete_scorer(self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        operation_id="scorers_templates",
        responses=ScorerTemplateSerializer(many=True),
        description="The source a new reward or metric starts from.",
    )
    @action(detail=False, methods=["get"], filter_backends=[], pagination_class=None)
    def templates(self, request: Request) -> Response:
        data = [{"kind": kind, "source": templates.template(kind)} for kind in Scorer.Kind.values]
        return Response(ScorerTemplateSerializer(data, many=True).data)

    @extend_schema(
        operation_id="scorers_versions_list", responses=ScorerVersionSummarySerializer(many=True)
    )
    @action(detail=True, methods=["get"], filter_backends=[])
    def versions(self, request: Request, pk: str | None = None) -> Response:
        scorer = self.get_object()
        page = self.paginate_queryset(scorer.versions.order_by("-number"))
        return self.get_paginated_response(ScorerVersionSummarySerializer(page, many=True).data)

    @extend_schema(
        operation_id="scorers_versions_create",
        request=ScorerVersionCreateSerializer,
        responses={201: ScorerVersionSerializer, 400: _INVALID},
    )
    @versions.mapping.post
    def create_version(self, request: Request, pk: str | None = None) -> Response:
        scorer = self.get_object()
        payload = ScorerVersionCreateSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        version = services.create_version(scorer, author=request.user, **payload.validated_data)
        return Response(ScorerVersionSerializer(version).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="scorers_versions_retrieve",
        responses=ScorerVersionSerializer,
        parameters=[OpenApiParameter("number", OpenApiTypes.INT, OpenApiParameter.PATH)],
    )
    @action(
        detail=True,
        methods=["get"],
        url_path=r"versions/(?P<number>[0-9]+)",
        url_name="version-detail",
        filter_backends=[],
        pagination_class=None,
    )
    def version(self, request: Request, pk: str | None = None, number: str = "0") -> Response:
        return Response(ScorerVersionSerializer(self._version(self.get_object(), number)).data)

    @extend_schema(
        operation_id="scorers_try",
        request=ScorerTryRequestSerializer,
        responses={200: ScorerTryResultSerializer, 400: _INVALID},
        description="Score rows of one of your datasets with a version (or unsaved source), "
        "in the sandbox: each row's score, feedback, error and prints.",
    )
    @action(
        detail=True, methods=["post"], url_path="try", filter_backends=[], pagination_class=None
    )
    def try_(self, request: Request, pk: str | None = None) -> Response:
        scorer = self.get_object()
        body = ScorerTryRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = dict(body.validated_data)
        given = "prediction" in data
        result = trying.try_scorer(
            scorer=scorer, owner=request.user, prediction_given=given, **data
        )
        return Response(ScorerTryResultSerializer(result).data)

    @extend_schema(
        operation_id="scorers_export",
        responses={(200, "application/json"): OpenApiTypes.OBJECT},
        description="The code reward as JSON: name, description, kind and every version.",
    )
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def export(self, request: Request, pk: str | None = None) -> HttpResponse:
        scorer = self.get_object()
        response = HttpResponse(
            json.dumps(services.export_scorer(scorer), indent=2, ensure_ascii=False),
            content_type="application/json",
        )
        filename = services.export_filename(scorer)
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response

    @extend_schema(
        operation_id="scorers_import",
        request={
            "multipart/form-data": ScorerImportSerializer,
            "application/json": ScorerImportSerializer,
        },
        responses={201: ScorerSerializer, 400: _INVALID},
        description="A new code reward from an export (each version's code is checked).",
    )
    @action(
        detail=False,
        methods=["post"],
        url_path="import",
        parser_classes=[MultiPartParser, FormParser, JSONParser],
        filter_backends=[],
        pagination_class=None,
    )
    def import_(self, request: Request) -> Response:
        scorer = services.import_scorer_data(
            owner=request.user, data=request.data, file=request.FILES.get("file")
        )
        return Response(self._data(scorer), status=status.HTTP_201_CREATED)
