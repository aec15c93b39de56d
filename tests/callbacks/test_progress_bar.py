from __future__ import annotations

import io
import sys
from typing import Any

import pytest

from optimizer_core.callbacks import CallbackList, ProgressBar


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class TerminalStream(io.StringIO):
    def isatty(self) -> bool:
        return True


def make_bar(
    verbose: int | str, *, epochs: int = 2, steps: int = 4
) -> tuple[ProgressBar, FakeClock]:
    bar = ProgressBar(verbose=verbose)
    clock = FakeClock()
    bar._clock = clock
    bar.set_params({"epochs": epochs, "steps": steps, "verbose": verbose})
    return bar, clock


async def fit(
    bar: ProgressBar,
    clock: FakeClock,
    *,
    epochs: int = 2,
    steps: int = 4,
    params_steps: int | str | None = "same",
    seconds_per_batch: float = 0.5,
    batch_logs: list[dict[str, Any]] | None = None,
    epoch_logs: dict[str, Any] | None = None,
) -> None:
    callbacks = CallbackList([bar], add_history=False)
    known_steps = steps if params_steps == "same" else params_steps
    callbacks.set_params({"epochs": epochs, "steps": known_steps, "verbose": bar.verbose})
    await callbacks.on_train_begin()
    for epoch in range(epochs):
        await callbacks.on_epoch_begin(epoch)
        for batch in range(steps):
            await callbacks.on_train_batch_begin(batch)
            clock.now += seconds_per_batch
            logs = batch_logs[batch] if batch_logs else {"reward": 0.5}
            await callbacks.on_train_batch_end(batch, logs)
        # The validation pass inside fit must not draw a bar of its own.
        await callbacks.on_test_begin()
        await callbacks.on_test_batch_end(0, {"reward": 0.9})
        await callbacks.on_test_end({"reward": 0.9})
        await callbacks.on_epoch_end(
            epoch, epoch_logs or {"reward": 0.5 + epoch / 10, "val_reward": 0.123456}
        )
    await callbacks.on_train_end()


async def test_verbose_2_prints_one_line_per_epoch(capsys: pytest.CaptureFixture[str]) -> None:
    bar, clock = make_bar(2)
    await fit(bar, clock)
    out = capsys.readouterr().out
    assert "\r" not in out
    lines = out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("Epoch 1/2 - 4/4 - 2s 500ms/step")
    assert lines[1].startswith("Epoch 2/2 - 4/4")
    assert "reward: 0.5000" in lines[0] and "reward: 0.6000" in lines[1]
    assert "val_reward: 0.1235" in lines[0]  # 4 significant digits


async def test_verbose_0_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    bar, clock = make_bar(0)
    await fit(bar, clock)
    await CallbackList([bar]).on_test_begin()
    assert capsys.readouterr().out == ""


async def test_auto_is_silent_when_stdout_is_not_a_terminal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bar, clock = make_bar("auto")
    await fit(bar, clock)
    assert capsys.readouterr().out == ""


async def test_auto_draws_a_live_bar_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = TerminalStream()
    monkeypatch.setattr(sys, "stdout", terminal)
    monkeypatch.setenv("COLUMNS", "200")
    bar, clock = make_bar("auto")
    await fit(bar, clock)
    out = terminal.getvalue()
    assert "\r" in out
    assert "Epoch 2/2" in out


