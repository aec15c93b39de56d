"""BackupAndRestore: a fit killed mid-run goes on, in a new process, from its last backup."""

from __future__ import annotations

import copy
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

import optimizer_core as synalinks
from optimizer_core.callbacks import BackupAndRestore, deserialize, serialize
from optimizer_core.exceptions import SerializationError
from tests.support import build_program, capitals

EPOCHS = 4


class Interrupt(synalinks.callbacks.Callback):
    """Raises at the start of epoch `epoch` (or of its batch `batch`), as a killed script stops."""

    def __init__(self, epoch: int, batch: int | None = None) -> None:
        super().__init__()
        self.epoch, self.batch, self._current = epoch, batch, 0

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._current = epoch
        if self.batch is None and epoch == self.epoch:
            raise RuntimeError(f"interrupted at epoch {epoch}")

    def on_train_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        if self._current == self.epoch and batch == self.batch:
            raise RuntimeError(f"interrupted at epoch {self._current}, batch {batch}")


class Spy(synalinks.callbacks.Callback):
    """Records the epochs begun and the trainable variables as each epoch begins and ends."""

    def __init__(self) -> None:
        super().__init__()
        self.begun: list[int] = []
        self.at_begin: list[Any] = []
        self.at_end: list[Any] = []

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self.begun.append(epoch)
        self.at_begin.append(trainable_state(self.program))

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self.at_end.append(trainable_state(self.program))


def trainable_state(program: Any) -> list[Any]:
    """The trainable values in order (a program built again names its modules anew)."""
    return copy.deepcopy([v.get_trainable_json() for v in program.trainable_variables])


async def new_program(responder: Any = None) -> Any:
    """A fresh program each time, as a script run again builds it."""
    _, _, student = capitals(12)
    program = await build_program(synalinks.FakeLanguageModel(responder=responder or student))
    program.compile(
        reward=synalinks.rewards.ExactMatch(in_mask=["answer"]),
        optimizer=synalinks.optimizers.RandomFewShot(seed=0),
    )
    return program


async def fit(program: Any, callbacks: list[Any], epochs: int = EPOCHS) -> Any:
    x, y, _ = capitals(12)
    return await program.fit(
        x=x, y=y, epochs=epochs, batch_size=4, seed=1, callbacks=callbacks, verbose=0
    )


