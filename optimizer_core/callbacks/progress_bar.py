"""A terminal progress bar for `fit`, `evaluate` and `predict`."""

from __future__ import annotations

import math
import numbers
import shutil
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from optimizer_core.callbacks.callback import COMPLETED, Callback, HookResult, Logs

_REFRESH_INTERVAL_S = 0.1
_BAR_WIDTH = 30


def validate_verbose(verbose: Any) -> None:
    """Raise ValueError unless ``verbose`` is 0, 1, 2 or ``"auto"``."""
    valid = verbose == "auto" or (
        isinstance(verbose, int) and not isinstance(verbose, bool) and verbose in (0, 1, 2)
    )
    if not valid:
        raise ValueError(f"`verbose` must be 0, 1, 2 or 'auto', got {verbose!r}")


class ProgressBar(Callback):
    """Shows the progress of a run on standard output, like Keras' progress bar.

    With ``verbose=1`` each epoch gets a live line, redrawn in place with
    ``"\\r"`` at most ten times a second::

        Epoch 2/3 2/4 [==============>...............] 4s elapsed, ETA 4s - reward: 0.5400

    It shows the batches done, the time elapsed and left, the running mean of
    the reward and of each metric over the epoch's batches, and the number of
    failed predictions when there are any. When the epoch ends, the line
    becomes the full bar, the time per batch and the epoch's figures (training
    and validation) to 4 significant digits.

    ``verbose=2`` prints only those figures, one line per epoch (for logs and CI)::

        Epoch 2/3 - 4/4 - 8s 2.0s/step - reward: 0.5612 - val_reward: 0.6000

    ``verbose=0`` prints nothing. The default ``"auto"`` is
    1 when standard output is a terminal and 0 otherwise. `evaluate` and
    `predict` get a single bar; the validation pass inside `fit` draws none.

    As in Keras, the logs of a batch are read as the epoch's figures so far
    (the running mean of the reward and metrics, the failures counted so far)
    and shown as given, like the epoch-end logs. Floats are shown to 4
    significant digits, integers (counts) as they are and only when non-zero.

    Args:
        verbose: 0, 1, 2 or ``"auto"`` (default).

    Example:
        ```python
        history = await program.fit(..., callbacks=[ProgressBar(verbose=2)])
        ```
    """

    def __init__(self, verbose: int | str = "auto") -> None:
        super().__init__()
        validate_verbose(verbose)
        self.verbose = verbose
        # The clock and the resolved mode live on the instance so a test can drive them.
        self._clock: Callable[[], float] = time.monotonic
        self._mode = 0
        self._in_fit = False
        self._line_length = 0
        self._line_open = False
        self._start_bar("", None)

    # Hooks.

    def on_train_begin(self, logs: Logs | None = None) -> HookResult:
        self._in_fit = True
        self._mode = self._resolve_mode()
        return COMPLETED

    def on_epoch_begin(self, epoch: int, logs: Logs | None = None) -> HookResult:
        if self._mode:
            epochs = self.params.get("epochs")
            title = f"Epoch {epoch + 1}/{epochs}" if epochs else f"Epoch {epoch + 1}"
            self._start_bar(title, self.params.get("steps"))
        return COMPLETED

    def on_train_batch_end(self, batch: int, logs: Logs | None = None) -> HookResult:
        if self._mode:
            self._update(batch + 1, logs)
        return COMPLETED

    def on_epoch_end(self, epoch: int, logs: Logs | None = None) -> HookResult:
        if self._mode:
            self._finish(logs)
        return COMPLETED

    def on_train_end(self, logs: Logs | None = None) -> HookResult:
        self._in_fit = False
        self._close_line()
        return COMPLETED

    def on_test_begin(self, logs: Logs | None = None) -> HookResult:
        if not self._in_fit:
            self._mode = self._resolve_mode()
            if self._mode:
                self._start_bar("Evaluate", self.params.get("steps"))
        return COMPLETED

    def on_test_batch_end(self, batch: int, logs: Logs | None = None) -> HookResult:
        if self._mode and not self._in_fit:
            self._update(batch + 1, logs)
        return COMPLETED

    def on_test_end(self, logs: Logs | None = None) -> HookResult:
        if self._mode and not self._in_fit:
            self._finish(logs)
        return COMPLETED

    def on_predict_begin(self, logs: Logs | None = None) -> HookResult:
        if not self._in_fit:
            self._mode = self._resolve_mode()
            if self._mode:
                self._start_bar("Predict", self.params.get("steps"))
        return COMPLETED

    def on_predict_batch_end(self, batch: int, logs: Logs | None = None) -> HookResult:
        if self._mode and not self._in_fit:
            self._update(batch + 1, logs)
        return COMPLETED

    def on_predict_end(self, logs: Logs | None = None) -> HookResult:
        if self._mode and not self._in_fit:
            self._finish(logs)
        return COMPLETED

    # State.

    def _resolve_mode(self) -> int:
        if self.verbose == "auto":
            return 1 if _isatty(sys.stdout) else 0
        return int(self.verbose)

    def _start_bar(self, title: str, target: Any) -> None:
        self._close_line()
        self._title = title
        self._target: int | None = target if isinstance(target, int) and target > 0 else None
        self._seen = 0
        self._start = self._clock()
        self._last_draw = -math.inf
        self._latest: Logs = {}
        if self._mode == 1 and title:
            self._draw_running(self._start)

    def _update(self, seen: int, logs: Logs | None) -> None:
        if logs:
            self._latest = dict(logs)
        self._seen = max(self._seen, seen)
        if self._mode == 1:
            now = self._clock()
            if now - self._last_draw >= _REFRESH_INTERVAL_S:
                self._draw_running(now)

    def _finish(self, logs: Logs | None) -> None:
        elapsed = self._clock() - self._start
        figures = self._figures(logs)
        timing = _format_duration(elapsed)
        if self._seen:
            timing += f" {_format_step_time(elapsed / self._seen)}/step"
        if self._mode == 1:
            parts = [self._title, self._counter(), self._bar(), timing]
            line = " ".join(part for part in parts if part) + figures
        else:
            parts = [self._title, self._counter(), timing]
            line = " - ".join(part for part in parts if part) + figures
        self._write(line, final=True)

    # Drawing.

    def _draw_running(self, now: float) -> None:
        self._last_draw = now
        elapsed = now - self._start
        timing = f"{_format_duration(elapsed)} elapsed"
        if self._target and 0 < self._seen < self._target:
            remaining = elapsed / self._seen * (self._target - self._seen)
            timing += f", ETA {_format_duration(remaining)}"
        parts = [self._title, self._counter(), self._bar(), timing]
        self._write(" ".join(part for part in parts if part) + self._figures(None), final=False)

    def _counter(self) -> str:
        if self._target is None:
            return f"{self._seen}/Unknown"
        width = len(str(self._target))
        return f"{self._seen:>{width}}/{self._target}"

    def _bar(self) -> str:
        if self._target is None:
            return ""
        done = min(self._seen, self._target)
        filled = _BAR_WIDTH * done // self._target
        if done >= self._target:
            body = "=" * _BAR_WIDTH
        elif filled == 0:
            body = "." * _BAR_WIDTH
        else:
            body = "=" * (filled - 1) + ">" + "." * (_BAR_WIDTH - filled)
        return f"[{body}]"

    def _figures(self, final_logs: Logs | None) -> str:
        """`` - key: value`` for the latest batch's figures, updated by ``final_logs``."""
        values = {**self._latest, **(final_logs or {})}
        floats: list[str] = []
        counts: list[str] = []
        for key, value in values.items():
            if isinstance(value, bool):
                continue
            if isinstance(value, numbers.Integral):
                if value:
                    counts.append(f" - {key}: {value}")
            elif isinstance(value, numbers.Real):
                floats.append(f" - {key}: {_format_number(float(value))}")
        return "".join(floats + counts)

    def _write(self, line: str, *, final: bool) -> None:
        stream = sys.stdout
        if stream is None:
            return
        if self._mode == 2:
            stream.write(line + "\n")
        else:
            if not final and _isatty(stream):
                # A line wider than the terminal wraps, and "\r" cannot go back past the wrap.
                columns = shutil.get_terminal_size().columns - 1
                line = line[: max(columns, 1)]
            padding = " " * max(0, self._line_length - len(line))
            stream.write("\r" + line + padding + ("\n" if final else ""))
            self._line_length = 0 if final else len(line)
            self._line_open = not final
        stream.flush()

    def _close_line(self) -> None:
        """End a live line left open (a run stopped before its epoch ended)."""
        if self._line_open:
            stream = sys.stdout
            if stream is not None:
                stream.write("\n")
                stream.flush()
            self._line_open = False
            self._line_length = 0

    def get_config(self) -> dict[str, Any]:
        return {"verbose": self.verbose}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> ProgressBar:
        return cls(**config)

    def __repr__(self) -> str:
        return f"ProgressBar(verbose={self.verbose!r})"


def _isatty(stream: TextIO | None) -> bool:
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def _format_number(value: float) -> str:
    """4 significant digits: 0.5 -> '0.5000', 1.0 -> '1.000', 1e-05 -> '1.000e-05'."""
    return f"{value:#.4g}"


def _format_duration(seconds: float) -> str:
    """'0s', '42s', '3m07s', '1h02m03s'."""
    if seconds < 59.5:
        return f"{max(seconds, 0.0):.0f}s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m{secs:02d}s"


def _format_step_time(seconds: float) -> str:
    """'120ms', '1.7s', '14s', '3m07s'."""
    if seconds < 0.9995:
        return f"{max(seconds, 0.0) * 1000:.0f}ms"
    if seconds < 9.95:
        return f"{seconds:.1f}s"
    return _format_duration(seconds)