async def test_verbose_1_redraws_the_epoch_line_in_place(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bar, clock = make_bar(1, epochs=1, steps=4)
    await fit(bar, clock, epochs=1, steps=4, epoch_logs={"reward": 0.5, "val_reward": 0.75})
    out = capsys.readouterr().out
    # One line: a draw at the start, one per batch (0.5 s apart), then the final figures.
    assert out.count("\n") == 1
    frames = out.rstrip("\n").split("\r")[1:]
    assert len(frames) == 6
    assert frames[0].startswith("Epoch 1/1 0/4 [..............................] 0s elapsed")
    assert frames[2].startswith("Epoch 1/1 2/4 [==============>...............] 1s elapsed, ETA 1s")
    assert frames[-1].strip() == (
        "Epoch 1/1 4/4 [==============================] 2s 500ms/step"
        " - reward: 0.5000 - val_reward: 0.7500"
    )


async def test_verbose_1_redraws_at_most_ten_times_a_second(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bar, clock = make_bar(1, epochs=1, steps=50)
    await fit(bar, clock, epochs=1, steps=50, seconds_per_batch=0.01)
    frames = capsys.readouterr().out.split("\r")[1:]
    # 0.5 s of batches: the start frame, about 5 timed redraws, the final line.
    assert 5 <= len(frames) <= 8


async def test_running_line_shows_the_epochs_figures_so_far(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bar, clock = make_bar(1, epochs=1, steps=3)
    # As the trainer sends them: running means and the failures counted so far.
    batch_logs: list[dict[str, Any]] = [
        {"reward": 0.2, "f1_score": 1.0},
        {"reward": 0.3, "f1_score": 0.5, "failures": 2},
        {"reward": 0.123456, "f1_score": 0.5, "failures": 3},
    ]
    await fit(
        bar,
        clock,
        epochs=1,
        steps=3,
        batch_logs=batch_logs,
        epoch_logs={"reward": 0.123456, "f1_score": 0.5, "failures": 3, "val_reward": 0.25},
    )
    frames = [frame.strip() for frame in capsys.readouterr().out.split("\r")[1:]]
    assert frames[1].endswith("ETA 1s - reward: 0.2000 - f1_score: 1.000")  # no failures: hidden
    assert frames[2].endswith("ETA 0s - reward: 0.3000 - f1_score: 0.5000 - failures: 2")
    # Counts go last, after the validation figures.
    assert frames[-1].endswith(
        "- reward: 0.1235 - f1_score: 0.5000 - val_reward: 0.2500 - failures: 3"
    )


async def test_running_line_is_cut_to_the_terminal_width(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = TerminalStream()
    monkeypatch.setattr(sys, "stdout", terminal)
    monkeypatch.setenv("COLUMNS", "40")
    bar, clock = make_bar(1, epochs=1, steps=4)
    await fit(bar, clock, epochs=1, steps=4)
    *running, final = terminal.getvalue().split("\r")[1:]
    assert all(len(frame) <= 39 for frame in running)
    assert "val_reward: 0.1235" in final  # the epoch's figures are never cut


async def test_evaluate_and_predict_get_a_single_bar(capsys: pytest.CaptureFixture[str]) -> None:
    bar = ProgressBar(verbose=2)
    bar._clock = FakeClock()
    callbacks = CallbackList([bar], add_history=False, steps=3, verbose=2)
    await callbacks.on_test_begin()
    for batch in range(3):
        await callbacks.on_test_batch_end(batch, {"reward": 1.0})
    await callbacks.on_test_end({"reward": 0.75, "f1_score": 0.5})
    await callbacks.on_predict_begin()
    for batch in range(3):
        await callbacks.on_predict_batch_end(batch, {"failures": 0 if batch == 0 else 1})
    await callbacks.on_predict_end()
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "Evaluate - 3/3 - 0s 0ms/step - reward: 0.7500 - f1_score: 0.5000",
        "Predict - 3/3 - 0s 0ms/step - failures: 1",
    ]


async def test_unknown_number_of_steps(capsys: pytest.CaptureFixture[str]) -> None:
    bar, clock = make_bar(1, epochs=1)
    await fit(bar, clock, epochs=1, steps=2, params_steps=None)
    out = capsys.readouterr().out
    assert "Epoch 1/1 1/Unknown" in out
    assert "[" not in out


async def test_a_run_stopped_mid_epoch_leaves_the_line_closed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bar, _ = make_bar(1, epochs=3, steps=4)
    callbacks = CallbackList([bar], add_history=False, epochs=3, steps=4, verbose=1)
    await callbacks.on_train_begin()
    await callbacks.on_epoch_begin(0)
    await callbacks.on_train_batch_end(0, {"reward": 0.5})
    await callbacks.on_train_end()
    assert capsys.readouterr().out.endswith("\n")


@pytest.mark.parametrize("verbose", [3, -1, True, "yes", None, 1.5])
def test_invalid_verbose_is_rejected_naming_the_argument(verbose: Any) -> None:
    with pytest.raises(ValueError, match="`verbose`"):
        ProgressBar(verbose=verbose)


@pytest.mark.parametrize("verbose", [0, 1, 2, "auto"])
def test_config_round_trip(verbose: int | str) -> None:
    bar = ProgressBar(verbose=verbose)
    assert bar.get_config() == {"verbose": verbose}
    assert ProgressBar.from_config(bar.get_config()).verbose == verbose
