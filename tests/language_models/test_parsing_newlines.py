"""parse_json_object: raw control characters inside JSON strings (small local models)."""

from __future__ import annotations

import pytest

from optimizer_core.language_models.parsing import (
    escape_control_characters_in_strings,
    parse_json_object,
)


def test_raw_newline_inside_a_string_is_kept_as_a_newline() -> None:
    text = '{"thinking": "first line\nsecond line", "answer": 3}'
    assert parse_json_object(text) == {"thinking": "first line\nsecond line", "answer": 3}


def test_raw_tab_and_carriage_return_inside_strings() -> None:
    text = '{"a": "x\ty", "b": "p\r\nq"}'
    assert parse_json_object(text) == {"a": "x\ty", "b": "p\r\nq"}


def test_newlines_between_tokens_and_inside_strings_together() -> None:
    text = '{\n  "thinking": "step 1\nstep 2",\n  "answer": "4"\n}'
    assert parse_json_object(text) == {"thinking": "step 1\nstep 2", "answer": "4"}


def test_raw_newline_in_a_fenced_answer_with_prose() -> None:
    text = 'Here:\n```json\n{"answer": "a\nb"}\n```'
    assert parse_json_object(text) == {"answer": "a\nb"}


def test_other_control_characters_become_unicode_escapes() -> None:
    assert parse_json_object('{"a": "x\x01y"}') == {"a": "x\x01y"}


def test_escaped_quotes_and_backslashes_do_not_confuse_the_string_tracking() -> None:
    text = '{"a": "say \\"hi\\"\nthen \\\\", "b": "c\nd"}'
    assert parse_json_object(text) == {"a": 'say "hi"\nthen \\', "b": "c\nd"}


def test_escaping_leaves_whitespace_outside_strings_alone() -> None:
    text = '{\n\t"a": "x\ny"\n}'
    assert escape_control_characters_in_strings(text) == '{\n\t"a": "x\\ny"\n}'


def test_escaping_returns_valid_json_unchanged() -> None:
    text = '{"a": "x\\ny", "b": [1, 2]}'
    assert escape_control_characters_in_strings(text) == text


@pytest.mark.parametrize("text", ['{"a": "x\ny"', '{"a": "x\ny" "b": 1}'])
def test_still_malformed_after_escaping_is_an_error(text: str) -> None:
    with pytest.raises(ValueError, match="JSON"):
        parse_json_object(text)
