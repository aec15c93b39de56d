"""Smoke tests of the fit-overhead benchmark (bench/fit_overhead): responder, workload, runner.

The responder must read both libraries' request shapes: optimizer_core sends the
input as JSON, the reference library as a Python dict repr, with its few-shot
examples inside ``<example>`` tags of the system prompt. The samples below are
the shapes each library was seen to send.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from bench.common.reference import interpreter, workload_env
from bench.fit_overhead import responder
from bench.fit_overhead import run as runner

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"

ANSWER_FORMAT = {
    "type": "json_schema",
    "json_schema": {
        "name": "Answer",
        "schema": {
            "type": "object",
            "properties": {"answer": {"type": "string"}},
            "required": ["answer"],
        },
    },
}


def ours(question: str, examples: list[tuple[str, str]] = ()) -> dict[str, Any]:
    shots = "".join(
        f"\nInput: {json.dumps({'query': q})}\nOutput: {json.dumps({'answer': a})}"
        for q, a in examples
    )
    return {
        "messages": [
            {"role": "system", "content": "Answer with a JSON." + shots},
            {"role": "user", "content": json.dumps({"query": question})},
        ],
        "response_format": ANSWER_FORMAT,
    }


def reference(question: str, examples: list[tuple[str, str]] = ()) -> dict[str, Any]:
    shots = "".join(
        f"<example>\n{ {'query': q} }\n{ {'answer': a} }\n</example>\n" for q, a in examples
    )
    system = "<instructions>\nkeys: ['answer']\n</instructions>\n"
    if shots:
        system += f"<examples>\n{shots}</examples>"
    return {
        "messages": [
            {"role": "system", "content": system},
            {"role": "user", "content": str({"query": question})},
        ],
        "response_format": {
            "type": "json_schema",
            "json_schema": {
                "name": "structured_output",
                "strict": True,
                **ANSWER_FORMAT["json_schema"],
            },
        },
    }


def questions_wrong_without_examples(count: int) -> list[tuple[int, int]]:
    pairs = [(a, b) for a in range(1, 99) for b in range(1, 99)]
    wrong = [p for p in pairs if responder.question_draw(*p) >= responder.accuracy(0)]
    return wrong[:count]


@pytest.mark.parametrize("shape", [ours, reference])
def test_responder_reads_the_question_and_counts_the_examples(shape: Any) -> None:
    request = shape("What is 12+30?", [("What is 1+2?", "3"), ("What is 4+5?", "9")])
    assert responder.question_in(request) == (12, 30)
    assert responder.examples_in(request) == 2
    assert responder.examples_in(shape("What is 12+30?")) == 0


@pytest.mark.parametrize("shape", [ours, reference])
def test_examples_make_the_scripted_model_right_more_often(shape: Any) -> None:
    pairs = questions_wrong_without_examples(20)
    shots = [("What is 1+2?", "3"), ("What is 4+5?", "9"), ("What is 6+7?", "13")]
    before = [responder.respond(shape(f"What is {a}+{b}?"))["answer"] for a, b in pairs]
    after = [responder.respond(shape(f"What is {a}+{b}?", shots))["answer"] for a, b in pairs]
    assert all(answer != str(a + b) for answer, (a, b) in zip(before, pairs, strict=True))
    right_after = sum(answer == str(a + b) for answer, (a, b) in zip(after, pairs, strict=True))
    assert right_after >= 15


def test_responder_answers_with_the_schema_keys_and_types() -> None:
    request = ours("What is 2+2?", [("What is 1+1?", "2")] * 4)
    request["response_format"]["json_schema"]["schema"]["properties"] = {
        "thinking": {"type": "string"},
        "answer": {"type": "integer"},
    }
    answer = responder.respond(request)
    assert set(answer) == {"thinking", "answer"}
    assert answer["answer"] == 4
    assert isinstance(answer["thinking"], str)


def test_responder_without_a_schema_answers_an_answer_key() -> None:
    request = ours("What is 2+2?")
    del request["response_format"]
    assert set(responder.respond(request)) == {"answer"}


def test_table_ratio_and_target() -> None:
    def run(lib: str, latency: float, wall: float, cpu_ms: float) -> dict[str, Any]:
        return {
            "lib": lib,
            "latency_s": latency,
            "fit_wall_s": wall,
            "cpu_per_call_ms": cpu_ms,
            "lm_calls": 100,
        }

    runs = [
        run("optimizer_core", 0.1, 2.0, 1.0),
        run("synalinks", 0.1, 8.0, 10.0),
        {"lib": "optimizer_core", "latency_s": 0.1, "error": "crashed"},
    ]
    rows = {row["metric"]: row for row in runner.build_table(runs, [0.1])}
    wall = rows["fit wall time @ 100 ms"]
    assert (wall["optimizer_core"], wall["synalinks"], wall["ratio"]) == (2.0, 8.0, 0.25)
    assert wall["meets_target"] is True
    cpu = rows["client CPU per LM call @ 100 ms"]
    assert cpu["ratio"] == pytest.approx(0.1)
    assert cpu["meets_target"] is True


def _run_workload(python: Path, lib: str, base_url: str) -> dict[str, Any]:
    done = subprocess.run(
        [
            str(python),
            str(BENCH / "fit_overhead" / "workload.py"),
            "--lib",
            lib,
            "--api-base",
            base_url,
            "--rows",
            "10",
            "--epochs",
            "1",
            "--batch-size",
            "4",
        ],
        capture_output=True,
        text=True,
        env=workload_env(lib),
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.litellm
@pytest.mark.parametrize(
    "lib", ["optimizer_core", pytest.param("synalinks", marks=pytest.mark.slow)]
)
def test_workload_trains_against_the_scripted_server(lib: str) -> None:
    python = interpreter(lib)
    if not python.exists():
        pytest.skip(f"{python} is missing: run bench/common/setup_reference.sh")
    from optimizer_core.testing.scripted_server import ScriptedServer

    with ScriptedServer(responder.respond) as server:
        result = _run_workload(python, lib, server.base_url)
        calls = server.stats.chat_requests
    assert result["lib"] == lib
    assert result["fit_wall_s"] > 0 and result["fit_cpu_s"] > 0
    assert calls >= 8  # the 8 training rows at least
    assert len(result["history"]["val_reward"]) == 1
