"""Check every name a document gives before anything of it is built.

`refused_names` walks a document (or any part of one) and returns, with its
path, each serialised object whose name safe mode would refuse: a class or
function that is not registered. It runs before deserialisation, so a
document with one bad name builds nothing at all; the kind of object each
place takes is checked again while deserialising (`object_registry.Slot`).
`locate` finds where a given dict sits in a document, to report that check's
refusals by path too, and `place_error` locates any `SerializationError` the
same way.
"""

from __future__ import annotations

import inspect
from typing import Any

from optimizer_core.exceptions import SerializationError
from optimizer_core.saving.object_registry import RefusedObjectError, lookup_registered

#: Keys whose values are user data (JSON schemas, few-shot examples), never resolved to code.
_DATA_KEYS = frozenset({"schema", "examples"})
_NAME_KEYS = ("registered_name", "module", "config")


def _join(path: str, key: Any) -> str:
    return f"{path}.{key}" if path else str(key)


def _looks_serialised(node: dict[str, Any]) -> bool:
    return isinstance(node.get("class_name"), str) and any(key in node for key in _NAME_KEYS)


def _short(name: Any) -> str:
    text = repr(name)
    return text if len(text) <= 200 else text[:197] + "..."


def _check_one(node: dict[str, Any], path: str) -> RefusedObjectError | None:
    class_name = node["class_name"]
    if class_name == "function":
        name = node.get("config")
        found = lookup_registered(name) if isinstance(name, str) else None
        if found is None:
            return RefusedObjectError(
                f"refusing function {_short(name)}: safe mode loads only registered functions",
                name=str(name),
                path=path,
                config=node,
            )
        if inspect.isclass(found) or not callable(found):
            return RefusedObjectError(
                f"{_short(name)} is registered but is not a function",
                name=str(name),
                path=path,
                config=node,
            )
        return None
    registered, module = node.get("registered_name"), node.get("module")
    if registered not in (None, ""):
        name = registered
    elif module not in (None, ""):
        name = f"{module}.{class_name}" if isinstance(module, str) else module
    else:
        return None  # a bare class name: only a family's own table can resolve it
    found = lookup_registered(name) if isinstance(name, str) else None
    if found is None:
        return RefusedObjectError(
            f"refusing {_short(name)}: safe mode loads only registered classes "
            "(optimizer_core's own and what register_synalinks_serializable() registered)",
            name=str(name),
            path=path,
            config=node,
        )
    if not inspect.isclass(found):
        return RefusedObjectError(
            f"{_short(name)} is registered but is not a class",
            name=str(name),
            path=path,
            config=node,
        )
    return None


def refused_names(node: Any, path: str = "") -> list[RefusedObjectError]:
    """Every serialised object under `node` that names something unregistered.

    Args:
        node: a document or part of one (``document["program"]``...).
        path: the path of `node` in its document, prefixed to the paths found.

    Returns:
        One error per refused object, with ``path`` and ``name``; empty when all resolve.
    """
    refused: list[RefusedObjectError] = []
    if isinstance(node, dict):
        if _looks_serialised(node):
            error = _check_one(node, path)
            if error is not None:
                return [error]  # nothing under a refused object matters
        for key, value in node.items():
            if key not in _DATA_KEYS:
                refused.extend(refused_names(value, _join(path, key)))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            refused.extend(refused_names(value, f"{path}[{index}]"))
    return refused


def locate(node: Any, target: Any, path: str = "") -> str | None:
    """The path of the object `target` (by identity) inside `node`, or None."""
    if target is None:
        return None
    if node is target:
        return path
    if isinstance(node, dict):
        for key, value in node.items():
            found = locate(value, target, _join(path, key))
            if found is not None:
                return found
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found = locate(value, target, f"{path}[{index}]")
            if found is not None:
                return found
    return None


def place_error(error: SerializationError, root: Any, prefix: str = "") -> SerializationError:
    """`error`, raised while rebuilding part of `root`, located from `prefix` (in place).

    The part is found by identity (`error.config`, the dict that was being
    rebuilt); when it cannot be found the error is placed on `root` as a whole.
    """
    nested = error.config if isinstance(error.config, dict | list) else None
    where = locate(root, nested) if nested is not None else None
    if where is None:
        error.path, error.paths, where = "", [], ""
    return error.within(_join(prefix, where) if where else prefix)


def check_names(document: Any, path: str = "") -> None:
    """Raise the first of `refused_names`, if any.

    Raises:
        RefusedObjectError: naming the path and the refused name.
    """
    refused = refused_names(document, path)
    if refused:
        raise refused[0]
