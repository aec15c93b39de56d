"""One lookup for every family of configurable objects, and the catalogue of their members.

Rewards, metrics, optimizers, callbacks, modules, language models and local
models each have one `Family`, and their ``get`` / ``serialize`` /
``deserialize`` are its methods. ``get`` accepts:

- a name: a built-in class name in any spelling (`naming.lookup_key`:
  ``"ExactMatch"``, ``"exact_match"``), an alias (the reference library's names),
  the registered name of a registered member class (``"Custom>LengthMatch"``)
  or, where the family wraps functions (rewards, metrics), of a registered
  function; a family may take more (language models: a litellm model name);
- a dict from ``serialize``;
- an instance (returned as is), a member class (built with no arguments), or a
  plain function (wrapped, where the family wraps functions).

A family's members are its built-ins and every class registered with
`register_synalinks_serializable` that subclasses its base. `Family.describe`
gives a member's catalogue `Entry`: its name, label, description, what it
needs supplied (`params.needs_of`) and its user settings (`params.user_params`).
The studio builds its run form and checks run configs from these entries, so a
new reward or optimizer needs no change there.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from optimizer_core.saving.naming import label, lookup_key, quoted, snake_case
from optimizer_core.saving.object_registry import (
    _CUSTOM_OBJECTS,
    Slot,
    deserialize_object,
    get_registered_name,
    lookup_registered,
    register_library_objects,
    serialize_object,
)
from optimizer_core.saving.params import Param, needs_of, user_params

__all__ = ["Entry", "Family", "family", "snake_case"]

T = TypeVar("T")

_FAMILIES: dict[str, Family[Any]] = {}


@dataclass(frozen=True)
class Entry:
    """A family member as a catalogue shows it.

    Attributes:
        name: what ``get`` (and a studio run config) takes: the class name of a
            built-in, the registered name (``"Package>Name"``) of another member.
        label: the name for people (``"LM as judge"``).
        description: the first paragraph of the class docstring, as plain text.
        needs: the constructor arguments its builder supplies (``"language_model"``).
        params: its user settings, complete (see `params.user_params`).
        cls: the class.
    """

    name: str
    label: str
    description: str
    needs: tuple[str, ...]
    params: tuple[Param, ...]
    cls: type[Any]


def _first_paragraph(cls: type[Any]) -> str:
    """The first paragraph of the class's own docstring, as plain text (no backticks)."""
    doc = cls.__dict__.get("__doc__")  # its own: a subclass does not borrow its parent's
    if not isinstance(doc, str) or not doc.strip():
        return ""
    return " ".join(inspect.cleandoc(doc).split("\n\n")[0].replace("`", "").split())


