"""ExactMatch."""

from __future__ import annotations

import json

from optimizer_core.datamodels import DataModel
from optimizer_core.rewards import ExactMatch


class Answer(DataModel):
    thinking: str
    answer: str


async def test_equal_answers_score_one_and_different_zero() -> None:
    reward = ExactMatch()

    assert await reward(Answer(thinking="a", answer="4"), Answer(thinking="a", answer="4")) == 1.0
    assert await reward(Answer(thinking="a", answer="4"), Answer(thinking="a", answer="5")) == 0.0


async def test_in_mask_ignores_other_fields() -> None:
    reward = ExactMatch(in_mask=["answer"])

    score = await reward(Answer(thinking="gold", answer="4"), Answer(thinking="other", answer="4"))

    assert score == 1.0


async def test_out_mask_ignores_masked_fields() -> None:
    reward = ExactMatch(out_mask=["thinking"])

    assert await reward(Answer(thinking="x", answer="4"), Answer(thinking="y", answer="4")) == 1.0
    assert await reward(Answer(thinking="x", answer="4"), Answer(thinking="x", answer="5")) == 0.0


async def test_string_comparison_is_exact() -> None:
    assert await ExactMatch()({"answer": "Paris"}, {"answer": "paris"}) == 0.0


async def test_booleans_do_not_equal_numbers() -> None:
    assert await ExactMatch()({"ok": True}, {"ok": 1}) == 0.0
    assert await ExactMatch()({"n": 4}, {"n": 4.0}) == 1.0


async def test_none_prediction_scores_zero() -> None:
    assert await ExactMatch()(Answer(thinking="a", answer="4"), None) == 0.0


def test_config_round_trip() -> None:
    reward = ExactMatch(name="em", in_mask=["answer"], out_mask=["thinking"])

    config = reward.get_config()
    rebuilt = ExactMatch.from_config(json.loads(json.dumps(config)))

    assert config == {"name": "em", "in_mask": ["answer"], "out_mask": ["thinking"]}
    assert rebuilt.get_config() == config


async def test_mask_patterns_choose_the_compared_fields() -> None:
    gold = {"answer": "4", "answer_unit": "km", "thinking": "a"}
    predicted = {"answer": "4", "answer_unit": "m", "thinking": "b"}

    assert await ExactMatch(in_mask_pattern="^answer$")(gold, predicted) == 1.0
    assert await ExactMatch(out_mask_pattern="_unit$|^think")(gold, predicted) == 1.0
    assert await ExactMatch(in_mask_pattern="^answer")(gold, predicted) == 0.0


def test_mask_patterns_round_trip_and_are_left_out_when_unset() -> None:
    reward = ExactMatch(in_mask=["answer"], out_mask_pattern="^debug_")

    config = json.loads(json.dumps(reward.get_config()))

    assert config["out_mask_pattern"] == "^debug_"
    assert "in_mask_pattern" not in config
    assert ExactMatch.from_config(config).get_config() == config
