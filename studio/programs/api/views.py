"""Program endpoints: CRUD, immutable versions, validate, diff, import / export."""

from __future__ import annotations

import json
from typing import Any

from django.db.models import Count, Max, ProtectedError, QuerySet
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
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from studio.common.errors import FieldErrorsSerializer, field_errors_exception_handler
from studio.common.jsondepth import loads as load_json
from studio.common.parsers import JSONParser
from studio.programs import services
from studio.programs.api.serializers import (
    DiffSerializer,
    DocumentSerializer,
    ImportSerializer,
    ProgramCreateSerializer,
    ProgramSerializer,
    ProgramUpdateSerializer,
    ProgramVersionSerializer,
    ProgramVersionSummarySerializer,
    TryRequestSerializer,
    TryResultSerializer,
    ValidationResultSerializer,
    VersionCreateSerializer,
)
from studio.programs.models import Program, ProgramVersion

_INVALID = OpenApiResponse(
    FieldErrorsSerializer, description="the request or its document is not valid"
)
_DOCUMENT_ACTIONS = {"create", "validate", "try_", "create_version", "import_"}


def _invalid(error: services.DocumentInvalid) -> Response:
    return Response(
        {"errors": [e.as_json() for e in error.errors]}, status=status.HTTP_400_BAD_REQUEST
    )


def _conflict(error: services.ProgramConflict) -> ValidationError:
    return ValidationError({error.field: [str(error)]})


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

    def get_exception_handler(self) -> Any:
        # The actions that take a document answer every 400 in the documented
        # {"errors": [{path, message}]} form (_INVALID), request errors included.
        if self.action in _DOCUMENT_ACTIONS:
            return field_errors_exception_handler
        return super().get_exception_handler()

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
        try:
            program = services.create_program(owner=request.user, **payload.validated_data)
        except services.DocumentInvalid as error:
            return _invalid(error)
        except services.ProgramConflict as error:
            raise _conflict(error) from None
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
        try:
            services.update_program(program, **payload.validated_data)
        except services.ProgramConflict as error:
            raise _conflict(error) from None
        return Response(self._program_data(program))

    @extend_schema(
        operation_id="programs_partial_update",
        request=ProgramUpdateSerializer,
        responses=ProgramSerializer,
    )
    def partial_update(self, request: Request, pk: str | None = None) -> Response:
        return self.update(request, pk)

    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        program = self.get_object()
        try:
            services.delete_program(program)
        except ProtectedError:
            return Response(
                {"detail": "this program has runs; delete them before the program"},
                status=status.HTTP_409_CONFLICT,
            )
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        operation_id="programs_validate",
        request=DocumentSerializer,
        responses={200: ValidationResultSerializer, 400: _INVALID},
    )
    @action(detail=False, methods=["post"], filter_backends=[], pagination_class=None)
    def validate(self, request: Request) -> Response:
        if not isinstance(request.data, dict) or "document" not in request.data:
            return Response(
                {"errors": [{"path": "document", "message": "this field is required"}]},
                status=status.HTTP_400_BAD_REQUEST,
            )
        errors = services.validate_document(request.data["document"])
        if errors:
            return _invalid(services.DocumentInvalid(errors))
        return Response({"valid": True, "errors": []})

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
        from studio.providers import services as provider_services
        from studio.providers.models import Provider

        program = self.get_object()
        body = TryRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        if data.get("document") is not None:
            document = data["document"]
        else:
            version = (
                self._version(program, data["version"])
                if data.get("version")
                else program.latest_version
            )
            if version is None:
                raise ValidationError({"version": ["the program has no version yet"]})
            document = version.document
        if data.get("provider") is not None:
            provider = Provider.objects.filter(
                owner=request.user, pk=data["provider"], kind=Provider.Kind.LANGUAGE
            ).first()
            if provider is None:
                raise ValidationError({"provider": ["not found"]})
        else:
            provider = provider_services.default_provider(request.user)
            if provider is None:
                raise ValidationError({"provider": ["add a language provider first"]})
        try:
            language_model = provider_services.build_language_model(provider)
            result = services.try_program(
                document=document, language_model=language_model, inputs=data["input"]
            )
        except services.DocumentInvalid as error:
            return _invalid(error)
        except services.TryError as error:
            raise ValidationError({error.field: [str(error)]}) from None
        except provider_services.ProviderError as error:
            raise ValidationError({"provider": [str(error)]}) from None
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
        try:
            version = services.create_version(program, **payload.validated_data)
        except services.DocumentInvalid as error:
            return _invalid(error)
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
                raise ValidationError({key: [f"`{key}` must be a version number, got {raw!r}"]})
            numbers[key] = int(raw)
        old = self._version(program, numbers["from"])
        new = self._version(program, numbers["to"])
        return Response(services.diff_versions(old, new))

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
        if not hasattr(request.data, "get"):
            return Response(
                {"errors": [{"path": "", "message": "expected a JSON object"}]},
                status=status.HTTP_400_BAD_REQUEST,
            )
        upload = request.FILES.get("file")
        name = str(request.data.get("name") or "")
        description = str(request.data.get("description") or "")
        if upload is not None:
            try:
                payload = load_json(upload.read().decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as error:
                return Response(
                    {"errors": [{"path": "file", "message": f"not a JSON file: {error}"}]},
                    status=status.HTTP_400_BAD_REQUEST,
                )
        elif "document" in request.data:
            payload = {
                "document": request.data["document"],
                "layout": request.data.get("layout") or {},
            }
        else:
            payload = request.data if isinstance(request.data, dict) else None
            if not payload or "kind" not in payload:
                return Response(
                    {
                        "errors": [
                            {
                                "path": "file",
                                "message": "send a file, a document, or the document itself",
                            }
                        ]
                    },
                    status=status.HTTP_400_BAD_REQUEST,
                )
        try:
            program = services.import_program(
                owner=request.user, payload=payload, name=name, description=description
            )
        except services.DocumentInvalid as error:
            return _invalid(error)
        return Response(self._program_data(program), status=status.HTTP_201_CREATED)
