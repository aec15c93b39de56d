"""EarlyStopping: stops `fit` once the monitored figure stops improving, as Keras does."""

from __future__ import annotations

import copy
import warnings
from typing import Any

import pytest

import optimizer_core as synalinks
from optimizer_core.callbacks import EarlyStopping, deserialize, serialize
from tests.support import build_program, capitals


class Scripted(synalinks.callbacks.Callback):
    """Writes a scripted ``score`` into each epoch's logs (before EarlyStopping reads them)
    and records the trainable variables as they are at each epoch's end."""

    def __init__(self, scores: list[float], key: str = "score") -> None:
        super().__init__()
        self.scores, self.key = scores, key
        self.mark = False
        self.variables: list[Any] = []

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        assert logs is not None
        logs[self.key] = self.scores[epoch]
        if self.mark and epoch > 0:  # make each later epoch's variables tell apart
            for variable in self.program.trainable_variables:
                variable.update({"instructions": f"as at epoch {epoch}"})
        self.variables.append(trainable_state(self.program))

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        if self.mark:  # after the trainer's own restore, before EarlyStopping's
            for variable in self.program.trainable_variables:
                variable.update({"instructions": "changed after the last epoch"})


def trainable_state(program: Any) -> dict[str, Any]:
    return copy.deepcopy({v.name: v.get_trainable_json() for v in program.trainable_variables})


async def fit_with(
    scores: list[float], stopper: EarlyStopping, *, key: str = "score", mark: bool = False
) -> tuple[Any, Any, Scripted]:
    x, y, student = capitals(12)
    program = await build_program(synalinks.FakeLanguageModel(responder=student))
    program.compile(
        reward=synalinks.rewards.ExactMatch(in_mask=["answer"]),
        optimizer=synalinks.optimizers.RandomFewShot(seed=0),
    )
    scripted = Scripted(scores, key)
    scripted.mark = mark
    history = await program.fit(
        x=x, y=y, epochs=len(scores), batch_size=4, callbacks=[scripted, stopper], verbose=0
    )
    return program, history, scripted


def epochs_run(history: Any) -> int:
    return len(history.history["reward"])


async def test_stops_after_patience_epochs_without_improvement() -> None:
    stopper = EarlyStopping(monitor="score", patience=2)
    _, history, _ = await fit_with([0.5, 0.6, 0.6, 0.55, 0.9, 0.9], stopper)
    # Epoch 1 is the best; epochs 2 and 3 do not beat it: stop at the end of epoch 3.
    assert epochs_run(history) == 4
    assert stopper.stopped_epoch == 3
    assert (stopper.best, stopper.best_epoch) == (0.6, 1)


async def test_patience_zero_stops_at_the_first_epoch_without_improvement() -> None:
    _, history, _ = await fit_with([0.5, 0.7, 0.6, 0.9], EarlyStopping(monitor="score"))
    assert epochs_run(history) == 3


async def test_keeps_going_while_it_improves() -> None:
    stopper = EarlyStopping(monitor="score", patience=0)
    _, history, _ = await fit_with([0.1, 0.2, 0.3, 0.4], stopper)
    assert epochs_run(history) == 4
    assert stopper.stopped_epoch == 0


async def test_min_delta_ignores_small_gains() -> None:
    _, history, _ = await fit_with(
        [0.5, 0.55, 0.58, 0.9], EarlyStopping(monitor="score", min_delta=0.1, patience=2)
    )
    # Neither 0.55 nor 0.58 beats 0.5 by more than 0.1: stop after epoch 2.
    assert epochs_run(history) == 3


@pytest.mark.parametrize(
    ("monitor", "mode", "scores", "run"),
    [
        ("score", "min", [3.0, 2.0, 2.5, 1.0], 3),  # lower is better
        ("score", "max", [3.0, 2.0, 2.5, 1.0], 2),  # higher is better
        ("val_loss", "auto", [3.0, 2.0, 2.5, 1.0], 3),  # "loss": lower is better
        ("score", "auto", [3.0, 2.0, 2.5, 1.0], 2),  # else higher is better
    ],
)
async def test_modes(monitor: str, mode: str, scores: list[float], run: int) -> None:
    stopper = EarlyStopping(monitor=monitor, mode=mode)
    _, history, _ = await fit_with(scores, stopper, key=monitor)
    assert epochs_run(history) == run


async def test_an_unknown_mode_warns_and_falls_back_to_auto() -> None:
    with pytest.warns(UserWarning, match="falling back to 'auto'"):
        stopper = EarlyStopping(monitor="val_loss", mode="sideways")
    assert stopper.mode == "auto"
    _, history, _ = await fit_with([3.0, 2.0, 2.5, 1.0], stopper, key="val_loss")
    assert epochs_run(history) == 3


