"""The container through which the trainer calls every callback of a run."""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Iterator
from typing import Any

from optimizer_core.callbacks.callback import COMPLETED, Callback, Logs
from optimizer_core.callbacks.history import History
from optimizer_core.callbacks.progress_bar import ProgressBar, validate_verbose


class CallbackList:
    """Calls each hook on every callback, in order, awaiting the hooks that are coroutines.

    The order is: the progress bar (so its epoch line is finished before other
    callbacks print), the given callbacks as listed, then the `History`.

    An exception raised by a callback is not caught: it propagates to the
    caller (the trainer), which stops the run.

    Args:
        callbacks: the user's `Callback` instances (default: none).
        add_history: add a `History` unless one is among ``callbacks`` (default True).
        add_progbar: add a `ProgressBar(verbose=verbose)` unless one is among
            ``callbacks`` and unless ``verbose`` is 0 (default False).
        verbose: 0 (silent), 1 (a live bar), 2 (one line per epoch) or ``"auto"``
            (1 when stdout is a terminal, else 0); default ``"auto"``.
        program: the program being run, given to each callback (`set_program`).
        epochs: the number of epochs, put into ``params``.
        steps: the number of batches per epoch (or per evaluation), put into ``params``.

    Example:
        ```python
        callbacks = CallbackList([checkpoint], add_progbar=True, program=program,
                                 epochs=10, steps=len(batches))
        await callbacks.on_train_begin()
        ...
        history = callbacks.history
        ```
    """

    def __init__(
        self,
        callbacks: Iterable[Callback] | None = None,
        *,
        add_history: bool = True,
        add_progbar: bool = False,
        verbose: int | str = "auto",
        program: Any = None,
        epochs: int | None = None,
        steps: int | None = None,
    ) -> None:
        validate_verbose(verbose)
        self.callbacks: list[Callback] = list(callbacks or [])
        for callback in self.callbacks:
            if not isinstance(callback, Callback):
                raise TypeError(
                    "`callbacks` must hold Callback instances, "
                    f"got {type(callback).__name__}: {callback!r}"
                )
        self._history: History | None = next(
            (cb for cb in self.callbacks if isinstance(cb, History)), None
        )
        if self._history is None and add_history:
            self._history = History()
            self.callbacks.append(self._history)
        has_progbar = any(isinstance(cb, ProgressBar) for cb in self.callbacks)
        if add_progbar and not has_progbar and verbose != 0:
            self.callbacks.insert(0, ProgressBar(verbose=verbose))
        self.program: Any = None
        self.params: dict[str, Any] = {"verbose": verbose, "epochs": epochs, "steps": steps}
        self.set_program(program)
        self.set_params(self.params)

    @property
    def history(self) -> History | None:
        """The `History` of this run (``None`` only when built with ``add_history=False``)."""
        return self._history

    def append(self, callback: Callback) -> None:
        """Add a callback at the end (it gets this list's program and params)."""
        if not isinstance(callback, Callback):
            raise TypeError(
                f"`callback` must be a Callback instance, got {type(callback).__name__}"
            )
        callback.set_program(self.program)
        callback.set_params(self.params)
        self.callbacks.append(callback)

    def set_program(self, program: Any) -> None:
        """Give the program to every callback."""
        self.program = program
        for callback in self.callbacks:
            callback.set_program(program)

    def set_params(self, params: dict[str, Any]) -> None:
        """Give the run's parameters (``epochs``, ``steps``, ``verbose``...) to every callback."""
        self.params = params
        for callback in self.callbacks:
            callback.set_params(params)

    def __iter__(self) -> Iterator[Callback]:
        return iter(self.callbacks)

    def __len__(self) -> int:
        return len(self.callbacks)

    async def _call(self, hook: str, *args: Any) -> None:
        for callback in self.callbacks:
            result = getattr(callback, hook)(*args)
            if result is not None and result is not COMPLETED and inspect.isawaitable(result):
                await result

    # Training.

    async def on_train_begin(self, logs: Logs | None = None) -> None:
        await self._call("on_train_begin", logs if logs is not None else {})

    async def on_train_end(self, logs: Logs | None = None) -> None:
        await self._call("on_train_end", logs if logs is not None else {})

    async def on_epoch_begin(self, epoch: int, logs: Logs | None = None) -> None:
        await self._call("on_epoch_begin", epoch, logs if logs is not None else {})

    async def on_epoch_end(self, epoch: int, logs: Logs | None = None) -> None:
        await self._call("on_epoch_end", epoch, logs if logs is not None else {})

    async def on_train_batch_begin(self, batch: int, logs: Logs | None = None) -> None:
        await self._call("on_train_batch_begin", batch, logs if logs is not None else {})

    async def on_train_batch_end(self, batch: int, logs: Logs | None = None) -> None:
        await self._call("on_train_batch_end", batch, logs if logs is not None else {})

    async def on_batch_begin(self, batch: int, logs: Logs | None = None) -> None:
        """Alias of `on_train_batch_begin` (each callback's hook is called once)."""
        await self.on_train_batch_begin(batch, logs)

    async def on_batch_end(self, batch: int, logs: Logs | None = None) -> None:
        """Alias of `on_train_batch_end` (each callback's hook is called once)."""
        await self.on_train_batch_end(batch, logs)

    # Evaluation.

    async def on_test_begin(self, logs: Logs | None = None) -> None:
        await self._call("on_test_begin", logs if logs is not None else {})

    async def on_test_end(self, logs: Logs | None = None) -> None:
        await self._call("on_test_end", logs if logs is not None else {})

    async def on_test_batch_begin(self, batch: int, logs: Logs | None = None) -> None:
        await self._call("on_test_batch_begin", batch, logs if logs is not None else {})

    async def on_test_batch_end(self, batch: int, logs: Logs | None = None) -> None:
        await self._call("on_test_batch_end", batch, logs if logs is not None else {})

    # Prediction.

    async def on_predict_begin(self, logs: Logs | None = None) -> None:
        await self._call("on_predict_begin", logs if logs is not None else {})

    async def on_predict_end(self, logs: Logs | None = None) -> None:
        await self._call("on_predict_end", logs if logs is not None else {})

    async def on_predict_batch_begin(self, batch: int, logs: Logs | None = None) -> None:
        await self._call("on_predict_batch_begin", batch, logs if logs is not None else {})

    async def on_predict_batch_end(self, batch: int, logs: Logs | None = None) -> None:
        await self._call("on_predict_batch_end", batch, logs if logs is not None else {})

    # Optimizers.

    async def on_optimizer_event(self, event: str, payload: dict[str, Any] | None = None) -> None:
        """Forward an optimizer's report to every callback."""
        await self._call("on_optimizer_event", event, payload if payload is not None else {})

    def __repr__(self) -> str:
        names = ", ".join(type(cb).__name__ for cb in self.callbacks)
        return f"CallbackList([{names}])"
