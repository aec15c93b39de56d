"""LMAsJudge with the scripted FakeLanguageModel."""

from __future__ import annotations

import json
from typing import Any

import pytest

from optimizer_core.datamodels import DataModel
from optimizer_core.exceptions import InvalidResponseError, LanguageModelError, ServerError
from optimizer_core.language_models import FakeLanguageModel
from optimizer_core.rewards import LMAsJudge
from optimizer_core.rewards.lm_as_judge import JUDGE_SCHEMA, REWARD_LEVELS
from optimizer_core.score_types import FineScore, Rating, Rating10, Rating20, Score


class Answer(DataModel):
    thinking: str
    answer: str


async def test_scripted_verdict_is_the_reward_and_the_prompt_shows_gold_fields() -> None:
    lm = FakeLanguageModel(responses=[{"critique": "Close, but incomplete.", "reward": 0.7}])
    reward = LMAsJudge(language_model=lm, criteria="accuracy and completeness")

    score = await reward(
        Answer(thinking="t", answer="Paris, France"), Answer(thinking="u", answer="Paris")
    )

    assert score == 0.7
    (call,) = lm.calls
    system, user = call.messages[0]["content"], call.messages[-1]["content"]
    assert "accuracy and completeness" in system
    assert json.loads(user) == {
        "gold_thinking": "t",
        "gold_answer": "Paris, France",
        "thinking": "u",
        "answer": "Paris",
    }
    assert "gold_answer" in user


async def test_masks_apply_to_what_the_judge_sees() -> None:
    lm = FakeLanguageModel(responses=[{"critique": "ok", "reward": 1.0}])

    await LMAsJudge(language_model=lm, out_mask=["thinking"])(
        Answer(thinking="t", answer="4"), Answer(thinking="u", answer="4")
    )

    assert json.loads(lm.calls[0].messages[-1]["content"]) == {"gold_answer": "4", "answer": "4"}


async def test_schema_restricts_the_reward_to_tenths() -> None:
    lm = FakeLanguageModel(responses=[{"critique": "ok", "reward": 0.0}])

    await LMAsJudge(language_model=lm)({"answer": "4"}, {"answer": "5"})

    assert lm.calls[0].schema == JUDGE_SCHEMA
    assert JUDGE_SCHEMA["properties"]["reward"]["enum"] == list(REWARD_LEVELS)
    assert JUDGE_SCHEMA["required"] == ["critique", "reward"]


async def test_reward_off_the_grid_is_snapped_to_the_nearest_tenth() -> None:
    lm = FakeLanguageModel(responses=[{"critique": "ok", "reward": 0.73}])

    assert await LMAsJudge(language_model=lm)({"answer": "4"}, {"answer": "4"}) == 0.7


async def test_reward_out_of_range_is_retried_by_the_model() -> None:
    lm = FakeLanguageModel(
        responses=[{"critique": "ok", "reward": 7}, {"critique": "ok", "reward": 0.9}]
    )

    assert await LMAsJudge(language_model=lm)({"answer": "4"}, {"answer": "4"}) == 0.9
    assert len(lm.calls) == 2


async def test_failed_judge_call_raises_the_language_model_error() -> None:
    lm = FakeLanguageModel(responses=[ServerError("boom")], max_retries=0)

    with pytest.raises(LanguageModelError):
        await LMAsJudge(language_model=lm)({"answer": "4"}, {"answer": "4"})


async def test_unvalidated_bad_answer_raises_invalid_response() -> None:
    class CarelessModel:
        async def __call__(self, messages: Any, **kwargs: Any) -> dict[str, Any]:
            return {"critique": "ok", "reward": 1.5}

    with pytest.raises(InvalidResponseError, match="lm_as_judge"):
        await LMAsJudge(language_model=CarelessModel())({"a": 1}, {"a": 1})  # type: ignore[arg-type]


async def test_none_prediction_scores_zero_without_asking() -> None:
    lm = FakeLanguageModel(responses=[])

    assert await LMAsJudge(language_model=lm)({"answer": "4"}, None) == 0.0
    assert lm.calls == []


