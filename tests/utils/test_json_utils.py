"""flatten_json, apply_mask (base-key rule) and text normalisation."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from optimizer_core.utils.json_utils import (
    apply_mask,
    base_key,
    compile_mask_pattern,
    flatten_json,
    leaf_to_text,
    normalize_text,
    tokenize,
)


def test_flatten_json_uses_dotted_paths_and_list_indices() -> None:
    nested = {"a": {"b": 1, "c": {"d": "x"}}, "items": [2, {"e": True}], "none": None}

    assert flatten_json(nested) == {
        "a.b": 1,
        "a.c.d": "x",
        "items[0]": 2,
        "items[1].e": True,
        "none": None,
    }


def test_flatten_json_keeps_nested_empty_containers_but_not_an_empty_top_level() -> None:
    assert flatten_json({"tags": [], "meta": {}}) == {"tags": [], "meta": {}}
    assert flatten_json({}) == {}
    assert flatten_json({"a": 1}, prefix="root") == {"root.a": 1}


@pytest.mark.parametrize("key", ["answer", "answers", "answer_1", "answers_12"])
def test_base_key_strips_plural_s_and_numbered_suffix(key: str) -> None:
    assert base_key(key) == "answer"


@pytest.mark.parametrize("key", ["answered", "answer_x", "my_answer", "answer_1a"])
def test_base_key_leaves_other_suffixes_alone(key: str) -> None:
    assert base_key(key) != "answer"


def test_base_key_keeps_a_single_character_key() -> None:
    assert base_key("s") == "s"
    assert base_key("s_2") == "s"


def test_in_mask_matches_answer_answers_and_answer_1() -> None:
    sample = {"answer": "4", "answers": ["4", "four"], "answer_1": "IV", "thinking": "2+2"}

    masked = apply_mask(sample, in_mask=["answer"])

    assert masked == {"answer": "4", "answers": ["4", "four"], "answer_1": "IV"}


def test_in_mask_entry_in_plural_form_matches_singular_key() -> None:
    assert apply_mask({"answer": "4", "other": 1}, in_mask=["answers"]) == {"answer": "4"}


def test_in_mask_recurses_into_nested_dicts_and_drops_empty_branches() -> None:
    sample = {"result": {"answer": "4", "thinking": "..."}, "meta": {"id": 3}, "thinking": "x"}

    assert apply_mask(sample, in_mask=["answer"]) == {"result": {"answer": "4"}}


def test_in_mask_keeps_the_whole_subtree_of_a_matching_key() -> None:
    sample = {"answer": {"thinking": "kept, because its parent matches", "value": 4}, "x": 1}

    assert apply_mask(sample, in_mask=["answer"]) == {
        "answer": {"thinking": "kept, because its parent matches", "value": 4}
    }


def test_in_mask_goes_through_lists_of_dicts() -> None:
    sample = {"steps": [{"answer": 1, "thinking": "a"}, {"answer_2": 2, "note": "b"}], "x": 0}

    assert apply_mask(sample, in_mask=["answer"]) == {"steps": [{"answer": 1}, {"answer_2": 2}]}


def test_out_mask_removes_matching_keys_at_every_depth() -> None:
    sample = {
        "thinking": "top",
        "result": {"thinkings": ["a"], "answer": "4", "deeper": {"thinking_1": "b", "ok": True}},
        "steps": [{"thinking": "c", "value": 1}],
    }

    assert apply_mask(sample, out_mask=["thinking"]) == {
        "result": {"answer": "4", "deeper": {"ok": True}},
        "steps": [{"value": 1}],
    }


def test_in_mask_then_out_mask() -> None:
    sample = {"answer": {"thinking": "t", "value": 4}, "label": "x"}

    masked = apply_mask(sample, in_mask=["answer"], out_mask=["thinking"])

    assert masked == {"answer": {"value": 4}}


def test_apply_mask_does_not_modify_its_input() -> None:
    sample = {"answer": {"thinking": "t", "value": 4}, "thinking": "x"}
    before = copy.deepcopy(sample)

    apply_mask(sample, in_mask=["answer"], out_mask=["thinking"])

    assert sample == before


def test_in_mask_with_no_match_gives_an_empty_object() -> None:
    assert apply_mask({"label": "x"}, in_mask=["answer"]) == {}


def test_in_pattern_keeps_the_fields_whose_name_it_is_found_in() -> None:
    data = {"answer": "4", "gold_answer": "4", "thinking": "...", "meta": {"answer_note": "n"}}

    assert apply_mask(data, in_pattern="^answer") == {"answer": "4", "meta": {"answer_note": "n"}}


def test_a_pattern_matches_the_name_as_written_or_its_base_key() -> None:
    data = {"answers": ["4"], "reason": "r"}

    assert apply_mask(data, in_pattern="answer$") == {"answers": ["4"]}
    assert apply_mask(data, in_pattern="answers$") == {"answers": ["4"]}


def test_a_pattern_adds_to_its_mask() -> None:
    data = {"answer": "4", "label": "x", "thinking": "t", "debug_id": 1}

    assert apply_mask(data, in_mask=["label"], in_pattern="^ans") == {"answer": "4", "label": "x"}
    assert apply_mask(data, out_mask=["thinking"], out_pattern="^debug_") == {
        "answer": "4",
        "label": "x",
    }


def test_out_pattern_drops_at_every_depth() -> None:
    data = {"a": {"debug_x": 1, "b": [{"debug_y": 2, "c": 3}]}}

    assert apply_mask(data, out_pattern="^debug") == {"a": {"b": [{"c": 3}]}}


@pytest.mark.parametrize(
    ("pattern", "error", "message"),
    [
        ("(", ValueError, "`in_mask_pattern` is not a valid regular expression"),
        ("", ValueError, "non-empty"),
        ("a" * 201, ValueError, "at most 200 characters"),
        (["answer"], TypeError, "regular expression"),
    ],
)
def test_a_bad_pattern_is_refused_naming_the_argument(
    pattern: Any, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        compile_mask_pattern(pattern, argument="in_mask_pattern")


def test_normalize_text_lowercases_drops_punctuation_and_stop_words() -> None:
    assert normalize_text("The capital of France is  Paris!") == "capital france paris"
    assert normalize_text("«Don't» — stop.") == "dont stop"


def test_tokenize_splits_normalised_text() -> None:
    assert tokenize("Paris is France") == ["paris", "france"]
    assert tokenize("a an the of is") == []


def test_leaf_to_text_string_forms() -> None:
    assert [leaf_to_text(v) for v in ["x", 4, 0.5, True, None, []]] == [
        "x",
        "4",
        "0.5",
        "true",
        "",
        "[]",
    ]
