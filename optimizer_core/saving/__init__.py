"""Saving and loading: object registry and (later) program files."""

from optimizer_core.saving.object_registry import (
    deserialize_object,
    get_registered_name,
    get_registered_object,
    register_synalinks_serializable,
    safe_mode_scope,
    serialize_object,
)

__all__ = [
    "deserialize_object",
    "get_registered_name",
    "get_registered_object",
    "register_synalinks_serializable",
    "safe_mode_scope",
    "serialize_object",
]
