"""Callbacks: objects that follow a run of `fit`, `evaluate` or `predict`.

`CallbackList` is what the trainer calls; `History` is what `fit` returns;
`ProgramCheckpoint` saves the program as it improves; `ProgressBar` draws the
run on the terminal. Subclass `Callback` to write your own.
"""

from __future__ import annotations

import re
from typing import Any

from optimizer_core.callbacks.callback import Callback
from optimizer_core.callbacks.callback_list import CallbackList
from optimizer_core.callbacks.history import History
from optimizer_core.callbacks.program_checkpoint import ProgramCheckpoint
from optimizer_core.callbacks.progress_bar import ProgressBar
from optimizer_core.saving.object_registry import (
    Slot,
    deserialize_object,
    register_library_objects,
    serialize_object,
)

__all__ = [
    "Callback",
    "CallbackList",
    "History",
    "ProgramCheckpoint",
    "ProgressBar",
    "deserialize",
    "get",
    "serialize",
]

_BUILT_INS: dict[str, type[Callback]] = {
    cls.__name__: cls for cls in (History, ProgramCheckpoint, ProgressBar)
}
register_library_objects(*_BUILT_INS.values())
_SLOT = Slot("callback", (Callback,))


def _snake_case(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


_BY_SNAKE_NAME: dict[str, type[Callback]] = {
    _snake_case(name): cls for name, cls in _BUILT_INS.items()
}


def serialize(callback: Callback) -> dict[str, Any]:
    """The ``{"module", "class_name", "config"}`` dict of a configurable callback."""
    return serialize_object(callback)


def deserialize(config: dict[str, Any]) -> Callback:
    """Rebuild a callback from what `serialize` wrote."""
    callback = deserialize_object(config, module_objects=dict(_BUILT_INS), slot=_SLOT)
    if not isinstance(callback, Callback):
        raise TypeError(f"`config` does not describe a Callback: {config!r}")
    return callback


def get(identifier: str | dict[str, Any] | Callback) -> Callback:
    """Find a callback by name, config dict or instance.

    Args:
        identifier: a class name (``"ProgressBar"`` or ``"progress_bar"``; built
            with its defaults, so not ``"program_checkpoint"``, which needs a
            ``filepath``), a dict from `serialize`, or a `Callback` (returned as is).

    Example:
        ```python
        get("progress_bar")
        get({"class_name": "ProgramCheckpoint", "config": {"filepath": "best.json"}})
        ```
    """
    if isinstance(identifier, Callback):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        cls = _BUILT_INS.get(identifier) or _BY_SNAKE_NAME.get(identifier)
        if cls is None:
            known = ", ".join(sorted(_BY_SNAKE_NAME))
            raise ValueError(f"unknown callback {identifier!r}; known: {known}")
        try:
            return cls()
        except TypeError as error:
            raise ValueError(
                f"callback {identifier!r} needs arguments ({error}); pass a config dict instead"
            ) from None
    raise TypeError(
        f"`identifier` must be a callback name, a config dict or a Callback, "
        f"got {type(identifier).__name__}"
    )
