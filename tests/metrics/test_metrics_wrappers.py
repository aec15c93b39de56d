"""MeanMetricWrapper: running mean of a per-sample function."""

from __future__ import annotations

import json
from typing import Any

import pytest

import optimizer_core as synalinks
from optimizer_core.datamodels import DataModel
from optimizer_core.exceptions import RewardError
from optimizer_core.metrics import MeanMetricWrapper


class Sample(DataModel):
    x: int


# Verbatim from the training guide ("Custom Metrics").
@synalinks.saving.register_synalinks_serializable()
async def my_metric(y_true, y_pred):  # type: ignore[no-untyped-def]
    return float(y_true.get("x") == y_pred.get("x"))


@synalinks.saving.register_synalinks_serializable()
def sync_offset_metric(y_true: Any, y_pred: Any, *, offset: float = 0.0) -> float:
    return offset + float(y_true.get("x") == y_pred.get("x"))


async def test_update_twice_result_is_the_mean_then_reset() -> None:
    metric = MeanMetricWrapper(fn=my_metric)

    await metric.update_state(Sample(x=1), Sample(x=1))
    await metric.update_state(Sample(x=1), Sample(x=2))

    assert metric.name == "my_metric"
    assert metric.result() == 0.5
    metric.reset_state()
    assert metric.result() == 0.0


async def test_calling_the_metric_is_an_update_and_returns_the_running_result() -> None:
    # The reference's contract (Keras's too): a call folds the sample into the state and
    # returns result() over every sample since the last reset.
    metric = MeanMetricWrapper(fn=my_metric)

    assert await metric(Sample(x=1), Sample(x=2)) == 0.0
    assert await metric(Sample(x=1), Sample(x=1)) == 0.5
    assert metric.result() == 0.5
    assert metric.count == 2


async def test_score_gives_one_sample_and_leaves_the_state() -> None:
    metric = MeanMetricWrapper(fn=my_metric)
    await metric(Sample(x=1), Sample(x=2))

    assert await metric.score(Sample(x=1), Sample(x=1)) == 1.0
    assert metric.result() == 0.0


async def test_sync_fn_with_kwargs_and_masks() -> None:
    metric = MeanMetricWrapper(sync_offset_metric, in_mask=["x"], offset=0.25)

    assert await metric({"x": 1, "y": 2}, {"x": 1, "y": 3}) == 1.25


async def test_mask_patterns_pick_the_fields_the_function_sees() -> None:
    seen: list[Any] = []

    def record(y_true: Any, y_pred: Any) -> float:
        seen.append(y_pred)
        return 1.0

    await MeanMetricWrapper(record, in_mask_pattern="^ans")({}, {"answer": 1, "other": 2})
    await MeanMetricWrapper(record, out_mask_pattern="er$")({}, {"answer": 1, "x": 2})

    assert seen == [{"answer": 1}, {"x": 2}]


async def test_non_number_raises_reward_error_naming_the_metric() -> None:
    async def text_metric(y_true: Any, y_pred: Any) -> str:
        return "high"

    metric = MeanMetricWrapper(fn=text_metric)

    with pytest.raises(RewardError, match=r"metric 'text_metric' returned str \('high'\)"):
        await metric.update_state(Sample(x=1), Sample(x=1))
    assert metric.count == 0


async def test_none_prediction_counts_as_zero() -> None:
    metric = MeanMetricWrapper(fn=my_metric)
    await metric.update_state(Sample(x=1), Sample(x=1))
    await metric.update_state(Sample(x=1), None)

    assert metric.result() == 0.5


def test_config_round_trip() -> None:
    metric = MeanMetricWrapper(sync_offset_metric, name="offset", out_mask=["y"], offset=0.5)

    config = json.loads(json.dumps(metric.get_config()))
    rebuilt = MeanMetricWrapper.from_config(config)

    assert rebuilt.fn is sync_offset_metric
    assert rebuilt.fn_kwargs == {"offset": 0.5}
    assert rebuilt.get_config() == config
