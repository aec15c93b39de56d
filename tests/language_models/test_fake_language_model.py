"""FakeLanguageModel: the real retry, parsing, concurrency, cache and accounting path."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from optimizer_core.exceptions import (
    AuthenticationError,
    InvalidResponseError,
    LanguageModelError,
    LanguageModelTimeout,
    RateLimitError,
    ServerError,
)
from optimizer_core.language_models import CallRecord, FakeLanguageModel

SCHEMA: dict[str, Any] = {
    "title": "Answer",
    "type": "object",
    "properties": {"answer": {"type": "string"}},
    "required": ["answer"],
}
MESSAGES = [
    {"role": "system", "content": "Answer questions."},
    {"role": "user", "content": '{"query": "Capital of France?"}'},
]


def cached_files(directory: Path) -> int:
    return len(list(directory.rglob("*.json")))


async def test_scripted_dicts_come_back_in_order_and_requests_are_recorded() -> None:
    lm = FakeLanguageModel([{"answer": "Paris"}, {"answer": "Rome"}])
    assert await lm(MESSAGES, schema=SCHEMA, temperature=0.3) == {"answer": "Paris"}
    assert await lm(MESSAGES, schema=SCHEMA) == {"answer": "Rome"}
    assert [call.schema for call in lm.calls] == [SCHEMA, SCHEMA]
    assert lm.calls[0].messages == MESSAGES
    assert lm.calls[0].temperature == 0.3
    assert lm.calls[1].temperature is None
    assert lm.usage.calls == 2
    assert lm.usage.prompt_tokens > 0 and lm.usage.completion_tokens > 0


async def test_without_schema_the_text_is_returned_as_is() -> None:
    lm = FakeLanguageModel(["plain words, not JSON"])
    assert await lm(MESSAGES) == "plain words, not JSON"


async def test_json_in_a_fence_or_among_prose_is_parsed() -> None:
    lm = FakeLanguageModel(
        ['```json\n{"answer": "Paris"}\n```', 'Sure, here it is: {"answer": "Rome"} Hope it helps!']
    )
    assert await lm(MESSAGES, schema=SCHEMA) == {"answer": "Paris"}
    assert await lm(MESSAGES, schema=SCHEMA) == {"answer": "Rome"}
    assert lm.usage.retries == 0


async def test_invalid_json_then_valid_is_one_retry() -> None:
    lm = FakeLanguageModel(["not json", {"answer": "Paris"}])
    assert await lm(MESSAGES, schema=SCHEMA) == {"answer": "Paris"}
    assert lm.usage.retries == 1
    assert len(lm.calls) == 2
    assert lm.usage.records[-1].attempts == 2
    assert lm.usage.records[-1].ok


async def test_always_invalid_raises_after_max_retries_naming_model_and_text() -> None:
    lm = FakeLanguageModel(["not json"], cycle=True, max_retries=2, model="fake/stubborn")
    with pytest.raises(InvalidResponseError) as raised:
        await lm(MESSAGES, schema=SCHEMA)
    message = str(raised.value)
    assert "fake/stubborn" in message
    assert "not json" in message
    assert "3 attempts" in message
    assert raised.value.model == "fake/stubborn"
    assert len(lm.calls) == 3
    assert lm.usage.failures == 1
    assert lm.usage.records[-1].ok is False


async def test_a_json_array_is_not_an_object() -> None:
    lm = FakeLanguageModel(["[1, 2]"], max_retries=0)
    with pytest.raises(InvalidResponseError, match="JSON object, got a JSON array"):
        await lm(MESSAGES, schema=SCHEMA)


async def test_rate_limit_retry_after_is_honoured() -> None:
    wait = 0.05
    lm = FakeLanguageModel(
        [RateLimitError("slow down", retry_after=wait), {"answer": "Paris"}], backoff_base=0.0
    )
    started = time.perf_counter()
    assert await lm(MESSAGES, schema=SCHEMA) == {"answer": "Paris"}
    assert time.perf_counter() - started >= wait
    assert lm.usage.retries == 1


async def test_a_retry_after_too_long_to_wait_fails_at_once() -> None:
    lm = FakeLanguageModel([RateLimitError("daily quota", retry_after=86_400), "never"])
    with pytest.raises(RateLimitError, match="asked to wait 86400s") as raised:
        await lm(MESSAGES)
    assert raised.value.retry_after == 86_400
    assert len(lm.calls) == 1


async def test_authentication_error_is_not_retried() -> None:
    lm = FakeLanguageModel([AuthenticationError("bad key"), {"answer": "never"}])
    with pytest.raises(AuthenticationError, match="not retryable; 1 attempt"):
        await lm(MESSAGES, schema=SCHEMA)
    assert len(lm.calls) == 1
    assert lm.usage.retries == 0


async def test_server_errors_are_retried_then_the_last_one_is_raised() -> None:
    lm = FakeLanguageModel([ServerError("boom 1"), ServerError("boom 2")], max_retries=1)
    with pytest.raises(ServerError, match=r"boom 2.*2 attempts"):
        await lm(MESSAGES)
    assert lm.usage.retries == 1


async def test_validate_rejection_is_retried() -> None:
    def validate(answer: dict[str, Any]) -> None:
        if not answer["answer"]:
            raise ValueError("empty answer")

    lm = FakeLanguageModel([{"answer": ""}, {"answer": "Paris"}])
    assert await lm(MESSAGES, schema=SCHEMA, validate=validate) == {"answer": "Paris"}
    assert lm.usage.retries == 1


async def test_validate_rejection_message_names_the_cause() -> None:
    def validate(answer: dict[str, Any]) -> None:
        raise ValueError("answer must be a city")

    lm = FakeLanguageModel([{"answer": "blue"}], max_retries=0)
    with pytest.raises(InvalidResponseError, match="answer must be a city"):
        await lm(MESSAGES, schema=SCHEMA, validate=validate)


async def test_exhausted_script_is_a_clear_error() -> None:
    lm = FakeLanguageModel([{"answer": "Paris"}])
    await lm(MESSAGES, schema=SCHEMA)
    with pytest.raises(LanguageModelError, match=r"no scripted response left \(1 used\)"):
        await lm(MESSAGES, schema=SCHEMA)
    assert len(lm.calls) == 2


async def test_cycle_starts_the_script_again() -> None:
    lm = FakeLanguageModel(["a", "b"], cycle=True)
    assert [await lm(MESSAGES) for _ in range(5)] == ["a", "b", "a", "b", "a"]


async def test_callables_and_responder_receive_messages_and_schema() -> None:
    seen: list[tuple[str, Any]] = []

    async def responder(messages: list[dict[str, str]], schema: Any) -> dict[str, Any]:
        seen.append((messages[-1]["content"], schema))
        return {"answer": "from responder"}

    lm = FakeLanguageModel(responder=responder)
    assert await lm(MESSAGES, schema=SCHEMA) == {"answer": "from responder"}
    assert seen == [(MESSAGES[-1]["content"], SCHEMA)]
    scripted = FakeLanguageModel([lambda messages, schema: {"answer": str(len(messages))}])
    assert await scripted(MESSAGES, schema=SCHEMA) == {"answer": "2"}


async def test_default_responder_fills_the_schema() -> None:
    lm = FakeLanguageModel()
    assert await lm(MESSAGES, schema=SCHEMA) == {"answer": ""}
    assert await lm(MESSAGES) == "ok"


async def test_slow_requests_time_out_and_are_retried() -> None:
    lm = FakeLanguageModel(latency=1.0, timeout=0.02, max_retries=1)
    started = time.perf_counter()
    with pytest.raises(LanguageModelTimeout, match="2 attempts"):
        await lm(MESSAGES)
    assert time.perf_counter() - started < 0.5


async def test_no_more_than_max_concurrency_requests_in_flight() -> None:
    lm = FakeLanguageModel(responder=lambda m, s: "ok", latency=0.02, max_concurrency=3)
    answers = await asyncio.gather(*(lm(MESSAGES) for _ in range(20)))
    assert answers == ["ok"] * 20
    assert lm.usage.max_in_flight == 3
    assert lm.usage.in_flight == 0


async def test_backoff_sleeps_do_not_hold_a_concurrency_slot() -> None:
    failed_once: list[bool] = []

    def responder(messages: list[dict[str, str]], schema: Any) -> str:
        if messages[-1]["content"] == "slow" and not failed_once:
            failed_once.append(True)
            raise RateLimitError("busy", retry_after=0.5)
        return messages[-1]["content"]

    lm = FakeLanguageModel(responder=responder, max_concurrency=1, backoff_base=0.0)
    finished: list[str] = []

    async def ask(content: str) -> None:
        finished.append(str(await lm([{"role": "user", "content": content}])))

    slow = asyncio.create_task(ask("slow"))
    await asyncio.sleep(0.01)
    await asyncio.wait_for(ask("fast"), timeout=0.4)
    await slow
    assert finished == ["fast", "slow"]


async def test_structured_output_none_writes_the_schema_into_the_prompt() -> None:
    lm = FakeLanguageModel([{"answer": "Paris"}], structured_output="none")
    assert await lm(MESSAGES, schema=SCHEMA) == {"answer": "Paris"}
    sent = lm.calls[0]
    assert sent.response_format is None
    assert sent.messages[-1]["content"].startswith(MESSAGES[-1]["content"])
    assert json.dumps(SCHEMA) in sent.messages[-1]["content"]
    assert MESSAGES[-1]["content"] == '{"query": "Capital of France?"}'


async def test_json_schema_mode_sends_the_schema_as_response_format() -> None:
    lm = FakeLanguageModel([{"answer": "Paris"}])
    await lm(MESSAGES, schema=SCHEMA)
    assert lm.calls[0].response_format == {
        "type": "json_schema",
        "json_schema": {"name": "Answer", "schema": SCHEMA, "strict": False},
    }


async def test_identical_call_is_served_from_the_cache_across_instances(tmp_path: Path) -> None:
    lm = FakeLanguageModel([{"answer": "Paris"}], cache_dir=tmp_path)
    assert await lm(MESSAGES, schema=SCHEMA) == {"answer": "Paris"}
    assert await lm(MESSAGES, schema=SCHEMA) == {"answer": "Paris"}
    assert len(lm.calls) == 1
    assert lm.usage.cached_calls == 1
    assert lm.usage.records[-1].cached and lm.usage.records[-1].attempts == 0

    reopened = FakeLanguageModel([], cache_dir=tmp_path)
    assert await reopened(MESSAGES, schema=SCHEMA) == {"answer": "Paris"}
    assert reopened.calls == []


async def test_cache_key_covers_temperature_and_messages(tmp_path: Path) -> None:
    lm = FakeLanguageModel(["a", "b", "c"], cache_dir=tmp_path)
    assert await lm(MESSAGES, temperature=0.0) == "a"
    assert await lm(MESSAGES, temperature=1.0) == "b"
    assert await lm([{"role": "user", "content": "other"}], temperature=0.0) == "c"
    assert await lm(MESSAGES, temperature=0.0) == "a"
    assert len(lm.calls) == 3


async def test_failed_calls_are_not_cached(tmp_path: Path) -> None:
    lm = FakeLanguageModel(["not json", {"answer": "Paris"}], cache_dir=tmp_path, max_retries=0)
    with pytest.raises(InvalidResponseError):
        await lm(MESSAGES, schema=SCHEMA)
    assert cached_files(tmp_path) == 0
    assert await lm(MESSAGES, schema=SCHEMA) == {"answer": "Paris"}
    assert cached_files(tmp_path) == 1


async def test_a_cached_answer_the_validator_rejects_is_asked_again(tmp_path: Path) -> None:
    lm = FakeLanguageModel([{"answer": "Lyon"}, {"answer": "Paris"}], cache_dir=tmp_path)
    await lm(MESSAGES, schema=SCHEMA)

    def only_paris(answer: dict[str, Any]) -> None:
        if answer["answer"] != "Paris":
            raise ValueError("not Paris")

    assert await lm(MESSAGES, schema=SCHEMA, validate=only_paris) == {"answer": "Paris"}
    assert len(lm.calls) == 2


async def test_listeners_receive_each_record() -> None:
    lm = FakeLanguageModel(["not json", {"answer": "Paris"}, "hello"])
    records: list[CallRecord] = []
    lm.usage.add_listener(records.append)
    await lm(MESSAGES, schema=SCHEMA)
    assert len(records) == 1
    assert records[0].attempts == 2 and records[0].ok and records[0].model == "fake/scripted"
    assert records[0].prompt_tokens > 0
    lm.usage.remove_listener(records.append)
    await lm(MESSAGES)
    assert len(records) == 1


async def test_a_failing_listener_does_not_fail_the_call() -> None:
    lm = FakeLanguageModel(["hello"])

    def broken(record: CallRecord) -> None:
        raise RuntimeError("listener bug")

    lm.usage.add_listener(broken)
    assert await lm(MESSAGES) == "hello"


async def test_config_round_trips() -> None:
    lm = FakeLanguageModel(
        [{"answer": "Paris"}, "text"], latency=0.01, cycle=True, max_retries=2, temperature=0.5
    )
    config = lm.get_config()
    json.dumps(config)
    rebuilt = FakeLanguageModel.from_config(config)
    assert rebuilt.get_config() == config
    assert await rebuilt(MESSAGES, schema=SCHEMA) == {"answer": "Paris"}


async def test_config_leaves_out_callables() -> None:
    lm = FakeLanguageModel(responder=lambda m, s: "x")
    assert lm.get_config()["responses"] is None
    FakeLanguageModel.from_config(lm.get_config())


def test_constructor_arguments_are_validated_by_name() -> None:
    with pytest.raises(ValueError, match="`max_retries`"):
        FakeLanguageModel(max_retries=-1)
    with pytest.raises(ValueError, match="`max_concurrency`"):
        FakeLanguageModel(max_concurrency=0)
    with pytest.raises(ValueError, match="`temperature`"):
        FakeLanguageModel(temperature=-0.1)
    with pytest.raises(ValueError, match="`structured_output`"):
        FakeLanguageModel(structured_output="xml")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="`latency`"):
        FakeLanguageModel(latency=-1)
    with pytest.raises(TypeError, match="`responses`"):
        FakeLanguageModel("just one string")  # type: ignore[arg-type]


async def test_concurrent_response_format_rejections_downgrade_only_once() -> None:
    from optimizer_core.language_models._litellm import ResponseFormatRejected

    def responder(messages: list[dict[str, str]], schema: Any) -> dict[str, Any]:
        if "JSON schema" not in messages[-1]["content"]:
            raise ResponseFormatRejected("response_format unsupported", rejected="json_schema")
        return {"answer": "Paris"}

    lm = FakeLanguageModel(responder=responder, latency=0.01)
    answers = await asyncio.gather(*(lm(MESSAGES, schema=SCHEMA) for _ in range(5)))
    assert answers == [{"answer": "Paris"}] * 5
    assert lm.effective_structured_output == "json_object"
    assert [record.attempts for record in lm.usage.records] == [2] * 5
