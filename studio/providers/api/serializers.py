"""Provider representations: the API key is write-only, reported as ``has_api_key``."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from studio.providers import services
from studio.providers.models import Provider


class ProviderSerializer(serializers.ModelSerializer[Provider]):
    api_key = serializers.CharField(
        write_only=True,
        required=False,
        allow_blank=True,
        allow_null=True,
        trim_whitespace=True,
        help_text="Write-only; stored encrypted. Omit to keep, empty to remove.",
    )
    has_api_key = serializers.SerializerMethodField()

    class Meta:
        model = Provider
        fields = [
            "id",
            "name",
            "kind",
            "model",
            "api_base",
            "api_key",
            "has_api_key",
            "params",
            "dropped_params",
            "is_default",
            "created_at",
        ]
        read_only_fields = ["id", "has_api_key", "dropped_params", "created_at"]

    def get_has_api_key(self, provider: Provider) -> bool:
        return services.has_api_key(provider)

    def validate_name(self, value: str) -> str:
        owner = self.context["request"].user
        clash = Provider.objects.filter(owner=owner, name=value)
        if self.instance is not None:
            clash = clash.exclude(pk=self.instance.pk)
        if clash.exists():
            raise serializers.ValidationError(f"you already have a provider named {value!r}")
        return value

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        instance: Provider | None = self.instance
        try:
            services.check_params(
                kind=attrs.get("kind", instance.kind if instance else Provider.Kind.LANGUAGE),
                model=attrs.get("model", instance.model if instance else ""),
                api_base=attrs.get("api_base", instance.api_base if instance else ""),
                params=attrs.get("params", instance.params if instance else {}),
            )
        except services.ProviderError as error:
            raise serializers.ValidationError({error.path or "params": [str(error)]}) from None
        return attrs


class ProviderCatalogueEntrySerializer(serializers.Serializer[dict[str, Any]]):
    model = serializers.CharField()
    kind = serializers.ChoiceField(choices=Provider.Kind.choices)
    label = serializers.CharField()
    needs_api_key = serializers.BooleanField()
    local = serializers.BooleanField()


class ConnectionCheckSerializer(serializers.Serializer[dict[str, Any]]):
    ok = serializers.BooleanField(help_text="whether the provider answered")
    answer = serializers.CharField(
        allow_null=True, help_text="the model's reply (an embedding: its size); null on failure"
    )
    error = serializers.CharField(
        allow_null=True, help_text="the provider's error, without any API key; null on success"
    )
    latency_s = serializers.FloatField(help_text="seconds the call took")
