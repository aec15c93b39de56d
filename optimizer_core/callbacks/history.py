"""The record of a training run, epoch by epoch; what `fit` returns."""

from __future__ import annotations

from typing import Any

from optimizer_core.callbacks.callback import COMPLETED, Callback, HookResult, Logs


class History(Callback):
    """Records each epoch's logs. `fit` returns this object.

    ``history`` maps each log key to one value per epoch, and ``epoch`` lists the
    (0-based) epochs recorded, so every series lines up with ``epoch``. A key
    missing from an epoch's logs gets ``None`` for that epoch, and a key that
    first shows up late is padded with ``None`` for the earlier epochs.

    Both are reset at the start of each `fit`.

    Example:
        ```python
        history = await program.fit(x=x_train, y=y_train, epochs=10)
        history.history["reward"]      # [0.41, 0.52, ...], one per epoch
        history.history["val_reward"]
        ```
    """

    def __init__(self) -> None:
        super().__init__()
        self.history: dict[str, list[Any]] = {}
        self.epoch: list[int] = []

    def on_train_begin(self, logs: Logs | None = None) -> HookResult:
        self.history = {}
        self.epoch = []
        return COMPLETED

    def on_epoch_end(self, epoch: int, logs: Logs | None = None) -> HookResult:
        logs = logs or {}
        recorded = len(self.epoch)
        for key, value in logs.items():
            series = self.history.get(key)
            if series is None:
                series = self.history[key] = [None] * recorded
            series.append(value)
        for key, series in self.history.items():
            if key not in logs:
                series.append(None)
        self.epoch.append(epoch)
        return COMPLETED

    def get_config(self) -> dict[str, Any]:
        """History takes no arguments: an empty dict."""
        return {}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> History:
        return cls(**config)

    def __repr__(self) -> str:
        return f"History(epochs={len(self.epoch)}, keys={list(self.history)})"
