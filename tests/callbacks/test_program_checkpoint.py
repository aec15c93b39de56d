from __future__ import annotations

import asyncio
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from optimizer_core.callbacks import CallbackList, ProgramCheckpoint


def saved_files(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*.json"))


async def run_checkpoint(
    checkpoint: ProgramCheckpoint, program: Any, run_epochs: Any, epoch_logs: list[dict[str, Any]]
) -> None:
    await run_epochs(CallbackList([checkpoint], program=program), epoch_logs)


async def test_save_best_only_in_max_mode_saves_on_improvement_only(
    tmp_path: Path, program: Any, run_epochs: Any
) -> None:
    filepath = tmp_path / "best_model.json"
    checkpoint = ProgramCheckpoint(
        filepath=str(filepath), monitor="val_reward", mode="max", save_best_only=True
    )
    rewards = [0.5, 0.4, 0.5, 0.7, 0.6]
    await run_checkpoint(checkpoint, program, run_epochs, [{"val_reward": r} for r in rewards])
    # Epochs 1 (first value) and 4 (0.7) improve; an equal value (0.5 again) does not.
    assert program.saves == [("save", str(filepath)), ("save", str(filepath))]
    assert checkpoint.best == 0.7
    assert json.loads(filepath.read_text()) == {"kind": "program"}


async def test_save_best_only_in_min_mode_saves_when_the_value_drops(
    tmp_path: Path, program: Any, run_epochs: Any
) -> None:
    checkpoint = ProgramCheckpoint(
        filepath=str(tmp_path / "{epoch}.json"), monitor="val_cost", mode="min", save_best_only=True
    )
    await run_checkpoint(
        checkpoint, program, run_epochs, [{"val_cost": c} for c in (3.0, 4.0, 2.0, 2.5)]
    )
    assert saved_files(tmp_path) == ["1.json", "3.json"]
    assert checkpoint.best == 2.0


@pytest.mark.parametrize(
    ("monitor", "values", "saved"),
    [
        ("val_loss", (0.9, 0.5, 0.7), ["1.json", "2.json"]),  # "loss" in the name: lower is better
        ("val_reward", (0.5, 0.9, 0.7), ["1.json", "2.json"]),  # otherwise higher is better
        ("val_reward", (0.9, 0.5, 0.7), ["1.json"]),
    ],
)
async def test_auto_mode_minimises_losses_and_maximises_the_rest(
    tmp_path: Path,
    program: Any,
    run_epochs: Any,
    monitor: str,
    values: tuple[float, ...],
    saved: list[str],
) -> None:
    checkpoint = ProgramCheckpoint(
        filepath=str(tmp_path / "{epoch}.json"), monitor=monitor, save_best_only=True
    )
    await run_checkpoint(checkpoint, program, run_epochs, [{monitor: v} for v in values])
    assert saved_files(tmp_path) == saved


async def test_initial_value_threshold_must_be_beaten_first(
    tmp_path: Path, program: Any, run_epochs: Any
) -> None:
    checkpoint = ProgramCheckpoint(
        filepath=str(tmp_path / "{epoch}.json"),
        save_best_only=True,
        initial_value_threshold=0.6,
    )
    await run_checkpoint(
        checkpoint, program, run_epochs, [{"val_reward": v} for v in (0.5, 0.6, 0.65)]
    )
    assert saved_files(tmp_path) == ["3.json"]


async def test_without_save_best_only_every_epoch_is_saved(
    tmp_path: Path, program: Any, run_epochs: Any
) -> None:
    checkpoint = ProgramCheckpoint(filepath=str(tmp_path / "e{epoch}.json"))
    await run_checkpoint(
        checkpoint, program, run_epochs, [{"val_reward": v} for v in (0.9, 0.1, 0.5)]
    )
    assert saved_files(tmp_path) == ["e1.json", "e2.json", "e3.json"]
    assert checkpoint.best == 0.9


async def test_filepath_is_filled_from_the_epoch_and_logs(
    tmp_path: Path, program: Any, run_epochs: Any
) -> None:
    checkpoint = ProgramCheckpoint(
        filepath=str(tmp_path / "ckpt" / "{epoch:02d}-{val_reward:.2f}.json"),
        save_best_only=True,
    )
    await run_checkpoint(
        checkpoint,
        program,
        run_epochs,
        [{"reward": 0.5, "val_reward": 0.3333}, {"reward": 0.6, "val_reward": 0.6667}],
    )
    # Epochs count from 1 in file names, and the missing "ckpt" folder was created.
    assert saved_files(tmp_path) == ["ckpt/01-0.33.json", "ckpt/02-0.67.json"]


async def test_unknown_field_in_filepath_is_reported(
    tmp_path: Path, program: Any, run_epochs: Any
) -> None:
    checkpoint = ProgramCheckpoint(filepath=str(tmp_path / "{val_f1:.2f}.json"), monitor="reward")
    with pytest.raises(KeyError, match=r"val_f1.*available: reward, epoch"):
        await run_checkpoint(checkpoint, program, run_epochs, [{"reward": 0.5}])


async def test_missing_monitor_warns_once_and_still_saves(
    tmp_path: Path, program: Any, run_epochs: Any
) -> None:
    checkpoint = ProgramCheckpoint(filepath=str(tmp_path / "{epoch}.json"))
    with pytest.warns(UserWarning) as caught:
        await run_checkpoint(
            checkpoint, program, run_epochs, [{"reward": 0.5, "f1_score": 0.2}] * 3
        )
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "'val_reward'" in message
    assert "'reward'" in message and "'f1_score'" in message
    assert saved_files(tmp_path) == ["1.json", "2.json", "3.json"]


async def test_missing_monitor_with_save_best_only_saves_nothing(
    tmp_path: Path, program: Any, run_epochs: Any
) -> None:
    checkpoint = ProgramCheckpoint(filepath=str(tmp_path / "best.json"), save_best_only=True)
    with pytest.warns(UserWarning, match="val_reward.*no checkpoint will be saved"):
        await run_checkpoint(checkpoint, program, run_epochs, [{"reward": 0.5}] * 2)
    assert program.saves == []
    assert checkpoint.best == -math.inf


async def test_save_variables_only_calls_save_variables(
    tmp_path: Path, program: Any, run_epochs: Any
) -> None:
    filepath = tmp_path / "variables.json"
    checkpoint = ProgramCheckpoint(filepath=str(filepath), save_variables_only=True)
    await run_checkpoint(checkpoint, program, run_epochs, [{"val_reward": 0.5}])
    assert program.saves == [("save_variables", str(filepath))]
    assert json.loads(filepath.read_text()) == {"kind": "variables"}


async def test_an_async_save_is_awaited(tmp_path: Path, run_epochs: Any) -> None:
    class AsyncProgram:
        def __init__(self) -> None:
            self.saved: list[str] = []

        async def save(self, filepath: str) -> None:
            self.saved.append(filepath)

    program = AsyncProgram()
    checkpoint = ProgramCheckpoint(filepath=str(tmp_path / "p.json"))
    await run_checkpoint(checkpoint, program, run_epochs, [{"val_reward": 0.5}])
    assert program.saved == [str(tmp_path / "p.json")]


async def test_saving_without_a_program_is_a_clear_error(tmp_path: Path) -> None:
    checkpoint = ProgramCheckpoint(filepath=str(tmp_path / "p.json"))
    with pytest.raises(RuntimeError, match="no program"):
        await checkpoint.on_epoch_end(0, {"val_reward": 0.5})


async def test_verbose_reports_each_decision(
    tmp_path: Path, program: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    checkpoint = ProgramCheckpoint(
        filepath=str(tmp_path / "best.json"), save_best_only=True, verbose=1
    )
    checkpoint.set_program(program)
    await checkpoint.on_epoch_end(0, {"val_reward": 0.5})
    await checkpoint.on_epoch_end(1, {"val_reward": 0.25})
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("Epoch 1: val_reward improved from -inf to 0.5000, saving program")
    assert lines[1] == "Epoch 2: val_reward did not improve from 0.5000 (0.2500)"


@pytest.mark.parametrize("filepath", ["best_model", "best_model.keras", "best.json.bak", "{epoch}"])
def test_filepath_must_end_with_json(filepath: str) -> None:
    with pytest.raises(ValueError, match="`filepath`"):
        ProgramCheckpoint(filepath=filepath)


@pytest.mark.parametrize("filepath", ["{}.json", "{0}.json", "{epoch.json", "epoch}.json"])
def test_filepath_with_unusable_fields_is_rejected(filepath: str) -> None:
    with pytest.raises(ValueError, match="`filepath`"):
        ProgramCheckpoint(filepath=filepath)


@pytest.mark.parametrize("mode", ["maximize", "MAX", "", None])
def test_an_unknown_mode_warns_and_falls_back_to_auto(mode: Any) -> None:
    # The reference warns and reads an unknown mode as "auto" rather than refusing it.
    with pytest.warns(UserWarning, match="unknown; falling back to 'auto'"):
        checkpoint = ProgramCheckpoint(filepath="best.json", mode=mode)

    assert checkpoint.mode == "auto"
    assert checkpoint.best == -math.inf


async def test_a_filepath_that_is_a_directory_raises_an_os_error_naming_it(
    tmp_path: Path, program: Any, run_epochs: Any
) -> None:
    folder = tmp_path / "taken.json"
    folder.mkdir()
    checkpoint = ProgramCheckpoint(filepath=str(folder))

    with pytest.raises(OSError, match="existing directory") as caught:
        await run_checkpoint(checkpoint, program, run_epochs, [{"val_reward": 0.5}])

    assert caught.value.filename == str(folder)
    assert program.saves == []


@pytest.mark.parametrize("value", [[0.5, 0.7], np.array([0.5, 0.7]), (0.1, 0.2)])
async def test_save_best_only_with_an_array_value_saves_with_a_warning(
    tmp_path: Path, program: Any, run_epochs: Any, value: Any
) -> None:
    checkpoint = ProgramCheckpoint(filepath=str(tmp_path / "{epoch}.json"), save_best_only=True)

    with pytest.warns(UserWarning, match="several values"):
        await run_checkpoint(checkpoint, program, run_epochs, [{"val_reward": value}] * 2)

    assert saved_files(tmp_path) == ["1.json", "2.json"]
    assert checkpoint.best == -math.inf


async def test_save_freq_saves_every_n_batches_with_the_batch_in_the_name(
    tmp_path: Path, program: Any, run_epochs: Any
) -> None:
    checkpoint = ProgramCheckpoint(
        filepath=str(tmp_path / "e{epoch}-b{batch}.json"), monitor="reward", save_freq=3
    )

    # Two epochs of four batches: every third batch across the epochs (3, then 2 of epoch 2).
    await run_epochs(CallbackList([checkpoint], program=program), [{}, {}], steps=4)

    assert saved_files(tmp_path) == ["e1-b3.json", "e2-b2.json"]


def test_save_freq_must_be_epoch_or_a_positive_int() -> None:
    for bad in ("batch", 0, -2, True, 1.5):
        with pytest.raises(ValueError, match="`save_freq`"):
            ProgramCheckpoint(filepath="b.json", save_freq=bad)  # type: ignore[arg-type]


async def test_monitor_op_decides_what_improves(
    tmp_path: Path, program: Any, run_epochs: Any
) -> None:
    checkpoint = ProgramCheckpoint(filepath=str(tmp_path / "{epoch}.json"), save_best_only=True)
    assert checkpoint.monitor_op(0.6, 0.5)
    checkpoint.monitor_op, checkpoint.best = np.less, math.inf

    await run_checkpoint(
        checkpoint, program, run_epochs, [{"val_reward": v} for v in (0.5, 0.7, 0.4)]
    )

    assert saved_files(tmp_path) == ["1.json", "3.json"]


def test_hooks_work_as_plain_calls_and_awaited(tmp_path: Path, program: Any) -> None:
    checkpoint = ProgramCheckpoint(filepath=str(tmp_path / "{epoch}.json"))
    checkpoint.set_program(program)

    checkpoint.on_train_begin({})
    checkpoint.on_epoch_end(0, {"val_reward": 0.5})

    async def awaited() -> None:
        await checkpoint.on_epoch_end(1, {"val_reward": 0.6})

    asyncio.run(awaited())
    assert saved_files(tmp_path) == ["1.json", "2.json"]


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [
        ({"monitor": ""}, "`monitor`"),
        ({"initial_value_threshold": float("nan")}, "`initial_value_threshold`"),
        ({"initial_value_threshold": "0.5"}, "`initial_value_threshold`"),
        ({"verbose": 2}, "`verbose`"),
    ],
)
def test_other_invalid_arguments_are_named(kwargs: dict[str, Any], argument: str) -> None:
    with pytest.raises(ValueError, match=argument):
        ProgramCheckpoint(filepath="best.json", **kwargs)


def test_path_objects_are_accepted(tmp_path: Path) -> None:
    assert ProgramCheckpoint(filepath=tmp_path / "b.json").filepath == str(tmp_path / "b.json")


def test_config_round_trip() -> None:
    checkpoint = ProgramCheckpoint(
        filepath="ckpt/{epoch:02d}.json",
        monitor="val_f1_score",
        mode="max",
        save_best_only=True,
        save_variables_only=True,
        save_freq=5,
        initial_value_threshold=0.25,
        verbose=1,
    )
    config = checkpoint.get_config()
    assert json.loads(json.dumps(config)) == config
    rebuilt = ProgramCheckpoint.from_config(config)
    assert rebuilt.get_config() == config
    assert rebuilt.best == 0.25
