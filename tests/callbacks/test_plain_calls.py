"""Every built-in callback's hooks work as plain calls (as the reference's) and awaited."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path
from typing import Any

import pytest

from optimizer_core import callbacks
from optimizer_core.callbacks import Callback, History, ProgramCheckpoint, ProgressBar
from optimizer_core.saving import family

# Every hook with the arguments the trainer passes.
HOOKS: list[tuple[str, tuple[Any, ...]]] = [
    ("on_train_begin", ({},)),
    ("on_epoch_begin", (0, {})),
    ("on_train_batch_begin", (0, {})),
    ("on_train_batch_end", (0, {"reward": 0.5})),
    ("on_batch_begin", (0, {})),
    ("on_batch_end", (0, {"reward": 0.5})),
    ("on_test_begin", ({},)),
    ("on_test_batch_begin", (0, {})),
    ("on_test_batch_end", (0, {"reward": 0.5})),
    ("on_test_end", ({"reward": 0.5},)),
    ("on_predict_begin", ({},)),
    ("on_predict_batch_begin", (0, {})),
    ("on_predict_batch_end", (0, {})),
    ("on_predict_end", ({},)),
    ("on_optimizer_event", ("candidate", {})),
    ("on_epoch_end", (0, {"reward": 0.5, "val_reward": 0.5})),
    ("on_train_end", ({"reward": 0.5},)),
]


class _Program:
    def __init__(self) -> None:
        self.stop_training = False
        self.trainable_variables: list[Any] = []

    def save(self, filepath: str) -> None:
        Path(filepath).write_text("{}")

    def save_variables(self, filepath: str) -> None:
        Path(filepath).write_text("{}")

    def to_json(self) -> dict[str, Any]:
        return {"kind": "optimizer_core.program"}


def _built(cls: type[Callback], folder: Path) -> Callback:
    """One instance of each built-in; a new built-in needing arguments is added here."""
    made: dict[type[Callback], Any] = {
        History: lambda: History(),
        ProgressBar: lambda: ProgressBar(verbose=0),
        ProgramCheckpoint: lambda: ProgramCheckpoint(filepath=str(folder / "{epoch}.json")),
    }
    extra = {name: getattr(callbacks, name, None) for name in ("CSVLogger", "EarlyStopping")}
    if extra["CSVLogger"] is not None:
        made[extra["CSVLogger"]] = lambda: extra["CSVLogger"](filepath=str(folder / "log.csv"))
    if extra["EarlyStopping"] is not None:
        made[extra["EarlyStopping"]] = lambda: extra["EarlyStopping"](monitor="reward")
    backup = getattr(callbacks, "BackupAndRestore", None)
    if backup is not None:
        made[backup] = lambda: backup(backup_dir=str(folder / "backup"))
    assert cls in made, f"add {cls.__name__} to the built-ins this test builds"
    return made[cls]()  # type: ignore[no-any-return]


BUILT_INS = family("callback").built_ins


@pytest.mark.parametrize("cls", BUILT_INS, ids=[cls.__name__ for cls in BUILT_INS])
def test_each_hook_does_its_work_when_called_plainly(cls: type[Callback], tmp_path: Path) -> None:
    callback = _built(cls, tmp_path)
    callback.set_program(_Program())
    callback.set_params({"epochs": 1, "steps": 1, "verbose": 0})

    for hook, args in HOOKS:
        result = getattr(callback, hook)(*args)
        # Nothing is left to run: not a coroutine that a plain call would drop.
        assert not inspect.iscoroutine(result), f"{cls.__name__}.{hook} needs awaiting"
        asyncio.run(_await(result))  # and it may still be awaited


async def _await(result: Any) -> None:
    await result


def test_history_records_plain_calls(tmp_path: Path) -> None:
    history = History()
    history.on_train_begin({})
    history.on_epoch_end(0, {"reward": 0.5})
    history.on_epoch_end(1, {"reward": 0.75})

    assert history.history == {"reward": [0.5, 0.75]}
