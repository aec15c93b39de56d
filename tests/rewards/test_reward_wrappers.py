"""MeanRewardWrapper / RewardFunctionWrapper, with the training guide's custom reward."""

from __future__ import annotations

import json
from typing import Any

import pytest

import optimizer_core as synalinks
from optimizer_core.datamodels import DataModel
from optimizer_core.exceptions import RewardError, SerializationError
from optimizer_core.rewards import MeanRewardWrapper, RewardFunctionWrapper


class Answer(DataModel):
    answer: str


class AnswerWithThinking(DataModel):
    thinking: str
    answer: str


# Verbatim from the training guide ("Custom Rewards").
@synalinks.saving.register_synalinks_serializable()
async def my_reward(y_true, y_pred):  # type: ignore[no-untyped-def]
    """Custom reward function.

    Args:
        y_true: Ground truth DataModel
        y_pred: Prediction DataModel

    Returns:
        float: Reward value (typically 0.0 to 1.0)
    """
    true_val = y_true.get("answer") if y_true else None
    pred_val = y_pred.get("answer") if y_pred else None

    if true_val is None or pred_val is None:
        return 0.0

    # Partial match example
    true_words = set(true_val.lower().split())
    pred_words = set(pred_val.lower().split())
    overlap = len(true_words & pred_words)
    return overlap / max(len(true_words), 1)


@synalinks.saving.register_synalinks_serializable()
def sync_length_reward(y_true: Any, y_pred: Any, *, scale: float = 1.0) -> float:
    return scale * float(len(y_pred.get("answer")) == len(y_true.get("answer")))


@synalinks.saving.register_synalinks_serializable()
async def string_reward(y_true: Any, y_pred: Any) -> Any:
    return "0.5"


async def test_guide_custom_reward_gives_the_partial_match_value() -> None:
    reward = MeanRewardWrapper(fn=my_reward)

    score = await reward(
        Answer(answer="William Shakespeare"), Answer(answer="shakespeare wrote it")
    )

    assert score == 0.5
    assert reward.name == "my_reward"


async def test_fn_receives_the_data_models_when_no_mask_is_set() -> None:
    seen: list[Any] = []

    async def record(y_true: Any, y_pred: Any) -> float:
        seen.append((y_true, y_pred))
        return 1.0

    gold, predicted = Answer(answer="a"), Answer(answer="b")
    await MeanRewardWrapper(fn=record)(gold, predicted)

    assert seen == [(gold, predicted)]


async def test_fn_receives_masked_dicts_when_a_mask_is_set() -> None:
    seen: list[Any] = []

    async def record(y_true: Any, y_pred: Any) -> float:
        seen.append((y_true, y_pred))
        return float(await my_reward(y_true, y_pred))

    reward = MeanRewardWrapper(fn=record, out_mask=["thinking"])
    score = await reward(
        AnswerWithThinking(thinking="x", answer="Paris"),
        AnswerWithThinking(thinking="y", answer="paris"),
    )

    assert score == 1.0
    assert seen == [({"answer": "Paris"}, {"answer": "paris"})]


async def test_sync_fn_and_extra_kwargs() -> None:
    reward = MeanRewardWrapper(sync_length_reward, scale=0.5)

    assert await reward(Answer(answer="abc"), Answer(answer="xyz")) == 0.5
    assert await reward(Answer(answer="abc"), Answer(answer="xy")) == 0.0


async def test_none_prediction_scores_zero() -> None:
    assert await MeanRewardWrapper(fn=my_reward)(Answer(answer="a"), None) == 0.0


async def test_string_result_raises_reward_error_naming_the_reward() -> None:
    reward = MeanRewardWrapper(fn=string_reward)

    with pytest.raises(RewardError, match=r"reward 'string_reward' returned str \('0.5'\)"):
        await reward(Answer(answer="a"), Answer(answer="a"))


def test_reward_function_wrapper_is_the_same_class() -> None:
    assert RewardFunctionWrapper is MeanRewardWrapper


def test_fn_must_be_callable() -> None:
    with pytest.raises(TypeError, match="`fn`"):
        MeanRewardWrapper(fn="my_reward")  # type: ignore[arg-type]


async def test_config_round_trip_finds_the_registered_function() -> None:
    reward = MeanRewardWrapper(sync_length_reward, name="len", in_mask=["answer"], scale=0.5)

    config = json.loads(json.dumps(reward.get_config()))
    rebuilt = MeanRewardWrapper.from_config(config)

    assert config["fn"] == {"class_name": "function", "config": "Custom>sync_length_reward"}
    assert rebuilt.fn is sync_length_reward
    assert rebuilt.get_config() == config
    assert await rebuilt({"answer": "ab"}, {"answer": "cd"}) == 0.5


def test_a_lambda_cannot_be_saved() -> None:
    reward = MeanRewardWrapper(lambda y_true, y_pred: 1.0)

    assert reward.name == "mean_reward_wrapper"
    with pytest.raises(SerializationError, match="lambda"):
        reward.get_config()
