from __future__ import annotations

from typing import Any

from optimizer_core.callbacks import CallbackList, History


async def test_fit_style_run_records_one_value_per_epoch(run_epochs: Any) -> None:
    callbacks = CallbackList()
    await run_epochs(
        callbacks,
        [
            {"reward": 0.4, "f1_score": 0.3, "val_reward": 0.5},
            {"reward": 0.6, "f1_score": 0.5, "val_reward": 0.7},
        ],
    )
    history = callbacks.history
    assert history is not None
    assert history.epoch == [0, 1]
    assert history.history == {
        "reward": [0.4, 0.6],
        "f1_score": [0.3, 0.5],
        "val_reward": [0.5, 0.7],
    }


async def test_missing_and_late_keys_stay_aligned_with_epochs() -> None:
    history = History()
    history.on_train_begin({})
    history.on_epoch_end(0, {"reward": 0.1, "val_reward": 0.2})
    history.on_epoch_end(1, {"reward": 0.3})  # no validation figure this epoch
    history.on_epoch_end(2, {"reward": 0.5, "val_reward": 0.6, "failures": 2})  # new key
    assert history.epoch == [0, 1, 2]
    assert history.history == {
        "reward": [0.1, 0.3, 0.5],
        "val_reward": [0.2, None, 0.6],
        "failures": [None, None, 2],
    }
    assert all(len(series) == len(history.epoch) for series in history.history.values())


async def test_a_new_training_run_starts_a_fresh_record(run_epochs: Any) -> None:
    history = History()
    callbacks = CallbackList([history])
    await run_epochs(callbacks, [{"reward": 0.1}, {"reward": 0.2}])
    await run_epochs(callbacks, [{"reward": 0.9}])
    assert history.epoch == [0]
    assert history.history == {"reward": [0.9]}


def test_config_round_trip() -> None:
    history = History()
    assert history.get_config() == {}
    assert isinstance(History.from_config(history.get_config()), History)
