"""Save the program (or only its variables) at the end of epochs."""

from __future__ import annotations

import inspect
import math
import numbers
import os
import string
import warnings
from typing import Any

from optimizer_core.callbacks.callback import Callback, Logs

_MODES = ("max", "min", "auto")


class ProgramCheckpoint(Callback):
    """Saves the program at the end of each epoch, or only when it improves.

    At each epoch end it reads ``logs[monitor]``. With ``save_best_only`` it
    saves only when that value beats the best seen so far (strictly: higher in
    ``"max"`` mode, lower in ``"min"`` mode); otherwise it saves every epoch.
    When the monitored key is missing from the logs (typically ``val_reward``
    when `fit` has no validation data) it warns once, naming the keys there
    are, and then saves every epoch, or never with ``save_best_only``.

    ``filepath`` may hold format fields, filled from the epoch number (1-based,
    as in Keras) and the epoch's logs: ``"ckpt/{epoch:02d}-{val_reward:.2f}.json"``
    becomes ``"ckpt/03-0.67.json"``. Its folder is created when missing.

    ``best`` keeps the best monitored value seen; it carries over from one
    `fit` to the next, so a second run only overwrites a fixed ``filepath``
    when it beats the first. A `fit` that resumes an interrupted run (see
    `Trainer.fit`) hands over the earlier epochs' logs, and their values count
    too: a fresh checkpoint callback in the resumed process only saves what
    beats the whole run so far, as the uninterrupted run's would.

    Args:
        filepath: where to save; must end with ``".json"``.
        monitor: the log key to watch (default ``"val_reward"``).
        mode: ``"max"``, ``"min"`` or ``"auto"`` (default): ``"auto"`` means
            ``"min"`` when ``monitor`` contains ``"loss"``, else ``"max"``.
        save_best_only: save only when the monitored value improves (default False).
        save_variables_only: save with ``program.save_variables`` (the trainable
            variables only) instead of ``program.save`` (default False).
        initial_value_threshold: the value to beat first (default: none, so the
            first epoch with the monitored value always counts as an improvement).
        verbose: 1 prints a line per save decision, 0 (default) is silent.

    Example:
        ```python
        checkpoint = ProgramCheckpoint(
            filepath="best_model.json",
            monitor="val_reward",
            mode="max",
            save_best_only=True,
        )
        history = await program.fit(..., callbacks=[checkpoint])
        ```
    """

    def __init__(
        self,
        filepath: str | os.PathLike[str],
        *,
        monitor: str = "val_reward",
        mode: str = "auto",
        save_best_only: bool = False,
        save_variables_only: bool = False,
        initial_value_threshold: float | None = None,
        verbose: int = 0,
    ) -> None:
        super().__init__()
        if not isinstance(filepath, str | os.PathLike):
            raise TypeError(f"`filepath` must be a str or a path, got {type(filepath).__name__}")
        filepath = os.fspath(filepath)
        if not filepath.endswith(".json"):
            raise ValueError(f"`filepath` must end with '.json', got {filepath!r}")
        _check_template(filepath)
        if not isinstance(monitor, str) or not monitor:
            raise ValueError(f"`monitor` must be a non-empty string, got {monitor!r}")
        if mode not in _MODES:
            raise ValueError(f"`mode` must be one of 'max', 'min' or 'auto', got {mode!r}")
        if initial_value_threshold is not None and (
            isinstance(initial_value_threshold, bool)
            or not isinstance(initial_value_threshold, numbers.Real)
            or math.isnan(initial_value_threshold)
        ):
            raise ValueError(
                "`initial_value_threshold` must be a number or None, "
                f"got {initial_value_threshold!r}"
            )
        if verbose not in (0, 1) or isinstance(verbose, bool):
            raise ValueError(f"`verbose` must be 0 or 1, got {verbose!r}")

        self.filepath = filepath
        self.monitor = monitor
        self.mode = mode
        self.save_best_only = bool(save_best_only)
        self.save_variables_only = bool(save_variables_only)
        self.initial_value_threshold = (
            None if initial_value_threshold is None else float(initial_value_threshold)
        )
        self.verbose = verbose

        self._maximize = mode == "max" or (mode == "auto" and "loss" not in monitor)
        self.best: float
        if self.initial_value_threshold is not None:
            self.best = self.initial_value_threshold
        else:
            self.best = -math.inf if self._maximize else math.inf
        self._warned_missing_monitor = False

    def on_train_begin(self, logs: Logs | None = None) -> None:
        for entry in self.params.get("resumed_epochs") or []:
            value = _as_number((entry.get("logs") or {}).get(self.monitor))
            if value is not None:
                self.best = max(self.best, value) if self._maximize else min(self.best, value)

    async def on_epoch_end(self, epoch: int, logs: Logs | None = None) -> None:
        logs = logs or {}
        current = _as_number(logs.get(self.monitor))
        if current is None:
            self._warn_missing_monitor(logs)
            if not self.save_best_only:
                await self._save(epoch, logs)
            return

        improved = current > self.best if self._maximize else current < self.best
        if not improved:
            if self.save_best_only:
                self._say(
                    f"Epoch {epoch + 1}: {self.monitor} did not improve from "
                    f"{self.best:#.4g} ({current:#.4g})"
                )
            else:
                await self._save(epoch, logs)
            return

        previous, self.best = self.best, current
        if self.save_best_only:
            path = await self._save(epoch, logs, announce=False)
            self._say(
                f"Epoch {epoch + 1}: {self.monitor} improved from {previous:#.4g} "
                f"to {current:#.4g}, saving {self._what()} to {path}"
            )
        else:
            await self._save(epoch, logs)

    async def _save(self, epoch: int, logs: Logs, *, announce: bool = True) -> str:
        if self.program is None:
            raise RuntimeError(
                "ProgramCheckpoint has no program to save: it must be run by fit(), "
                "or given one with set_program()"
            )
        path = self._format_filepath(epoch, logs)
        folder = os.path.dirname(path)
        if folder:
            os.makedirs(folder, exist_ok=True)
        save = self.program.save_variables if self.save_variables_only else self.program.save
        result = save(path)
        if inspect.isawaitable(result):
            await result
        if announce:
            self._say(f"Epoch {epoch + 1}: saving {self._what()} to {path}")
        return path

    def _format_filepath(self, epoch: int, logs: Logs) -> str:
        fields = {**logs, "epoch": epoch + 1}
        try:
            return self.filepath.format(**fields)
        except KeyError as error:
            raise KeyError(
                f"`filepath` {self.filepath!r} refers to {error.args[0]!r}, which is not in "
                f"the epoch logs (available: {', '.join(fields)})"
            ) from None
        except (ValueError, TypeError, IndexError, AttributeError) as error:
            raise ValueError(
                f"`filepath` {self.filepath!r} could not be filled with the epoch logs: {error}"
            ) from error

    def _warn_missing_monitor(self, logs: Logs) -> None:
        if self._warned_missing_monitor:
            return
        self._warned_missing_monitor = True
        available = ", ".join(repr(key) for key in logs) or "none"
        consequence = (
            "no checkpoint will be saved (save_best_only=True)"
            if self.save_best_only
            else "saving every epoch regardless"
        )
        hint = (
            "; pass validation data to fit() or monitor a training key"
            if self.monitor.startswith("val_")
            else ""
        )
        warnings.warn(
            f"ProgramCheckpoint: monitor={self.monitor!r} is not a number in the epoch logs "
            f"(available keys: {available}); {consequence}{hint}",
            UserWarning,
            stacklevel=2,
        )

    def _what(self) -> str:
        return "variables" if self.save_variables_only else "program"

    def _say(self, message: str) -> None:
        if self.verbose:
            print(message, flush=True)

    def get_config(self) -> dict[str, Any]:
        return {
            "filepath": self.filepath,
            "monitor": self.monitor,
            "mode": self.mode,
            "save_best_only": self.save_best_only,
            "save_variables_only": self.save_variables_only,
            "initial_value_threshold": self.initial_value_threshold,
            "verbose": self.verbose,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> ProgramCheckpoint:
        return cls(**config)

    def __repr__(self) -> str:
        return (
            f"ProgramCheckpoint(filepath={self.filepath!r}, monitor={self.monitor!r}, "
            f"mode={self.mode!r}, save_best_only={self.save_best_only})"
        )


def _check_template(filepath: str) -> None:
    """Reject a filepath whose format fields cannot be filled by name."""
    try:
        parsed = list(string.Formatter().parse(filepath))
    except ValueError as error:
        raise ValueError(f"`filepath` {filepath!r} is not a valid format string: {error}") from None
    for _, field, _, _ in parsed:
        if field is not None and (field == "" or field.isdigit()):
            raise ValueError(
                f"`filepath` {filepath!r} has a positional field '{{{field}}}'; "
                "name the field, e.g. '{epoch:02d}' or '{val_reward:.2f}'"
            )


def _as_number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    return float(value)
