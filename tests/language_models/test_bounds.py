"""Every call is bounded: max_tokens from the schema, a module or the model; cut answers fail once."""

from __future__ import annotations

from typing import Any, Literal

import pydantic
import pytest

import optimizer_core as synalinks
from optimizer_core.exceptions import TruncatedResponseError
from optimizer_core.language_models import FakeLanguageModel
from optimizer_core.language_models.bounds import (
    DEFAULT_ITEM_STRING_LENGTH,
    DEFAULT_ITEMS,
    DEFAULT_STRING_LENGTH,
    MAX_SCHEMA_TOKENS,
    REASONING_TOKENS,
    TEXT_TOKENS,
    answer_bound,
    bounded_schema,
)
from optimizer_core.language_models.language_model import output_schema
from tests.support import Query

MESSAGES = [{"role": "user", "content": "Think about it."}]


def string(max_length: int | None = None) -> dict[str, Any]:
    return {"type": "string"} if max_length is None else {"type": "string", "maxLength": max_length}


def one_field(schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": {"value": schema}, "required": ["value"]}


class Verdict(synalinks.DataModel):
    thinking: str
    label: Literal["yes", "no"]
    confidence: float
    tags: list[str]


# -- the bound of a schema -----------------------------------------------------------


def test_a_bounded_string_counts_its_max_length_and_a_free_one_the_default() -> None:
    short, free = answer_bound(one_field(string(40))), answer_bound(one_field(string()))
    assert free - short == DEFAULT_STRING_LENGTH - 40
    assert short >= 40 + len('{"value": ""}')


def test_longer_fields_make_a_larger_bound_and_no_schema_has_the_text_bound() -> None:
    small = answer_bound(one_field(string(10)))
    assert answer_bound(one_field(string(500))) == small + 490
    assert answer_bound(None) == TEXT_TOKENS


def test_enums_numbers_and_arrays_are_bounded_by_what_they_allow() -> None:
    choices = answer_bound(one_field({"enum": ["yes", "a much longer choice"]}))
    assert choices - answer_bound(one_field({"const": "yes"})) == len("a much longer choice") - 3
    capped = answer_bound(one_field({"type": "array", "items": string(5), "maxItems": 3}))
    free = answer_bound(one_field({"type": "array", "items": string(5)}))
    assert free > capped
    # An open list of open strings counts about one open string, not ten.
    strings = answer_bound(one_field({"type": "array", "items": string()}))
    assert strings < 2 * answer_bound(one_field(string()))


def test_refs_are_followed_and_huge_schemas_are_capped() -> None:
    schema = output_schema(Verdict).schema
    assert answer_bound(schema) > DEFAULT_STRING_LENGTH  # the thinking counts
    wide = {
        "type": "object",
        "properties": {f"f{i}": string() for i in range(20)},
    }
    assert answer_bound(wide) == MAX_SCHEMA_TOKENS


def test_the_grammar_schema_bounds_every_free_string_and_array() -> None:
    bounded = bounded_schema(output_schema(Verdict).schema)
    properties = bounded["properties"]
    assert properties["thinking"]["maxLength"] == DEFAULT_STRING_LENGTH
    assert properties["tags"]["maxItems"] == DEFAULT_ITEMS
    assert properties["tags"]["items"]["maxLength"] == DEFAULT_ITEM_STRING_LENGTH
    assert "maxLength" not in properties["label"]  # an enum has its own shape
    # Its bound is the one counted for the original schema.
    assert answer_bound(bounded) == answer_bound(output_schema(Verdict).schema)


def test_the_grammar_schema_keeps_the_callers_bounds_and_does_not_touch_the_original() -> None:
    schema = one_field(string(12))
    schema["properties"]["long"] = {"type": "string", "minLength": 5000}
    bounded = bounded_schema(schema)
    assert bounded["properties"]["value"]["maxLength"] == 12
    assert bounded["properties"]["long"]["maxLength"] == 5000  # never below minLength
    assert "maxLength" not in schema["properties"]["long"]


# -- every request carries max_tokens ------------------------------------------------


async def test_every_request_sends_a_bound_from_its_schema() -> None:
    lm = FakeLanguageModel()
    await lm(MESSAGES, data_model=Verdict)
    await lm(MESSAGES)
    structured, text = lm.calls
    assert structured.max_tokens == output_schema(Verdict).bound
    assert text.max_tokens == TEXT_TOKENS


async def test_the_calls_bound_wins_over_the_models_which_wins_over_the_schemas() -> None:
    lm = FakeLanguageModel(max_tokens=300)
    await lm(MESSAGES, data_model=Verdict)
    await lm(MESSAGES, data_model=Verdict, max_tokens=50)
    assert [call.max_tokens for call in lm.calls] == [300, 50]


class ReasoningFake(FakeLanguageModel):
    """A fake that litellm would know as a reasoning model, with an output limit."""

    limit: int | None = None

    def _reasons(self) -> bool:
        return True

    def _output_limit(self) -> int | None:
        return self.limit


async def test_a_reasoning_model_gets_room_for_its_reasoning_within_its_limit() -> None:
    lm = ReasoningFake()
    await lm(MESSAGES, data_model=Verdict)
    await lm(MESSAGES, data_model=Verdict, reasoning_effort="low")
    await lm(MESSAGES, data_model=Verdict, reasoning_effort="none")
    bound = output_schema(Verdict).bound
    assert [call.max_tokens for call in lm.calls] == [
        bound + REASONING_TOKENS["medium"],
        bound + REASONING_TOKENS["low"],
        bound,
    ]
    lm.limit = 1000
    await lm(MESSAGES, data_model=Verdict)
    assert lm.calls[-1].max_tokens == 1000


# -- an answer cut at its bound ------------------------------------------------------


async def test_a_structured_answer_cut_at_its_bound_fails_at_once_and_is_counted() -> None:
    endless = '{"thinking": "' + "0.1." * 10_000
    lm = FakeLanguageModel(responses=[endless] * 6)
    with pytest.raises(TruncatedResponseError, match="bound of 100 tokens") as raised:
        await lm(MESSAGES, data_model=Verdict, max_tokens=100)
    assert raised.value.max_tokens == 100
    assert "1 attempt" in str(raised.value)
    assert len(lm.calls) == 1  # not retried: the same request runs into the same bound
    record = lm.usage.records[-1]
    assert not record.ok and record.truncated and record.finish_reason == "length"
    assert record.completion_tokens == 100
    assert lm.usage.failures == 1 and lm.usage.truncated_calls == 1
    assert lm.usage.snapshot()["truncated_calls"] == 1


async def test_an_answer_that_fits_is_not_truncated() -> None:
    lm = FakeLanguageModel(
        responses=[{"thinking": "short", "label": "yes", "confidence": 1.0, "tags": []}]
    )
    answer = await lm(MESSAGES, data_model=Verdict)
    assert answer.label == "yes"
    assert lm.usage.records[-1].finish_reason == "stop" and lm.usage.truncated_calls == 0


async def test_a_text_answer_cut_at_its_bound_is_the_text_so_far() -> None:
    lm = FakeLanguageModel(responses=["word " * 1000])
    text = await lm(MESSAGES, max_tokens=10)
    assert text == ("word " * 1000)[:40]
    assert lm.usage.records[-1].truncated and lm.usage.failures == 0


async def test_a_malformed_answer_that_was_not_cut_is_still_retried() -> None:
    lm = FakeLanguageModel(
        responses=["not json", {"thinking": "", "label": "no", "confidence": 0, "tags": []}]
    )
    assert (await lm(MESSAGES, data_model=Verdict)).label == "no"
    assert len(lm.calls) == 2


async def test_a_generator_whose_answer_runs_away_gives_a_failed_sample() -> None:
    class Label(synalinks.DataModel):
        label: str = pydantic.Field(description="The label")

    endless = '{"thinking": "' + "2.1.0." * 10_000
    lm = FakeLanguageModel(responses=[endless], cycle=True)
    inputs = synalinks.Input(data_model=Query)
    outputs = await synalinks.ChainOfThought(data_model=Label, language_model=lm, max_tokens=64)(
        inputs
    )
    program = synalinks.Program(inputs=inputs, outputs=outputs)
    predictions = await program.predict(
        x=[Query(query="a"), Query(query="b")], batch_size=2, verbose=0
    )
    assert list(predictions) == [None, None]
    assert program.last_failures == 2
    assert len(lm.calls) == 2 and lm.usage.truncated_calls == 2


def test_a_shorter_free_string_length_bounds_the_grammar_and_the_count_alike() -> None:
    schema = output_schema(Verdict).schema
    short = bounded_schema(schema, string_length=200)
    assert short["properties"]["thinking"]["maxLength"] == 200
    assert short["properties"]["tags"]["items"]["maxLength"] == 20
    assert answer_bound(short) == answer_bound(schema, string_length=200) < answer_bound(schema)
