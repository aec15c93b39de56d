"""FieldRules: a reward of per-field comparisons and weights, configured without code."""

from __future__ import annotations

import pytest

from optimizer_core import metrics, rewards
from optimizer_core.datamodels import DataModel
from optimizer_core.rewards import FieldRules, Scored
from optimizer_core.rewards.field_rules import MAX_PATTERN_CHARS, FieldRuleError
from optimizer_core.saving import safe_mode_scope


def rule(field: str, comparison: str, **options) -> dict:
    return {"field": field, "comparison": comparison, **options}


async def scored(rules: list[dict], y_true: dict, y_pred: dict) -> Scored:
    return await FieldRules(rules=rules).score_with_feedback(y_true, y_pred)


@pytest.mark.parametrize(
    ("comparison", "options", "expected", "passing", "failing", "feedback"),
    [
        ("exact", {}, "Paris", "Paris", "paris", "answer: expected 'Paris', got 'paris'"),
        ("exact", {}, 4, 4.0, "4", "answer: expected 4, got '4'"),
        ("normalized", {}, "New York", "  new   YORK ", "Newark",
         "answer: expected 'New York', got 'Newark'"),
        ("numeric", {"tolerance": 0.5}, 42, "41.6", 41, "answer: 41 is not within 0.5 of 42"),
        ("numeric", {"tolerance": 0.01, "relative": True}, 42, 42.4, 41,
         "answer: 41 is not within 1% of 42"),
        ("numeric", {}, 42, 42, "forty", "answer: 'forty' is not a number"),
        ("regex", {"pattern": r"[A-Z]{3}-\d{4}"}, None, "ABC-1234", "ABC-1234x",
         r"answer: 'ABC-1234x' does not match the pattern '[A-Z]{3}-\\d{4}'"),
        ("contains", {}, "Paris", "It is PARIS, France", "Lyon",
         "answer: 'Lyon' does not contain 'Paris'"),
        ("json_equal", {}, '{"a": 1, "b": [1, 2]}', '{ "b": [1,2], "a": 1 }', '{"a": 2}',
         """answer: expected '{"a": 1, "b": [1, 2]}', got '{"a": 2}'"""),
        ("json_equal", {}, {"a": 1}, '{"a": 1}', {"a": True}, 'answer: expected {"a": 1}, got '
         '{"a": true}'),
    ],
)  # fmt: skip
async def test_each_comparison_passes_and_fails_with_its_feedback(
    comparison, options, expected, passing, failing, feedback
) -> None:
    rules = [rule("answer", comparison, **options)]
    y_true = {} if expected is None else {"answer": expected}

    assert await scored(rules, y_true, {"answer": passing}) == Scored(1.0, None)
    assert await scored(rules, y_true, {"answer": failing}) == Scored(0.0, feedback)


async def test_token_f1_gives_partial_credit_with_the_overlap_in_the_feedback() -> None:
    rules = [rule("answer", "token_f1")]
    # Tokens [paris, france] against [paris, paris, france]: P 2/3, R 1, F1 0.8.
    result = await scored(rules, {"answer": "Paris is France"}, {"answer": "Paris Paris France"})

    assert result.value == pytest.approx(0.8)
    assert result.feedback == (
        "answer: word overlap F1 0.80: expected 'Paris is France', got 'Paris Paris France'"
    )
    assert await scored(rules, {"answer": "the Cat"}, {"answer": "cat!"}) == Scored(1.0)


async def test_set_f1_compares_list_fields_as_sets_and_names_what_differs() -> None:
    rules = [rule("tags", "set_f1")]

    assert (await scored(rules, {"tags": ["a", "B"]}, {"tags": ["b", "a", "a"]})).value == 1.0
    result = await scored(rules, {"tags": ["red", "green"]}, {"tags": ["red", "blue"]})
    assert result.value == pytest.approx(0.5)
    assert result.feedback == 'tags: items F1 0.50: missing ["green"], unexpected ["blue"]'
    # A value that is no list counts as a list of one; two empty lists agree.
    assert (await scored(rules, {"tags": ["x"]}, {"tags": "X"})).value == 1.0
    assert (await scored(rules, {"tags": []}, {"tags": []})).value == 1.0


async def test_the_reward_is_the_weighted_mean_and_the_feedback_names_each_failing_field() -> None:
    rules = [
        rule("answer", "normalized", weight=3),
        rule("total", "numeric", tolerance=0.01, relative=True),
    ]

    result = await scored(rules, {"answer": "Paris", "total": 42}, {"answer": "paris", "total": 41})
    assert result == Scored(0.75, "total: 41 is not within 1% of 42")
    result = await scored(rules, {"answer": "Paris", "total": 42}, {"answer": "Lyon", "total": 9})
    assert result.value == 0.0
    assert result.feedback == (
        "answer: expected 'Paris', got 'Lyon'\ntotal: 9 is not within 1% of 42"
    )


async def test_missing_fields_score_zero_and_say_so() -> None:
    rules = [rule("answer", "exact"), rule("code", "regex", pattern="x+")]

    result = await scored(rules, {"answer": "4"}, {"code": "xx"})
    assert result == Scored(0.5, "answer: missing from the output")
    result = await scored(rules, {}, {"answer": "4", "code": "xx"})
    assert result == Scored(0.5, "answer: the row has no expected value")
    # A failed prediction scores 0 without feedback, as every reward's does.
    assert await FieldRules(rules=rules).score_with_feedback({"answer": "4"}, None) == Scored(0.0)


