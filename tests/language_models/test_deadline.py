"""`total_timeout`: one call's bound over all its attempts and backoff waits."""

from __future__ import annotations

import asyncio
import math
import time
from typing import Any

import pytest

from optimizer_core.exceptions import LanguageModelTimeout, RateLimitError
from optimizer_core.language_models import EmbeddingModel, FakeLanguageModel, LanguageModel
from optimizer_core.testing.scripted_server import ScriptedServer

MESSAGES = [{"role": "user", "content": "Capital of France?"}]


def test_the_defaults_bound_a_call_to_three_minutes() -> None:
    lm = LanguageModel("openai/gpt-4o-mini")
    assert (lm.timeout, lm.total_timeout) == (60.0, 180.0)
    assert EmbeddingModel("openai/text-embedding-3-small").total_timeout == 180.0


@pytest.mark.parametrize("value", [0, -1.0, "60", True])
def test_a_bad_total_timeout_is_refused_naming_it(value: Any) -> None:
    with pytest.raises(ValueError, match="`total_timeout`"):
        LanguageModel("openai/gpt-4o-mini", total_timeout=value)


def test_total_timeout_round_trips_through_the_config() -> None:
    lm = LanguageModel("openai/gpt-4o-mini", timeout=20, total_timeout=45)
    again = LanguageModel.from_config(lm.get_config())
    assert (again.timeout, again.total_timeout) == (20.0, 45.0)
    unbounded = LanguageModel.from_config({**lm.get_config(), "total_timeout": None})
    assert unbounded.total_timeout is None


async def test_a_provider_that_never_answers_fails_the_call_at_the_total_timeout() -> None:
    lm = FakeLanguageModel(latency=60.0, timeout=0.2, total_timeout=0.5, max_retries=100)
    started = time.perf_counter()
    with pytest.raises(LanguageModelTimeout, match=r"did not answer within 0.5 s") as failed:
        await lm(MESSAGES)
    elapsed = time.perf_counter() - started
    assert 0.4 <= elapsed < 2.0
    assert "attempts; last error: no answer within" in str(failed.value)
    record = lm.usage.records[-1]
    assert not record.ok and 2 <= record.attempts <= 4  # 0.2 + 0.2 + what was left


async def test_a_retry_after_beyond_the_budget_fails_at_once_instead_of_waiting() -> None:
    def busy(messages: Any, schema: Any) -> str:
        raise RateLimitError("slow down", retry_after=30.0)

    lm = FakeLanguageModel(responder=busy, total_timeout=5.0)
    started = time.perf_counter()
    with pytest.raises(LanguageModelTimeout, match=r"did not answer within 5 s.*slow down"):
        await lm(MESSAGES)
    assert time.perf_counter() - started < 1.0
    assert lm.usage.records[-1].attempts == 1


async def test_waiting_for_a_concurrency_slot_is_not_counted() -> None:
    # Four calls share one slot; each takes 0.2 s, so the last waits 0.6 s for it,
    # longer than its 0.5 s budget, and still gets its answer.
    lm = FakeLanguageModel(
        responder=lambda m, s: "ok", latency=0.2, max_concurrency=1, total_timeout=0.5
    )
    assert await asyncio.gather(*(lm(MESSAGES) for _ in range(4))) == ["ok"] * 4


async def test_without_a_total_timeout_each_attempt_keeps_its_own_bound() -> None:
    lm = FakeLanguageModel(latency=60.0, timeout=0.05, total_timeout=None, max_retries=2)
    with pytest.raises(LanguageModelTimeout, match="gave up after 3 attempts"):
        await lm(MESSAGES)


@pytest.mark.litellm
async def test_a_silent_provider_through_litellm_fails_with_the_reason() -> None:
    async with ScriptedServer() as server:
        # Warm up with default limits: the first call imports litellm, which on a busy
        # machine alone can take longer than the limits under test.
        await LanguageModel("openai/scripted", api_base=server.base_url)(MESSAGES)
        lm = LanguageModel(
            "openai/scripted",
            api_base=server.base_url,
            timeout=0.3,
            total_timeout=0.8,
            backoff_base=0.01,
        )
        server.stall_next(math.inf, times=100)
        started = time.perf_counter()
        with pytest.raises(LanguageModelTimeout) as failed:
            await lm(MESSAGES)
        elapsed = time.perf_counter() - started
    assert "language model 'openai/scripted' did not answer within 0.8 s" in str(failed.value)
    assert elapsed < 10.0  # far below the 180 s default: the limit, not a retry, ended it
