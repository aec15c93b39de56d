"""The registry behind `register_synalinks_serializable` and config round-trips.

Every configurable object (rewards, metrics, optimizers, language models,
modules) serialises to ``{"module": ..., "class_name": ..., "config": ...}``
and comes back through `deserialize_object`. User functions and classes are
found by their registered name ``"Package>name"``.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any, TypeVar

from optimizer_core.exceptions import SerializationError

T = TypeVar("T")

_CUSTOM_OBJECTS: dict[str, Any] = {}


def register_synalinks_serializable(
    package: str = "Custom", name: str | None = None
) -> Callable[[T], T]:
    """Register a function or class so saved programs can refer to it by name.

    Args:
        package: prefix of the registered name (default ``"Custom"``).
        name: the name after the prefix (default: the object's ``__name__``).

    Example:
        ```python
        @register_synalinks_serializable()
        async def my_reward(y_true, y_pred):
            return 1.0
        ```
    """

    def decorator(obj: T) -> T:
        registered = f"{package}>{name or getattr(obj, '__name__', type(obj).__name__)}"
        _CUSTOM_OBJECTS[registered] = obj
        with contextlib.suppress(AttributeError, TypeError):
            obj._registered_name = registered  # type: ignore[attr-defined]
        return obj

    return decorator


def get_registered_name(obj: Any) -> str:
    """The name an object is saved under: its registered name, else module.qualname."""
    registered = getattr(obj, "_registered_name", None)
    if isinstance(registered, str) and _CUSTOM_OBJECTS.get(registered) is obj:
        return registered
    for key, value in _CUSTOM_OBJECTS.items():
        if value is obj:
            return key
    return f"{obj.__module__}.{obj.__qualname__}"


_SAFE_MODE: ContextVar[bool] = ContextVar("optimizer_core_safe_mode", default=False)


@contextlib.contextmanager
def safe_mode_scope(enabled: bool = True) -> Iterator[None]:
    """Within the scope, saved names may only resolve to trusted objects.

    A saved program names the classes and functions to rebuild; resolving an
    arbitrary ``module.attr`` would let a file run any code on load (think
    ``subprocess.Popen``). In safe mode a class or function that will be called
    resolves only to a registered object (`register_synalinks_serializable`) or
    something in ``optimizer_core``; a DataModel class may also come from a module
    that is already imported (it is only used if its schema matches the file's).
    Nothing is imported on behalf of a file. `Program.load` and
    `Program.from_json` turn it on by default.
    """
    token = _SAFE_MODE.set(enabled)
    try:
        yield
    finally:
        _SAFE_MODE.reset(token)


def in_safe_mode() -> bool:
    return _SAFE_MODE.get()


def resolve_import_path(path: str, *, allow_imported: bool = False) -> Any:
    """``package.module.Qual.name`` to the object, honouring safe mode; None if not found.

    Args:
        path: the dotted import path.
        allow_imported: in safe mode, also accept modules already in ``sys.modules``
            (never for something that will be called with the file's arguments).
    """
    module_name = path.rpartition(".")[0]
    if not module_name or "<" in path:
        return None
    # Walk back while the left part is not a module (nested classes: module.Outer.Inner).
    parts = path.split(".")
    for split in range(len(parts) - 1, 0, -1):
        module_name, attrs = ".".join(parts[:split]), parts[split:]
        trusted = module_name == "optimizer_core" or module_name.startswith("optimizer_core.")
        if in_safe_mode() and not trusted:
            module = sys.modules.get(module_name) if allow_imported else None
        else:
            try:
                module = importlib.import_module(module_name)
            except ImportError:
                module = None
        if module is None:
            continue
        target: Any = module
        try:
            for attr in attrs:
                target = getattr(target, attr)
        except AttributeError:
            return None
        return target
    return None


def get_registered_object(name: str) -> Any:
    """Find a registered object, or resolve ``module.qualname``; raise when neither works."""
    if name in _CUSTOM_OBJECTS:
        return _CUSTOM_OBJECTS[name]
    found = resolve_import_path(name)
    if found is not None:
        return found
    if in_safe_mode() and "." in name:
        raise SerializationError(
            f"refusing to import {name!r} while loading in safe mode: register it with "
            "@optimizer_core.saving.register_synalinks_serializable() (or import its module "
            "first), or load with safe_mode=False if you trust the file"
        )
    raise SerializationError(
        f"unknown object {name!r}: decorate it with "
        "@optimizer_core.saving.register_synalinks_serializable() before loading"
    )


def serialize_function(fn: Callable[..., Any]) -> dict[str, Any]:
    name = get_registered_name(fn)
    if "<lambda>" in name or "<locals>" in name:
        raise SerializationError(
            f"cannot save {name!r}: a lambda or nested function has no stable name; "
            "define it at module level or register it with register_synalinks_serializable()"
        )
    return {"class_name": "function", "config": name}


def serialize_object(obj: Any) -> dict[str, Any]:
    """Serialise a configurable object (with `get_config`) or a function."""
    if callable(obj) and not hasattr(obj, "get_config"):
        return serialize_function(obj)
    if not hasattr(obj, "get_config"):
        raise SerializationError(f"cannot serialise {type(obj).__name__}: it has no get_config()")
    cls = type(obj)
    return {
        "module": cls.__module__,
        "class_name": cls.__name__,
        "registered_name": get_registered_name(cls),
        "config": obj.get_config(),
    }


def deserialize_object(config: dict[str, Any], module_objects: dict[str, Any] | None = None) -> Any:
    """Rebuild what `serialize_object` wrote.

    Args:
        config: the serialised dict.
        module_objects: classes to look up by ``class_name`` first (a family's built-ins).
    """
    if not isinstance(config, dict) or "class_name" not in config:
        raise SerializationError(f"not a serialised object: {config!r}")
    if config["class_name"] == "function":
        return get_registered_object(str(config["config"]))
    class_name = str(config["class_name"])
    cls: Any = None
    if module_objects and class_name in module_objects:
        cls = module_objects[class_name]
    elif config.get("registered_name"):
        cls = get_registered_object(str(config["registered_name"]))
    elif config.get("module"):
        cls = get_registered_object(f"{config['module']}.{class_name}")
    if cls is None:
        raise SerializationError(f"unknown class {class_name!r}")
    inner = config.get("config") or {}
    if hasattr(cls, "from_config"):
        return cls.from_config(inner)
    return cls(**inner)
