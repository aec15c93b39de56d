"""Program endpoints: CRUD, immutable versions, validate, diff, import / export."""

from __future__ import annotations

import json
from typing import Any

from django.db.models import Count, Max, QuerySet
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
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
from studio.common.exceptions import DomainError, FieldError
from studio.common.parsers import JSONParser
from studio.programs import services, templates
from studio.programs.api.serializers import (
    DiffSerializer,
    DocumentSerializer,
    ImportSerializer,
    ProgramCreateSerializer,
    ProgramSerializer,
    ProgramUpdateSerializer,
    ProgramVersionSerializer,
    ProgramVersionSummarySerializer,
    TemplateSerializer,
    TryRequestSerializer,
    TryResultSerializer,
    ValidationResultSerializer,
    VersionCreateSerializer,
)
from studio.programs.diff import diff_versions
from studio.programs.documents import validate_document
from studio.programs.exceptions import DocumentInvalid
from studio.programs.models import Program, ProgramVersion
from studio.programs.prompts import export_prompts

_INVALID = OpenApiResponse(
    FieldErrorsSerializer, description="the request or its document is not valid"
)


@extend_schema_view(
    list=extend_schema(operation_id="programs_list"),
    retrieve=extend_schema(operation_id="programs_retrieve"),
    destroy=extend_schema(operation_id="programs_destroy"),
)
class ProgramViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet[Program],
):
    serializer_class = ProgramSerializer
    filterset_fields = {"name": ["exact", "icontains"], "updated_at": ["gte", "lte"]}
    ordering_fields = ["name", "created_at", "updated_at"]
    search_fields = ["name", "description"]

    queryset = Program.objects.none()
    # The actions that take a document answer every 400 in the documented
    # {"errors": [{path, message}]} form (_INVALID), request errors included.
    field_errors_actions = frozenset({"create", "validate", "try_", "create_version", "import_"})

    def get_queryset(self) -> QuerySet[Program]:
        if getattr(self, "swagger_fake_view", False):  # schema generation
            return Program.objects.none()
        return (
            Program.objects.filter(owner=self.request.user)
            .annotate(version_count=Count("versions"), latest_number=Max("versions__number"))
            .order_by("-updated_at", "-pk")
        )

    def _program_data(self, program: Program) -> dict[str, Any]:
        return dict(ProgramSerializer(self.get_queryset().get(pk=program.pk)).data)

    def _version(self, program: Program, number: str | int) -> ProgramVersion:
        return get_object_or_404(ProgramVersion, program=program, number=int(number))

    @extend_schema(
        operation_id="programs_create",
        request=ProgramCreateSerializer,
        responses={201: ProgramSerializer, 400: _INVALID},
    )
    def create(self, request: Request) -> Response:
        payload = ProgramCreateSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        program = services.create_program(owner=request.user, **payload.validated_data)
        return Response(self._program_data(program), status=status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="programs_update",
        request=ProgramUpdateSerializer,
        responses=ProgramSerializer,
    )
    def update(self, request: Request, pk: str | None = None) -> Response:
        program = self.get_object()
        payload = ProgramUpdateSerializer(data=request.data, partial=True)
        payload.is_valid(raise_exception=True)
        services.update_program(program, **payload.validated_data)
        return Response(self._program_data(program))

    @extend_schema(
        operation_id="programs_partial_update",
        request=ProgramUpdateSerializer,
        responses=ProgramSerializer,
    )
    def partial_update(self, request: Request, pk: str | None = None) -> Response:
        return self.update(request, pk)

    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        services.delete_program(self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        operation_id="programs_validate",
        request=DocumentSerializer,
        responses={200: ValidationResultSerializer, 400: _INVALID},
    )
    @action(detail=False, methods=["post"], filter_backends=[], pagination_class=None)
    def validate(self, request: Request) -> Response:
        if not isinstance(request.data, dict) or "document" not in request.data:
            raise DocumentInvalid([FieldError("document", "this field is required")])
        errors = validate_document(request.data["document"])
        if errors:
            raise DocumentInvalid(errors)
        return Response({"valid": True, "errors": []})

    @extend_schema(
        operation_id="programs_templates",
        responses=TemplateSerializer(many=True),
        description="The starting shapes of a new program: a document and a layout each.",
    )
    @action(detail=False, methods=["get"], filter_backends=[], pagination_class=None)
    def templates(self, request: Request) -> Response:
        return Response(TemplateSerializer(templates.catalogue(), many=True).data)

    @extend_schema(
        operation_id="programs_try",
        request=TryRequestSerializer,
        responses={200: TryResultSerializer, 400: _INVALID},
        description="Run the program once on one input; every module's input and output.",
    )
    @action(
        detail=True, methods=["post"], url_path="try", filter_backends=[], pagination_class=None
    )
    def try_(self, request: Request, pk: str | None = None) -> Response:
        program = self.get_object()
        body = TryRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        result = services.try_program(
            program=program,
            owner=request.user,
            inputs=data["input"],
            document=data.get("document"),
            version=data.get("version"),
            provider=data.get("provider"),
        )
        return Response(TryResultSerializer(result).data)

    @extend_schema(
        operation_id="programs_versions_list",
        responses=ProgramVersionSummarySerializer(many=True),
    )
    @action(detail=True, methods=["get"], filter_backends=[])
    def versions(self, request: Request, pk: str | None = None) -> Response:
        program = self.get_object()
        page = self.paginate_queryset(program.versions.order_by("-number"))
        data = ProgramVersionSummarySerializer(page, many=True).data
        return self.get_paginated_response(data)

    @extend_schema(
        operation_id="programs_versions_create",
        request=VersionCreateSerializer,
        responses={201: ProgramVersionSerializer, 400: _INVALID},
    )
    @versions.mapping.post
    def create_version(self, request: Request, pk: str | None = None) -> Response:
        program = self.get_object()
        payload = VersionCreateSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        version = services.create_version(program, **payload.validated_data)
        return Response(ProgramVersionSerializer(version).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="programs_versions_retrieve",
        responses=ProgramVersionSerializer,
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
        version = self._version(self.get_object(), number)
        return Response(ProgramVersionSerializer(version).data)

    @extend_schema(
        operation_id="programs_versions_export",
        responses={(200, "application/json"): OpenApiTypes.OBJECT},
        parameters=[OpenApiParameter("number", OpenApiTypes.INT, OpenApiParameter.PATH)],
    )
    @action(
        detail=True,
        methods=["get"],
        url_path=r"versions/(?P<number>[0-9]+)/export",
        url_name="version-export",
        filter_backends=[],
        pagination_class=None,
    )
    def export(self, request: Request, pk: str | None = None, number: str = "0") -> HttpResponse:
        version = self._version(self.get_object(), number)
        response = HttpResponse(
            json.dumps(version.document, indent=2, ensure_ascii=False),
            content_type="application/json",
        )
        filename = services.export_filename(version)
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response

    @extend_schema(
        operation_id="programs_versions_prompt",
        responses={200: OpenApiTypes.OBJECT},
        parameters=[OpenApiParameter("number", OpenApiTypes.INT, OpenApiParameter.PATH)],
    )
    @action(
        detail=True,
        methods=["get"],
        url_path=r"versions/(?P<number>[0-9]+)/prompt",
        url_name="version-prompt",
        filter_backends=[],
        pagination_class=None,
    )
    def prompt(self, request: Request, pk: str | None = None, number: str = "0") -> Response:
        """Each Generator's messages as the engine sends them, as JSON and plain text."""
        version = self._version(self.get_object(), number)
        return Response(export_prompts(version.document))

    @extend_schema(
        operation_id="programs_diff",
        responses=DiffSerializer,
        parameters=[
            OpenApiParameter("from", OpenApiTypes.INT, OpenApiParameter.QUERY, required=True),
            OpenApiParameter("to", OpenApiTypes.INT, OpenApiParameter.QUERY, required=True),
        ],
    )
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def diff(self, request: Request, pk: str | None = None) -> Response:
        program = self.get_object()
        numbers = {}
        for key in ("from", "to"):
            raw = request.query_params.get(key, "")
            if not raw.isdigit():
                raise DomainError(f"`{key}` must be a version number, got {raw!r}", path=key)
            numbers[key] = int(raw)
        old = self._version(program, numbers["from"])
        new = self._version(program, numbers["to"])
        return Response(diff_versions(old, new))

    @extend_schema(
        operation_id="programs_import",
        request={"multipart/form-data": ImportSerializer, "application/json": ImportSerializer},
        responses={201: ProgramSerializer, 400: _INVALID},
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
        program = services.import_program_data(
            owner=request.user, data=request.data, file=request.FILES.get("file")
        )
        return Response(self._program_data(program), status=status.HTTP_201_CREATED)
