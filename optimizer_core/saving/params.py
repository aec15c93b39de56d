"""What a user may set on a class: its constructor arguments, typed, with defaults and ranges.

A class of a family declares, beside its constructor:

- ``needs``: the constructor arguments that take an object its builder supplies,
  not a value a person types (``"language_model"``, ``"embedding_model"``, a
  function ``"fn"``, a judge ``"program"``);
- ``user_params``: a `Param` per setting, with its one-line description and the
  range or choices its ``__init__`` enforces; ``offered=False`` marks an argument
  that is no setting (the ``name`` logs use, a ``distance_function``).

Declarations add up along the class hierarchy: a subclass adds settings or
replaces one by name. The rest comes from the constructor signature: the type
(from the annotation), the default, whether None is allowed. An argument that
is neither a need nor declared is still offered when its type can be derived,
with an empty description.

Example:
    ```python
    class LengthMatch(Reward):
        user_params = (Param("tolerance", "characters of difference allowed", minimum=0),)

        def __init__(self, *, tolerance: int = 2, **kwargs: Any) -> None: ...

    user_params(LengthMatch)  # (Param("tolerance", type="int", default=2, ...), in_mask, ...)
    ```
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import types
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args, get_origin

from optimizer_core.saving.naming import label as label_of

__all__ = [
    "PARAM_TYPES",
    "Param",
    "check_params",
    "check_value",
    "completed",
    "constructor_arguments",
    "declared_params",
    "needs_of",
    "user_params",
]

#: The types a setting may have; ``"fields"`` is a list of output field names (masks),
#: ``"field_rules"`` a list of rule objects (`optimizer_core.rewards.field_rules`; the
#: class's constructor checks each rule, naming its index and key).
PARAM_TYPES = ("int", "float", "bool", "str", "str_list", "fields", "field_rules")


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


#: No default: the argument is required (or, in a declaration, "take the signature's").
MISSING: Any = _Missing()


@dataclass(frozen=True)
class Param:
    """One user setting: a constructor argument described for forms and checks.

    Args:
        name: the constructor argument.
        description: one line for people.
        label: a short label (default: from the name, ``"Nb max examples"``).
        type: one of `PARAM_TYPES` (default: from the annotation).
        default: the default (default: the signature's; give one only where
            there is no signature, such as the studio's fit settings).
        nullable: whether None is allowed (default: the annotation allows None,
            or the default is None).
        required: whether a value must be given (default: the argument has no default).
        minimum: the lowest int or float allowed (default None: no bound).
        maximum: the highest int or float allowed (default None: no bound).
        exclusive_minimum: `minimum` itself is refused (default False).
        exclusive_maximum: `maximum` itself is refused (default False).
        choices: the allowed values of a str (default: from a ``Literal``
            annotation, else any string).
        offered: False for a constructor argument that is no user setting.
    """

    name: str
    description: str = ""
    label: str = ""
    type: str = ""
    default: Any = MISSING
    nullable: bool | None = None
    required: bool | None = None
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    exclusive_maximum: bool = False
    choices: tuple[str, ...] | None = None
    offered: bool = True

    def __post_init__(self) -> None:
        if self.type and self.type not in PARAM_TYPES:
            raise ValueError(f"`type` must be one of {list(PARAM_TYPES)}, got {self.type!r}")
        numeric = self.minimum is not None or self.maximum is not None
        if numeric and self.type not in ("", "int", "float"):
            raise ValueError(f"param {self.name!r}: a range applies to int and float only")

    def check(self, value: Any) -> None:
        """Check one value against this setting's type, range and choices.

        Raises:
            TypeError: a value of the wrong type (None where it is not allowed).
            ValueError: a value out of range or not one of the choices.
        """
        check_value(self, value)


def _own(cls: type[Any], attribute: str) -> Any:
    return cls.__dict__.get(attribute)


def _init_hints(owner: type[Any]) -> dict[str, Any]:
    """The annotations of ``owner.__init__``, evaluated when possible, else as written."""
    init = owner.__dict__["__init__"]
    try:
        return typing.get_type_hints(init)
    except Exception:  # an annotation that names something not importable at run time
        return dict(getattr(init, "__annotations__", {}))


def constructor_arguments(cls: type[Any]) -> dict[str, tuple[inspect.Parameter, Any]]:
    """The named constructor arguments of `cls`, with their annotations, in order.

    ``**kwargs`` are followed to the next ``__init__`` up the hierarchy (a
    subclass that forwards its extra arguments accepts its parent's), until a
    constructor without them.
    """
    found: dict[str, tuple[inspect.Parameter, Any]] = {}
    for owner in cls.__mro__:
        if owner is object or "__init__" not in owner.__dict__:
            continue
        try:
            signature = inspect.signature(owner.__dict__["__init__"])
        except (TypeError, ValueError):
            break
        hints = _init_hints(owner)
        forwards = False
        for parameter in list(signature.parameters.values())[1:]:  # after self
            if parameter.kind is inspect.Parameter.VAR_KEYWORD:
                forwards = True
            elif parameter.kind is not inspect.Parameter.VAR_POSITIONAL:
                found.setdefault(parameter.name, (parameter, hints.get(parameter.name)))
        if not forwards:
            break
    return found


def declared_params(cls: type[Any]) -> dict[str, Param]:
    """The `Param` declarations of `cls` and its ancestors (the nearest one wins)."""
    declared: dict[str, Param] = {}
    for owner in reversed(cls.__mro__):
        for param in _own(owner, "user_params") or ():
            declared[param.name] = param
    return declared


def needs_of(cls: type[Any]) -> tuple[str, ...]:
    """The constructor arguments `cls` needs supplied (its ``needs`` it actually takes)."""
    needs = getattr(cls, "needs", None) or ()
    arguments = constructor_arguments(cls)
    return tuple(sorted(need for need in needs if need in arguments))


_SIMPLE_TYPES = {bool: "bool", int: "int", float: "float", str: "str"}
_SIMPLE_NAMES = {"bool": "bool", "int": "int", "float": "float", "str": "str"}


def _split_optional(hint: Any) -> tuple[list[Any], bool]:
    """The members of a union annotation (or the annotation alone) and whether None is one."""
    if isinstance(hint, str):
        parts = [part.strip() for part in hint.split("|")]
        members: list[Any] = [part for part in parts if part != "None"]
        return members, len(members) < len(parts)
    if get_origin(hint) in (typing.Union, types.UnionType):
        args = get_args(hint)
        members = [arg for arg in args if arg is not type(None)]
        return members, len(members) < len(args)
    if hint is None or hint is type(None):
        return [], True
    return [hint], False


def _derived_type(hint: Any) -> tuple[str, bool, tuple[str, ...] | None]:
    """(type name or "", nullable, choices) from an annotation; "" when it is no setting type."""
    members, nullable = _split_optional(hint)
    if len(members) != 1:
        return "", nullable, None
    member = members[0]
    if isinstance(member, str):
        if member in _SIMPLE_NAMES:
            return _SIMPLE_NAMES[member], nullable, None
        return ("str_list" if member.replace(" ", "") == "list[str]" else ""), nullable, None
    if member in _SIMPLE_TYPES:
        return _SIMPLE_TYPES[member], nullable, None
    if get_origin(member) is list and get_args(member) == (str,):
        return "str_list", nullable, None
    if get_origin(member) is Literal and all(isinstance(a, str) for a in get_args(member)):
        return "str", nullable, tuple(get_args(member))
    return "", nullable, None


def _compatible(declared: str, derived: str) -> bool:
    return (
        not derived
        or declared == derived
        or (declared, derived)
        in {
            ("fields", "str_list"),
            ("float", "int"),
        }
    )


def _resolve(cls: type[Any], param: Param, argument: inspect.Parameter, hint: Any) -> Param:
    derived, hint_nullable, hint_choices = _derived_type(hint)
    kind = param.type or derived
    if not kind:
        raise TypeError(
            f"{cls.__name__}: cannot tell the type of `{param.name}` from its annotation "
            f"({hint!r}); declare it: Param({param.name!r}, type=...)"
        )
    if not _compatible(kind, derived):
        raise TypeError(
            f"{cls.__name__}: `{param.name}` is declared {kind!r} but annotated {derived!r}"
        )
    has_default = argument.default is not inspect.Parameter.empty
    if param.default is not MISSING and has_default and param.default != argument.default:
        raise TypeError(
            f"{cls.__name__}: `{param.name}` is declared with default {param.default!r} "
            f"but the constructor's is {argument.default!r}"
        )
    default = argument.default if has_default else param.default
    return completed(
        dataclasses.replace(
            param,
            type=kind,
            default=default,
            nullable=param.nullable if param.nullable is not None else hint_nullable or None,
            choices=param.choices if param.choices is not None else hint_choices,
        )
    )


def completed(param: Param) -> Param:
    """A declaration with every field set: label, default, nullable, required.

    For settings with no constructor behind them (a form's own, such as the
    studio's fit settings), which declare their type and default; `user_params`
    completes a class's settings from its constructor first.

    Raises:
        TypeError: no type is declared.
    """
    if not param.type:
        raise TypeError(f"param {param.name!r}: declare its type")
    default = param.default
    required = param.required if param.required is not None else default is MISSING
    nullable = param.nullable if param.nullable is not None else default is None
    return dataclasses.replace(
        param,
        label=param.label or label_of(param.name),
        default=None if default is MISSING else default,
        nullable=nullable,
        required=required,
    )


def user_params(cls: type[Any], *, offered_only: bool = True) -> tuple[Param, ...]:
    """The settings of `cls`, complete (type, default, label...), in constructor order.

    Args:
        cls: a class with a constructor.
        offered_only: leave out arguments declared ``offered=False`` (default True).

    Raises:
        TypeError: a declaration of `cls` itself names no constructor argument, or
            contradicts the signature (type, default); or a declared setting's type
            cannot be told.
    """
    arguments = constructor_arguments(cls)
    declared = declared_params(cls)
    for param in _own(cls, "user_params") or ():
        if param.name not in arguments:
            raise TypeError(f"{cls.__name__} declares `{param.name}`, which its constructor lacks")
    needs = set(needs_of(cls))
    resolved: list[Param] = []
    for name, (argument, hint) in arguments.items():
        if name in needs:
            continue
        param = declared.get(name)
        if param is None:
            if not _derived_type(hint)[0]:
                continue  # not a value a person types, and nobody declared it
            param = Param(name)
        if offered_only and not param.offered:
            continue
        resolved.append(_resolve(cls, param, argument, hint))
    return tuple(resolved)


def _kind_of(param: Param) -> str:
    return {
        "int": "an integer",
        "float": "a number",
        "bool": "true or false",
        "str": "a string",
        "str_list": "a list of strings",
        "fields": "a list of field names",
        "field_rules": "a list of rules (objects)",
    }.get(param.type, param.type)


def _type_ok(param: Param, value: Any) -> bool:
    if param.type == "bool":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if param.type == "int":
        return isinstance(value, int)
    if param.type == "float":
        return isinstance(value, int | float) and math.isfinite(value)
    if param.type == "str":
        return isinstance(value, str)
    if param.type in ("str_list", "fields"):
        return isinstance(value, list) and all(isinstance(item, str) for item in value)
    if param.type == "field_rules":
        return isinstance(value, list) and all(isinstance(item, dict) for item in value)
    return True


def check_value(param: Param, value: Any) -> None:
    """Check `value` against `param` (resolved by `user_params`), naming the argument.

    Raises:
        TypeError: a value of the wrong type, or None where it is not allowed.
        ValueError: a value out of range or not one of the choices.
    """
    name = param.name
    if value is None:
        if param.nullable:
            return
        raise TypeError(f"`{name}` must be {_kind_of(param)}, got None")
    if not _type_ok(param, value):
        raise TypeError(f"`{name}` must be {_kind_of(param)}, got {value!r}")
    if param.minimum is not None:
        if param.exclusive_minimum and not value > param.minimum:
            raise ValueError(f"`{name}` must be > {param.minimum:g}, got {value!r}")
        if not param.exclusive_minimum and not value >= param.minimum:
            raise ValueError(f"`{name}` must be >= {param.minimum:g}, got {value!r}")
    if param.maximum is not None:
        if param.exclusive_maximum and not value < param.maximum:
            raise ValueError(f"`{name}` must be < {param.maximum:g}, got {value!r}")
        if not param.exclusive_maximum and not value <= param.maximum:
            raise ValueError(f"`{name}` must be <= {param.maximum:g}, got {value!r}")
    if param.choices is not None and value not in param.choices:
        raise ValueError(f"`{name}` must be one of {list(param.choices)}, got {value!r}")


def check_params(params: Iterable[Param], values: Mapping[str, Any]) -> None:
    """Check each value of `values` that one of `params` describes (others are left alone).

    Raises:
        TypeError, ValueError: the first value that `check_value` refuses.
    """
    for param in params:
        if param.name in values:
            check_value(param, values[param.name])