async def test_baseline_must_be_beaten_within_patience() -> None:
    stopper = EarlyStopping(monitor="score", patience=2, baseline=0.8)
    _, history, _ = await fit_with([0.5, 0.6, 0.7, 0.9, 0.95], stopper)
    # Improving, but under the baseline for 2 epochs (the first counts): stop at epoch 1.
    assert epochs_run(history) == 2
    reached = EarlyStopping(monitor="score", patience=1, baseline=0.4)
    _, history, _ = await fit_with([0.5, 0.6, 0.7, 0.9], reached)
    assert epochs_run(history) == 4


async def test_start_from_epoch_ignores_the_first_epochs() -> None:
    stopper = EarlyStopping(monitor="score", start_from_epoch=2)
    _, history, _ = await fit_with([0.9, 0.1, 0.2, 0.3, 0.1, 0.5], stopper)
    # Epochs 0 and 1 are not watched: 0.2 is the first best, then 0.3; 0.1 stops.
    assert epochs_run(history) == 5
    assert (stopper.best, stopper.best_epoch) == (0.3, 3)


async def test_restore_best_variables_puts_back_the_best_epochs_variables() -> None:
    stopper = EarlyStopping(monitor="score", mode="min", patience=3, restore_best_variables=True)
    program, history, scripted = await fit_with([0.1, 0.5, 0.4, 0.3, 0.2], stopper, mark=True)
    assert epochs_run(history) == 4  # 3 epochs without improvement after epoch 0
    assert stopper.best_epoch == 0
    assert scripted.variables[0] != scripted.variables[-1]
    assert trainable_state(program) == scripted.variables[0]


async def test_without_restore_it_keeps_no_variables() -> None:
    stopper = EarlyStopping(monitor="score", mode="min", patience=3)
    program, _, scripted = await fit_with([0.1, 0.5, 0.4, 0.3, 0.2], stopper, mark=True)
    assert stopper.best_variables is None
    assert stopper.best_epoch == 0
    assert program.stop_training
    assert trainable_state(program) != scripted.variables[0]


async def test_a_missing_monitor_warns_once_and_never_stops() -> None:
    stopper = EarlyStopping(monitor="val_reward")  # no validation data
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _, history, _ = await fit_with([0.5, 0.4, 0.3], stopper)
    messages = [str(w.message) for w in caught if "EarlyStopping" in str(w.message)]
    assert len(messages) == 1
    assert "'val_reward'" in messages[0] and "reward" in messages[0]
    assert epochs_run(history) == 3


class StopFlag:
    def __init__(self) -> None:
        self.stop_training = False
        self.trainable_variables: list[Any] = []


async def test_hooks_work_called_plainly_and_awaited() -> None:
    plain, awaited = EarlyStopping(monitor="score"), EarlyStopping(monitor="score")
    for stopper in (plain, awaited):
        stopper.set_program(StopFlag())
    plain.on_train_begin()
    await awaited.on_train_begin()
    for epoch, score in enumerate([0.5, 0.7, 0.6]):
        plain.on_epoch_end(epoch, {"score": score})
        await awaited.on_epoch_end(epoch, {"score": score})
    plain.on_train_end()
    await awaited.on_train_end()
    assert plain.program.stop_training and awaited.program.stop_training
    assert plain.stopped_epoch == awaited.stopped_epoch == 2


def test_serializes_and_is_found_by_name() -> None:
    stopper = EarlyStopping(monitor="val_loss", min_delta=0.1, patience=3, baseline=1.0)
    rebuilt = deserialize(serialize(stopper))
    assert isinstance(rebuilt, EarlyStopping)
    assert rebuilt.get_config() == stopper.get_config()
    assert rebuilt.min_delta == -0.1  # min mode: signed for the comparison
    assert isinstance(synalinks.callbacks.get("early_stopping"), EarlyStopping)


@pytest.mark.parametrize(
    "kwargs",
    [{"monitor": ""}, {"patience": -1}, {"start_from_epoch": 1.5}, {"baseline": "x"}],
)
def test_rejects_bad_arguments(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        EarlyStopping(**kwargs)


async def test_watches_val_reward_by_default_in_a_real_fit() -> None:
    x, y, student = capitals(20)
    program = await build_program(synalinks.FakeLanguageModel(responder=student))
    program.compile(
        reward=synalinks.rewards.ExactMatch(in_mask=["answer"]),
        optimizer=synalinks.optimizers.RandomFewShot(seed=0),
    )
    stopper = EarlyStopping(patience=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # val_reward is there: no warning
        history = await program.fit(
            x=x, y=y, validation_split=0.25, epochs=6, batch_size=5, callbacks=[stopper], verbose=0
        )
    rewards = history.history["val_reward"]
    assert stopper.best == max(rewards)
    if stopper.stopped_epoch:
        assert len(rewards) == stopper.stopped_epoch + 1
        assert rewards[-1] <= max(rewards[:-1])  # the last epoch did not improve
    else:
        assert len(rewards) == 6
