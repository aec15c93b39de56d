"""Saving and loading: the object registry, safe mode, serialize/deserialize."""

from optimizer_core.saving.document_check import check_names, locate, refused_names
from optimizer_core.saving.object_registry import (
    RefusedObjectError,
    Slot,
    deserialize_object,
    get_registered_name,
    get_registered_object,
    register_synalinks_serializable,
    safe_mode_scope,
    serialize_object,
)

__all__ = [
    "RefusedObjectError",
    "Slot",
    "check_names",
    "deserialize_object",
    "get_registered_name",
    "get_registered_object",
    "locate",
    "refused_names",
    "register_synalinks_serializable",
    "safe_mode_scope",
    "serialize_object",
]
