"""rewards.get / serialize / deserialize."""

from __future__ import annotations

from typing import Any

import pytest

from optimizer_core import rewards
from optimizer_core.rewards import ExactMatch, MeanRewardWrapper
from optimizer_core.saving import register_synalinks_serializable


@register_synalinks_serializable()
async def lookup_reward(y_true: Any, y_pred: Any) -> float:
    return 1.0


@pytest.mark.parametrize("identifier", ["exact_match", "ExactMatch"])
def test_get_by_name(identifier: str) -> None:
    assert isinstance(rewards.get(identifier), ExactMatch)


def test_get_reward_function_wrapper_alias_names_the_wrapper() -> None:
    assert rewards.ALL_OBJECTS["RewardFunctionWrapper"] is MeanRewardWrapper


def test_get_by_serialised_dict_keeps_the_config() -> None:
    config = rewards.serialize(ExactMatch(in_mask=["answer"]))

    reward = rewards.get(config)

    assert isinstance(reward, ExactMatch)
    assert reward.in_mask == ["answer"]


def test_get_returns_an_instance_as_is() -> None:
    reward = ExactMatch()

    assert rewards.get(reward) is reward


async def test_get_wraps_a_plain_function_and_a_registered_name() -> None:
    by_function = rewards.get(lookup_reward)
    by_name = rewards.get("Custom>lookup_reward")

    assert isinstance(by_function, MeanRewardWrapper)
    assert isinstance(by_name, MeanRewardWrapper)
    assert by_name.fn is lookup_reward
    assert await by_function({"a": 1}, {"a": 2}) == 1.0


def test_deserialize_wraps_a_serialised_function() -> None:
    reward = rewards.deserialize({"class_name": "function", "config": "Custom>lookup_reward"})

    assert isinstance(reward, MeanRewardWrapper)
    assert reward.name == "lookup_reward"


def test_serialize_round_trip_of_the_wrapper() -> None:
    config = rewards.serialize(MeanRewardWrapper(lookup_reward, in_mask=["answer"]))

    reward = rewards.deserialize(config)

    assert isinstance(reward, MeanRewardWrapper)
    assert reward.fn is lookup_reward
    assert reward.in_mask == ["answer"]


def test_unknown_name_raises_listing_built_ins() -> None:
    with pytest.raises(ValueError, match="ExactMatch"):
        rewards.get("no_such_reward")


def test_name_of_a_reward_that_needs_a_model_says_so() -> None:
    with pytest.raises(ValueError, match="`embedding_model`"):
        rewards.get("cosine_similarity")


def test_unsupported_identifier_raises() -> None:
    with pytest.raises(ValueError, match="cannot turn 42"):
        rewards.get(42)
