"""The base class of every callback.

A callback watches a run: the trainer calls its hooks at the start and end of
training, of each epoch and of each batch, and around evaluation and
prediction. Hooks may be plain methods or coroutines; `CallbackList` awaits
whatever a hook returns when it is awaitable.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

Logs = dict[str, Any]
"""The figures a hook receives, e.g. ``{"reward": 0.5, "val_reward": 0.6, "failures": 0}``."""

HookResult = Any
"""What a hook returns: ``None`` (a plain ``def``) or an awaitable (an ``async def``).

Typed ``Any`` so that an override may be either kind under a type checker, and may
``await super().on_epoch_end(...)`` as well as call it.
"""


class _Completed:
    """An awaitable that is already done.

    The base hooks return it, so an override may write either
    ``super().on_epoch_end(epoch, logs)`` or ``await super().on_epoch_end(epoch, logs)``:
    unlike a coroutine, leaving it un-awaited triggers no "never awaited" warning.
    """

    __slots__ = ()

    def __await__(self) -> Generator[Any, None, None]:
        return
        yield  # makes this a generator that finishes at once

    def __repr__(self) -> str:
        return "<completed>"


COMPLETED = _Completed()


class Callback:
    """Base class for objects that follow a run of `fit`, `evaluate` or `predict`.

    Override the hooks you need, as ``def`` or ``async def``; the others do
    nothing. Each hook receives a ``logs`` dict (never ``None`` when called
    through `CallbackList`):

    - ``on_train_begin/end(logs)``, ``on_epoch_begin/end(epoch, logs)``: the
      epoch-end logs hold ``reward`` and each metric for the training data
      (means over the epoch's batches) and ``val_reward`` / ``val_<metric>``
      when there is validation data.
    - ``on_train_batch_begin/end(batch, logs)``: by default they call
      ``on_batch_begin/end``, the Keras aliases, so overriding either works.
    - ``on_test_*`` and ``on_predict_*``: the same around `evaluate` and
      `predict`.
    - ``on_optimizer_event(event, payload)``: what an optimizer reports while
      it works (a candidate proposed, kept, dropped...).

    ``epoch`` and ``batch`` are 0-based. Before training, the trainer sets
    ``self.program`` (the program being run) and ``self.params`` (``epochs``,
    ``steps`` per epoch, ``verbose``).

    An exception raised in a hook is not caught: it propagates out of `fit`
    (or `evaluate`, `predict`) and stops the run.

    Example:
        ```python
        class MyCallback(Callback):
            async def on_epoch_end(self, epoch, logs=None):
                print(f"Epoch {epoch}: reward={logs.get('reward')}")
        ```
    """

    def __init__(self) -> None:
        self.program: Any = None
        self.params: dict[str, Any] = {}

    def set_program(self, program: Any) -> None:
        """Attach the program this callback follows (available as ``self.program``)."""
        self.program = program

    def set_params(self, params: dict[str, Any]) -> None:
        """Attach the run's parameters (available as ``self.params``)."""
        self.params = params

    # Training.

    def on_train_begin(self, logs: Logs | None = None) -> HookResult:
        """Called once at the start of `fit`."""
        return COMPLETED

    def on_train_end(self, logs: Logs | None = None) -> HookResult:
        """Called once at the end of `fit`, with the last epoch's logs."""
        return COMPLETED

    def on_epoch_begin(self, epoch: int, logs: Logs | None = None) -> HookResult:
        """Called at the start of each epoch (``epoch`` is 0-based)."""
        return COMPLETED

    def on_epoch_end(self, epoch: int, logs: Logs | None = None) -> HookResult:
        """Called at the end of each epoch with its training and validation figures."""
        return COMPLETED

    def on_batch_begin(self, batch: int, logs: Logs | None = None) -> HookResult:
        """Keras alias of `on_train_batch_begin`, called by its default implementation."""
        return COMPLETED

    def on_batch_end(self, batch: int, logs: Logs | None = None) -> HookResult:
        """Keras alias of `on_train_batch_end`, called by its default implementation."""
        return COMPLETED

    def on_train_batch_begin(self, batch: int, logs: Logs | None = None) -> HookResult:
        """Called before each training batch; calls `on_batch_begin` unless overridden."""
        return self.on_batch_begin(batch, logs)

    def on_train_batch_end(self, batch: int, logs: Logs | None = None) -> HookResult:
        """Called after each training batch; calls `on_batch_end` unless overridden."""
        return self.on_batch_end(batch, logs)

    # Evaluation (also the validation pass inside `fit`).

    def on_test_begin(self, logs: Logs | None = None) -> HookResult:
        """Called at the start of `evaluate` and of each validation pass."""
        return COMPLETED

    def on_test_end(self, logs: Logs | None = None) -> HookResult:
        """Called at the end of `evaluate` and of each validation pass, with its figures."""
        return COMPLETED

    def on_test_batch_begin(self, batch: int, logs: Logs | None = None) -> HookResult:
        """Called before each evaluation batch."""
        return COMPLETED

    def on_test_batch_end(self, batch: int, logs: Logs | None = None) -> HookResult:
        """Called after each evaluation batch."""
        return COMPLETED

    # Prediction.

    def on_predict_begin(self, logs: Logs | None = None) -> HookResult:
        """Called at the start of `predict`."""
        return COMPLETED

    def on_predict_end(self, logs: Logs | None = None) -> HookResult:
        """Called at the end of `predict`."""
        return COMPLETED

    def on_predict_batch_begin(self, batch: int, logs: Logs | None = None) -> HookResult:
        """Called before each prediction batch."""
        return COMPLETED

    def on_predict_batch_end(self, batch: int, logs: Logs | None = None) -> HookResult:
        """Called after each prediction batch."""
        return COMPLETED

    # Optimizers.

    def on_optimizer_event(self, event: str, payload: dict[str, Any] | None = None) -> HookResult:
        """Called when an optimizer reports what it is doing.

        Args:
            event: what happened, e.g. ``"candidate_proposed"``.
            payload: its details (JSON-compatible).
        """
        return COMPLETED
