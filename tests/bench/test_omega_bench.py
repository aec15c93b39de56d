"""Smoke tests of the OMEGA benchmark (bench/omega: responder.py, run.py).

The responder must tell the task's requests from the optimizer's in both
libraries' shapes (optimizer_core sends JSON, the reference library Python dict
reprs) and answer each; the runner must put each request in the right epoch.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import pytest

from bench.common import reference
from bench.omega import responder
from bench.omega import run as runner

ANSWER_SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string"}},
    "required": ["answer"],
}
VARIABLE_SCHEMA = {
    "type": "object",
    "properties": {
        "thinking": {"type": "string"},
        "instructions": {"anyOf": [{"type": "string"}, {"type": "null"}]},
    },
    "required": ["thinking", "instructions"],
}


def request(system: str, user: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "structured_output", "schema": schema},
        },
    }


def task(question: str, instructions: str, *, reference: bool = False) -> dict[str, Any]:
    user = str({"query": question}) if reference else json.dumps({"query": question})
    return request(f"<instructions>\n{instructions}\n</instructions>", user, ANSWER_SCHEMA)


def optimizer_request(
    current: str, other: str | None = None, *, reference: bool = False
) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "program_description": "Answer addition questions",
        "bad_predictions": [
            {"inputs": {"query": "What is 12+56?"}, "ground_truth": {"answer": "68"}, "reward": 0}
        ],
        "current_variable": {"instructions": current},
    }
    if other is not None:
        fields["other_variable"] = {"instructions": other}
    user = str(fields) if reference else json.dumps(fields)
    return request("Improve the variable.", user, VARIABLE_SCHEMA)


def with_markers(level: int) -> str:
    return " ".join(["Answer.", *responder.MARKERS[:level]])


@pytest.mark.parametrize("reference", [False, True])
def test_request_kinds_are_told_apart_in_both_shapes(reference: bool) -> None:
    assert responder.request_kind(task("What is 1+2?", "Answer.", reference=reference)) == "task"
    mutation = optimizer_request("Answer.", reference=reference)
    crossover = optimizer_request("Answer.", "Answer well.", reference=reference)
    assert responder.request_kind(mutation) == "mutation"
    assert responder.request_kind(crossover) == "crossover"


def test_better_instructions_make_the_task_model_right_more_often() -> None:
    pairs = [(a, b) for a in range(1, 60) for b in range(1, 60)]
    wrong = [p for p in pairs if responder.fit.question_draw(*p) >= responder.task_accuracy(0, 0)]
    wrong = wrong[:40]

    def right(level: int) -> int:
        answers = [
            responder.respond(task(f"What is {a}+{b}?", with_markers(level)))["answer"]
            for a, b in wrong
        ]
        return sum(answer == str(a + b) for answer, (a, b) in zip(answers, wrong, strict=True))

    assert right(0) == 0
    assert right(2) < right(4)
    assert right(4) >= 30


@pytest.mark.parametrize("reference", [False, True])
def test_optimizer_answers_fill_the_schema_with_a_nearby_unique_variant(reference: bool) -> None:
    answers = [
        responder.respond(optimizer_request(with_markers(2) + f" v{i}", reference=reference))
        for i in range(40)
    ]
    assert all(set(a) == {"thinking", "instructions"} for a in answers)
    levels = [responder.level_of(a["instructions"]) for a in answers]
    assert set(levels) == {1, 2, 3}
    assert len({a["instructions"] for a in answers}) == 40


def test_crossover_starts_from_the_better_parent() -> None:
    answers = [
        responder.respond(optimizer_request(with_markers(1) + f" v{i}", with_markers(3)))
        for i in range(40)
    ]
    assert {responder.level_of(a["instructions"]) for a in answers} == {2, 3, 4}


def test_requests_are_counted_in_the_epoch_they_arrive_in() -> None:
    trace = runner.Trace(lambda request: {})
    trace.chats = [
        (0.5, "task"),  # warm-up, before fit
        (1.5, "task"),
        (1.6, "mutation"),
        (2.0, "task"),  # exactly at the end of epoch 1: still epoch 1
        (2.5, "crossover"),
        (2.6, "mutation"),
        (3.5, "task"),  # after the last epoch
    ]
    trace.embeddings = [(1.9, ("a", "b")), (2.9, ("a",)), (2.95, ("a", "c"))]
    counts = runner.count_requests(trace, 1.0, [2.0, 3.0])
    assert counts["task_calls"] == [2, 0]
    assert counts["mutation_calls"] == [1, 1]
    assert counts["crossover_calls"] == [0, 1]
    assert counts["optimizer_calls"] == [1, 2]
    assert counts["embedding_requests"] == [1, 2]
    assert counts["embedded_texts"] == [2, 3]
    assert counts["distinct_embedded_texts"] == [2, 2]
    assert counts["distinct_embedded_texts_in_run"] == 3
    assert (counts["chat_before_fit"], counts["chat_after_last_epoch"]) == (1, 1)


def test_table_puts_per_epoch_series_side_by_side() -> None:
    def run(lib: str, tasks: list[int], fit_s: float) -> dict[str, Any]:
        return {
            "lib": lib,
            "population_size": 10,
            "task_calls": tasks,
            "optimizer_calls": [2, 2],
            "crossover_calls": [0, 1],
            "embedding_requests": [1, 1],
            "embedded_texts": [3, 4],
            "distinct_embedded_texts": [3, 4],
            "population_per_epoch": [{"v": 2}, {"v": 4}],
            "final_population": {"v": 4},
            "fit_wall_s": fit_s,
            "history": {"reward": [0.5, 0.75], "val_reward": [0.5, 1.0]},
        }

    runs = [
        run("optimizer_core", [10, 10], 1.0),
        run("synalinks", [10, 30], 4.0),
        {"lib": "synalinks", "population_size": 10, "error": "crashed"},
    ]
    rows = {row["metric"]: row for row in runner.build_table(runs, [10])}
    tasks = rows["task LM calls per epoch"]
    assert (tasks["optimizer_core"], tasks["synalinks"]) == ([10, 10], [10, 30])
    assert tasks["ratio"] == pytest.approx(0.5)
    assert rows["population at epoch end"]["optimizer_core"] == [2, 4]
    assert rows["fit wall time @ 0 ms"]["ratio"] == pytest.approx(0.25)
    text = runner.format_table(list(rows.values()))
    assert "10/30 = 40" in text


def _smoke_args() -> argparse.Namespace:
    args: argparse.Namespace = runner.parse_args(
        ["--rows", "10", "--epochs", "2", "--batch-size", "4", "--timeout", "120"]
    )
    return args


@pytest.mark.litellm
@pytest.mark.parametrize(
    "lib", ["optimizer_core", pytest.param("synalinks", marks=pytest.mark.slow)]
)
def test_omega_workload_trains_against_the_scripted_server(lib: str) -> None:
    python = reference.interpreter(lib)
    if not python.exists():
        pytest.skip(f"{python} is missing: run bench/common/setup_reference.sh")
    result = runner.run_one(lib, 2, _smoke_args())
    assert "error" not in result, result.get("stderr_tail")
    assert result["lib"] == lib
    assert len(result["epoch_end_unix"]) == 2
    # 8 training rows in batches of 4: two steps, one proposal each, per epoch.
    assert result["optimizer_calls"] == [2, 2]
    assert all(calls >= 4 for calls in result["task_calls"])
    assert result["chat_before_fit"] == 1  # the warm-up prediction
    assert sum(result["embedding_requests"]) >= 1
    assert sum(result["embedding_requests"]) == result["server_embedding_requests"]
    assert result["final_population"] and all(
        size is not None and 1 <= size <= 2 for size in result["final_population"].values()
    )
