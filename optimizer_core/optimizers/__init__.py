"""Optimizers: rewrite trainable variables to raise the reward."""

from __future__ import annotations

from typing import Any

from optimizer_core.optimizers.omega import OMEGA
from optimizer_core.optimizers.optimizer import Optimizer
from optimizer_core.optimizers.random_few_shot import RandomFewShot
from optimizer_core.saving.object_registry import (
    Slot,
    deserialize_object,
    register_library_objects,
    serialize_object,
)

__all__ = ["OMEGA", "Optimizer", "RandomFewShot", "deserialize", "get", "serialize"]

ALL_OBJECTS: dict[str, Any] = {"OMEGA": OMEGA, "RandomFewShot": RandomFewShot}
register_library_objects(*ALL_OBJECTS.values())
_SLOT = Slot("optimizer", (Optimizer,))
_ALIASES = {
    "random_few_shot": "RandomFewShot",
    "randomfewshot": "RandomFewShot",
    "omega": "OMEGA",
}


def serialize(optimizer: Optimizer) -> dict[str, Any]:
    return serialize_object(optimizer)


def deserialize(config: dict[str, Any]) -> Optimizer:
    optimizer: Optimizer = deserialize_object(config, module_objects=ALL_OBJECTS, slot=_SLOT)
    return optimizer


def get(identifier: Any) -> Optimizer:
    """An optimizer from a name (``"random_few_shot"``), a saved config, or an instance."""
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        name = _ALIASES.get(identifier.lower(), identifier)
        if name in ALL_OBJECTS:
            optimizer: Optimizer = ALL_OBJECTS[name]()
            return optimizer
        raise ValueError(
            f"unknown optimizer {identifier!r}; known: {sorted(ALL_OBJECTS)} (or snake_case names)"
        )
    raise TypeError(f"cannot interpret {identifier!r} as an optimizer")
