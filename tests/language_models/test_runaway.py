"""A server that never stops writing: the bound ends each call, through litellm, at once.

`runaway_responder` makes the scripted server a model that writes ``0.1.`` forever;
the server stops only at the request's ``max_tokens`` or its context's end. Also the
sampling settings a module sets, as litellm sends them to an OpenAI-compatible server.
"""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

import optimizer_core as synalinks
from optimizer_core.exceptions import TruncatedResponseError
from optimizer_core.language_models import LanguageModel
from optimizer_core.language_models.bounds import DEFAULT_STRING_LENGTH, answer_bound
from optimizer_core.language_models.language_model import output_schema
from optimizer_core.local_models import LocalLanguageModel
from optimizer_core.local_models.language_model import FREE_TEXT_LENGTH
from optimizer_core.testing.scripted_server import ScriptedServer, runaway_responder
from tests.support import Query

pytestmark = pytest.mark.litellm

MESSAGES = [{"role": "user", "content": "Count for ever."}]


class Label(synalinks.DataModel):
    label: str = pydantic.Field(max_length=20, description="The label")


async def test_a_runaway_answer_ends_at_its_bound_and_fails_once() -> None:
    async with ScriptedServer(runaway_responder, context_tokens=100_000) as server:
        lm = LanguageModel("openai/scripted", api_base=server.base_url, backoff_base=0.0)
        schema = output_schema(Label).schema
        with pytest.raises(TruncatedResponseError, match="finish_reason 'length'"):
            await lm(MESSAGES, schema=schema)
        sent = server.stats.requests[-1]
    bound = output_schema(Label).bound
    assert sent["max_tokens"] == bound
    # The server wrote exactly the bound, not its 100,000-token context, and once.
    assert server.stats.chat_requests == 1
    assert server.stats.completion_tokens == bound
    assert server.stats.finish_reasons == {"length": 1}
    record = lm.usage.records[-1]
    assert record.finish_reason == "length" and record.completion_tokens == bound
    assert record.attempts == 1 and lm.usage.truncated_calls == 1


async def test_without_a_bound_the_runaway_fills_the_context() -> None:
    # What every call looked like before it carried max_tokens: the scripted server
    # writes until its context is full (here 3,000 tokens).
    async with ScriptedServer(runaway_responder, context_tokens=3_000) as server:
        import aiohttp

        async with aiohttp.ClientSession() as session:
            response = await session.post(
                server.base_url + "/chat/completions",
                json={"model": "m", "messages": MESSAGES},
            )
            payload = await response.json()
    assert payload["choices"][0]["finish_reason"] == "length"
    assert payload["usage"]["completion_tokens"] == 3_000 - payload["usage"]["prompt_tokens"]


async def test_a_module_on_a_runaway_server_gives_failed_samples_not_a_timeout() -> None:
    async with ScriptedServer(runaway_responder, token_latency=0.0005) as server:
        lm = LanguageModel("openai/scripted", api_base=server.base_url, backoff_base=0.0)
        inputs = synalinks.Input(data_model=Query)
        outputs = await synalinks.ChainOfThought(data_model=Label, language_model=lm)(inputs)
        program = synalinks.Program(inputs=inputs, outputs=outputs)
        predictions = await program.predict(
            x=[Query(query=str(i)) for i in range(4)], batch_size=4, verbose=0
        )
    assert list(predictions) == [None] * 4 and program.last_failures == 4
    # The thinking is free: its bound is the default string length, and each call's.
    assert all(r["max_tokens"] > DEFAULT_STRING_LENGTH for r in server.stats.requests)
    assert server.stats.chat_requests == 4 and lm.usage.truncated_calls == 4
    assert all(record.attempts == 1 for record in lm.usage.records)


async def test_sampling_settings_go_where_the_provider_takes_them() -> None:
    async with ScriptedServer(lambda request: {"label": "x"}) as server:
        lm = LanguageModel("openai/scripted", api_base=server.base_url)
        module = synalinks.Generator(
            data_model=Label,
            language_model=lm,
            max_tokens=77,
            top_p=0.5,
            top_k=7,
            reasoning_effort="high",
        )
        assert (await module(Query(query="q"))).get("label") == "x"
        sent: dict[str, Any] = server.stats.requests[-1]
    assert sent["max_tokens"] == 77 and sent["top_p"] == 0.5
    # litellm's openai provider has no top_k, and litellm does not know this model reasons.
    assert "top_k" not in sent and "reasoning_effort" not in sent


async def test_a_reasoning_model_gets_its_effort() -> None:
    async with ScriptedServer(lambda request: "ok") as server:
        lm = LanguageModel("openai/o3-mini", api_base=server.base_url, api_key="sk-test")
        assert await lm(MESSAGES, reasoning_effort="low", top_p=0.5) == "ok"
        sent: dict[str, Any] = server.stats.requests[-1]
    assert sent["reasoning_effort"] == "low"
    assert "top_p" not in sent  # o3-mini refuses it
    # Its reasoning counts in the bound: litellm sends it as max_completion_tokens.
    assert sent["max_completion_tokens"] > 4096


async def test_the_bundled_models_request_bounds_its_grammar_and_carries_top_k() -> None:
    async with ScriptedServer(lambda request: {"thinking": "t", "label": "x"}) as server:
        lm = LocalLanguageModel("openai/smollm2", api_base=server.base_url)
        module = synalinks.ChainOfThought(data_model=Label, language_model=lm, top_k=20, top_p=0.9)
        assert (await module(Query(query="q"))).get("label") == "x"
        sent: dict[str, Any] = server.stats.requests[-1]
    assert sent["top_k"] == 20 and sent["top_p"] == 0.9
    grammar = sent["response_format"]["schema"]["properties"]
    assert grammar["thinking"]["maxLength"] == FREE_TEXT_LENGTH  # bounded for the grammar
    assert grammar["label"]["maxLength"] == 20  # the caller's own bound kept
    schema = output_schema(module.output_model).schema
    assert sent["max_tokens"] == answer_bound(schema, string_length=FREE_TEXT_LENGTH)
    assert sent["max_tokens"] < output_schema(module.output_model).bound
