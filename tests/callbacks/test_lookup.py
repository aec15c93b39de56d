from __future__ import annotations

import json

import pytest

from optimizer_core import callbacks
from optimizer_core.callbacks import (
    Callback,
    CSVLogger,
    History,
    ProgramCheckpoint,
    ProgressBar,
)
from optimizer_core.saving import safe_mode_scope


def test_public_names() -> None:
    for name in (
        "Callback", "CallbackList", "CSVLogger", "History", "ProgramCheckpoint", "ProgressBar",
    ):  # fmt: skip
        assert name in callbacks.__all__
        assert hasattr(callbacks, name)


@pytest.mark.parametrize(
    ("identifier", "cls"),
    [
        ("History", History),
        ("history", History),
        ("ProgressBar", ProgressBar),
        ("progress_bar", ProgressBar),
    ],
)
def test_get_by_name_builds_a_default_instance(identifier: str, cls: type[Callback]) -> None:
    assert type(callbacks.get(identifier)) is cls


def test_get_returns_an_instance_as_is() -> None:
    bar = ProgressBar(verbose=2)
    assert callbacks.get(bar) is bar


def test_get_from_a_config_dict() -> None:
    checkpoint = callbacks.get(
        {"class_name": "ProgramCheckpoint", "config": {"filepath": "best.json", "mode": "min"}}
    )
    assert isinstance(checkpoint, ProgramCheckpoint)
    assert checkpoint.mode == "min"


def test_get_rejects_unknown_names_and_names_that_need_arguments() -> None:
    with pytest.raises(ValueError, match="unknown callback 'no_such_callback'"):
        callbacks.get("no_such_callback")
    with pytest.raises(ValueError, match="needs arguments"):
        callbacks.get("program_checkpoint")
    with pytest.raises(TypeError, match="`identifier`"):
        callbacks.get(3)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "callback",
    [
        History(),
        ProgressBar(verbose=1),
        ProgramCheckpoint("ckpt/{epoch}.json", save_best_only=True, save_freq=4),
        CSVLogger("run/log.csv", separator=";"),
    ],
    ids=["history", "progress_bar", "program_checkpoint", "csv_logger"],
)
def test_serialize_round_trip_through_json(callback: Callback) -> None:
    config = json.loads(json.dumps(callbacks.serialize(callback)))
    with safe_mode_scope(True):  # how a saved document is read
        rebuilt = callbacks.deserialize(config)
    assert type(rebuilt) is type(callback)
    assert rebuilt.get_config() == callback.get_config()  # type: ignore[attr-defined]
