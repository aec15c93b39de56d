"""One OMEGA training run, identical for optimizer_core and the reference library.

Run by each library's own interpreter::

    .venv/bin/python bench/omega/workload.py --lib optimizer_core --api-base URL
    bench/.venv-ref/bin/python bench/omega/workload.py --lib synalinks --api-base URL

It builds the training guide's program (``Input(Query) -> Generator(Answer)``),
compiles it with ``ExactMatch(in_mask=["answer"])`` and
``OMEGA(language_model=lm, embedding_model=em, population_size=N)``, fits it on
generated ``What is a+b?`` questions against the scripted server at
``--api-base`` (the same server answers the task, the optimizer and the
embeddings), and prints one JSON line: the wall and CPU time of
``await program.fit(...)``, the history, and what a callback saw at each epoch
boundary (its wall-clock time and the size of each variable's population). The
runner splits the server's requests into epochs with those times.

Only the guide's API is used (``DataModel``, ``LanguageModel``,
``EmbeddingModel``, ``Input``, ``Generator``, ``Program``, ``compile``, ``fit``,
``rewards.ExactMatch``, ``optimizers.OMEGA``, ``callbacks.Callback``), with the
library chosen by the import line. The population is read from the variables'
``best_candidates``, a key both libraries keep.

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
FIT_WORKLOAD = Path(__file__).resolve().parents[1] / "fit_overhead" / "workload.py"


def _load_fit_workload() -> ModuleType:
    """The fit-overhead workload, for its dataset and import helpers (one source for both)."""
    spec = importlib.util.spec_from_file_location("fit_overhead_workload", FIT_WORKLOAD)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


fit_workload = _load_fit_workload()


def population_sizes(program: Any) -> dict[str, int | None]:
    """``len(best_candidates)`` of each trainable variable (None where the key is missing)."""
    sizes: dict[str, int | None] = {}
    for variable in program.trainable_variables:
        try:
            population = variable.get("best_candidates")
        except Exception:  # a library without the key: report None
            population = None
        sizes[str(variable.name)] = None if population is None else len(population)
    return sizes


def best_instructions(program: Any) -> list[str | None]:
    """The ``instructions`` each trainable variable holds after fit (to see what was kept)."""
    found: list[str | None] = []
    for variable in program.trainable_variables:
        try:
            value = variable.get("instructions")
        except Exception:
            value = None
        found.append(None if value is None else str(value))
    return found


def make_clock(synalinks: Any, program: Any) -> Any:
    """A callback noting the wall-clock time and the population at each epoch boundary."""

    class EpochClock(synalinks.callbacks.Callback):
        def __init__(self) -> None:
            super().__init__()
            self.begins: list[float] = []
            self.ends: list[float] = []
            self.populations: list[dict[str, int | None]] = []

        def on_epoch_begin(self, epoch: int, logs: Any = None) -> None:
            self.begins.append(time.time())

        def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
            self.ends.append(time.time())
            self.populations.append(population_sizes(program))

    return EpochClock()


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
    embedding_model = synalinks.EmbeddingModel(model=args.embedding_model, api_base=args.api_base)
    inputs = synalinks.Input(data_model=Query)
    outputs = await synalinks.Generator(data_model=Answer, language_model=language_model)(inputs)
    program = synalinks.Program(
        inputs=inputs,
        outputs=outputs,
        name="addition",
        description="Answer addition questions",
    )
    program.compile(
        reward=synalinks.rewards.ExactMatch(in_mask=["answer"]),
        optimizer=synalinks.optimizers.OMEGA(
            language_model=language_model,
            embedding_model=embedding_model,
            population_size=args.population_size,
        ),
    )

    clock = make_clock(synalinks, program)
    fit_kwargs: dict[str, Any] = {
        "x": x,
        "y": y,
        "validation_split": args.validation_split,
        "epochs": args.epochs,
        "batch_size": args.batch_size,
        "callbacks": [clock],
    }
    if "verbose" in inspect.signature(program.fit).parameters:
        fit_kwargs["verbose"] = 0

    # One prediction before timing, as in the fit-overhead bench (lazy imports of
    # the first request stay out of fit); it lands before fit_start_unix.
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
        "population_size": args.population_size,
        "fit_wall_s": wall_s,
        "fit_cpu_s": cpu_s,
        "fit_start_unix": start_unix,
        "fit_end_unix": end_unix,
        "epoch_begin_unix": clock.begins,
        "epoch_end_unix": clock.ends,
        "population_per_epoch": clock.populations,
        "final_population": population_sizes(program),
        "final_instructions": best_instructions(program),
        "history": {str(k): fit_workload._floats(v) for k, v in dict(logs).items()},
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--lib", required=True, choices=LIBRARIES)
    parser.add_argument("--api-base", required=True, help="the scripted server, ending in /v1")
    parser.add_argument("--model", default="openai/scripted")
    parser.add_argument("--embedding-model", default="openai/scripted-embedding")
    parser.add_argument("--population-size", type=int, default=10)
    parser.add_argument("--rows", type=int, default=40)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--validation-split", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=7)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    fit_workload.run_and_report(train, parse_args(argv), warmup_requests=1)


if __name__ == "__main__":
    main()
