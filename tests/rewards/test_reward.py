"""The Reward base class: conversion, masking, None predictions and result checks."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from optimizer_core.datamodels import DataModel
from optimizer_core.exceptions import RewardError
from optimizer_core.rewards import Reward


class Answer(DataModel):
    answer: str
    thinking: str = ""


class Returns(Reward):
    """Returns a fixed value and records what `call` received."""

    def __init__(self, value: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.value = value
        self.received: list[tuple[Any, Any]] = []

    async def call(self, y_true: Any, y_pred: Any) -> Any:
        self.received.append((y_true, y_pred))
        return self.value


def test_default_name_is_snake_case_of_the_class_name() -> None:
    assert Returns(1.0).name == "returns"
    assert Returns(1.0, name="mine").name == "mine"


async def test_call_receives_masked_json_dicts() -> None:
    reward = Returns(1.0, out_mask=["thinking"])

    await reward(Answer(answer="4", thinking="t"), {"answer": "5", "thinking": "u"})

    assert reward.received == [({"answer": "4"}, {"answer": "5"})]


async def test_none_prediction_scores_zero_without_calling() -> None:
    reward = Returns(1.0)

    assert await reward(Answer(answer="4"), None) == 0.0
    assert reward.received == []


@pytest.mark.parametrize("value", [True, 1, 0.25, np.float64(0.5), np.int64(1), np.bool_(False)])
async def test_numbers_are_returned_as_float(value: Any) -> None:
    score = await Returns(value)({"a": 1}, {"a": 1})

    assert isinstance(score, float)
    assert score == float(value)


async def test_string_result_raises_reward_error_naming_the_reward() -> None:
    reward = Returns("0.5", name="my_reward")

    with pytest.raises(RewardError) as caught:
        await reward({"a": 1}, {"a": 1})

    assert str(caught.value) == "reward 'my_reward' returned str ('0.5'), expected a number"


@pytest.mark.parametrize("value", [math.nan, math.inf, None, [0.5], 1j])
async def test_non_finite_or_non_number_results_raise(value: Any) -> None:
    with pytest.raises(RewardError, match="reward 'returns' returned"):
        await Returns(value)({"a": 1}, {"a": 1})


def test_a_string_mask_is_rejected_naming_the_argument() -> None:
    with pytest.raises(TypeError, match="`in_mask`"):
        Returns(1.0, in_mask="answer")
    with pytest.raises(TypeError, match="`out_mask`"):
        Returns(1.0, out_mask=[""])


def test_empty_name_is_rejected() -> None:
    with pytest.raises(ValueError, match="`name`"):
        Returns(1.0, name="")
