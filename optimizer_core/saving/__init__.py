"""Saving and loading: the object registry, safe mode, serialize/deserialize, the families.

Each family (rewards, metrics, optimizers...) is a `Family`: its lookup and its
catalogue of members, each describing what it needs and its user settings
(`Param`). ``family("reward")`` returns one.
"""

from optimizer_core.saving.document_check import check_names, locate, refused_names
from optimizer_core.saving.families import Entry, Family, family
from optimizer_core.saving.naming import lookup_key
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
from optimizer_core.saving.params import Param, check_params, needs_of, user_params

__all__ = [
    "Entry",
    "Family",
    "Param",
    "RefusedObjectError",
    "Slot",
    "check_names",
    "check_params",
    "deserialize_object",
    "family",
    "get_registered_name",
    "get_registered_object",
    "locate",
    "lookup_key",
    "needs_of",
    "refused_names",
    "register_synalinks_serializable",
    "safe_mode_scope",
    "serialize_object",
    "user_params",
]