def test_arguments_are_validated() -> None:
    with pytest.raises(ValueError, match="`language_model`"):
        LMAsJudge()
    with pytest.raises(ValueError, match="`criteria`"):
        LMAsJudge(language_model=FakeLanguageModel(), criteria="  ")


async def test_config_round_trip_serialises_the_model() -> None:
    reward = LMAsJudge(
        language_model=FakeLanguageModel(responses=[{"critique": "ok", "reward": 0.4}]),
        criteria="brevity",
        instructions="You are a terse editor.",
        name="judge",
        out_mask=["thinking"],
    )

    config = json.loads(json.dumps(reward.get_config()))
    rebuilt = LMAsJudge.from_config(config)

    assert config["language_model"]["class_name"] == "FakeLanguageModel"
    assert rebuilt.get_config() == config
    assert await rebuilt({"answer": "4"}, {"answer": "4"}) == 0.4
    rebuilt_model = rebuilt.language_model
    assert isinstance(rebuilt_model, FakeLanguageModel)
    assert rebuilt_model.calls[0].messages[0]["content"].startswith("You are a terse editor.")


@pytest.mark.parametrize(
    ("score_type", "grade", "expected"),
    [
        # The reference's normalisation: the lowest level is 0.0, the highest 1.0, linear.
        ("Score", 0.7, 0.7),
        ("FineScore", 0.65, 0.65),
        ("Rating", 3, 0.5),
        ("Rating", 1, 0.0),
        ("Rating10", 7, 6 / 9),
        ("Rating20", 20, 1.0),
        (Rating, 4, 0.75),
    ],
)
async def test_score_type_sets_the_scale_and_the_grade_is_normalised(
    score_type: Any, grade: float, expected: float
) -> None:
    lm = FakeLanguageModel(responses=[{"critique": "ok", "reward": grade}])

    score = await LMAsJudge(language_model=lm, score_type=score_type)({"a": 1}, {"a": 1})

    assert score == pytest.approx(expected)


@pytest.mark.parametrize(
    ("score_type", "levels"),
    [
        (Score, [i / 10 for i in range(11)]),
        (FineScore, [i / 20 for i in range(21)]),
        (Rating, [1, 2, 3, 4, 5]),
        (Rating10, list(range(1, 11))),
        (Rating20, list(range(1, 21))),
    ],
)
async def test_the_schema_holds_the_judge_to_the_scales_levels(
    score_type: Any, levels: list[float]
) -> None:
    lm = FakeLanguageModel(responses=[{"critique": "ok", "reward": levels[-1]}])

    await LMAsJudge(language_model=lm, score_type=score_type)({"a": 1}, {"a": 1})

    grade = lm.calls[0].schema["properties"]["reward"]
    assert grade["enum"] == pytest.approx(levels)
    assert grade["type"] == ("integer" if isinstance(levels[0], int) else "number")
    assert f"{levels[-1]} fully meets" in lm.calls[0].messages[0]["content"]


async def test_a_grade_off_the_rating_scale_is_asked_again() -> None:
    lm = FakeLanguageModel(
        responses=[{"critique": "ok", "reward": 0.9}, {"critique": "ok", "reward": 5}]
    )

    assert await LMAsJudge(language_model=lm, score_type="Rating")({"a": 1}, {"a": 1}) == 1.0
    assert len(lm.calls) == 2


def test_an_unknown_score_type_is_refused_naming_the_scales() -> None:
    with pytest.raises(ValueError, match=r"unknown `score_type` 'Stars'.*'Rating10'"):
        LMAsJudge(language_model=FakeLanguageModel(), score_type="Stars")


def test_score_type_round_trips_by_name() -> None:
    reward = LMAsJudge(language_model=FakeLanguageModel(), score_type=Rating10)

    config = json.loads(json.dumps(reward.get_config()))

    assert config["score_type"] == "Rating10"
    assert LMAsJudge.from_config(config).score_type is Rating10
