"""`evaluate(..., return_examples=True)`: the usual figures and each row's result, in row order."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import optimizer_core as synalinks
from optimizer_core.programs import EvaluatedExample, Evaluation
from tests.support import Answer, Query, build_program, capitals


def compiled(program: synalinks.Program) -> synalinks.Program:
    program.compile(
        reward=synalinks.rewards.ExactMatch(in_mask=["answer"]),
        metrics=[synalinks.metrics.F1Score(in_mask=["answer"])],
    )
    return program


def asked(messages: list[dict[str, str]]) -> str:
    return str(json.loads(messages[-1]["content"])["query"])


async def test_the_default_return_is_still_the_figures_alone() -> None:
    x, y, student = capitals(6)
    program = compiled(await build_program(synalinks.FakeLanguageModel(responder=student)))
    logs = await program.evaluate(x, y, verbose=0)
    assert isinstance(logs, dict) and set(logs) == {"reward", "f1_score"}


async def test_examples_come_in_row_order_whatever_order_the_rows_finish_in() -> None:
    x, y, student = capitals(8)
    # The first rows answer last: row order must not follow completion order.
    delays = {row.query: 0.04 - 0.005 * i for i, row in enumerate(x)}

    async def slow_student(messages: list[dict[str, str]], schema: Any) -> Any:
        await asyncio.sleep(delays[asked(messages)])
        return student(messages, schema)

    program = compiled(await build_program(synalinks.FakeLanguageModel(responder=slow_student)))
    result = await program.evaluate(x, y, batch_size=8, verbose=0, return_examples=True)
    logs = await program.evaluate(x, y, batch_size=8, verbose=0)

    assert isinstance(result, Evaluation)
    assert result.logs == logs
    assert [e.input for e in result.examples] == [row.get_json() for row in x]
    assert [e.expected for e in result.examples] == [row.get_json() for row in y]
    for example in result.examples:
        assert isinstance(example, EvaluatedExample) and example.error is None
        right = example.output == example.expected
        assert example.reward == (1.0 if right else 0.0)
    assert result.rewards == [e.reward for e in result.examples]
    assert sum(result.rewards) / len(result.rewards) == logs["reward"]


async def test_failed_rows_score_zero_with_no_output_and_their_error() -> None:
    x, y, student = capitals(6)
    failing = {x[1].query, x[4].query}

    def flaky(messages: list[dict[str, str]], schema: Any) -> Any:
        return "not json" if asked(messages) in failing else student(messages, schema)

    lm = synalinks.FakeLanguageModel(responder=flaky, max_retries=0)
    program = compiled(await build_program(lm))
    result = await program.evaluate(x, y, batch_size=4, verbose=0, return_examples=True)

    assert result.logs["failures"] == 2 and result.failures == 2
    assert len(result.examples) == len(x)
    for index, example in enumerate(result.examples):
        if index in (1, 4):
            assert example.output is None and example.reward == 0.0
            assert example.error is not None and "InvalidResponseError" in example.error
        else:
            assert example.output is not None and example.error is None
    assert result.rewards[1] == result.rewards[4] == 0.0


async def test_rows_are_reported_as_they_were_given() -> None:
    program = compiled(
        await build_program(synalinks.FakeLanguageModel(responses=[{"answer": "Paris"}]))
    )
    result = await program.evaluate(
        [{"query": "Capital of France?"}],
        [{"answer": "Paris"}],
        verbose=0,
        return_examples=True,
    )
    [example] = result.examples
    [generator] = program.modules[1:]
    assert example.as_json() == {
        "input": {"query": "Capital of France?"},
        "expected": {"answer": "Paris"},
        "output": {"answer": "Paris"},
        "feedback": None,
        "reward": 1.0,
        "error": None,
        "trace": [
            {
                "module": generator.name,
                "inputs": {"query": "Capital of France?"},
                "outputs": {"answer": "Paris"},
                "error": None,
                "parent": None,
                "skipped": False,
                "taken": None,
            }
        ],
    }
    assert Query.model_validate(example.input) and Answer.model_validate(example.output)


async def test_the_rewards_feed_a_paired_comparison() -> None:
    x, y, student = capitals(10)
    program = compiled(await build_program(synalinks.FakeLanguageModel(responder=student)))
    before = await program.evaluate(x, y, verbose=0, return_examples=True)
    after = await program.evaluate(x, y, verbose=0, return_examples=True)
    comparison = synalinks.stats.compare_paired(before.rewards, after.rewards)
    assert comparison.verdict == "no detectable change"
