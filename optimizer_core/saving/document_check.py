"""Check every name a document gives before anything of it is built.

`refused_names` walks a document (or any part of one) and returns, with its
path, each serialised object whose name safe mode would refuse: a class or
function that is not registered. It runs before deserialisation, so a
document with one bad name builds nothing at all; the kind of object each
place takes is checked again while deserialising (`object_registry.Slot`).
`paths.locate` finds where a given dict sits in a document, to report that
check's refusals by path too, and `paths.place_error` locates any
`SerializationError` the same way (both are exported here as well).
"""

from __future__ import annotations

import inspect
from typing import Any

from optimizer_core.saving.naming import quoted
from optimizer_core.saving.object_registry import RefusedObjectError, lookup_registered
from optimizer_core.saving.paths import join_key, locate, place_error

__all__ = ["check_names", "locate", "place_error", "refused_names"]

#: Keys whose values are user data (JSON schemas, few-shot examples), never resolved to code.
_DATA_KEYS = frozenset({"schema", "examples"})
_NAME_KEYS = ("registered_name", "module", "config")


def _looks_serialised(node: dict[str, Any]) -> bool:
    return isinstance(node.get("class_name"), str) and any(key in node for key in _NAME_KEYS)


def _check_one(node: dict[str, Any], path: str) -> RefusedObjectError | None:
    class_name = node["class_name"]
    if class_name == "function":
        name = node.get("config")
        found = lookup_registered(name) if isinstance(name, str) else None
        if found is None:
            return RefusedObjectError(
                f"refusing function {quoted(name)}: safe mode loads only registered functions",
                name=str(name),
                path=path,
                config=node,
            )
        if inspect.isclass(found) or not callable(found):
            return RefusedObjectError(
                f"{quoted(name)} is registered but is not a function",
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
            f"refusing {quoted(name)}: safe mode loads only registered classes "
            "(optimizer_core's own and what register_synalinks_serializable() registered)",
            name=str(name),
            path=path,
            config=node,
        )
    if not inspect.isclass(found):
        return RefusedObjectError(
            f"{quoted(name)} is registered but is not a class",
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
                refused.extend(refused_names(value, join_key(path, key)))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            refused.extend(refused_names(value, f"{path}[{index}]"))
    return refused


def check_names(document: Any, path: str = "") -> None:
    """Raise the first of `refused_names`, if any.

    Raises:
        RefusedObjectError: naming the path and the refused name.
    """
    refused = refused_names(document, path)
    if refused:
        raise refused[0]
