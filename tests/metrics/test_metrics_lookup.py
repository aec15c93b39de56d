"""metrics.get / serialize / deserialize."""

from __future__ import annotations

from typing import Any

import pytest

from optimizer_core import metrics
from optimizer_core.metrics import F1Score, MeanMetricWrapper, Precision, Recall
from optimizer_core.saving import register_synalinks_serializable


@register_synalinks_serializable()
def lookup_metric(y_true: Any, y_pred: Any) -> float:
    return 0.5


@pytest.mark.parametrize(
    ("identifier", "cls"),
    [
        ("f1_score", F1Score),
        ("F1Score", F1Score),
        ("precision", Precision),
        ("Precision", Precision),
        ("recall", Recall),
        ("Recall", Recall),
    ],
)
def test_get_by_name(identifier: str, cls: type) -> None:
    assert type(metrics.get(identifier)) is cls


def test_get_by_serialised_dict_keeps_the_config() -> None:
    metric = metrics.get(metrics.serialize(F1Score(in_mask=["answer"])))

    assert isinstance(metric, F1Score)
    assert metric.in_mask == ["answer"]


def test_get_returns_an_instance_as_is() -> None:
    metric = Recall()

    assert metrics.get(metric) is metric


async def test_get_wraps_a_function_and_a_registered_name() -> None:
    by_function = metrics.get(lookup_metric)
    by_name = metrics.get("Custom>lookup_metric")

    assert isinstance(by_function, MeanMetricWrapper)
    assert isinstance(by_name, MeanMetricWrapper)
    assert await by_name({"a": 1}, {"a": 1}) == 0.5


def test_serialize_round_trip_of_the_wrapper() -> None:
    metric = metrics.deserialize(metrics.serialize(MeanMetricWrapper(lookup_metric, name="lm")))

    assert isinstance(metric, MeanMetricWrapper)
    assert metric.fn is lookup_metric
    assert metric.name == "lm"


def test_unknown_name_raises_listing_built_ins() -> None:
    with pytest.raises(ValueError, match="F1Score"):
        metrics.get("accuracy_of_nothing")
