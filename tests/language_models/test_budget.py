"""A run's `Budget`: no request starts past a cap, with any concurrency; fit stops on it."""

from __future__ import annotations

import asyncio

import pytest

import optimizer_core as synalinks
from optimizer_core.language_models import Budget, BudgetExhausted
from tests.support import build_program, capitals


async def test_a_cap_of_n_calls_sends_at_most_n_requests_with_concurrency() -> None:
    budget = Budget(max_calls=7)
    lm = synalinks.FakeLanguageModel(responder=lambda m, s: "ok", latency=0.01,
                                     max_concurrency=16)  # fmt: skip
    judge = synalinks.FakeLanguageModel(responder=lambda m, s: "ok", max_concurrency=16)
    lm.budget = judge.budget = budget
    results = await asyncio.gather(
        *(model([{"role": "user", "content": str(i)}]) for i in range(20) for model in (lm, judge)),
        return_exceptions=True,
    )
    answered = [r for r in results if r == "ok"]
    refused = [r for r in results if isinstance(r, BudgetExhausted)]
    assert len(answered) == 7 and len(refused) == 33
    assert lm.usage.calls + judge.usage.calls == 7  # refused calls sent nothing
    assert budget.calls == 7 and budget.exhausted == "calls"
    assert refused[0].cap == "calls" and "7 calls" in str(refused[0])


async def test_the_request_that_crosses_a_token_cap_is_the_last() -> None:
    budget = Budget(max_tokens=10)
    lm = synalinks.FakeLanguageModel(responder=lambda m, s: "word " * 20, max_concurrency=1)
    lm.budget = budget
    await lm([{"role": "user", "content": "hi"}])
    assert budget.tokens >= 10
    with pytest.raises(BudgetExhausted):
        await lm([{"role": "user", "content": "again"}])
    assert lm.usage.calls == 1


async def test_held_calls_are_refused_until_released() -> None:
    budget = Budget(max_calls=2)
    lm = synalinks.FakeLanguageModel(responder=lambda m, s: "ok")
    lm.budget = budget
    budget.hold(calls=1)
    await lm([{"role": "user", "content": "1"}])
    with pytest.raises(BudgetExhausted):
        await lm([{"role": "user", "content": "2"}])
    budget.release()
    assert await lm([{"role": "user", "content": "3"}]) == "ok"


async def test_a_budget_from_usage_has_already_spent_what_it_records() -> None:
    stored = {"calls": 2, "cached_calls": 1, "retries": 2, "total_tokens": 30, "cost": 0.5}

    budget = Budget.from_usage(stored, max_calls=4, max_tokens=10_000)

    # Requests sent: 2 calls, less 1 cache hit (nothing sent), plus 2 retries (sent again).
    assert (budget.calls, budget.tokens, budget.cost) == (3, 30, 0.5)
    lm = synalinks.FakeLanguageModel(responder=lambda m, s: "ok")
    lm.budget = budget
    await lm([{"role": "user", "content": "1"}])  # the fourth request: the last one
    with pytest.raises(BudgetExhausted):
        await lm([{"role": "user", "content": "2"}])
    assert budget.exhausted == "calls"
    assert Budget.from_usage({}, max_cost=1.0).snapshot()["calls"] == 0


def test_caps_are_checked() -> None:
    with pytest.raises(ValueError, match="max_calls"):
        Budget(max_calls=-1)
    with pytest.raises(ValueError, match="max_cost"):
        Budget(max_cost="1")  # type: ignore[arg-type]


async def test_fit_stops_on_the_budget_and_keeps_the_best_variables() -> None:
    x, y, student = capitals(30)
    lm = synalinks.FakeLanguageModel(responder=student, max_concurrency=4)
    program = await build_program(lm)
    program.compile(
        reward=synalinks.rewards.ExactMatch(in_mask=["answer"]),
        optimizer=synalinks.optimizers.RandomFewShot(seed=0),
    )
    snapshots: list[tuple[float, dict]] = []

    class Snap(synalinks.callbacks.Callback):
        async def on_epoch_end(self, epoch, logs=None):
            snapshots.append(
                (logs["val_reward"], program.trainable_variables[0].get_trainable_json())
            )

    # One epoch: 21 training rows + 9 validation rows, plus candidate scoring (up to 21
    # rows): 60 calls cover the first epoch and run out in the second.
    budget = Budget(max_calls=60)
    lm.budget = budget
    history = await program.fit(x=x, y=y, validation_split=0.3, epochs=50, batch_size=7,
                                verbose=0, callbacks=[Snap()], seed=5)  # fmt: skip
    assert budget.exhausted == "calls" and budget.calls <= 60
    assert lm.usage.calls <= 60
    assert program.stop_training
    assert 1 <= len(snapshots) < 50
    best_reward, _ = max(snapshots, key=lambda s: s[0])
    final = program.trainable_variables[0].get_trainable_json()
    assert final == next(v for r, v in snapshots if r == best_reward)
    assert history is not None


async def test_fit_refused_before_any_epoch_keeps_the_starting_variables() -> None:
    x, y, student = capitals(20)
    lm = synalinks.FakeLanguageModel(responder=student)
    program = await build_program(lm)
    program.compile(
        reward=synalinks.rewards.ExactMatch(in_mask=["answer"]),
        optimizer=synalinks.optimizers.RandomFewShot(seed=0),
    )
    start = program.trainable_variables[0].get_trainable_json()
    lm.budget = Budget(max_calls=3)
    await program.fit(x=x, y=y, epochs=2, batch_size=5, verbose=0, seed=1)
    assert lm.usage.calls <= 3
    assert program.trainable_variables[0].get_trainable_json() == start
