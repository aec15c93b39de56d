"""Account representations."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser
from rest_framework import serializers

from studio.accounts.models import SavedDataModel
from studio.common.fields import JSONField


class UserSerializer(serializers.ModelSerializer[AbstractUser]):
    # Django stores "no email" as "", which is no email address: null instead.
    email = serializers.EmailField(read_only=True, allow_null=True)

    class Meta:
        model = get_user_model()
        fields = ["id", "username", "email", "first_name", "last_name", "is_staff"]
        read_only_fields = fields

    def to_representation(self, instance: AbstractUser) -> dict[str, Any]:
        data = super().to_representation(instance)
        data["email"] = data["email"] or None
        return data


class LoginSerializer(serializers.Serializer[dict[str, Any]]):
    username = serializers.CharField()
    password = serializers.CharField(style={"input_type": "password"}, trim_whitespace=False)


class TokenSerializer(serializers.Serializer[dict[str, Any]]):
    token = serializers.CharField()


class CsrfSerializer(serializers.Serializer[dict[str, Any]]):
    csrf_token = serializers.CharField()


class SignUpSerializer(serializers.Serializer[dict[str, Any]]):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(
        write_only=True, style={"input_type": "password"}, trim_whitespace=False, max_length=4096
    )
    email = serializers.EmailField(required=False, allow_blank=True, default="")


class DemoAccountSerializer(serializers.Serializer[dict[str, Any]]):
    username = serializers.CharField()
    password = serializers.CharField()


class AuthConfigSerializer(serializers.Serializer[dict[str, Any]]):
    registration_open = serializers.BooleanField(help_text="whether POST /api/auth/signup/ is open")
    demo_account = DemoAccountSerializer(
        allow_null=True,
        help_text="the demo account's credentials while it has its documented default "
        "password (the embedded studio only); null otherwise",
    )


class SavedDataModelSerializer(serializers.ModelSerializer[SavedDataModel]):
    schema = JSONField(help_text="the model's JSON schema (pydantic's model_json_schema())")

    class Meta:
        model = SavedDataModel
        fields = ["id", "name", "class_path", "schema", "created_at", "updated_at"]
        read_only_fields = ["id", "created_at", "updated_at"]
        extra_kwargs = {"class_path": {"required": False}}
