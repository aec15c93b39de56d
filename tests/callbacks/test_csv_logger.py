"""CSVLogger: one row per epoch, the header every logged key, complete after each epoch."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from optimizer_core import callbacks
from optimizer_core.callbacks import CallbackList, CSVLogger
from optimizer_core.callbacks.csv_logger import epochs_csv


def read(path: Path, separator: str = ",") -> list[dict[str, str]]:
    with path.open(newline="") as file:
        return list(csv.DictReader(file, delimiter=separator))


async def test_each_epoch_is_a_row_with_epoch_first_and_sorted_keys(
    tmp_path: Path, run_epochs: Any
) -> None:
    path = tmp_path / "log.csv"
    logs = [{"reward": 0.5, "val_reward": 0.25}, {"reward": 0.75, "val_reward": 0.5}]

    await run_epochs(CallbackList([CSVLogger(filepath=path)]), logs)

    assert path.read_text().splitlines()[0] == "epoch,reward,val_reward"
    assert read(path) == [
        {"epoch": "0", "reward": "0.5", "val_reward": "0.25"},
        {"epoch": "1", "reward": "0.75", "val_reward": "0.5"},
    ]


async def test_the_file_is_complete_after_each_epoch(tmp_path: Path) -> None:
    path = tmp_path / "run" / "log.csv"
    logger = CSVLogger(filepath=path)
    logger.on_train_begin({})
    logger.on_epoch_end(0, {"reward": 0.5})

    # No on_train_end: a killed script still leaves every finished epoch on disk.
    assert read(path) == [{"epoch": "0", "reward": "0.5"}]


async def test_a_key_that_appears_later_widens_the_header(tmp_path: Path) -> None:
    path = tmp_path / "log.csv"
    logger = CSVLogger(filepath=path)
    logger.on_train_begin({})
    logger.on_epoch_end(0, {"reward": 0.5})
    logger.on_epoch_end(1, {"reward": 0.25, "failures": 2})
    logger.on_epoch_end(2, {"reward": 0.75})

    assert read(path) == [
        {"epoch": "0", "failures": "NA", "reward": "0.5"},
        {"epoch": "1", "failures": "2", "reward": "0.25"},
        {"epoch": "2", "failures": "NA", "reward": "0.75"},
    ]


async def test_append_adds_after_the_existing_rows(tmp_path: Path, run_epochs: Any) -> None:
    path = tmp_path / "log.csv"
    await run_epochs(CallbackList([CSVLogger(filepath=path)]), [{"reward": 0.5}])

    await run_epochs(CallbackList([CSVLogger(filepath=path, append=True)]), [{"reward": 0.75}])

    assert read(path) == [{"epoch": "0", "reward": "0.5"}, {"epoch": "0", "reward": "0.75"}]


async def test_without_append_a_new_fit_replaces_the_file(tmp_path: Path, run_epochs: Any) -> None:
    path = tmp_path / "log.csv"
    logger = CSVLogger(filepath=path)
    await run_epochs(CallbackList([logger]), [{"reward": 0.5}, {"reward": 0.6}])

    await run_epochs(CallbackList([logger]), [{"reward": 0.9}])

    assert read(path) == [{"epoch": "0", "reward": "0.9"}]


async def test_separator_and_list_values(tmp_path: Path) -> None:
    path = tmp_path / "log.tsv"
    logger = CSVLogger(filepath=path, separator="\t")
    logger.on_train_begin({})
    logger.on_epoch_end(0, {"per_field": np.array([0.5, 1.0]), "reward": np.float64(0.5)})

    assert read(path, "\t") == [{"epoch": "0", "per_field": "[0.5, 1.0]", "reward": "0.5"}]


def test_epochs_csv_is_the_same_format() -> None:
    text = epochs_csv([(0, {"reward": 0.5}), (1, {"reward": 0.6, "val_reward": 0.4})])

    assert text == "epoch,reward,val_reward\n0,0.5,NA\n1,0.6,0.4\n"


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [({"filepath": ""}, "`filepath`"), ({"filepath": "a.csv", "separator": ";;"}, "`separator`")],
)
def test_bad_arguments_are_named(kwargs: dict[str, Any], argument: str) -> None:
    with pytest.raises(ValueError, match=argument):
        CSVLogger(**kwargs)


def test_config_round_trip_and_lookup() -> None:
    logger = CSVLogger(filepath="run/log.csv", separator=";", append=True)

    config = json.loads(json.dumps(callbacks.serialize(logger)))
    rebuilt = callbacks.deserialize(config)

    assert isinstance(rebuilt, CSVLogger)
    assert rebuilt.get_config() == logger.get_config()
