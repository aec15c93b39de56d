"""Callbacks: objects that follow a run of `fit`, `evaluate` or `predict`.

`CallbackList` is what the trainer calls; `History` is what `fit` returns;
`ProgramCheckpoint` saves the program as it improves; `EarlyStopping` stops
`fit` when a monitored figure stops improving; `CSVLogger` writes each
epoch's logs to a CSV file; `ProgressBar` draws the run on the terminal;
`BackupAndRestore` backs a fit up so that a killed script goes on where it stopped.
Subclass `Callback` to write your own: its hooks may be ``def`` or ``async def``.
The built-ins' hooks are plain methods that return an awaitable, so they work
called plainly (``checkpoint.on_epoch_end(epoch, logs)``, as in the reference
library) and awaited.
"""

from __future__ import annotations

from typing import Any

from optimizer_core.callbacks.backup_and_restore import BackupAndRestore
from optimizer_core.callbacks.callback import Callback
from optimizer_core.callbacks.callback_list import CallbackList
from optimizer_core.callbacks.csv_logger import CSVLogger
from optimizer_core.callbacks.early_stopping import EarlyStopping
from optimizer_core.callbacks.history import History
from optimizer_core.callbacks.program_checkpoint import ProgramCheckpoint
from optimizer_core.callbacks.progress_bar import ProgressBar
from optimizer_core.saving.families import Family

__all__ = [
    "BackupAndRestore",
    "CSVLogger",
    "Callback",
    "CallbackList",
    "EarlyStopping",
    "History",
    "ProgramCheckpoint",
    "ProgressBar",
    "deserialize",
    "get",
    "serialize",
]

_FAMILY: Family[Callback] = Family(
    kind="callback",
    base=Callback,
    built_ins=(
        History,
        ProgramCheckpoint,
        CSVLogger,
        ProgressBar,
        EarlyStopping,
        BackupAndRestore,
    ),
)


def serialize(callback: Callback) -> dict[str, Any]:
    """The ``{"module", "class_name", "config"}`` dict of a configurable callback."""
    return _FAMILY.serialize(callback)


def deserialize(config: dict[str, Any]) -> Callback:
    """Rebuild a callback from what `serialize` wrote."""
    return _FAMILY.deserialize(config)


def get(identifier: str | dict[str, Any] | Callback) -> Callback:
    """Find a callback by name, config dict or instance.

    Args:
        identifier: a class name in any spelling (``"ProgressBar"`` or
            ``"progress_bar"``; built with its defaults, so not
            ``"program_checkpoint"``, which needs a ``filepath``, or
            ``"backup_and_restore"``, which needs a ``backup_dir``), a dict from
            `serialize`, or a `Callback` (returned as is).

    Raises:
        ValueError: an unknown name, or one whose class needs arguments.
        TypeError: an identifier of another type.

    Example:
        ```python
        get("progress_bar")
        get({"class_name": "ProgramCheckpoint", "config": {"filepath": "best.json"}})
        ```
    """
    return _FAMILY.get(identifier)
