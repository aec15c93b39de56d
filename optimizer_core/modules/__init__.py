"""The modules a program is built from."""

from __future__ import annotations

from typing import Any

from optimizer_core.modules.chain_of_thought import ChainOfThought
from optimizer_core.modules.generator import Example, Generator, GeneratorState
from optimizer_core.modules.input import Input, InputLayer
from optimizer_core.modules.module import Module, SymbolicDataModel
from optimizer_core.saving.object_registry import (
    Slot,
    deserialize_object,
    register_library_objects,
    serialize_object,
)

__all__ = [
    "ChainOfThought",
    "Example",
    "Generator",
    "GeneratorState",
    "Input",
    "InputLayer",
    "Module",
    "SymbolicDataModel",
    "deserialize",
    "serialize",
]

ALL_OBJECTS: dict[str, Any] = {
    "InputLayer": InputLayer,
    "Generator": Generator,
    "ChainOfThought": ChainOfThought,
}
register_library_objects(*ALL_OBJECTS.values())
#: A program's module entries take Module subclasses only.
MODULE_SLOT = Slot("module", (Module,))


def serialize(module: Module) -> dict[str, Any]:
    return serialize_object(module)


def deserialize(config: dict[str, Any]) -> Module:
    module: Module = deserialize_object(config, module_objects=ALL_OBJECTS, slot=MODULE_SLOT)
    return module