async def test_long_values_are_shortened_in_the_feedback() -> None:
    result = await scored([rule("answer", "exact")], {"answer": "a" * 500}, {"answer": "b"})

    assert result.feedback is not None and len(result.feedback) < 120
    assert result.feedback.startswith("answer: expected 'aaaa") and "…" in result.feedback


async def test_datamodels_are_scored_by_field_and_calling_gives_the_score() -> None:
    class Answer(DataModel):
        answer: str
        total: float

    reward = FieldRules(rules=[rule("answer", "exact"), rule("total", "numeric", tolerance=1)])

    assert await reward(Answer(answer="x", total=2.0), Answer(answer="x", total=2.5)) == 1.0


async def test_a_runaway_pattern_times_out_instead_of_hanging() -> None:
    rules = [rule("answer", "regex", pattern=r"(a|aa)+$")]

    result = await scored(rules, {}, {"answer": "a" * 40 + "!"})

    assert result.value == 0.0
    assert result.feedback is not None and "timed out after" in result.feedback


@pytest.mark.parametrize(
    ("rules", "where"),
    [
        ([], "rules: at least one rule is needed"),
        ("answer", "rules: must be a list of rules"),
        ([rule("answer", "fuzzy")], "rules[0].comparison: must be one of"),
        ([rule("answer", "exact"), {"comparison": "exact"}], "rules[1].field:"),
        ([rule("answer", "exact", weight=0)], "rules[0].weight: must be a number > 0"),
        ([rule("answer", "exact", weight=True)], "rules[0].weight:"),
        ([rule("answer", "numeric", tolerance=-1)], "rules[0].tolerance: must be a number >= 0"),
        ([rule("answer", "numeric", relative="yes")], "rules[0].relative: must be true or false"),
        ([rule("answer", "exact", tolerance=1)], "rules[0].tolerance: a 'exact' rule takes no"),
        ([rule("answer", "regex")], "rules[0].pattern: a regex rule needs a pattern"),
        ([rule("answer", "regex", pattern="(")], "rules[0].pattern: not a valid regular"),
        ([rule("answer", "regex", pattern="a" * (MAX_PATTERN_CHARS + 1))],
         f"rules[0].pattern: at most {MAX_PATTERN_CHARS} characters"),
        ([{**rule("answer", "exact"), "code": "x"}], "rules[0]: unknown key(s) ['code']"),
        ([["answer", "exact"]], "rules[0]: must be an object"),
    ],
)  # fmt: skip
def test_bad_rules_are_refused_naming_the_rule_and_key(rules, where) -> None:
    with pytest.raises(FieldRuleError) as caught:
        FieldRules(rules=rules)
    assert str(caught.value).startswith(where)


def test_rules_are_required() -> None:
    with pytest.raises(TypeError, match="rules"):
        FieldRules()  # type: ignore[call-arg]


async def test_it_round_trips_through_serialize_in_safe_mode() -> None:
    reward = FieldRules(
        rules=[
            rule("answer", "normalized", weight=2),
            rule("total", "numeric", tolerance=0.5, relative=True),
            rule("code", "regex", pattern=r"\d+"),
        ],
        name="my_rules",
    )

    with safe_mode_scope(True):
        again = rewards.deserialize(rewards.serialize(reward))

    assert isinstance(again, FieldRules) and again.name == "my_rules"
    assert again.get_config() == reward.get_config()
    assert again.get_config()["rules"][1] == {
        "field": "total", "comparison": "numeric", "weight": 2.0 / 2, "tolerance": 0.5,
        "relative": True,
    }  # fmt: skip
    y_true, y_pred = (
        {"answer": "A", "total": 10, "code": "1"},
        {"answer": "a", "total": 12, "code": "1"},
    )
    assert await again.score_with_feedback(y_true, y_pred) == await reward.score_with_feedback(
        y_true, y_pred
    )


async def test_the_metric_shares_the_rules_and_averages_over_rows() -> None:
    metric = metrics.get(
        {"class_name": "field_rules", "config": {"rules": [rule("answer", "exact")]}}
    )

    assert type(metric).__name__ == "FieldRulesMetric"
    await metric.update_state({"answer": "a"}, {"answer": "a"})
    await metric.update_state({"answer": "a"}, {"answer": "b"})
    assert metric.result() == 0.5
    scored_row = await metric.score_with_feedback({"answer": "a"}, {"answer": "b"})
    assert scored_row == Scored(0.0, "answer: expected 'a', got 'b'")
    with safe_mode_scope(True):
        again = metrics.deserialize(metrics.serialize(metric))
    assert again.get_config() == metric.get_config()
    metric.reset_state()
    assert metric.result() == 0.0


def test_both_families_describe_the_rules_setting() -> None:
    from optimizer_core.saving import family

    for kind, cls in (("reward", FieldRules), ("metric", metrics.FieldRulesMetric)):
        entry = family(kind).describe(cls)
        assert [p.name for p in entry.params] == ["rules"]
        assert entry.params[0].type == "field_rules" and entry.params[0].required