class Family(Generic[T]):
    """The lookup, serialisation, deserialisation and catalogue of one family.

    Args:
        kind: the family's singular name, for messages and `family` (``"reward"``).
        base: the family's base class, or a tuple of them (language models:
            ``(LanguageModel, EmbeddingModel)``).
        built_ins: the library's own members (found by class name in any spelling;
            registered under ``module.qualname`` for saved documents when `register`).
        wrap: turns a plain function into a member (``MeanRewardWrapper``); a
            family without one takes no functions.
        aliases: extra names for built-ins (the reference library's names).
        register: register the built-ins for saved documents (default True;
            local models are not loadable from documents).
        other_names: builds a member from a name that names no class (language
            models: ``"openai/gpt-4o-mini"``), or returns None.
        other_names_hint: those names, for the message of an unknown name.
        hints: the message for a built-in that cannot be built from its name
            alone, by class (default: "needs arguments").
    """

    def __init__(
        self,
        *,
        kind: str,
        base: type[Any] | tuple[type[Any], ...],  # abstract base classes are welcome here
        built_ins: Iterable[type[T]],
        wrap: Callable[[Callable[..., Any]], T] | None = None,
        aliases: dict[str, type[T]] | None = None,
        register: bool = True,
        other_names: Callable[[str], T | None] | None = None,
        other_names_hint: str = "",
        hints: dict[type[Any], str] | None = None,
    ) -> None:
        self.kind = kind
        self.bases: tuple[type[Any], ...] = base if isinstance(base, tuple) else (base,)
        self.wrap = wrap
        self.built_ins: tuple[type[T], ...] = tuple(built_ins)
        if register:
            register_library_objects(*self.built_ins)
        self.other_names = other_names
        self.other_names_hint = other_names_hint
        self.hints = dict(hints or {})
        #: What a document may put where this family is expected: members, and
        #: functions where the family wraps them.
        self.slot = Slot(kind, self.bases, functions=wrap is not None)
        #: The built-ins by class name.
        self.classes: dict[str, type[T]] = {cls.__name__: cls for cls in self.built_ins}
        #: The built-ins by class name, snake_case name and alias (the table
        #: `deserialize` finds a bare ``class_name`` in).
        self.objects: dict[str, type[T]] = {
            **self.classes,
            **{snake_case(name): cls for name, cls in self.classes.items()},
            **(aliases or {}),
        }
        self._by_key = {lookup_key(name): cls for name, cls in self.objects.items()}
        _FAMILIES[kind] = self

    # Lookup ---------------------------------------------------------------------------------

    def is_member_class(self, cls: Any) -> bool:
        return inspect.isclass(cls) and issubclass(cls, self.bases)

    def find(self, name: str) -> type[T] | None:
        """The member class `name` stands for, or None; never builds, never imports.

        A registered name (``"Package>Name"``) or an import path is matched
        exactly; any other name by `lookup_key`, among the built-ins and aliases.
        """
        if not isinstance(name, str) or not name:
            return None
        if ">" not in name and "." not in name:
            return self._by_key.get(lookup_key(name))
        found = lookup_registered(name)
        return cast(type[T], found) if self.is_member_class(found) else None

    def members(self) -> list[type[T]]:
        """The built-ins, then every registered (non-abstract) subclass of the base."""
        found = list(self.built_ins)
        for obj in list(_CUSTOM_OBJECTS.values()):
            if self.is_member_class(obj) and not inspect.isabstract(obj) and obj not in found:
                found.append(obj)
        return found

    def name_of(self, cls: type[Any]) -> str:
        """The name `get` takes for a member: a built-in's class name, else its registered name."""
        return cls.__name__ if cls in self.built_ins else get_registered_name(cls)

    def describe(self, cls: type[Any]) -> Entry:
        """The catalogue entry of a member class.

        Raises:
            TypeError: its declared settings contradict its constructor (see `user_params`).
        """
        return Entry(
            name=self.name_of(cls),
            label=label(cls.__name__),
            description=_first_paragraph(cls),
            needs=needs_of(cls),
            params=user_params(cls),
            cls=cls,
        )

    # get / serialize / deserialize ----------------------------------------------------------

    def serialize(self, obj: T) -> dict[str, Any]:
        """``{"module", "class_name", "registered_name", "config"}``, or a function's dict."""
        return serialize_object(obj)

    def deserialize(self, config: dict[str, Any]) -> T:
        """Rebuild what `serialize` wrote, if it is a member (or a function, where wrapped)."""
        found = deserialize_object(config, module_objects=dict(self.objects), slot=self.slot)
        return self.coerce(found, config)

    def get(self, identifier: Any) -> T:
        """A member from a name, a serialised dict, an instance, a class or a function.

        Raises:
            ValueError: an unknown name, or a name whose class needs arguments.
            TypeError: an identifier of another type (ValueError in families that
                wrap functions, as rewards and metrics always said).
        """
        if isinstance(identifier, self.bases):
            return cast(T, identifier)
        if isinstance(identifier, dict):
            return self.deserialize(identifier)
        if isinstance(identifier, str):
            return self._from_name(identifier)
        if self.is_member_class(identifier):
            return self._build(identifier, identifier.__name__)
        if self.wrap is not None and callable(identifier) and not inspect.isclass(identifier):
            return self.wrap(identifier)
        error = ValueError if self.wrap is not None else TypeError
        names = " or ".join(base.__name__ for base in self.bases)
        raise error(
            f"cannot turn {identifier!r} into a {self.kind}: `identifier` must be a name, "
            f"a config dict or a {names}"
        )

    def coerce(self, found: Any, identifier: Any) -> T:
        """`found` as a member: as is, built (a class), or wrapped (a function)."""
        if isinstance(found, self.bases):
            return cast(T, found)
        if self.is_member_class(found):
            return self._build(found, identifier)
        if self.wrap is not None and callable(found) and not inspect.isclass(found):
            return self.wrap(found)
        raise ValueError(f"cannot turn {identifier!r} into a {self.kind}")

    def _from_name(self, name: str) -> T:
        cls = self.find(name)
        if cls is not None:
            return self._build(cls, name)
        if self.other_names is not None:
            built = self.other_names(name)
            if built is not None:
                return built
        if self.wrap is not None:
            function = lookup_registered(name)
            if callable(function) and not inspect.isclass(function):
                return self.wrap(function)
        raise ValueError(self._unknown(name))

    def _unknown(self, name: str) -> str:
        text = quoted(name)
        also = "the registered name of a custom class"
        if self.wrap is not None:
            also += " or function"
        if self.other_names_hint:
            also += f", or {self.other_names_hint}"
        known = sorted(self.classes)
        return f"unknown {self.kind} {text}; built-ins are {known} (any spelling), {also}"

    def _build(self, cls: type[T], identifier: Any) -> T:
        try:
            return cls()
        except TypeError as error:
            raise ValueError(
                self.hints.get(cls)
                or f"{self.kind} {identifier!r} needs arguments ({error}); pass a config dict "
                "instead"
            ) from None


def family(kind: str) -> Family[Any]:
    """The family of `kind`: ``"reward"``, ``"metric"``, ``"optimizer"``, ``"callback"``,
    ``"module"``, ``"language model"`` (and ``"local model"`` once
    `optimizer_core.local_models` is imported).

    Raises:
        ValueError: no such family.
    """
    try:
        return _FAMILIES[kind]
    except KeyError:
        raise ValueError(f"unknown family {kind!r}; known: {sorted(_FAMILIES)}") from None
