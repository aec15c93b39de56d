"""LanguageModel and EmbeddingModel through litellm to a local scripted OpenAI server."""

from __future__ import annotations

import time
from typing import Any

import pytest

from optimizer_core.exceptions import (
    AuthenticationError,
    LanguageModelError,
    LanguageModelTimeout,
    ServerError,
)
from optimizer_core.language_models import EmbeddingModel, LanguageModel
from optimizer_core.language_models.synthetic import hashed_bag_of_words
from optimizer_core.testing.scripted_server import ScriptedServer

pytestmark = pytest.mark.litellm

SCHEMA: dict[str, Any] = {
    "title": "Answer",
    "type": "object",
    "properties": {"answer": {"type": "string"}},
    "required": ["answer"],
}
MESSAGES = [{"role": "user", "content": "What is the capital of France?"}]


def model_for(server: ScriptedServer, **kwargs: Any) -> LanguageModel:
    kwargs.setdefault("backoff_base", 0.01)
    return LanguageModel("openai/scripted", api_base=server.base_url, **kwargs)


async def test_structured_output_carries_the_schema_and_is_parsed(server: ScriptedServer) -> None:
    server.responder = lambda request: {"answer": "Paris"}
    lm = model_for(server, temperature=0.0, max_tokens=64)
    assert await lm(MESSAGES, schema=SCHEMA) == {"answer": "Paris"}
    sent = server.stats.requests[-1]
    assert sent["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "Answer", "schema": SCHEMA, "strict": False},
    }
    assert sent["messages"] == MESSAGES
    assert sent["temperature"] == 0.0 and sent["max_tokens"] == 64


async def test_tokens_are_recorded_from_the_server_usage(server: ScriptedServer) -> None:
    server.responder = lambda request: "x" * 40
    lm = model_for(server)
    assert await lm(MESSAGES) == "x" * 40
    record = lm.usage.records[-1]
    assert record.prompt_tokens == len(MESSAGES[0]["content"]) // 4
    assert record.completion_tokens == 10
    assert record.cost == 0.0 and record.ok and record.attempts == 1


async def test_rate_limit_with_retry_after_then_success(server: ScriptedServer) -> None:
    server.fail_next(status=429, retry_after=0.3)
    lm = model_for(server)
    started = time.perf_counter()
    assert await lm(MESSAGES, schema=SCHEMA) == {"answer": ""}
    assert time.perf_counter() - started >= 0.3
    assert server.stats.chat_requests == 2
    assert lm.usage.retries == 1


async def test_server_error_then_success(server: ScriptedServer) -> None:
    server.fail_next(status=500)
    lm = model_for(server)
    assert await lm(MESSAGES) == "ok"
    assert server.stats.chat_requests == 2
    assert lm.usage.retries == 1


async def test_server_errors_until_retries_run_out(server: ScriptedServer) -> None:
    server.fail_next(status=503, times=3)
    lm = model_for(server, max_retries=2)
    with pytest.raises(ServerError, match=r"openai/scripted.*3 attempts"):
        await lm(MESSAGES)
    assert server.stats.chat_requests == 3


async def test_bad_key_fails_at_once(server: ScriptedServer) -> None:
    server.fail_next(status=401)
    lm = model_for(server, api_key="sk-wrong-key-1234")
    with pytest.raises(AuthenticationError) as raised:
        await lm(MESSAGES)
    assert "sk-wrong-key-1234" not in str(raised.value)
    assert server.stats.chat_requests == 1


async def test_other_bad_requests_are_not_retried(server: ScriptedServer) -> None:
    server.fail_next(status=400)
    lm = model_for(server)
    with pytest.raises(LanguageModelError, match="not retryable"):
        await lm(MESSAGES)
    assert server.stats.chat_requests == 1