def backup_file(folder: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((folder / "latest.json").read_text())
    return document


async def test_an_interrupted_fit_goes_on_from_the_epoch_after_the_last_backup(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "backup"
    first, spy = await new_program(), Spy()
    with pytest.raises(RuntimeError, match="epoch 2"):
        await fit(first, [BackupAndRestore(folder), spy, Interrupt(epoch=2)])
    assert spy.begun == [0, 1, 2]
    backed_up = spy.at_end[1]  # the variables at the end of epoch 1, the last backup
    assert backup_file(folder)["backup"]["epoch"] == 2

    second, resumed = await new_program(), Spy()
    assert trainable_state(second) != backed_up  # a fresh program knows nothing yet
    history = await fit(second, [BackupAndRestore(folder), resumed])

    assert resumed.begun == [2, 3]
    assert resumed.at_begin[0] == backed_up
    assert len(history.history["reward"]) == 2  # the epochs this fit ran
    assert not folder.exists()  # a fit that ends deletes its backup

    # It ends as the same run uninterrupted would have.
    whole = await new_program()
    await fit(whole, [])
    assert trainable_state(second) == trainable_state(whole)


async def test_a_checkpoint_in_the_resumed_fit_knows_the_best_epoch_before_it(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "backup"
    with pytest.raises(RuntimeError):
        await fit(await new_program(), [BackupAndRestore(folder), Interrupt(epoch=2)])
    before = [entry["logs"]["reward"] for entry in backup_file(folder)["fit_state"]["epochs"]]
    assert max(before) > 0

    # The resumed epochs cannot beat those before: the model now fails every question.
    program = await new_program(lambda messages, schema: {"answer": "I do not know"})
    best_only = synalinks.callbacks.ProgramCheckpoint(
        filepath=tmp_path / "best.json", monitor="reward", save_best_only=True
    )
    history = await fit(program, [best_only, BackupAndRestore(folder)])
    assert history.history["reward"] == [0.0, 0.0]
    assert best_only.best == max(before)
    assert not (tmp_path / "best.json").exists(), "no resumed epoch beat the earlier ones"


async def test_a_complete_fit_deletes_the_backup_unless_told_to_keep_it(tmp_path: Path) -> None:
    await fit(await new_program(), [BackupAndRestore(tmp_path / "gone")], epochs=2)
    assert not (tmp_path / "gone").exists()

    await fit(await new_program(), [BackupAndRestore(tmp_path / "kept", delete_checkpoint=False)])
    kept = backup_file(tmp_path / "kept")
    assert kept["backup"]["epoch"] == EPOCHS
    assert kept["kind"] == "optimizer_core.program"


async def test_deleting_leaves_other_files_of_the_folder(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    await fit(await new_program(), [BackupAndRestore(tmp_path)], epochs=1)
    assert sorted(os.listdir(tmp_path)) == ["notes.txt"]


async def test_a_corrupt_backup_raises_an_error_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "latest.json").write_text('{"kind": "optimizer_core.prog')
    with pytest.raises(SerializationError, match=re.escape(str(tmp_path / "latest.json"))):
        await fit(await new_program(), [BackupAndRestore(tmp_path)])


async def test_a_backup_of_another_program_raises_naming_the_file_and_the_place(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "backup"
    with pytest.raises(RuntimeError):
        await fit(await new_program(), [BackupAndRestore(folder), Interrupt(epoch=1)])
    document = backup_file(folder)
    document["variables"]["ghost/state"] = {}
    (folder / "latest.json").write_text(json.dumps(document))

    with pytest.raises(SerializationError, match=re.escape(str(folder / "latest.json"))) as caught:
        await fit(await new_program(), [BackupAndRestore(folder)])
    assert "ghost/state" in str(caught.value)
    assert caught.value.path.startswith("variables.")


async def test_double_checkpoint_falls_back_on_the_previous_backup(tmp_path: Path) -> None:
    folder = tmp_path / "backup"
    with pytest.raises(RuntimeError):
        await fit(
            await new_program(),
            [BackupAndRestore(folder, double_checkpoint=True), Interrupt(epoch=3)],
        )
    assert json.loads((folder / "previous.json").read_text())["backup"]["epoch"] == 2
    (folder / "latest.json").write_text("garbage")

    spy = Spy()
    with pytest.warns(UserWarning, match="previous backup"):
        await fit(await new_program(), [BackupAndRestore(folder, double_checkpoint=True), spy])
    assert spy.begun == [2, 3]
    assert not folder.exists()


async def test_save_freq_backs_up_every_n_batches(tmp_path: Path) -> None:
    # 12 rows in batches of 4: 3 batches an epoch. Every 2 batches: after epoch 0's
    # batch 1, then epoch 1's batch 0; the run stops before epoch 1's batch 2.
    folder = tmp_path / "backup"
    with pytest.raises(RuntimeError, match="batch 2"):
        await fit(
            await new_program(), [BackupAndRestore(folder, save_freq=2), Interrupt(1, batch=2)]
        )
    assert backup_file(folder)["backup"] == {"epoch": 1, "batch": 0}

    spy = Spy()
    history = await fit(await new_program(), [BackupAndRestore(folder, save_freq=2), spy])
    assert spy.begun == [1, 2, 3]  # back to the start of the epoch it was made in
    assert len(history.history["reward"]) == 3


def test_hooks_work_called_plainly(tmp_path: Path) -> None:
    class Program:
        def to_json(self) -> dict[str, Any]:
            return {"kind": "optimizer_core.program", "variables": {}}

    backup = BackupAndRestore(tmp_path / "backup", delete_checkpoint=True)
    backup.set_program(Program())
    backup.on_train_begin({})
    backup.on_epoch_begin(0, {})
    backup.on_epoch_end(0, {"reward": 0.5})  # not awaited: the backup is written all the same
    assert backup_file(tmp_path / "backup")["backup"]["epoch"] == 1
    backup.on_train_end({})
    assert not (tmp_path / "backup").exists()


def test_serializes_and_is_found_by_config(tmp_path: Path) -> None:
    backup = BackupAndRestore(str(tmp_path), save_freq=3, double_checkpoint=True)
    again = deserialize(serialize(backup))
    assert isinstance(again, BackupAndRestore)
    assert again.get_config() == backup.get_config()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"backup_dir": ""},
        {"backup_dir": "b", "save_freq": 0},
        {"backup_dir": "b", "save_freq": True},
        {"backup_dir": "b", "save_freq": "batch"},
    ],
)
def test_rejects_bad_arguments(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        BackupAndRestore(**kwargs)
