"""The registry behind `register_synalinks_serializable` and config round-trips.

Every configurable object (rewards, metrics, optimizers, language models,
modules) serialises to ``{"module": ..., "class_name": ..., "registered_name":
..., "config": ...}`` and comes back through `deserialize_object`; a function
serialises to ``{"class_name": "function", "config": <registered name>}``.

A saved name is looked up in two tables, by exact match, never imported:

- the library's own classes, under ``module.qualname``
  (``"optimizer_core.modules.generator.Generator"``); each family registers its
  table with `register_library_objects` where the table is defined (`Program`
  in its module). Importing any module of optimizer_core runs the package's
  ``__init__`` first, which imports every family: by the time anything is
  looked up, all are registered, and this module imports none of them;
- what users registered with `register_synalinks_serializable`, under
  ``"Package>name"``.

That lookup is safe mode, the default (after Keras's ``safe_mode``, but a file
cannot name anything unregistered at all). Each place in a document also
accepts only its kind of object (a `Slot`): a module slot only `Module`
subclasses, a reward slot only rewards or registered functions, and so on.
`safe_mode_scope(False)` restores import-path resolution for files you trust.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import re
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar

from optimizer_core.exceptions import SerializationError
from optimizer_core.saving.naming import quoted
from optimizer_core.saving.paths import place_error

T = TypeVar("T")

#: Library classes and functions by ``module.qualname``.
_LIBRARY_OBJECTS: dict[str, Any] = {}
#: User objects by ``"Package>name"``.
_CUSTOM_OBJECTS: dict[str, Any] = {}


class RefusedObjectError(SerializationError):
    """A document names an object that safe mode refuses.

    The name is not registered, or it is registered but is not the kind of
    object its place in the document takes.

    Attributes:
        name: the refused name, as the document spells it.
        path: where it is in the document (``"program.modules[1].module"``), when known.
        config: the serialised dict that named it (to locate it in a document).
    """

    def __init__(self, message: str, *, name: str, path: str = "", config: Any = None) -> None:
        super().__init__(
            f"{path}: {message}" if path else message, path=path, reason=message, config=config
        )
        self.name = name

    def at(self, path: str) -> RefusedObjectError:
        """The same refusal, located at `path`."""
        return RefusedObjectError(self.reason, name=self.name, path=path, config=self.config)


@dataclass(frozen=True)
class Slot:
    """The kind of object one place in a document accepts.

    Args:
        kind: what the place holds, for messages (``"reward"``).
        bases: classes accepted (their subclasses too); empty for none.
        functions: whether a registered function (or other non-class callable) is accepted.
        user_classes: whether any class a user registered with
            `register_synalinks_serializable` is accepted (a judge program may be
            any async callable the user wrote).
    """

    kind: str
    bases: tuple[type[Any], ...] = ()
    functions: bool = False
    user_classes: bool = False

    def accepts_class(self, cls: type[Any]) -> bool:
        if self.bases and issubclass(cls, self.bases):
            return True
        return self.user_classes and _is_user_class(cls)


class ConfigurableFunction:
    """Base of the library's callables that save themselves as a config, not as a name.

    A registered function is saved by its name; a `CodeFunction` (user code run
    in `optimizer_core.sandbox`) is saved with its source as data. A function slot
    takes both.
    """


#: A function slot (a reward's ``fn``, OMEGA's ``distance_function``).
FUNCTION = Slot("function", (ConfigurableFunction,), functions=True, user_classes=True)
#: What `deserialize_object` accepts when the caller names no slot and no family table.
ANY_REGISTERED = Slot("registered object", (object,), functions=True)


def _qualified_name(obj: Any) -> str | None:
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str):
        return None
    return f"{module}.{qualname}"


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


def register_library_objects(*objects: Any) -> None:
    """Register optimizer_core's own classes (or functions) under their ``module.qualname``.

    That is the name `serialize_object` writes for them, so a stored document
    finds them by an exact lookup. For the library only: users register with
    `register_synalinks_serializable`.

    Raises:
        ValueError: an object that is not defined in optimizer_core, or has no stable name.
    """
    for obj in objects:
        name = _qualified_name(obj)
        if name is None or not name.startswith("optimizer_core.") or "<" in name:
            raise ValueError(f"only optimizer_core's own named objects register here, got {obj!r}")
        _LIBRARY_OBJECTS[name] = obj


def get_registered_name(obj: Any) -> str:
    """The name an object is saved under: its registered name, else module.qualname."""
    registered = getattr(obj, "_registered_name", None)
    if isinstance(registered, str) and _CUSTOM_OBJECTS.get(registered) is obj:
        return registered
    for key, value in _CUSTOM_OBJECTS.items():
        if value is obj:
            return key
    return f"{obj.__module__}.{obj.__qualname__}"


_SAFE_MODE: ContextVar[bool] = ContextVar("optimizer_core_safe_mode", default=True)


@contextlib.contextmanager
def safe_mode_scope(enabled: bool = True) -> Iterator[None]:
    """Within the scope, saved names resolve only to registered objects (or not, if disabled).

    Safe mode is the default. A saved program names the classes and functions
    to rebuild; resolving an arbitrary ``module.attr`` would let a file run any
    code on load (think ``os.system`` or ``subprocess.Popen``). In safe mode a
    name is found only by an exact lookup among the library's registered
    classes and what `register_synalinks_serializable` registered; nothing is
    imported and no attribute is walked on behalf of a file. ``enabled=False``
    resolves unregistered ``module.qualname`` paths by importing them: only for
    files you trust.
    """
    token = _SAFE_MODE.set(enabled)
    try:
        yield
    finally:
        _SAFE_MODE.reset(token)


def in_safe_mode() -> bool:
    return _SAFE_MODE.get()


def lookup_registered(name: str) -> Any:
    """The object registered under exactly `name`, or None. Never imports anything."""
    if not isinstance(name, str):
        return None
    if name in _CUSTOM_OBJECTS:
        return _CUSTOM_OBJECTS[name]
    found = _LIBRARY_OBJECTS.get(name)
    if found is not None and _qualified_name(found) != name:
        return None  # an object must be found under its own name
    return found


def resolve_import_path(path: str) -> Any:
    """``package.module.Qual.name`` to the object by importing it; None if not found.

    Only outside safe mode (trusted files): this runs the imports a path names.
    """
    if in_safe_mode():
        raise RefusedObjectError(
            f"refusing to import {quoted(path)} in safe mode", name=path, config=None
        )
    if not path.rpartition(".")[0] or "<" in path:
        return None
    # Walk back while the left part is not a module (nested classes: module.Outer.Inner).
    parts = path.split(".")
    for split in range(len(parts) - 1, 0, -1):
        module_name, attrs = ".".join(parts[:split]), parts[split:]
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        target: Any = module
        try:
            for attr in attrs:
                target = getattr(target, attr)
        except AttributeError:
            return None
        return target
    return None


def _refusal(name: str) -> str:
    return (
        f"refusing {quoted(name)}: safe mode loads only registered objects "
        "(optimizer_core's own classes and what register_synalinks_serializable() "
        "registered); register it, or load with safe_mode=False if you trust the file"
    )


def get_registered_object(name: str, *, config: Any = None) -> Any:
    """The object registered under `name`; outside safe mode, also an importable path.

    Raises:
        RefusedObjectError: in safe mode, `name` is not registered.
        SerializationError: outside safe mode, `name` names nothing.
    """
    found = lookup_registered(name)
    if found is not None:
        return found
    if in_safe_mode():
        raise RefusedObjectError(_refusal(str(name)), name=str(name), config=config)
    found = resolve_import_path(str(name))
    if found is not None:
        return found
    raise SerializationError(
        f"unknown object {quoted(str(name))}: decorate it with "
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


def slot_of(objects: Iterable[Any], kind: str) -> Slot:
    """A slot that takes subclasses of a family table's classes (no functions)."""
    classes = list(dict.fromkeys(obj for obj in objects if inspect.isclass(obj)))
    # Subclasses of another class of the table add nothing (FakeLanguageModel, LanguageModel).
    bases = tuple(c for c in classes if not any(c is not o and issubclass(c, o) for o in classes))
    return Slot(kind, bases)


