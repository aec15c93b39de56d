"""`Program.trace` (each module's input, output and error, in order) and `set_language_model`."""

from __future__ import annotations

from typing import Any

import pytest

import optimizer_core as synalinks
from optimizer_core.modules.module import TRACE
from optimizer_core.programs import Trace, TraceStep
from tests.support import Answer, Query


class Draft(synalinks.DataModel):
    draft: str


async def two_steps(lm: Any) -> synalinks.Program:
    inputs = synalinks.Input(data_model=Query)
    draft = await synalinks.Generator(data_model=Draft, language_model=lm, name="drafter")(inputs)
    answer = await synalinks.Generator(data_model=Answer, language_model=lm, name="finisher")(draft)
    return synalinks.Program(inputs=inputs, outputs=answer)


async def test_trace_reports_each_module_in_the_order_they_ran() -> None:
    lm = synalinks.FakeLanguageModel(responses=[{"draft": "Paris?"}, {"answer": "Paris"}])
    program = await two_steps(lm)

    trace = await program.trace({"query": "Capital of France?"})

    assert isinstance(trace, Trace)
    assert trace.output == Answer(answer="Paris")
    assert trace.steps == [
        TraceStep("drafter", {"query": "Capital of France?"}, {"draft": "Paris?"}, None),
        TraceStep("finisher", {"draft": "Paris?"}, {"answer": "Paris"}, None),
    ]
    assert trace.steps[0].as_json() == {
        "module": "drafter",
        "inputs": {"query": "Capital of France?"},
        "outputs": {"draft": "Paris?"},
        "error": None,
        "parent": None,
        "skipped": False,
        "taken": None,
    }
    assert TRACE.get() is None  # the caller's context is left as it was


async def test_a_failed_module_shows_its_error_and_the_modules_after_it_do_not_run() -> None:
    lm = synalinks.FakeLanguageModel(responses=["not json"], max_retries=0)
    program = await two_steps(lm)

    trace = await program.trace(Query(query="?"))

    assert trace.output is None
    step, after = trace.steps
    assert step.module == "drafter" and step.outputs is None and not step.skipped
    assert step.error is not None and "InvalidResponseError" in step.error
    assert after == TraceStep("finisher", None, None, None, skipped=True)
    assert len(lm.calls) == 1  # the finisher never called its model


async def test_trace_checks_the_input_like_a_call() -> None:
    program = await two_steps(synalinks.FakeLanguageModel(responses=[]))
    with pytest.raises(synalinks.exceptions.DataError, match="Query"):
        await program.trace({"question": "?"})


async def test_set_language_model_points_every_generator_at_the_model() -> None:
    designed = synalinks.FakeLanguageModel(responses=[])
    program = await two_steps(designed)
    chosen = synalinks.FakeLanguageModel(responses=[{"draft": "d"}, {"answer": "a"}])

    program.set_language_model(chosen)

    assert program.language_models == [chosen]
    assert all(
        module.language_model is chosen
        for module in program.modules
        if isinstance(module, synalinks.Generator)
    )
    assert await program({"query": "?"}) == Answer(answer="a")
    assert len(chosen.calls) == 2 and not designed.calls


async def test_set_language_model_leaves_the_optimizers_model_alone() -> None:
    program = await two_steps(synalinks.FakeLanguageModel(responses=[]))
    writer = synalinks.FakeLanguageModel(responses=[])
    program.compile(
        reward=synalinks.rewards.ExactMatch(),
        optimizer=synalinks.optimizers.OMEGA(
            language_model=writer, embedding_model=synalinks.FakeEmbeddingModel()
        ),
    )
    program.set_language_model(synalinks.FakeLanguageModel(responses=[]))
    assert program.optimizer.language_model is writer


async def test_set_language_model_needs_a_model() -> None:
    program = await two_steps(synalinks.FakeLanguageModel(responses=[]))
    with pytest.raises(ValueError, match="`language_model` is required"):
        program.set_language_model(None)
