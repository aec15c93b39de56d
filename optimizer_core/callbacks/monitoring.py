"""What the callbacks that watch a logged figure share: the mode, the comparison, the value.

`ProgramCheckpoint` and `EarlyStopping` both read ``logs[monitor]`` at each
epoch's end and compare it with the best so far. ``mode`` says which way is
better: ``"max"``, ``"min"``, or ``"auto"`` (``"min"`` when the name contains
``"loss"``, else ``"max"``: rewards and the library's metrics grow as the program
improves). A mode neither knows is warned about and read as ``"auto"``, as the
reference library does.
"""

from __future__ import annotations

import numbers
import operator
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["ARRAY", "MODES", "MonitorOp", "checked_mode", "maximizes", "monitor_op", "read_value"]

MODES = ("max", "min", "auto")

MonitorOp = Callable[[Any, Any], Any]
"""``op(current, best)``: true when `current` is an improvement on `best`."""


class _Array:
    def __repr__(self) -> str:
        return "ARRAY"


#: What `read_value` gives for a monitored value that holds several numbers.
ARRAY: Any = _Array()


def checked_mode(mode: Any, *, owner: str) -> str:
    """`mode` when it is one of `MODES`; otherwise a warning and ``"auto"``."""
    if mode in MODES:
        return str(mode)
    warnings.warn(
        f"{owner}: mode {mode!r} is unknown; falling back to 'auto' (use 'max', 'min' or 'auto')",
        UserWarning,
        stacklevel=3,
    )
    return "auto"


def maximizes(mode: str, monitor: str) -> bool:
    """Whether a higher value of `monitor` is better in `mode`."""
    return mode == "max" or (mode == "auto" and "loss" not in monitor)


def monitor_op(mode: str, monitor: str) -> MonitorOp:
    """The comparison of `mode`: ``operator.gt`` when higher is better, else ``operator.lt``."""
    return operator.gt if maximizes(mode, monitor) else operator.lt


def read_value(value: Any) -> float | None:
    """A logged value as a number; None when it is missing or not a number; `ARRAY` for several.

    A NumPy scalar or 0-d array counts as a number; a NumPy array, list or tuple
    of numbers is `ARRAY`.
    """
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            return read_value(value.item())
        return ARRAY if value.size else None
    if isinstance(value, list | tuple):
        return ARRAY if value and all(read_value(v) is not None for v in value) else None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    return float(value)
