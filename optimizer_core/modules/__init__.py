"""The modules a program is built from."""

from __future__ import annotations

from typing import Any

from optimizer_core.modules.branch import Branch
from optimizer_core.modules.chain_of_thought import ChainOfThought
from optimizer_core.modules.decision import Decision, MultiDecision
from optimizer_core.modules.generator import Example, Generator, GeneratorState
from optimizer_core.modules.identity import Identity
from optimizer_core.modules.input import Input, InputLayer
from optimizer_core.modules.masking import InMask, OutMask
from optimizer_core.modules.merging import And, Concat, Not, Or, Xor
from optimizer_core.modules.module import Module, SymbolicDataModel
from optimizer_core.modules.self_critique import SelfCritique
from optimizer_core.saving.families import Family

__all__ = [
    "And",
    "Branch",
    "ChainOfThought",
    "Concat",
    "Decision",
    "Example",
    "Generator",
    "GeneratorState",
    "Identity",
    "InMask",
    "Input",
    "InputLayer",
    "Module",
    "MultiDecision",
    "Not",
    "Or",
    "OutMask",
    "SelfCritique",
    "SymbolicDataModel",
    "Xor",
    "deserialize",
    "get",
    "serialize",
]

_FAMILY: Family[Module] = Family(
    kind="module",
    base=Module,
    built_ins=(
        InputLayer,
        Generator,
        ChainOfThought,
        Decision,
        MultiDecision,
        Branch,
        Concat,
        And,
        Or,
        Xor,
        Not,
        InMask,
        OutMask,
        Identity,
        SelfCritique,
    ),
    aliases={"Concatenate": Concat},
)
#: The built-in modules by class name.
ALL_OBJECTS: dict[str, type[Module]] = _FAMILY.classes
#: A program's module entries take Module subclasses only.
MODULE_SLOT = _FAMILY.slot


def serialize(module: Module) -> dict[str, Any]:
    """The module as ``{"module", "class_name", "registered_name", "config"}``."""
    return _FAMILY.serialize(module)


def deserialize(config: dict[str, Any]) -> Module:
    """Rebuild a module from `serialize`'s output (a registered `Module` subclass only)."""
    return _FAMILY.deserialize(config)


def get(identifier: Any) -> Module:
    """A module from a serialised dict or an instance (a name builds only a module that
    needs no arguments: ``get("concat")``, ``get("identity")``).

    Raises:
        ValueError: an unknown name, or one whose class needs arguments.
        TypeError: an identifier of another type.
    """
    return _FAMILY.get(identifier)
