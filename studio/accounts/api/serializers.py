"""Account representations."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser
from rest_framework import serializers


class UserSerializer(serializers.ModelSerializer[AbstractUser]):
    # Django stores "no email" as "", which is no email address: null instead.
    email = serializers.EmailField(read_only=True, allow_null=True)

    class Meta:
        model = get_user_model()
        fields = ["id", "username", "email", "first_name", "last_name"]
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
