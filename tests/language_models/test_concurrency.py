"""The bound on requests in flight: provider defaults, AIMD on 429s, queue vs provider time."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from optimizer_core.exceptions import RateLimitError
from optimizer_core.language_models import FakeLanguageModel, LanguageModel, Usage
from optimizer_core.language_models.concurrency import ConcurrencyLimit
from optimizer_core.testing.scripted_server import ScriptedServer

MESSAGES = [{"role": "user", "content": "Capital of France?"}]


def reasons(usage: Usage) -> list[tuple[int, str]]:
    return [(change["bound"], change["reason"]) for change in usage.concurrency_history]


# -- defaults ---------------------------------------------------------------------


def test_a_remote_provider_gets_a_whole_batch_in_flight_by_default() -> None:
    lm = LanguageModel("openai/gpt-4o-mini")
    assert lm.max_concurrency == lm.concurrency_bound == 64
    assert lm.get_config()["max_concurrency"] is None  # the default follows the provider
    assert LanguageModel.from_config(lm.get_config()).max_concurrency == 64


def test_an_explicit_bound_is_kept_and_saved() -> None:
    lm = LanguageModel("openai/gpt-4o-mini", max_concurrency=16)
    assert lm.max_concurrency == 16 and lm.get_config()["max_concurrency"] == 16
    assert lm.usage.snapshot()["concurrency_bound"] == 16
    assert lm.usage.snapshot()["max_concurrency"] == 16


@pytest.mark.parametrize("value", [0, -1, 2.5, True, "4"])
def test_a_bad_bound_is_refused_naming_it(value: Any) -> None:
    with pytest.raises(ValueError, match="`max_concurrency`"):
        LanguageModel("openai/gpt-4o-mini", max_concurrency=value)


# -- AIMD -------------------------------------------------------------------------


def test_the_bound_halves_on_a_429_and_recovers_one_per_round_of_successes() -> None:
    usage = Usage()
    limit = ConcurrencyLimit(8, usage=usage)
    limit.rate_limited(time.perf_counter())
    assert limit.bound == 4
    for _ in range(3):
        limit.succeeded()
    assert limit.bound == 4  # a round at bound 4 is 4 successes
    limit.succeeded()
    assert limit.bound == 5
    for _ in range(5 + 6 + 7 + 8 * 10):
        limit.succeeded()
    assert limit.bound == 8  # never above the configured maximum
    assert reasons(usage) == [
        (8, "start"),
        (4, "rate limited"),
        (5, "recovered"),
        (6, "recovered"),
        (7, "recovered"),
        (8, "recovered"),
    ]


def test_one_burst_of_429s_halves_the_bound_once_and_it_never_drops_below_one() -> None:
    limit = ConcurrencyLimit(16, usage=Usage())
    sent = time.perf_counter()
    for _ in range(10):  # ten requests of the same round, all refused
        limit.rate_limited(sent)
    assert limit.bound == 8
    for _ in range(10):  # each later episode halves it again, down to 1
        limit.rate_limited(time.perf_counter())
    assert limit.bound == 1


async def test_scripted_429s_halve_the_bound_then_successes_restore_it() -> None:
    async with ScriptedServer() as server:
        lm = LanguageModel(
            "openai/scripted", api_base=server.base_url, max_concurrency=8, backoff_base=0.0
        )
        server.fail_next(status=429, retry_after=0)
        assert await lm(MESSAGES) == "ok"
        assert lm.concurrency_bound == 4
        assert lm.usage.records[-1].attempts == 2
        for _ in range(4):
            await lm(MESSAGES)
        assert lm.concurrency_bound == 5
    snapshot = lm.usage.snapshot()
    assert snapshot["concurrency_bound"] == 5 and snapshot["max_concurrency"] == 8
    assert [c["reason"] for c in snapshot["concurrency_history"]] == [
        "start",
        "rate limited",
        "recovered",
    ]


async def test_a_round_of_429s_from_a_full_batch_halves_once_and_the_batch_still_completes() -> (
    None
):
    async with ScriptedServer(latency=0.05) as server:
        lm = LanguageModel(
            "openai/scripted", api_base=server.base_url, max_concurrency=8, backoff_base=0.0
        )
        await lm(MESSAGES)  # warm up litellm and the SDK
        server.fail_next(status=429, times=8, retry_after=0.05)
        server.stats.reset()
        answers = await asyncio.gather(*(lm(MESSAGES) for _ in range(8)))
    assert answers == ["ok"] * 8
    assert server.stats.max_in_flight <= 8
    changes = lm.usage.concurrency_history
    assert [c["reason"] for c in changes].count("rate limited") == 1
    assert min(c["bound"] for c in changes) == 4  # 8 refusals of one round: halved once


async def test_no_request_starts_beyond_the_bound_in_force() -> None:
    in_flight = 0
    seen: list[tuple[int, int]] = []  # (in flight with this one, bound) at each request
    lm: FakeLanguageModel

    async def respond(messages: Any, schema: Any) -> str:
        nonlocal in_flight
        in_flight += 1
        seen.append((in_flight, lm.concurrency_bound))
        try:
            if len(seen) == 1:
                raise RateLimitError("slow down", retry_after=0.0)
            await asyncio.sleep(0.01)
            return "ok"
        finally:
            in_flight -= 1

    lm = FakeLanguageModel(responder=respond, max_concurrency=4, backoff_base=0.0)
    await lm(MESSAGES)  # a 429: the bound goes to 2, then grows back by one per round
    await asyncio.gather(*(lm(MESSAGES) for _ in range(16)))
    assert seen[1][1] == 2
    assert all(count <= bound for count, bound in seen)
    assert max(count for count, _ in seen[1:6]) <= 3
    assert lm.concurrency_bound == 4


async def test_a_cancelled_waiter_gives_its_turn_to_the_next() -> None:
    lm = FakeLanguageModel(responder=lambda m, s: "ok", latency=0.05, max_concurrency=1)
    first = asyncio.create_task(lm(MESSAGES))
    second = asyncio.create_task(lm(MESSAGES))
    third = asyncio.create_task(lm(MESSAGES))
    await asyncio.sleep(0.01)
    second.cancel()
    assert await first == "ok" and await third == "ok"
    with pytest.raises(asyncio.CancelledError):
        await second
    assert len(lm.calls) == 2


# -- queue time vs provider time --------------------------------------------------


async def test_queueing_and_the_providers_time_are_recorded_apart() -> None:
    latency = 0.1
    async with ScriptedServer(latency=latency) as server:
        lm = LanguageModel("openai/scripted", api_base=server.base_url, max_concurrency=1)
        await lm(MESSAGES)  # warm up litellm and the SDK
        lm.usage.reset()
        await asyncio.gather(*(lm(MESSAGES) for _ in range(3)))
    records = sorted(lm.usage.records, key=lambda record: record.queue_ms)
    for record in records:
        assert latency * 1000 <= record.provider_ms < latency * 1000 + 150
    # With one slot, the second waits for one request, the third for two.
    assert records[0].queue_ms < 50
    assert latency * 1000 <= records[1].queue_ms < 2 * latency * 1000 + 100
    assert 2 * latency * 1000 <= records[2].queue_ms
    for record in records:
        latency_ms = record.latency_s * 1000
        assert record.queue_ms + record.provider_ms == pytest.approx(latency_ms, abs=30)
    snapshot = lm.usage.snapshot()
    assert snapshot["total_queue_ms"] == pytest.approx(sum(r.queue_ms for r in records))
    assert snapshot["mean_provider_ms"] == pytest.approx(sum(r.provider_ms for r in records) / 3)


async def test_backoff_waits_are_neither_queueing_nor_provider_time() -> None:
    lm = FakeLanguageModel(
        [RateLimitError("slow down", retry_after=0.1), "ok"], latency=0.01, backoff_base=0.0
    )
    await lm(MESSAGES)
    record = lm.usage.records[-1]
    assert record.latency_s >= 0.1
    assert record.queue_ms < 20 and record.provider_ms < 60
