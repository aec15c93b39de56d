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


# What the built-in rewards say -------------------------------------------------------------


async def test_exact_match_names_the_fields_that_differ():
    from optimizer_core.rewards import ExactMatch

    reward = ExactMatch()
    scored = await reward.score_with_feedback(
        {"answer": "Paris", "unit": "km", "n": 4}, {"answer": "Lyon", "unit": "km", "n": 5}
    )
    assert scored == Scored(0.0, "answer: expected 'Paris', got 'Lyon'; n: expected 4, got 5")
    assert await reward.score_with_feedback({"answer": "Paris"}, {"answer": "Paris"}) == Scored(1.0)
    long = await reward.score_with_feedback({"answer": "a" * 500}, {"answer": "b"})
    assert long.feedback is not None and len(long.feedback) < 100 and "\u2026" in long.feedback


async def test_exact_match_says_which_fields_are_missing_or_extra():
    from optimizer_core.rewards import ExactMatch

    scored = await ExactMatch().score_with_feedback({"answer": "4"}, {"other": "x"})
    assert scored.feedback == "answer: expected '4', got nothing; other: 'x' not expected"


async def test_lm_as_judge_gives_its_critique():
    import optimizer_core as synalinks
    from optimizer_core.rewards import LMAsJudge

    judge = synalinks.FakeLanguageModel(
        responses=[{"critique": "Names Lyon, the question asks for the capital.", "reward": 0.2}]
    )
    scored = await LMAsJudge(language_model=judge).score_with_feedback(
        {"answer": "Paris"}, {"answer": "Lyon"}
    )
    assert scored == Scored(0.2, "Names Lyon, the question asks for the capital.")


@pytest.mark.parametrize(
    ("output", "feedback"),
    [
        ({"reward": 0.5, "critique": "half right"}, "half right"),
        ({"reward": 0.5, "feedback": "too long"}, "too long"),
        ({"reward": 0.5}, None),
    ],
)
async def test_program_as_judge_gives_its_programs_critique(output, feedback):
    from optimizer_core.rewards import ProgramAsJudge

    async def judge(inputs):
        return output

    scored = await ProgramAsJudge(program=judge).score_with_feedback({"a": "1"}, {"a": "2"})
    assert scored == Scored(0.5, feedback)


async def test_evaluate_returns_each_rows_feedback():
    import optimizer_core as synalinks
    from tests.support import build_program

    program = await build_program(
        synalinks.FakeLanguageModel(responder=lambda m, s: {"answer": "Lyon"})
    )
    program.compile(reward=synalinks.rewards.ExactMatch())
    result = await program.evaluate(
        [{"query": "Capital of France?"}, {"query": "Second city?"}],
        [{"answer": "Paris"}, {"answer": "Lyon"}],
        verbose=0,
        return_examples=True,
    )
    assert [e.feedback for e in result.examples] == ["answer: expected 'Paris', got 'Lyon'", None]
    assert result.examples[0].as_json()["feedback"] == "answer: expected 'Paris', got 'Lyon'"
