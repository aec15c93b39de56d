"""F1Score, Precision and Recall (token overlap per flattened field)."""

from __future__ import annotations

import json

import pytest

from optimizer_core.datamodels import DataModel
from optimizer_core.metrics import F1Score, Precision, Recall
from optimizer_core.metrics.token_overlap import token_scores


class Answer(DataModel):
    answer: str


class Labelled(DataModel):
    thinking: str
    answer: str
    label: str


async def test_f1_gold_paris_is_france_pred_paris_paris_is_france_is_0_8() -> None:
    gold, predicted = Answer(answer="Paris is France"), Answer(answer="Paris Paris is France")

    assert await F1Score()(gold, predicted) == pytest.approx(0.8)
    assert await Precision()(gold, predicted) == pytest.approx(2 / 3)
    assert await Recall()(gold, predicted) == pytest.approx(1.0)


async def test_gold_the_cat_sat_pred_cat_sat_down_gives_p_0_667_r_1_f1_0_8() -> None:
    gold, predicted = Answer(answer="the cat sat"), Answer(answer="cat sat down")

    assert await Precision()(gold, predicted) == pytest.approx(0.667, abs=1e-3)
    assert await Recall()(gold, predicted) == pytest.approx(1.0)
    assert await F1Score()(gold, predicted) == pytest.approx(0.8)


def test_swapping_gold_and_prediction_swaps_precision_and_recall() -> None:
    precision, recall, f1 = token_scores("cat sat down", "the cat sat")

    assert (precision, recall) == (pytest.approx(1.0), pytest.approx(2 / 3))
    assert f1 == pytest.approx(0.8)


def test_empty_against_empty_is_one_and_against_text_is_zero() -> None:
    assert token_scores("", "the") == (1.0, 1.0, 1.0)
    assert token_scores("", "cat") == (0.0, 0.0, 0.0)
    assert token_scores("cat", "") == (0.0, 0.0, 0.0)


async def test_sample_score_is_the_mean_over_gold_fields() -> None:
    gold = {"answer": "Paris", "city": {"name": "Lyon"}, "extra": "x"}
    predicted = {"answer": "paris!", "city": {"name": "Nice"}}

    # answer 1.0, city.name 0.0, extra missing 0.0
    assert await F1Score()(gold, predicted) == pytest.approx(1 / 3)


async def test_in_mask_restricts_the_scored_fields() -> None:
    gold = Labelled(thinking="long reasoning", answer="4", label="math")
    predicted = Labelled(thinking="other words", answer="4", label="math")

    assert await F1Score(in_mask=["answer"])(gold, predicted) == 1.0
    assert await F1Score()(gold, predicted) == pytest.approx(2 / 3)


async def test_numbers_are_compared_as_strings() -> None:
    assert await F1Score()({"answer": 4}, {"answer": "4"}) == 1.0
    assert await F1Score()({"answer": 4}, {"answer": 5}) == 0.0


async def test_none_prediction_scores_zero() -> None:
    metric = F1Score()
    await metric.update_state(Answer(answer="Paris"), None)

    assert await metric(Answer(answer="Paris"), None) == 0.0
    assert metric.result() == 0.0
    assert metric.count == 1


async def test_state_is_the_mean_of_updates_and_resets() -> None:
    metric = Recall(in_mask=["answer"])
    await metric.update_state(Answer(answer="cat sat"), Answer(answer="cat sat"))
    await metric.update_state(Answer(answer="cat sat"), Answer(answer="cat"))

    assert metric.result() == pytest.approx(0.75)
    metric.reset_state()
    assert metric.result() == 0.0


def test_default_names() -> None:
    assert [F1Score().name, Precision().name, Recall().name] == ["f1_score", "precision", "recall"]


@pytest.mark.parametrize("cls", [F1Score, Precision, Recall])
def test_config_round_trip(cls: type[F1Score]) -> None:
    metric = cls(name="m", in_mask=["answer"], out_mask=["thinking"])

    config = json.loads(json.dumps(metric.get_config()))
    rebuilt = cls.from_config(config)

    assert config == {"name": "m", "in_mask": ["answer"], "out_mask": ["thinking"]}
    assert type(rebuilt) is cls
    assert rebuilt.get_config() == config
