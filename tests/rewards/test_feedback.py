"""A reward's feedback: ``(score, text)`` kept beside the score, the score alone when called."""

from __future__ import annotations

import pytest

from optimizer_core.exceptions import RewardError
from optimizer_core.rewards import MeanRewardWrapper, Scored


async def near(y_true, y_pred):
    expected, got = float(y_true["answer"]), float(y_pred["answer"])
    if abs(expected - got) <= 0.01 * abs(expected):
        return 1.0
    return 0.0, f"expected {expected:g}, got {got:g}"


async def test_a_pair_gives_the_score_and_keeps_the_feedback_beside_it():
    reward = MeanRewardWrapper(fn=near)
    assert await reward({"answer": 42}, {"answer": 41}) == 0.0
    assert await reward.score_with_feedback({"answer": 42}, {"answer": 41}) == Scored(
        0.0, "expected 42, got 41"
    )
    assert await reward.score_with_feedback({"answer": 42}, {"answer": 42}) == Scored(1.0, None)


async def test_a_missing_prediction_scores_zero_without_feedback():
    assert await MeanRewardWrapper(fn=near).score_with_feedback({"answer": 1}, None) == Scored(0.0)


@pytest.mark.parametrize(
    ("returned", "message"),
    [
        ((0.5, 3), "feedback of type int, expected a string"),
        ((0.5, "a", "b"), "a tuple of 3 items"),
        (("0.5", "why"), "returned str ('0.5'), expected a number"),
    ],
)
async def test_a_malformed_pair_is_refused_naming_the_reward(returned, message):
    async def bad(y_true, y_pred):
        return returned

    with pytest.raises(RewardError, match="reward 'bad'") as caught:
        await MeanRewardWrapper(fn=bad)({"a": 1}, {"a": 1})
    assert message in str(caught.value)


async def test_long_feedback_is_cut():
    async def chatty(y_true, y_pred):
        return 0.0, "x" * 5_000

    scored = await MeanRewardWrapper(fn=chatty).score_with_feedback({"a": 1}, {"a": 2})
    assert scored.feedback is not None and len(scored.feedback) == 2_000
    assert scored.feedback.endswith("\u2026")