async def test_a_stall_longer_than_the_timeout_times_out_after_retries(
    server: ScriptedServer,
) -> None:
    lm = model_for(server, timeout=0.2, max_retries=1)
    await lm(MESSAGES)  # warm up: the first call imports litellm (seconds), outside the timing
    server.stall_next(5.0, times=2)
    before = server.stats.chat_requests
    started = time.perf_counter()
    with pytest.raises(LanguageModelTimeout, match="2 attempts"):
        await lm(MESSAGES)
    assert time.perf_counter() - started < 2.0
    assert server.stats.chat_requests - before == 2


async def test_rejected_response_format_falls_back_and_stays(server: ScriptedServer) -> None:
    server.fail_next(
        status=400,
        body='{"error": {"message": "response_format json_schema is not supported", '
        '"type": "invalid_request_error"}}',
    )
    lm = model_for(server)
    assert await lm(MESSAGES, schema=SCHEMA) == {}
    first, second = list(server.stats.requests)
    assert first["response_format"]["type"] == "json_schema"
    assert second["response_format"] == {"type": "json_object"}
    assert "JSON schema" in second["messages"][-1]["content"]
    assert lm.effective_structured_output == "json_object"
    await lm(MESSAGES, schema=SCHEMA)
    assert server.stats.requests[-1]["response_format"] == {"type": "json_object"}
    assert lm.get_config()["structured_output"] == "json_schema"


async def test_openai_api_base_environment_variable_is_honoured(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_BASE", server.base_url)
    server.responder = lambda request: {"answer": "from env"}
    lm = LanguageModel("openai/test")
    assert await lm(MESSAGES, schema=SCHEMA) == {"answer": "from env"}
    assert server.stats.requests[-1]["model"] == "test"


async def test_embeddings_through_litellm(server: ScriptedServer) -> None:
    em = EmbeddingModel("openai/scripted-embedding", api_base=server.base_url, batch_size=2)
    texts = ["the cat sat", "a dog ran", "the cat sat again"]
    vectors = await em(texts)
    for text, vector in zip(texts, vectors, strict=True):
        assert vector == pytest.approx(hashed_bag_of_words(text, 64), abs=1e-6)
    assert server.stats.embedding_requests == 2
    assert em.usage.prompt_tokens > 0


async def test_embedding_retries_are_ours_alone(server: ScriptedServer) -> None:
    server.fail_next(status=500)
    em = EmbeddingModel("openai/scripted-embedding", api_base=server.base_url, backoff_base=0.01)
    await em(["hello"])
    assert server.stats.embedding_requests == 2
    assert em.usage.retries == 1
    assert em.usage.records[-1].attempts == 2


async def test_embedding_errors_are_mapped(server: ScriptedServer) -> None:
    server.fail_next(status=401)
    em = EmbeddingModel("openai/scripted-embedding", api_base=server.base_url)
    with pytest.raises(AuthenticationError):
        await em(["hello"])
    assert server.stats.embedding_requests == 1


async def test_a_500_validation_error_on_response_format_falls_back(server: ScriptedServer) -> None:
    """llama-cpp-python's server rejects json_schema with a 500 (a pydantic literal_error)."""
    server.fail_next(
        status=500,
        body='{"error": {"message": "1 validation error: response_format.type literal_error '
        'Input should be \'text\' or \'json_object\'", "type": "internal_server_error"}}',
    )
    lm = model_for(server)
    assert await lm(MESSAGES, schema=SCHEMA) == {}
    first, second = list(server.stats.requests)
    assert first["response_format"]["type"] == "json_schema"
    assert second["response_format"]["type"] == "json_object"
    assert server.stats.chat_requests == 2  # no retries of the rejected format


async def test_an_ordinary_500_is_still_retried(server: ScriptedServer) -> None:
    server.fail_next(status=500, body='{"error": {"message": "overloaded"}}')
    lm = model_for(server)
    assert isinstance(await lm(MESSAGES, schema=SCHEMA), dict)
    requests = list(server.stats.requests)
    assert [r["response_format"]["type"] for r in requests] == ["json_schema", "json_schema"]
