"""Stop `fit` when a monitored figure has stopped improving."""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

from optimizer_core.callbacks.callback import COMPLETED, Callback, HookResult, Logs
from optimizer_core.callbacks.monitoring import (
    ARRAY,
    MonitorOp,
    checked_mode,
    maximizes,
    monitor_op,
    read_value,
)
from optimizer_core.variables import Snapshot, restore, snapshot


class EarlyStopping(Callback):
    """Stops training when ``logs[monitor]`` has not improved for `patience` epochs.

    At each epoch's end it reads ``logs[monitor]``. The value improves on the
    best so far when it is higher by more than `min_delta` (``"max"`` mode) or
    lower by more than `min_delta` (``"min"`` mode). After `patience`
    consecutive epochs without improvement it sets the program's
    ``stop_training``, and `fit` ends after that epoch. With `patience` 0 the
    first epoch that does not improve stops the run (never the first epoch).

    When the monitored key is missing from the logs (typically ``val_reward``
    when `fit` has no validation data) it warns once, naming the keys there
    are, and those epochs do not count.

    Its hooks are plain methods that return an awaitable, so both
    ``early_stopping.on_epoch_end(epoch, logs)`` and ``await early_stopping.on_epoch_end(...)``
    work (the reference library's callbacks are called plainly).

    Args:
        monitor: the log key to watch (default ``"val_reward"``).
        min_delta: the smallest change that counts as an improvement (its
            absolute value is used; default 0).
        patience: how many epochs without improvement to wait before stopping
            (default 0).
        verbose: 1 prints a line when it stops or restores, 0 (default) is silent.
        mode: ``"max"``, ``"min"`` or ``"auto"`` (default): ``"auto"`` means
            ``"min"`` when ``monitor`` contains ``"loss"``, else ``"max"``. Another
            value warns and is read as ``"auto"``.
        baseline: a value to reach: while the monitored value does not improve
            on it, epochs count as without improvement even when they beat the
            best so far (default: none).
        restore_best_variables: at the end of training, put back the trainable
            variables of the epoch with the best monitored value (default False:
            the trainer's own choice of variables stays).
        start_from_epoch: how many epochs to run before watching (0-based
            epochs below it are ignored; default 0).

    Attributes:
        best: the best monitored value so far.
        best_epoch: the (0-based) epoch it was seen at.
        wait: the epochs since the last improvement.
        stopped_epoch: the (0-based) epoch it stopped at; 0 when it did not stop.

    Example:
        ```python
        early_stopping = EarlyStopping(monitor="val_reward", patience=2)
        history = await program.fit(..., callbacks=[early_stopping])
        ```
    """

    def __init__(
        self,
        monitor: str = "val_reward",
        min_delta: float = 0,
        patience: int = 0,
        verbose: int = 0,
        mode: str = "auto",
        baseline: float | None = None,
        restore_best_variables: bool = False,
        start_from_epoch: int = 0,
    ) -> None:
        super().__init__()
        if not isinstance(monitor, str) or not monitor:
            raise ValueError(f"`monitor` must be a non-empty string, got {monitor!r}")
        if not _is_number(min_delta):
            raise ValueError(f"`min_delta` must be a number, got {min_delta!r}")
        for name, value in (("patience", patience), ("start_from_epoch", start_from_epoch)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"`{name}` must be a non-negative integer, got {value!r}")
        if baseline is not None and not _is_number(baseline):
            raise ValueError(f"`baseline` must be a number or None, got {baseline!r}")
        if verbose not in (0, 1) or isinstance(verbose, bool):
            raise ValueError(f"`verbose` must be 0 or 1, got {verbose!r}")
        self.monitor = monitor
        self.mode = checked_mode(mode, owner="EarlyStopping")
        self.patience = patience
        self.verbose = verbose
        self.baseline = None if baseline is None else float(baseline)
        self.restore_best_variables = bool(restore_best_variables)
        self.start_from_epoch = start_from_epoch
        self.monitor_op: MonitorOp = monitor_op(self.mode, monitor)
        # Signed so that `_is_improvement` reads `op(current - min_delta, reference)`.
        delta = abs(float(min_delta))
        self.min_delta = delta if maximizes(self.mode, monitor) else -delta
        self._warned_missing_monitor = False
        self._reset()

    def _reset(self) -> None:
        self.wait = 0
        self.stopped_epoch = 0
        self.best_epoch = 0
        self.best = -math.inf if maximizes(self.mode, self.monitor) else math.inf
        self.best_variables: Snapshot | None = None

    def on_train_begin(self, logs: Logs | None = None) -> HookResult:
        self._reset()
        return COMPLETED

    def on_epoch_end(self, epoch: int, logs: Logs | None = None) -> HookResult:
        logs = logs or {}
        current = read_value(logs.get(self.monitor))
        if current is None or current is ARRAY:
            self._warn_missing_monitor(logs)
            return COMPLETED
        if epoch < self.start_from_epoch:
            return COMPLETED
        if self.restore_best_variables and self.best_variables is None:
            # The first epoch watched is the best until another beats it.
            self.best_variables = self._snapshot()
        self.wait += 1
        if self._is_improvement(current, self.best):
            self.best = current
            self.best_epoch = epoch
            if self.restore_best_variables:
                self.best_variables = self._snapshot()
            if self.baseline is None or self._is_improvement(current, self.baseline):
                self.wait = 0
                return COMPLETED
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            if self.program is not None:
                self.program.stop_training = True
        return COMPLETED

    def on_train_end(self, logs: Logs | None = None) -> HookResult:
        if self.stopped_epoch > 0:
            self._say(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_variables and self.best_variables is not None:
            self._say(
                "Restoring program variables from the end of the best epoch: "
                f"{self.best_epoch + 1}."
            )
            restore(self._trainable(), self.best_variables)
        return COMPLETED

    def _is_improvement(self, current: float, reference: float) -> bool:
        return bool(self.monitor_op(current - self.min_delta, reference))

    def _trainable(self) -> list[Any]:
        if self.program is None:
            return []
        return list(self.program.trainable_variables)

    def _snapshot(self) -> Snapshot:
        return snapshot(self._trainable())

    def _warn_missing_monitor(self, logs: Logs) -> None:
        if self._warned_missing_monitor:
            return
        self._warned_missing_monitor = True
        value = logs.get(self.monitor)
        if value is None:
            reason = f"is not in the logs (available keys: {sorted(logs)})"
        else:
            reason = f"is not a single number ({value!r})"
        warnings.warn(
            f"EarlyStopping: monitor={self.monitor!r} {reason}; "
            "those epochs do not count towards stopping",
            UserWarning,
            stacklevel=2,
        )

    def _say(self, message: str) -> None:
        if self.verbose:
            print(message, flush=True)

    def get_config(self) -> dict[str, Any]:
        return {
            "monitor": self.monitor,
            "min_delta": abs(self.min_delta),
            "patience": self.patience,
            "verbose": self.verbose,
            "mode": self.mode,
            "baseline": self.baseline,
            "restore_best_variables": self.restore_best_variables,
            "start_from_epoch": self.start_from_epoch,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> EarlyStopping:
        return cls(**config)

    def __repr__(self) -> str:
        return (
            f"EarlyStopping(monitor={self.monitor!r}, patience={self.patience}, "
            f"mode={self.mode!r}, min_delta={abs(self.min_delta)})"
        )


def _is_number(value: Any) -> bool:
    return (
        not isinstance(value, bool)
        and isinstance(value, numbers.Real)
        and not math.isnan(float(value))
    )
