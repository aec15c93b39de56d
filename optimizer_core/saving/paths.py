"""Where a part sits in a document: the dotted / indexed paths errors carry.

`locate` finds a dict inside a document by identity (``program.modules[1].module``);
`place_error` locates a `SerializationError` raised while rebuilding part of a
document from the dict it carries (``error.config``). The registry places the
errors of nested objects with it, and `document_check` the refusals of its
walk, so this module depends on neither.
"""

from __future__ import annotations

from typing import Any

from optimizer_core.exceptions import SerializationError


def join_key(path: str, key: Any) -> str:
    """``join_key("program", "modules")`` is ``program.modules``; an empty path gives the key."""
    return f"{path}.{key}" if path else str(key)


def locate(node: Any, target: Any, path: str = "") -> str | None:
    """The path of the object `target` (by identity) inside `node`, or None."""
    if target is None:
        return None
    if node is target:
        return path
    if isinstance(node, dict):
        for key, value in node.items():
            found = locate(value, target, join_key(path, key))
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
    return error.within(join_key(prefix, where) if where else prefix)


__all__ = ["join_key", "locate", "place_error"]
