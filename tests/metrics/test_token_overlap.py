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
    assert metric.count == 2


async def test_a_call_is_an_update_and_result_accumulates() -> None:
    metric = F1Score(in_mask=["answer"])

    first = await metric(Answer(answer="Paris is France"), Answer(answer="Paris Paris is France"))
    second = await metric(Answer(answer="Paris"), Answer(answer="Lyon"))

    assert first == pytest.approx(0.8)
    assert second == pytest.approx(0.4)  # the mean of 0.8 and 0.0 so far
    assert metric.result() == pytest.approx(0.4)


# Two rows, two fields of unequal support (gold tokens: answer 3, city 4):
#   answer: overlap 2 of 2 predicted and 3 gold tokens -> P 1, R 2/3, F1 0.8
#   city:   overlap 1 of 3 predicted and 4 gold tokens -> P 1/3, R 1/4, F1 2/7
ROWS = [
    ({"answer": "paris france", "city": "lyon"}, {"answer": "paris", "city": "lyon nice"}),
    ({"answer": "rome", "city": "milan turin genoa"}, {"answer": "rome", "city": "venice"}),
]


async def _fed(metric: F1Score) -> F1Score:
    for gold, predicted in ROWS:
        await metric(gold, predicted)
    return metric


@pytest.mark.parametrize(
    ("average", "expected"),
    [
        # the rows' own scores: (2/3 + 2/3) / 2 and (1 + 0) / 2
        ("samples", (2 / 3 + 0.5) / 2),
        # tokens summed over both fields: overlap 3, predicted 5, gold 7 -> P 0.6, R 3/7
        ("micro", 0.5),
        ("macro", (0.8 + 2 / 7) / 2),
        # by support, the fields' gold tokens
        ("weighted", (3 * 0.8 + 4 * 2 / 7) / 7),
    ],
)
async def test_f1_averages_over_fields_as_the_reference_does(average: str, expected: float) -> None:
    metric = await _fed(F1Score(average=average))  # type: ignore[arg-type]

    assert metric.result() == pytest.approx(expected)


async def test_average_none_gives_each_field_and_logs_each_apart() -> None:
    metric = await _fed(F1Score(average=None))

    assert metric.result() == {"answer": pytest.approx(0.8), "city": pytest.approx(2 / 7)}
    assert metric.log_values("f1_score") == {
        "f1_score_answer": pytest.approx(0.8),
        "f1_score_city": pytest.approx(2 / 7),
    }


async def test_precision_and_recall_take_the_same_averages() -> None:
    precision = await _fed(Precision(average="micro"))
    recall = await _fed(Recall(average=None))

    assert precision.result() == pytest.approx(3 / 5)
    assert recall.result() == {"answer": pytest.approx(2 / 3), "city": pytest.approx(1 / 4)}


async def test_a_failed_prediction_misses_every_gold_token_of_the_field_averages() -> None:
    metric = F1Score(average="micro")
    await metric({"answer": "paris"}, {"answer": "paris"})
    await metric({"answer": "rome"}, None)

    # overlap 1 of 1 predicted and 2 gold tokens: P 1, R 1/2
    assert metric.result() == pytest.approx(2 / 3)


async def test_field_averages_start_at_zero_and_reset() -> None:
    metric = F1Score(average="macro")
    assert metric.result() == 0.0
    assert F1Score(average=None).result() == {}

    await _fed(metric)
    metric.reset_state()

    assert metric.result() == 0.0


def test_an_unknown_average_is_refused_naming_the_choices() -> None:
    with pytest.raises(ValueError, match=r"`average` must be one of \['samples', 'micro'"):
        F1Score(average="binary")  # type: ignore[arg-type]


async def test_mask_patterns_choose_the_scored_fields() -> None:
    gold = {"answer": "paris", "answer_note": "x", "thinking": "a"}
    predicted = {"answer": "paris", "answer_note": "y", "thinking": "b"}

    assert await F1Score(in_mask_pattern="^answer$")(gold, predicted) == 1.0
    assert await F1Score(out_mask_pattern="note|think")(gold, predicted) == 1.0
    assert await F1Score(in_mask_pattern="^answer")(gold, predicted) == 0.5


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
    metric = cls(
        average="weighted",
        name="m",
        in_mask=["answer"],
        out_mask=["thinking"],
        out_mask_pattern="^debug_",
    )

    config = json.loads(json.dumps(metric.get_config()))
    rebuilt = cls.from_config(config)

    assert config == {
        "average": "weighted",
        "name": "m",
        "in_mask": ["answer"],
        "out_mask": ["thinking"],
        "out_mask_pattern": "^debug_",
    }
    assert type(rebuilt) is cls
    assert rebuilt.get_config() == config


def test_a_config_saved_before_average_existed_loads_with_the_default() -> None:
    rebuilt = F1Score.from_config({"name": "m", "in_mask": ["answer"], "out_mask": None})

    assert rebuilt.average == "samples"
