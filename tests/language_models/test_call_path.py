"""The call path: one validation per answer, schemas built once, each response priced once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import pydantic
import pytest

import optimizer_core as oc
from optimizer_core.exceptions import InvalidResponseError, ServerError
from optimizer_core.language_models import FakeLanguageModel, LanguageModel
from optimizer_core.language_models.language_model import (
    ChatRequest,
    ChatResponse,
    output_schema,
)
from optimizer_core.testing.scripted_server import ScriptedServer

MESSAGES = [{"role": "user", "content": '{"query": "Capital of France?"}'}]


class Counted(oc.DataModel):
    """An output model that counts how often an answer is validated."""

    validations: ClassVar[int] = 0
    answer: str

    @pydantic.model_validator(mode="before")
    @classmethod
    def count(cls, value: Any) -> Any:
        Counted.validations += 1
        return value


@pytest.fixture(autouse=True)
def zero_count() -> None:
    Counted.validations = 0


async def test_data_model_answers_are_validated_once_and_come_back_as_instances() -> None:
    lm = FakeLanguageModel([{"answer": "Paris"}, {"answer": "Rome"}])
    first = await lm(MESSAGES, data_model=Counted)
    second = await lm(MESSAGES, data_model=Counted)
    assert isinstance(first, Counted) and first.answer == "Paris" and second.answer == "Rome"
    assert Counted.validations == 2  # one per answer
    assert lm.calls[0].schema == Counted.model_json_schema()


async def test_a_generator_validates_each_answer_once() -> None:
    class Query(oc.DataModel):
        query: str

    lm = FakeLanguageModel([{"answer": "Paris"}, {"wrong": 1}, {"answer": "Rome"}])
    inputs = oc.Input(data_model=Query)
    outputs = await oc.Generator(data_model=Counted, language_model=lm)(inputs)
    program = oc.Program(inputs=inputs, outputs=outputs)

    assert (await program(Query(query="France?"))).answer == "Paris"
    assert Counted.validations == 1
    # An invalid answer is rejected by that same single check, then retried.
    assert (await program(Query(query="Italy?"))).answer == "Rome"
    assert Counted.validations == 3 and lm.usage.retries == 1


async def test_an_answer_that_fails_validation_is_retried_and_named() -> None:
    lm = FakeLanguageModel([{"answer": 3}, {"answer": 4}], max_retries=1)
    with pytest.raises(
        InvalidResponseError, match=r"(?s)failed validation: ValidationError.*answer"
    ):
        await lm(MESSAGES, data_model=Counted)
    assert len(lm.calls) == 2


async def test_a_cached_answer_is_validated_once_and_comes_back_as_an_instance(
    tmp_path: Path,
) -> None:
    lm = FakeLanguageModel([{"answer": "Paris"}], cache_dir=tmp_path)
    assert (await lm(MESSAGES, data_model=Counted)).answer == "Paris"
    again = FakeLanguageModel([], cache_dir=tmp_path)
    Counted.validations = 0
    hit = await again(MESSAGES, data_model=Counted)
    assert isinstance(hit, Counted) and hit.answer == "Paris"
    assert Counted.validations == 1 and again.calls == []
    assert again.usage.cached_calls == 1


def test_the_output_schema_is_built_once_per_class() -> None:
    assert output_schema(Counted) is output_schema(Counted)
    assert output_schema(Counted).schema == Counted.model_json_schema()
    assert output_schema(Counted).name == "Counted"


async def test_each_request_gets_its_own_copy_of_the_schema() -> None:
    def vandal(messages: Any, schema: dict[str, Any]) -> dict[str, Any]:
        schema.clear()  # a transport (or a provider's transformation) may edit it
        return {"answer": "Paris"}

    lm = FakeLanguageModel(responder=vandal)
    await lm(MESSAGES, data_model=Counted)
    await lm(MESSAGES, data_model=Counted)
    assert lm.calls[1].response_format is not None
    assert lm.calls[1].response_format["json_schema"]["schema"] == {}  # the vandal's copy
    assert output_schema(Counted).schema == Counted.model_json_schema()


async def test_schema_and_data_model_together_are_refused() -> None:
    lm = FakeLanguageModel()
    with pytest.raises(ValueError, match="`data_model`"):
        await lm(MESSAGES, data_model=Counted, schema={"type": "object"})
    with pytest.raises(TypeError, match="`data_model`"):
        await lm(MESSAGES, data_model=dict)  # type: ignore[type-var]


class Priced(FakeLanguageModel):
    """A fake whose every response costs one cent; counts the responses priced."""

    priced = 0

    async def _transport(self, request: ChatRequest) -> ChatResponse:
        response = await super()._transport(request)
        self.priced += 1
        return ChatResponse(text=response.text, prompt_tokens=10, completion_tokens=2, cost=0.01)


async def test_each_response_is_paid_once_and_failed_attempts_cost_nothing() -> None:
    lm = Priced([ServerError("boom"), "not json", {"answer": "Paris"}])
    assert (await lm(MESSAGES, data_model=Counted)).answer == "Paris"
    record = lm.usage.records[-1]
    # Three attempts; two responses came back (the invalid one was paid for too).
    assert record.attempts == 3 and lm.priced == 2
    assert record.cost == pytest.approx(0.02) and record.prompt_tokens == 20
    assert lm.usage.cost == pytest.approx(0.02)


async def test_through_litellm_a_retried_call_costs_what_its_one_response_cost() -> None:
    litellm = pytest.importorskip("litellm")
    async with ScriptedServer() as server:
        lm = LanguageModel(
            "openai/gpt-4o-mini", api_base=server.base_url, api_key="sk-test", backoff_base=0.0
        )
        server.fail_next(status=500)
        answer = await lm(MESSAGES, data_model=Counted)
    assert isinstance(answer, Counted)
    record = lm.usage.records[-1]
    assert record.attempts == 2 and record.prompt_tokens > 0
    prompt_cost, completion_cost = litellm.cost_per_token(
        model="gpt-4o-mini",
        prompt_tokens=record.prompt_tokens,
        completion_tokens=record.completion_tokens,
    )
    assert record.cost == pytest.approx(prompt_cost + completion_cost)


async def test_an_unpriced_model_costs_zero() -> None:
    async with ScriptedServer() as server:
        lm = LanguageModel("openai/scripted", api_base=server.base_url)
        await lm(MESSAGES, schema={"type": "object", "properties": {"answer": {"type": "string"}}})
    assert lm.usage.cost == 0.0 and lm.usage.prompt_tokens > 0


async def test_the_request_reaches_the_wire_with_the_class_schema() -> None:
    async with ScriptedServer() as server:
        lm = LanguageModel("openai/scripted", api_base=server.base_url)
        await lm(MESSAGES, data_model=Counted)
        sent = server.stats.requests[-1]["response_format"]
    assert sent["json_schema"]["name"] == "Counted"
    assert json.dumps(sent["json_schema"]["schema"], sort_keys=True) == json.dumps(
        Counted.model_json_schema(), sort_keys=True
    )
