"""One training run, RandomFewShot or OMEGA, identical for optimizer_core and the reference.

Run by each library's own interpreter::

    .venv/bin/python bench/training_cost/workload.py --lib optimizer_core --api-base URL \
        --optimizer omega
    bench/.venv-ref/bin/python bench/training_cost/workload.py --lib synalinks --api-base URL

It builds the training guide's program (``Input(Query) -> Generator(Answer)``),
compiles it with ``ExactMatch(in_mask=["answer"])`` and ``RandomFewShot()`` or
``OMEGA(language_model=lm, embedding_model=em)`` (every optimizer argument at
the library's default), fits it on generated ``What is a+b?`` questions against
the scripted server at ``--api-base`` and prints one JSON line: the wall and CPU
time of ``await program.fit(...)``, the history, and the wall-clock time of
each epoch's end (a callback notes it), with which the runner splits the
server's requests into epochs. `fit` gets only the guide's arguments
(``validation_split``, ``epochs``, ``batch_size``), each library's defaults
otherwise; ``--minibatch-size`` passes ``minibatch_size`` too (both libraries
have it).

This file must stay valid on Python 3.11 (optimizer_core) and 3.12 (synalinks).
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

LIBRARIES = ("optimizer_core", "synalinks")
OPTIMIZERS = ("random_few_shot", "omega")
BENCH = Path(__file__).resolve().parents[1]


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# One source for the dataset, the import helpers and the epoch clock (no `bench` import:
# this file also runs in the reference venv).
fit_workload = _load(BENCH / "fit_overhead" / "workload.py", "fit_overhead_workload")
omega_workload = _load(BENCH / "omega" / "workload.py", "omega_workload")


async def train(synalinks: Any, args: argparse.Namespace) -> dict[str, Any]:
    import numpy as np

    class Query(synalinks.DataModel):
        query: str

    class Answer(synalinks.DataModel):
        answer: str

    problems = fit_workload.make_dataset(args.rows, args.seed)
    x = np.array([Query(query=f"What is {a}+{b}?") for a, b in problems], dtype="object")
    y = np.array([Answer(answer=str(a + b)) for a, b in problems], dtype="object")

    language_model = synalinks.LanguageModel(model=args.model, api_base=args.api_base)
    inputs = synalinks.Input(data_model=Query)
    outputs = await synalinks.Generator(data_model=Answer, language_model=language_model)(inputs)
    program = synalinks.Program(
        inputs=inputs,
        outputs=outputs,
        name="addition",
        description="Answer addition questions",
    )
    if args.optimizer == "omega":
        embedding_model = synalinks.EmbeddingModel(
            model=args.embedding_model, api_base=args.api_base
        )
        optimizer = synalinks.optimizers.OMEGA(
            language_model=language_model, embedding_model=embedding_model
        )
    else:
        optimizer = synalinks.optimizers.RandomFewShot()
    program.compile(reward=synalinks.rewards.ExactMatch(in_mask=["answer"]), optimizer=optimizer)

    clock = omega_workload.make_clock(synalinks, program)
    fit_kwargs: dict[str, Any] = {
        "x": x,
        "y": y,
        "validation_split": args.validation_split,
        "epochs": args.epochs,
        "batch_size": args.batch_size,
        "callbacks": [clock],
    }
    parameters = inspect.signature(program.fit).parameters
    if "verbose" in parameters:
        fit_kwargs["verbose"] = 0
    if args.minibatch_size is not None and "minibatch_size" in parameters:
        fit_kwargs["minibatch_size"] = args.minibatch_size

    # One prediction before timing, as in the other benches: the first request's
    # lazy imports stay out of fit; it lands before fit_start_unix.
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
    end_unix = time.time()

    logs = getattr(history, "history", history)
    return {
        "optimizer": args.optimizer,
        "fit_wall_s": wall_s,
        "fit_cpu_s": cpu_s,
        "fit_start_unix": start_unix,
        "fit_end_unix": end_unix,
        "epoch_end_unix": clock.ends,
        "population_per_epoch": clock.populations,
        "history": {str(k): fit_workload._floats(v) for k, v in dict(logs).items()},
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--lib", required=True, choices=LIBRARIES)
    parser.add_argument("--api-base", required=True, help="the scripted server, ending in /v1")
    parser.add_argument("--optimizer", choices=OPTIMIZERS, default="random_few_shot")
    parser.add_argument("--model", default="openai/scripted")
    parser.add_argument("--embedding-model", default="openai/scripted-embedding")
    parser.add_argument("--rows", type=int, default=40)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--validation-split", type=float, default=0.2)
    parser.add_argument("--minibatch-size", type=int, default=None)
    parser.add_argument("--seed", type=int, default=7)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    fit_workload.run_and_report(train, parse_args(argv), warmup_requests=1)


if __name__ == "__main__":
    main()
