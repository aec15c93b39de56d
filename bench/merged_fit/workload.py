"""One training run of a three-module program, identical for optimizer_core and the reference.

Run by each library's own interpreter::

    .venv/bin/python bench/merged_fit/workload.py --lib optimizer_core --api-base URL
    bench/.venv-ref/bin/python bench/merged_fit/workload.py --lib synalinks --api-base URL

The program is ``Input(Query) -> Generator(Draft) -> Generator(Answer)`` where the
last Generator reads both the question and the draft: ``x0 + x1``, the
concatenation operator both libraries have (the same source line on both sides;
optimizer_core would also take ``Generator(...)([x0, x1])``). It is compiled with
``ExactMatch(in_mask=["answer"])`` and ``RandomFewShot``, fitted on generated
``What is a+b?`` questions against the scripted server at ``--api-base``
(`bench/fit_overhead/responder.py`: the answer is right more often with more
few-shot examples; the draft is a filler sentence), and the script prints one
JSON line: the wall and CPU time of ``await program.fit(...)`` and the history.

This file must stay valid on Python 3.11 (optimizer_core) and 3.12 (synalinks),
and imports nothing from ``bench`` (it runs in the reference venv too).
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import os
import time
from pathlib import Path
from types import ModuleType
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("OPENAI_API_KEY", "sk-bench-scripted")

BENCH = Path(__file__).resolve().parents[1]


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The dataset, the argument parser and the report come from the fit-overhead workload.
fit_workload = _load(BENCH / "fit_overhead" / "workload.py", "fit_overhead_workload")


async def train(synalinks: Any, args: argparse.Namespace) -> dict[str, Any]:
    import numpy as np

    class Query(synalinks.DataModel):
        query: str

    class Draft(synalinks.DataModel):
        draft: str

    class Answer(synalinks.DataModel):
        answer: str

    problems = fit_workload.make_dataset(args.rows, args.seed)
    x = np.array([Query(query=f"What is {a}+{b}?") for a, b in problems], dtype="object")
    y = np.array([Answer(answer=str(a + b)) for a, b in problems], dtype="object")

    language_model = synalinks.LanguageModel(model=args.model, api_base=args.api_base)
    x0 = synalinks.Input(data_model=Query)
    x1 = await synalinks.Generator(data_model=Draft, language_model=language_model)(x0)
    x2 = await synalinks.Generator(data_model=Answer, language_model=language_model)(x0 + x1)
    program = synalinks.Program(
        inputs=x0, outputs=x2, name="draft_then_answer",
        description="Draft, then answer addition questions with the draft in view",
    )  # fmt: skip
    program.compile(
        reward=synalinks.rewards.ExactMatch(in_mask=["answer"]),
        optimizer=synalinks.optimizers.RandomFewShot(
            nb_min_examples=args.min_examples, nb_max_examples=args.max_examples
        ),
    )
    fit_kwargs: dict[str, Any] = {
        "x": x,
        "y": y,
        "validation_split": args.validation_split,
        "epochs": args.epochs,
        "batch_size": args.batch_size,
    }
    if "verbose" in inspect.signature(program.fit).parameters:
        fit_kwargs["verbose"] = 0
    # One warm-up prediction (two requests), as in bench/fit_overhead.
    predict_kwargs: dict[str, Any] = {"x": x[:1]}
    if "verbose" in inspect.signature(program.predict).parameters:
        predict_kwargs["verbose"] = 0
    await program.predict(**predict_kwargs)

    start_unix = time.time()
    wall_start = time.perf_counter()
    cpu_start = time.process_time()
    history = await program.fit(**fit_kwargs)
    cpu_s = time.process_time() - cpu_start
    wall_s = time.perf_counter() - wall_start
    logs = getattr(history, "history", history)
    return {
        "warmup_requests": 2,
        "fit_wall_s": wall_s,
        "fit_cpu_s": cpu_s,
        "fit_start_unix": start_unix,
        "fit_end_unix": time.time(),
        "history": {str(k): fit_workload._floats(v) for k, v in dict(logs).items()},
    }


def main(argv: list[str] | None = None) -> None:
    fit_workload.run_and_report(train, fit_workload.parse_args(argv))


if __name__ == "__main__":
    main()
