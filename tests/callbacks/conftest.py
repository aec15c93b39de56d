"""Stand-ins shared by the callback tests: a program that records its saves."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest


class FakeProgram:
    """Records `save` / `save_variables` calls and writes a small JSON file, like a Program."""

    def __init__(self) -> None:
        self.saves: list[tuple[str, str]] = []

    def save(self, filepath: str) -> None:
        self.saves.append(("save", filepath))
        Path(filepath).write_text(json.dumps({"kind": "program"}))

    def save_variables(self, filepath: str) -> None:
        self.saves.append(("save_variables", filepath))
        Path(filepath).write_text(json.dumps({"kind": "variables"}))


@pytest.fixture
def program() -> FakeProgram:
    return FakeProgram()


@pytest.fixture
def run_epochs() -> Any:
    """Drive a CallbackList the way the trainer does, one epoch per logs dict."""

    async def run(callbacks: Any, epoch_logs: list[dict[str, Any]], steps: int = 2) -> None:
        await callbacks.on_train_begin()
        for epoch, logs in enumerate(epoch_logs):
            await callbacks.on_epoch_begin(epoch)
            for batch in range(steps):
                await callbacks.on_train_batch_begin(batch)
                await callbacks.on_train_batch_end(batch, {"reward": 0.5})
            await callbacks.on_epoch_end(epoch, logs)
        await callbacks.on_train_end(epoch_logs[-1] if epoch_logs else {})

    return run
