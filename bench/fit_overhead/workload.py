"""One training run, identical for optimizer_core and the reference library.

Run by each library's own interpreter::

    .venv/bin/python bench/fit_overhead/workload.py --lib optimizer_core --api-base URL
    bench/.venv-ref/bin/python bench/fit_overhead/workload.py --lib synalinks --api-base URL

It builds the training guide's program (``Input(Query) -> Generator(Answer)``
with the functional API), compiles it with ``ExactMatch(in_mask=["answer"])``
and ``RandomFewShot``, fits it on generated ``What is a+b?`` questions against
the scripted server at ``--api-base``, and prints one JSON line: the wall time
and the process CPU time of ``await program.fit(...)``, the import time, and the
history. Only the guide's public API is used, with the library chosen by the
import line, so the same code runs on both.

This file must stay valid on Python 3.11 (optimizer_core) and 3.12 (synalinks).
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import os
import platform
import random
import sys
import time
from typing import Any

# Keep litellm off the network: no model-price download at import. The key is
# never checked by the scripted server but the OpenAI client wants one.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("OPENAI_API_KEY", "sk-bench-scripted")

LIBRARIES = ("optimizer_core", "synalinks")


def make_dataset(rows: int, seed: int) -> list[tuple[int, int]]:
    """``rows`` distinct addition problems ``(a, b)``, the same for every run with ``seed``."""
    rng = random.Random(seed)
    seen: set[tuple[int, int]] = set()
    problems: list[tuple[int, int]] = []
    while len(problems) < rows:
        pair = (rng.randint(1, 99), rng.randint(1, 99))
        if pair not in seen:
            seen.add(pair)
            problems.append(pair)
    return problems


def import_library(name: str) -> Any:
    if name == "optimizer_core":
        import optimizer_core as synalinks
    elif name == "synalinks":
        import synalinks
    else:
        raise ValueError(f"`--lib` must be one of {LIBRARIES}, got {name!r}")
    return synalinks


def library_version(name: str) -> str:
    from importlib import metadata

    for dist in (name, "studio") if name == "optimizer_core" else (name,):
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    return "unknown"


def _floats(values: Any) -> list[float | None]:
    out: list[float | None] = []
    for value in values:
        try:
            out.append(float(value))
        except (TypeError, ValueError):
            out.append(None)
    return out


async def train(synalinks: Any, args: argparse.Namespace) -> dict[str, Any]:
    import numpy as np

    class Query(synalinks.DataModel):
        query: str

    class Answer(synalinks.DataModel):
        answer: str

    problems = make_dataset(args.rows, args.seed)
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
    program.compile(
        reward=synalinks.rewards.ExactMatch(in_mask=["answer"]),
        optimizer=synalinks.optimizers.RandomFewShot(
            nb_min_examples=args.min_examples,
            nb_max_examples=args.max_examples,
        ),
    )

    fit_kwargs: dict[str, Any] = {
        "x": x,
        "y": y,
        "validation_split": args.validation_split,
        "epochs": args.epochs,
        "batch_size": args.batch_size,
    }
    # Not in the guide's fit() signature; pass it only where it exists so the
    # reference library's progress bar does not pollute stdout.
    if "verbose" in inspect.signature(program.fit).parameters:
        fit_kwargs["verbose"] = 0

    # Warm up both libraries the same way: one prediction before timing, so the
    # one-time lazy imports of the first request (the OpenAI SDK's resources,
    # about 0.45 s of CPU on either side) stay out of the per-call figures.
    predict_kwargs: dict[str, Any] = {"x": x[:1]}
    if "verbose" in inspect.signature(program.predict).parameters:
        predict_kwargs["verbose"] = 0
    await program.predict(**predict_kwargs)
    warmup_requests = 1

    start_unix = time.time()
    wall_start = time.perf_counter()
    cpu_start = time.process_time()
    history = await program.fit(**fit_kwargs)
    cpu_s = time.process_time() - cpu_start
    wall_s = time.perf_counter() - wall_start
    end_unix = time.time()

    logs = getattr(history, "history", history)
    history_json = {str(key): _floats(values) for key, values in dict(logs).items()}
    return {
        "warmup_requests": warmup_requests,
        "fit_wall_s": wall_s,
        "fit_cpu_s": cpu_s,
        "fit_start_unix": start_unix,
        "fit_end_unix": end_unix,
        "history": history_json,
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lib", required=True, choices=LIBRARIES)
    parser.add_argument("--api-base", required=True, help="the scripted server, ending in /v1")
    parser.add_argument("--model", default="openai/scripted")
    parser.add_argument("--rows", type=int, default=50)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--validation-split", type=float, default=0.2)
    parser.add_argument("--min-examples", type=int, default=1)
    parser.add_argument("--max-examples", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    return parser.parse_args(argv)


def run_and_report(train: Any, args: argparse.Namespace, **extra: Any) -> None:
    """Seed, import the library (timed), run ``train(synalinks, args)``, print its result.

    The result goes to stdout as one JSON line, with the library, its version, the
    Python version, the import times and `extra`. The workloads of bench/omega and
    bench/training_cost end with it too.
    """
    # Seed the global generators: the reference library draws examples and
    # validation minibatches from numpy's. (Runs still vary a little.)
    random.seed(args.seed)
    import_start = time.perf_counter()
    synalinks = import_library(args.lib)
    library_import_s = time.perf_counter() - import_start
    # litellm takes seconds to import. The reference library imports it with
    # itself; optimizer_core imports it on the first LM call, inside fit. Import
    # it here for both, so fit's wall and CPU time hold the per-call work only
    # and the one-time start-up cost shows in `import_s` on both sides.
    import litellm  # noqa: F401

    import_s = time.perf_counter() - import_start
    import numpy as np

    np.random.seed(args.seed)

    result = asyncio.run(train(synalinks, args))
    result.update(
        {
            "lib": args.lib,
            "version": library_version(args.lib),
            "python": platform.python_version(),
            "import_s": import_s,
            "library_import_s": library_import_s,
            **extra,
        }
    )
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> None:
    run_and_report(train, parse_args(argv))


if __name__ == "__main__":
    main()
