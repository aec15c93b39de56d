"""Serializer fields for JSON taken from clients, bounded in nesting."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from studio.common.jsondepth import MAX_DEPTH, TooDeep, check_depth, loads


class JSONField(serializers.JSONField):
    """DRF's JSONField, refusing values nested deeper than `jsondepth.MAX_DEPTH`.

    Bodies parsed by `studio.common.parsers.JSONParser` are already bounded; this
    covers multipart and form fields, whose JSON text DRF parses itself.
    """

    def to_internal_value(self, data: Any) -> Any:
        if self.binary or getattr(data, "is_json_string", False):
            if isinstance(data, bytes):
                data = data.decode()
            try:
                data = loads(data)
            except TooDeep as error:
                raise serializers.ValidationError(str(error)) from None
            except ValueError:
                self.fail("invalid")
            return data
        try:
            check_depth(data, MAX_DEPTH)
        except TooDeep as error:
            raise serializers.ValidationError(str(error)) from None
        return super().to_internal_value(data)
