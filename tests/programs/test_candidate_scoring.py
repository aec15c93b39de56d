"""What scoring candidates costs in `fit`: the minibatch size, the result cache, the rounds."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

import optimizer_core as synalinks
from optimizer_core.optimizers import OMEGA, Optimizer
from optimizer_core.programs.candidate_scoring import ResultCache
from tests.support import build_program, capitals


def wrong_student(messages: list[dict[str, str]], schema: Any) -> dict[str, Any]:
    """Never right, so racing never stops a proposal (it could always still win)."""
    query = json.loads(messages[-1]["content"])["query"]
    return {"answer": f"Not sure about: {query}"}


def compiled(program: synalinks.Program) -> synalinks.Program:
    program.compile(
        reward=synalinks.rewards.ExactMatch(in_mask=["answer"]),
        optimizer=synalinks.optimizers.RandomFewShot(seed=0),
    )
    return program


@pytest.mark.parametrize(("batch_size", "minibatch_size"), [(4, 3), (4, 4), (8, 3), (8, 1)])
async def test_each_proposal_is_scored_on_minibatch_size_rows_whatever_the_batch_size(
    batch_size: int, minibatch_size: int
) -> None:
    x, y, _ = capitals(16)
    lm = synalinks.FakeLanguageModel(responder=wrong_student)
    program = compiled(await build_program(lm))
    await program.fit(
        x=x, y=y, batch_size=batch_size, minibatch_size=minibatch_size, epochs=1, verbose=0, seed=0
    )
    steps = 16 // batch_size
    # Every training row once, then each step's proposal on its minibatch (no validation pass).
    assert len(lm.calls) == 16 + steps * minibatch_size


async def test_the_default_minibatch_is_four_rows() -> None:
    x, y, _ = capitals(16)
    lm = synalinks.FakeLanguageModel(responder=wrong_student)
    program = compiled(await build_program(lm))
    await program.fit(x=x, y=y, batch_size=8, epochs=1, verbose=0, seed=0)
    assert len(lm.calls) == 16 + 2 * 4


@pytest.mark.parametrize("minibatch_size", [0, -1, 2.5, True])
async def test_a_bad_minibatch_size_is_refused(minibatch_size: Any) -> None:
    x, y, student = capitals(8)
    program = compiled(await build_program(synalinks.FakeLanguageModel(responder=student)))
    with pytest.raises(ValueError, match="minibatch_size"):
        await program.fit(x=x, y=y, minibatch_size=minibatch_size, verbose=0)


async def test_a_known_result_is_not_asked_for_again() -> None:
    calls: list[tuple[list[Any], Any]] = []

    class Result:
        def __init__(self, x: Any, output: Any = "out") -> None:
            self.output = output
            self.failed = output is None
            self.reward = float(x)

    async def run_rows(xs: list[Any], ys: list[Any], values: Any) -> list[Result]:
        calls.append((list(xs), values["gen/state"]["instructions"]))
        await asyncio.sleep(0)
        return [Result(x, output=None if x == 9 else "out") for x in xs]

    variable = synalinks.Variable(name="gen/state", initial_value={"instructions": "A"})
    cache = ResultCache([variable], run_rows)
    a = cache.values_for({})
    b = cache.values_for({"gen/state": {"instructions": "B"}})
    rows = [(0, 1, None), (1, 0, None)]

    assert [r.reward for r in await cache.results(a, rows)] == [1.0, 0.0]
    assert [r.reward for r in await cache.results(a, rows)] == [1.0, 0.0]
    assert calls == [([1, 0], "A")], "the same candidate on the same rows: no second call"
    # Another candidate is another key; two requests in one round share one call.
    await asyncio.gather(cache.results(b, rows[:1]), cache.results(b, rows))
    assert calls[1:] == [([1], "B"), ([0], "B")]
    # The candidate is its trainable values, however the values dict was built.
    same_as_a = cache.values_for({"gen/state": {"instructions": "A"}})
    await cache.results(same_as_a, rows)
    assert len(calls) == 3 and cache.hits == 5
    # A failed row (no output) is tried again.
    await cache.results(a, [(5, 9, None)])
    await cache.results(a, [(5, 9, None)])
    assert calls[3:] == [([9], "A"), ([9], "A")]


class Still(Optimizer):
    """Proposes nothing: the values never change."""

    async def propose_candidates(
        self, step: int, trainable_variables: list[Any], context: Any
    ) -> list[Any]:
        return []


async def test_a_validation_pass_with_unchanged_values_costs_no_call() -> None:
    x, y, student = capitals(20)
    validation = {row.query for row in x[15:]}
    lm = synalinks.FakeLanguageModel(responder=student)
    program = await build_program(lm)
    program.compile(reward=synalinks.rewards.ExactMatch(in_mask=["answer"]), optimizer=Still())
    per_epoch: list[int] = []

    class Count(synalinks.callbacks.Callback):
        def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
            queries = [json.loads(c.messages[-1]["content"])["query"] for c in lm.calls]
            per_epoch.append(sum(q in validation for q in queries) - sum(per_epoch))

    history = await program.fit(
        x=x, y=y, validation_split=0.25, batch_size=5, epochs=3, callbacks=[Count()], verbose=0
    )
    assert per_epoch == [5, 0, 0]
    assert len(set(history.history["val_reward"])) == 1


class RoundClock:
    """Holds every LM call until no more can start, then answers them together: one round.

    Rounds are counted by what can run concurrently, not by timing: a call parks
    here, and a round is released once the event loop has gone many turns with
    no new call parking (everything that could start has started).
    """

    def __init__(self) -> None:
        self.parked: list[tuple[asyncio.Future[None], str]] = []
        self.rounds: list[list[str]] = []

    async def wait(self, label: str) -> None:
        future = asyncio.get_running_loop().create_future()
        self.parked.append((future, label))
        await future

    async def run(self) -> None:
        quiet, seen = 0, -1
        while True:
            await asyncio.sleep(0)
            if len(self.parked) != seen:
                quiet, seen = 0, len(self.parked)
                continue
            quiet += 1
            if quiet >= 200 and self.parked:
                released, self.parked = self.parked, []
                self.rounds.append([label for _, label in released])
                for future, _ in released:
                    future.set_result(None)
                quiet, seen = 0, 0


async def test_omega_mutation_overlaps_the_next_batch_one_round_per_step() -> None:
    x, y, student = capitals(40)
    clock = RoundClock()
    train_rows = {row.query for row in x[:32]}

    async def task(messages: list[dict[str, str]], schema: Any) -> dict[str, Any]:
        query = json.loads(messages[-1]["content"])["query"]
        await clock.wait("batch" if query in train_rows else "validation row")
        return student(messages, schema)

    async def mutation(messages: list[dict[str, str]], schema: Any) -> dict[str, Any]:
        await clock.wait("mutation")
        return {"thinking": "", "instructions": f"Answer the bare name ({len(clock.rounds)})."}

    program = await build_program(synalinks.FakeLanguageModel(responder=task, max_concurrency=64))
    optimizer = OMEGA(
        language_model=synalinks.FakeLanguageModel(responder=mutation, max_concurrency=64),
        embedding_model=synalinks.FakeEmbeddingModel(),
        seed=0,
    )
    program.compile(reward=synalinks.rewards.ExactMatch(in_mask=["answer"]), optimizer=optimizer)
    driver = asyncio.ensure_future(clock.run())
    try:
        await program.fit(x=x, y=y, validation_split=0.2, batch_size=4, epochs=1, verbose=0)
    finally:
        driver.cancel()
    steps = 8
    # A round per batch, two to finish the last steps (a proposal, then its rows), the
    # validation pass: each mutation runs beside a batch, not in a round of its own.
    assert len(clock.rounds) == steps + 3, clock.rounds
    mutations = [i for i, labels in enumerate(clock.rounds) if "mutation" in labels]
    assert len(mutations) == steps
    assert all("batch" in clock.rounds[i] for i in mutations[:-1])


async def test_a_proposal_keeps_each_rows_feedback_beside_its_reward() -> None:
    scored: list[Any] = []

    class Recording(synalinks.optimizers.RandomFewShot):
        async def keep_scored(self, step: int, variables: Any, proposals: Any, *rest: Any) -> None:
            scored.extend(proposals)
            await super().keep_scored(step, variables, proposals, *rest)

    x, y, _ = capitals(8)
    program = await build_program(synalinks.FakeLanguageModel(responder=wrong_student))
    program.compile(
        reward=synalinks.rewards.ExactMatch(in_mask=["answer"]), optimizer=Recording(seed=0)
    )
    await program.fit(x=x, y=y, batch_size=4, minibatch_size=2, epochs=1, verbose=0, seed=0)
    assert scored
    for proposal in scored:
        assert len(proposal.feedback) == len(proposal.rewards) > 0
        assert all(text.startswith("answer: expected ") for text in proposal.feedback)
