"""One lookup for every family of configurable objects (rewards, metrics...).

Each family's ``get`` accepts a built-in name in CamelCase or snake_case, the
registered name of a custom function or class (``"Custom>my_reward"``), a dict
from ``serialize``, an instance (returned as is), a subclass (built with no
arguments) or a plain function (wrapped by the family's wrapper).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar, cast

from optimizer_core.saving.object_registry import (
    Slot,
    deserialize_object,
    get_registered_object,
    register_library_objects,
    serialize_object,
)

T = TypeVar("T")


_WORD_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def snake_case(name: str) -> str:
    """``"LMAsJudge"`` -> ``"lm_as_judge"``, ``"F1Score"`` -> ``"f1_score"``."""
    return _WORD_BOUNDARY.sub("_", name).lower()


class Family(Generic[T]):
    """The lookup, serialisation and deserialisation of one family.

    Args:
        kind: the family's singular name, for error messages (``"reward"``).
        base: the family's base class.
        built_ins: the built-in classes (found by class name and snake_case name;
            registered under ``module.qualname`` for saved documents).
        wrap: turns a plain function into a member (``MeanRewardWrapper``).
        aliases: extra names for built-ins (the reference library's names).
    """

    def __init__(
        self,
        *,
        kind: str,
        base: type[Any],  # abstract base classes are welcome here
        built_ins: Iterable[type[T]],
        wrap: Callable[[Callable[..., Any]], T],
        aliases: dict[str, type[T]] | None = None,
    ) -> None:
        self.kind = kind
        self.base = base
        self.wrap = wrap
        classes = list(built_ins)
        register_library_objects(*classes)
        #: What a document may put where this family is expected: members or functions.
        self.slot = Slot(kind, (base,), functions=True)
        self.objects: dict[str, type[T]] = {
            **{cls.__name__: cls for cls in classes},
            **{snake_case(cls.__name__): cls for cls in classes},
            **(aliases or {}),
        }

    def serialize(self, obj: T) -> dict[str, Any]:
        return serialize_object(obj)

    def deserialize(self, config: dict[str, Any]) -> T:
        found = deserialize_object(config, module_objects=dict(self.objects), slot=self.slot)
        return self.coerce(found, config)

    def get(self, identifier: Any) -> T:
        if isinstance(identifier, self.base):
            return cast(T, identifier)
        if isinstance(identifier, dict):
            return self.deserialize(identifier)
        if isinstance(identifier, str):
            if identifier in self.objects:
                return self.objects[identifier]()
            try:
                found = get_registered_object(identifier)
            except ValueError:
                known = sorted(name for name in self.objects if name[0].isupper())
                raise ValueError(
                    f"unknown {self.kind} {identifier!r}; built-ins are {known}, or pass the "
                    "registered name of a custom function"
                ) from None
            return self.coerce(found, identifier)
        return self.coerce(identifier, identifier)

    def coerce(self, found: Any, identifier: Any) -> T:
        if isinstance(found, self.base):
            return cast(T, found)
        if inspect.isclass(found):
            if issubclass(found, self.base):
                return cast(T, found())
        elif callable(found):
            return self.wrap(found)
        raise ValueError(f"cannot turn {identifier!r} into a {self.kind}")
