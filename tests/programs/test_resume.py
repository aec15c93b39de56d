"""A fit resumed from a checkpoint ends exactly as the uninterrupted fit would have."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import optimizer_core as synalinks
from tests.support import Answer, Query, capitals

EPOCHS = 5
FIT: dict[str, Any] = {
    "validation_split": 0.25,
    "batch_size": 4,
    "shuffle": True,
    "seed": 3,
    "verbose": 0,
}


class Killed(BaseException):
    """Stands for the process dying: fit catches nothing of it."""


class DiesAfterEpoch(synalinks.callbacks.Callback):
    def __init__(self, epoch: int) -> None:
        super().__init__()
        self.epoch = epoch

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if epoch == self.epoch:
            raise Killed


class Recorder(synalinks.callbacks.Callback):
    """The training rows in the order they were predicted, epoch by epoch."""

    def __init__(self) -> None:
        super().__init__()
        self.orders: dict[int, list[str]] = {}

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        assert self.program is not None
        predictions = self.program.trainable_variables[0].get("predictions")
        self.orders[epoch] = [p["inputs"]["query"] for p in predictions[-12:]]


async def build_program(lm: Any) -> synalinks.Program:
    # Named, so that programs built one after the other in this process name
    # their variables alike (the resumed program keeps the name it was saved with).
    inputs = synalinks.Input(data_model=Query)
    outputs = await synalinks.Generator(data_model=Answer, language_model=lm, name="answer")(inputs)
    return synalinks.Program(inputs=inputs, outputs=outputs, name="capitals")


def compile_program(program: synalinks.Program) -> synalinks.Program:
    program.compile(
        reward=synalinks.rewards.ExactMatch(in_mask=["answer"]),
        optimizer=synalinks.optimizers.RandomFewShot(seed=0, nb_max_examples=2),
        metrics=[synalinks.metrics.F1Score(in_mask=["answer"])],
    )
    return program


def variables(program: synalinks.Program) -> str:
    return json.dumps(program.to_json()["variables"], sort_keys=True)


def best_epoch(history: Any) -> int:
    scores = history.history["val_reward"]
    return int(max(range(len(scores)), key=lambda i: (scores[i], -i)))


async def uninterrupted() -> tuple[synalinks.Program, Any, Recorder]:
    x, y, student = capitals(16)
    program = compile_program(await build_program(synalinks.FakeLanguageModel(responder=student)))
    recorder = Recorder()
    history = await program.fit(x=x, y=y, epochs=EPOCHS, callbacks=[recorder], **FIT)
    return program, history, recorder


async def interrupted(tmp_path: Path, kill_after: int) -> tuple[synalinks.Program, Any, Recorder]:
    x, y, student = capitals(16)
    lm = synalinks.FakeLanguageModel(responder=student)
    program = compile_program(await build_program(lm))
    path = tmp_path / "checkpoint.json"
    checkpoint = synalinks.callbacks.ProgramCheckpoint(filepath=path)
    with pytest.raises(Killed):
        await program.fit(
            x=x,
            y=y,
            epochs=EPOCHS,
            callbacks=[checkpoint, DiesAfterEpoch(kill_after)],
            **FIT,
        )
    # A new process: the program comes back from the file, with a fresh model object.
    resumed = synalinks.Program.load(path)
    for module in resumed.modules:
        if getattr(module, "language_model", None) is not None:
            module.language_model = synalinks.FakeLanguageModel(responder=student)
    recorder = Recorder()
    history = await resumed.fit(
        x=x, y=y, epochs=EPOCHS, initial_epoch=kill_after + 1, callbacks=[recorder], **FIT
    )
    return resumed, history, recorder


@pytest.mark.parametrize("kill_after", [0, 2])
async def test_a_resumed_fit_ends_as_the_uninterrupted_fit(tmp_path: Path, kill_after: int) -> None:
    program, history, recorder = await uninterrupted()
    resumed, resumed_history, resumed_recorder = await interrupted(tmp_path, kill_after)

    # Same batch order from the checkpoint on.
    for epoch in range(kill_after + 1, EPOCHS):
        assert resumed_recorder.orders[epoch] == recorder.orders[epoch], epoch
    # The whole run's history, the earlier epochs included.
    assert resumed_history.epoch == list(range(EPOCHS))
    assert resumed_history.history == history.history
    assert best_epoch(resumed_history) == best_epoch(history)
    # The best epoch's variables restored, and the optimizer in the same state.
    assert variables(resumed) == variables(program)
    assert resumed.optimizer.get_state() == program.optimizer.get_state()


async def test_the_best_epoch_before_the_resume_can_still_win(tmp_path: Path) -> None:
    """An epoch before the kill that stays the best is what the resumed run ends with."""
    x, y, student = capitals(16)
    lm = synalinks.FakeLanguageModel(responder=student)
    program = compile_program(await build_program(lm))
    path = tmp_path / "checkpoint.json"
    checkpoint = synalinks.callbacks.ProgramCheckpoint(filepath=path)
    with pytest.raises(Killed):
        await program.fit(x=x, y=y, epochs=3, callbacks=[checkpoint, DiesAfterEpoch(0)], **FIT)
    best_values = program.trainable_variables[0].get_trainable_json()

    resumed = synalinks.Program.load(path)
    # A student that now fails every question: the resumed epochs cannot beat epoch 0.
    for module in resumed.modules:
        if getattr(module, "language_model", None) is not None:
            module.language_model = synalinks.FakeLanguageModel(
                responder=lambda messages, schema: {"answer": "I do not know"}
            )
    # A fresh checkpoint callback in the resumed process knows the run's best so far.
    best_only = synalinks.callbacks.ProgramCheckpoint(
        filepath=tmp_path / "best.json", save_best_only=True
    )
    history = await resumed.fit(x=x, y=y, epochs=3, initial_epoch=1, callbacks=[best_only], **FIT)
    assert history.epoch == [0, 1, 2]
    assert history.history["val_reward"][0] > max(history.history["val_reward"][1:])
    assert resumed.trainable_variables[0].get_trainable_json() == best_values
    assert best_only.best == history.history["val_reward"][0]
    assert not (tmp_path / "best.json").exists(), "no resumed epoch beat epoch 0"


async def test_a_fit_from_epoch_zero_ignores_an_earlier_runs_state(tmp_path: Path) -> None:
    x, y, student = capitals(16)
    program = compile_program(await build_program(synalinks.FakeLanguageModel(responder=student)))
    await program.fit(x=x, y=y, epochs=2, **FIT)
    history = await program.fit(x=x, y=y, epochs=1, **FIT)
    assert history.epoch == [0]


async def test_a_resume_with_other_data_starts_its_own_record(tmp_path: Path) -> None:
    x, y, student = capitals(16)
    program = compile_program(await build_program(synalinks.FakeLanguageModel(responder=student)))
    await program.fit(x=x, y=y, epochs=1, **FIT)
    # Another batch size is another run: its history and best epoch are its own.
    history = await program.fit(x=x, y=y, epochs=2, initial_epoch=1, **{**FIT, "batch_size": 3})
    assert history.epoch == [1]
