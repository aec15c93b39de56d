"""Save the program (or only its variables) at the end of epochs, or every few batches."""

from __future__ import annotations

import errno
import inspect
import math
import numbers
import os
import string
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


class ProgramCheckpoint(Callback):
    """Saves the program at each epoch's end (or every `save_freq` batches), or when it improves.

    At each save point it reads ``logs[monitor]``. With ``save_best_only`` it
    saves only when that value beats the best seen so far (strictly: higher in
    ``"max"`` mode, lower in ``"min"`` mode; the comparison is `monitor_op`);
    otherwise it saves every time. When the monitored key is missing from the
    logs (typically ``val_reward`` when `fit` has no validation data) it warns
    once, naming the keys there are, and then saves every time, or never with
    ``save_best_only``. A monitored value that holds several numbers (an array)
    cannot be compared: it is saved anyway, with a warning, as the reference
    library does.

    ``filepath`` may hold format fields, filled from the epoch number (1-based,
    as in Keras), the batch number with `save_freq` (1-based) and the logs:
    ``"ckpt/{epoch:02d}-{val_reward:.2f}.json"`` becomes ``"ckpt/03-0.67.json"``.
    Its folder is created when missing; a path that is an existing directory
    raises `IsADirectoryError` (an `OSError`) naming it.

    ``best`` keeps the best monitored value seen; it carries over from one
    `fit` to the next, so a second run only overwrites a fixed ``filepath``
    when it beats the first. A `fit` that resumes an interrupted run (see
    `Trainer.fit`) hands over the earlier epochs' logs, and their values count
    too: a fresh checkpoint callback in the resumed process only saves what
    beats the whole run so far, as the uninterrupted run's would.

    Its hooks are plain methods that return an awaitable, so both
    ``checkpoint.on_epoch_end(epoch, logs)`` and ``await checkpoint.on_epoch_end(...)``
    save (the reference library's callbacks are called plainly).

    Args:
        filepath: where to save; must end with ``".json"``.
        monitor: the log key to watch (default ``"val_reward"``).
        mode: ``"max"``, ``"min"`` or ``"auto"`` (default): ``"auto"`` means
            ``"min"`` when ``monitor`` contains ``"loss"``, else ``"max"``. Another
            value warns and is read as ``"auto"``.
        save_best_only: save only when the monitored value improves (default False).
        save_variables_only: save with ``program.save_variables`` (the trainable
            variables only) instead of ``program.save`` (default False).
        save_freq: ``"epoch"`` (default) saves at each epoch's end; an integer
            ``n`` saves after every ``n`` training batches instead, reading that
            batch's logs (the epoch's running training figures: a ``val_`` key is
            not there yet).
        initial_value_threshold: the value to beat first (default: none, so the
            first epoch with the monitored value always counts as an improvement).
        verbose: 1 prints a line per save decision, 0 (default) is silent.

    Attributes:
        monitor_op: ``op(current, best)``, true when `current` improves on `best`
            (``operator.gt`` or ``operator.lt`` from the mode; replace it together
            with ``best`` to compare otherwise).
        best: the best monitored value so far.

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
        save_freq: str | int = "epoch",
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
        mode = checked_mode(mode, owner="ProgramCheckpoint")
        if save_freq != "epoch" and (
            isinstance(save_freq, bool) or not isinstance(save_freq, int) or save_freq < 1
        ):
            raise ValueError(
                f"`save_freq` must be 'epoch' or a positive number of batches, got {save_freq!r}"
            )
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
        self.save_freq = save_freq
        self.initial_value_threshold = (
            None if initial_value_threshold is None else float(initial_value_threshold)
        )
        self.verbose = verbose

        self.monitor_op: MonitorOp = monitor_op(mode, monitor)
        self.best: float
        if self.initial_value_threshold is not None:
            self.best = self.initial_value_threshold
        else:
            self.best = -math.inf if maximizes(mode, monitor) else math.inf
        self._warned_missing_monitor = False
        self._epoch = 0
        self._batches_since_save = 0
        self._pending: Any = COMPLETED
        self._resumed_read = False

    def on_train_begin(self, logs: Logs | None = None) -> HookResult:
        self._batches_since_save = 0
        self._resumed_read = False
        return COMPLETED

    def on_epoch_begin(self, epoch: int, logs: Logs | None = None) -> HookResult:
        self._epoch = epoch
        if not self._resumed_read:
            # Read at the first epoch, not at train begin: a run that a
            # `BackupAndRestore` puts back is known only once every callback's
            # ``on_train_begin`` has run.
            self._resumed_read = True
            self._count_resumed_epochs()
        return COMPLETED

    def _count_resumed_epochs(self) -> None:
        """The resumed run's earlier epochs count towards `best`."""
        for entry in self.params.get("resumed_epochs") or []:
            value = read_value((entry.get("logs") or {}).get(self.monitor))
            if value is not None and value is not ARRAY and self.monitor_op(value, self.best):
                self.best = value

    def on_train_batch_end(self, batch: int, logs: Logs | None = None) -> HookResult:
        if self.save_freq == "epoch":
            return COMPLETED
        self._batches_since_save += 1
        if self._batches_since_save >= int(self.save_freq):
            self._batches_since_save = 0
            return self._checkpoint(self._epoch, logs or {}, batch=batch)
        return COMPLETED

    def on_epoch_end(self, epoch: int, logs: Logs | None = None) -> HookResult:
        if self.save_freq == "epoch":
            return self._checkpoint(epoch, logs or {})
        return COMPLETED

    def _checkpoint(self, epoch: int, logs: Logs, *, batch: int | None = None) -> HookResult:
        """Save now, or when the monitored value improves (`save_best_only`).

        Returns what the save returned when it is awaitable (a program whose
        ``save`` is a coroutine), else `COMPLETED`.
        """
        self._pending = COMPLETED
        self._decide(epoch, logs, batch)
        return self._pending

    def _decide(self, epoch: int, logs: Logs, batch: int | None) -> None:
        current = read_value(logs.get(self.monitor))
        if current is None:
            self._warn_missing_monitor(logs)
            if not self.save_best_only:
                self._save(epoch, logs, batch)
            return
        if current is ARRAY:
            if self.save_best_only:
                warnings.warn(
                    f"ProgramCheckpoint: monitor={self.monitor!r} holds several values "
                    f"({logs.get(self.monitor)!r}), which cannot be compared with the best; "
                    "saving regardless. Monitor a single number to save the best only",
                    UserWarning,
                    stacklevel=4,
                )
            self._save(epoch, logs, batch)
            return

        if not self.monitor_op(current, self.best):
            if self.save_best_only:
                self._say(
                    f"{self._when(epoch, batch)}: {self.monitor} did not improve from "
                    f"{self.best:#.4g} ({current:#.4g})"
                )
            else:
                self._save(epoch, logs, batch)
            return

        previous, self.best = self.best, current
        if self.save_best_only:
            path = self._save(epoch, logs, batch, announce=False)
            self._say(
                f"{self._when(epoch, batch)}: {self.monitor} improved from {previous:#.4g} "
                f"to {current:#.4g}, saving {self._what()} to {path}"
            )
        else:
            self._save(epoch, logs, batch)

    def _save(self, epoch: int, logs: Logs, batch: int | None, *, announce: bool = True) -> str:
        if self.program is None:
            raise RuntimeError(
                "ProgramCheckpoint has no program to save: it must be run by fit(), "
                "or given one with set_program()"
            )
        path = self._format_filepath(epoch, logs, batch)
        if os.path.isdir(path):
            raise _directory_error(path)
        folder = os.path.dirname(path)
        if folder:
            os.makedirs(folder, exist_ok=True)
        save = self.program.save_variables if self.save_variables_only else self.program.save
        try:
            result = save(path)
        except IsADirectoryError:
            raise _directory_error(path) from None
        if inspect.isawaitable(result):
            self._pending = result
        if announce:
            self._say(f"{self._when(epoch, batch)}: saving {self._what()} to {path}")
        return path

    @staticmethod
    def _when(epoch: int, batch: int | None) -> str:
        return f"Epoch {epoch + 1}" + ("" if batch is None else f", batch {batch + 1}")

    def _format_filepath(self, epoch: int, logs: Logs, batch: int | None = None) -> str:
        fields = {**logs, "epoch": epoch + 1}
        if batch is not None:
            fields["batch"] = batch + 1
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
            f"ProgramCheckpoint: monitor={self.monitor!r} is not a number in the logs "
            f"(available keys: {available}); {consequence}{hint}",
            UserWarning,
            stacklevel=5,
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
            "save_freq": self.save_freq,
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


def _directory_error(path: str) -> IsADirectoryError:
    return IsADirectoryError(
        errno.EISDIR,
        "ProgramCheckpoint cannot save onto an existing directory; give `filepath` a file "
        "name, e.g. 'checkpoints/best.json'",
        path,
    )
