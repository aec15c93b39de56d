"""parse_json_object: what a model's answer may look like."""

from __future__ import annotations

import pytest

from optimizer_core.language_models.parsing import parse_json_object


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1}',
        '  {"a": 1}\n',
        '```json\n{"a": 1}\n```',
        '```\n{"a": 1}\n```',
        'Here you go:\n```json\n{"a": 1}\n```\nAnything else?',
        'The answer is {"a": 1}.',
    ],
)
def test_object_is_found(text: str) -> None:
    assert parse_json_object(text) == {"a": 1}


def test_nested_braces_keep_the_outermost_object() -> None:
    assert parse_json_object('x {"a": {"b": "}"}} y') == {"a": {"b": "}"}}


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("no json here", "no JSON object"),
        ('{"a": 1', "no JSON object"),
        ('{"a": }', "malformed JSON"),
        ("[1, 2]", "got a JSON array"),
        ('"text"', "got a JSON string"),
    ],
)
def test_bad_answers_say_why(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        parse_json_object(text)