def _is_user_class(cls: type[Any]) -> bool:
    """Whether `cls` was registered by a user (not one of the library's own classes)."""
    return not (_qualified_name(cls) or "").startswith("optimizer_core.") and any(
        value is cls for value in _CUSTOM_OBJECTS.values()
    )


def _is_function(obj: Any) -> bool:
    return callable(obj) and not inspect.isclass(obj)


def deserialize_object(
    config: dict[str, Any],
    module_objects: dict[str, Any] | None = None,
    *,
    slot: Slot | None = None,
) -> Any:
    """Rebuild what `serialize_object` wrote, if its place (`slot`) accepts it.

    The class is found by ``registered_name`` in the registry, else by
    ``class_name`` in `module_objects`, else by ``module.class_name`` in the
    registry (each an exact dictionary lookup); it is checked against the slot
    before anything is constructed.

    Args:
        config: the serialised dict.
        module_objects: a family's built-in classes, looked up by ``class_name``.
        slot: what this place accepts; default: subclasses of the `module_objects`
            classes, or any registered object when there is no table.

    Raises:
        RefusedObjectError: an unregistered name, or an object of the wrong kind.
        SerializationError: a malformed config, or one its class's constructor
            rejects (raised from the constructor's error); ``path`` locates the
            problem in `config`: ``config.temperature`` for a rejected argument,
            ``config.language_model.config.timeout`` inside a nested object.
    """
    if not isinstance(config, dict) or not isinstance(config.get("class_name"), str):
        raise SerializationError(f"not a serialised object: {str(config)[:300]}", config=config)
    if slot is None:
        slot = slot_of(module_objects.values(), "object") if module_objects else ANY_REGISTERED
    class_name = config["class_name"]
    if class_name == "function":
        name = config.get("config")
        if not isinstance(name, str):
            raise SerializationError(
                f"a serialised function names it in `config`, got {name!r}",
                path="config",
                config=config,
            )
        fn = get_registered_object(name, config=config)
        if not _is_function(fn):
            raise RefusedObjectError(
                f"{quoted(name)} is registered but is not a function", name=name, config=config
            )
        if not slot.functions:
            raise RefusedObjectError(
                f"{quoted(name)} is a function: this place takes a {_describe(slot)}",
                name=name,
                config=config,
            )
        return fn
    registered = config.get("registered_name")
    module = config.get("module")
    name, cls = class_name, None
    if registered not in (None, ""):
        name = str(registered)
        cls = lookup_registered(name)
    if cls is None and module_objects and class_name in module_objects:
        # The family's own table, by class name (the library's built-ins).
        name, cls = class_name, module_objects[class_name]
    if cls is None and registered not in (None, ""):
        cls = get_registered_object(name, config=config)  # refused in safe mode
    elif cls is None and module not in (None, ""):
        name = f"{module}.{class_name}"
        cls = get_registered_object(name, config=config)
    if cls is None:
        raise RefusedObjectError(
            f"unknown class {quoted(class_name)} for a {_describe(slot)}",
            name=class_name,
            config=config,
        )
    if not inspect.isclass(cls):
        raise RefusedObjectError(
            f"{quoted(name)} is registered but is not a class", name=name, config=config
        )
    if not slot.accepts_class(cls):
        raise RefusedObjectError(
            f"{quoted(name)} cannot go here: this place takes a {_describe(slot)}",
            name=name,
            config=config,
        )
    inner = config.get("config")
    if inner is None:
        inner = {}
    if not isinstance(inner, dict):
        raise SerializationError(
            f"the config of {name!r} must be an object, got {inner!r}", path="config", config=config
        )
    try:
        if hasattr(cls, "from_config"):
            return cls.from_config(inner)
        return cls(**inner)
    except RefusedObjectError:
        raise  # located by the document's own walk (see `Program.from_json`)
    except SerializationError as error:
        # A nested object (a Generator's language model) that could not be rebuilt:
        # placed in this one's config when its dict is there, else on this object.
        place_error(error, config)
        error.config = config
        raise
    except (ValueError, TypeError) as error:
        argument = _argument_at_fault(cls, inner, error)
        raise SerializationError(
            str(error), path=f"config.{argument}" if argument else "", config=config
        ) from error


_BACKTICKED = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)`")


def _argument_at_fault(cls: type[Any], config: dict[str, Any], error: Exception) -> str | None:
    """The constructor argument (a key of `config`) that `error` rejects, when it can be told.

    An argument the constructor does not take is read from its signature; a
    validation error names its argument in backticks (the library's convention,
    see `optimizer_core.exceptions`).
    """
    if isinstance(error, TypeError):
        try:
            parameters = inspect.signature(cls).parameters
        except (TypeError, ValueError):  # a signature Python cannot read
            parameters = None
        if parameters is not None and not any(
            p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()
        ):
            unknown = [key for key in config if key not in parameters]
            if unknown:
                return str(unknown[0])
    for name in _BACKTICKED.findall(str(error)):
        if name in config:
            return str(name)
    return None


def _describe(slot: Slot) -> str:
    if slot is ANY_REGISTERED or slot is FUNCTION or not slot.bases:
        return slot.kind
    names = " or ".join(base.__name__ for base in slot.bases)
    return f"{slot.kind} ({names})" if slot.kind != "object" else names
