"""Provider endpoints: CRUD of the caller's providers, the catalogue, set-default, and a
connection check."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer

from studio.providers import services
from studio.providers.api.serializers import (
    ConnectionCheckSerializer,
    ProviderCatalogueEntrySerializer,
    ProviderSerializer,
)
from studio.providers.models import Provider


@extend_schema_view(
    list=extend_schema(operation_id="providers_list"),
    create=extend_schema(operation_id="providers_create"),
    retrieve=extend_schema(operation_id="providers_retrieve"),
    update=extend_schema(operation_id="providers_update"),
    partial_update=extend_schema(operation_id="providers_partial_update"),
    destroy=extend_schema(operation_id="providers_destroy"),
)
class ProviderViewSet(
    mixins.ListModelMixin,
    mixins.CreateModelMixin,
    mixins.RetrieveModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet[Provider],
):
    serializer_class = ProviderSerializer
    filterset_fields = ["kind", "is_default", "model"]
    ordering_fields = ["name", "created_at", "model"]
    search_fields = ["name", "model"]

    queryset = Provider.objects.none()

    def get_queryset(self) -> QuerySet[Provider]:
        if getattr(self, "swagger_fake_view", False):  # schema generation
            return Provider.objects.none()
        return Provider.objects.filter(owner=self.request.user).order_by("name", "pk")

    def perform_create(self, serializer: BaseSerializer[Provider]) -> None:
        data: dict[str, Any] = dict(serializer.validated_data)
        serializer.instance = services.create_provider(
            owner=self.request.user,
            name=data["name"],
            model=data["model"],
            kind=data.get("kind", Provider.Kind.LANGUAGE),
            api_base=data.get("api_base", ""),
            api_key=data.get("api_key") or "",
            params=data.get("params") or {},
            is_default=data.get("is_default", False),
        )

    def perform_update(self, serializer: BaseSerializer[Provider]) -> None:
        data: dict[str, Any] = dict(serializer.validated_data)
        assert serializer.instance is not None
        serializer.instance = services.update_provider(serializer.instance, **data)

    def perform_destroy(self, instance: Provider) -> None:
        services.delete_provider(instance)

    @extend_schema(
        operation_id="providers_catalogue", responses=ProviderCatalogueEntrySerializer(many=True)
    )
    @action(detail=False, methods=["get"], pagination_class=None, filter_backends=[])
    def catalogue(self, request: Request) -> Response:
        return Response(ProviderCatalogueEntrySerializer(services.catalogue(), many=True).data)

    @extend_schema(operation_id="providers_set_default", request=None, responses=ProviderSerializer)
    @action(detail=True, methods=["post"], url_path="set-default")
    def set_default(self, request: Request, pk: str | None = None) -> Response:
        provider = services.set_default(self.get_object())
        return Response(self.get_serializer(provider).data, status=status.HTTP_200_OK)

    @extend_schema(
        operation_id="providers_test",
        request=None,
        responses=ConnectionCheckSerializer,
        description="Make one small call with this provider (a tiny prompt, at most 16 "
        "tokens, 30 s at most) and report the answer or the provider's error, with the "
        "latency. Answers 200 either way; `ok` says which.",
    )
    @action(detail=True, methods=["post"], url_path="test")
    def test_connection(self, request: Request, pk: str | None = None) -> Response:
        report = services.check_connection(self.get_object())
        return Response(ConnectionCheckSerializer(report).data)
