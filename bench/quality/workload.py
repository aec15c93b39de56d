"""One quality run, identical for optimizer_core and the reference library.

Run by each library's own interpreter (the runner `run.py` does it)::

    .venv/bin/python bench/quality/workload.py --lib optimizer_core --api-base URL ...
    bench/.venv-ref/bin/python bench/quality/workload.py --lib synalinks --api-base URL ...

Builds ``Input -> Generator`` for the task with the guide's API, evaluates it
``--evals`` times on the test subset, fits it with the optimizer, evaluates it
``--evals`` times again, and prints one JSON line. The data are read here from
the CSV / JSONL files, so both libraries get the same rows. Valid on Python
3.11 and 3.12. No ``from __future__ import annotations``: the data models are
built inside a function with a ``Literal`` of the chosen intents.
"""

import argparse
import asyncio
import csv
import inspect
import json
import os
import random
import re
import sys
import time
from pathlib import Path
from typing import Any, Literal

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("OPENAI_API_KEY", "sk-local-no-key")

INTENTS = ["card_arrival", "lost_or_stolen_card", "exchange_rate", "top_up_failed"]


def read_banking(data: Path, split: str, limit: int) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    with open(data / "banking77" / f"{split}.csv", newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if row["category"] in INTENTS:
                rows.append((row["text"], row["category"]))
    # Round-robin over the intents so a small subset holds all of them.
    by_intent = {intent: [r for r in rows if r[1] == intent] for intent in INTENTS}
    mixed: list[tuple[str, str]] = []
    for i in range(max(len(v) for v in by_intent.values())):
        for intent in INTENTS:
            if i < len(by_intent[intent]):
                mixed.append(by_intent[intent][i])
    return mixed[:limit]


def read_gsm8k(data: Path, split: str, limit: int) -> list[tuple[str, str, float]]:
    rows: list[tuple[str, str, float]] = []
    with open(data / "gsm8k" / f"{split}.jsonl", encoding="utf-8") as handle:
        for line in handle:
            item = json.loads(line)
            thinking, _, answer = item["answer"].partition("####")
            thinking = re.sub(r"<<[^<>]*>>", "", thinking).strip()
            rows.append((item["question"], thinking, float(answer.strip().replace(",", ""))))
            if len(rows) >= limit:
                break
    return rows


def build_task(lib: Any, args: argparse.Namespace) -> tuple[Any, ...]:
    import numpy as np
    from pydantic import Field

    data = Path(args.data_dir)
    if args.task == "banking77":
        intent_type = Literal[tuple(INTENTS)]  # type: ignore[valid-type]

        class BankingQuery(lib.DataModel):
            """A customer's message to an online bank."""

            text: str = Field(description="The customer's message")

        class BankingIntent(lib.DataModel):
            """The intent of the customer's message."""

            intent: intent_type = Field(description="The intent of the message")  # type: ignore

        def to_arrays(rows: list[tuple[str, str]]) -> tuple[Any, Any]:
            x = np.array([BankingQuery(text=t) for t, _ in rows], dtype="object")
            y = np.array([BankingIntent(intent=c) for _, c in rows], dtype="object")
            return x, y

        train = to_arrays(read_banking(data, "train", args.train))
        test = to_arrays(read_banking(data, "test", args.test))
        return BankingQuery, BankingIntent, "intent", train, test

    class MathQuestion(lib.DataModel):
        """A maths word problem."""

        question: str = Field(description="The maths word problem to solve")

    class NumericalAnswerWithThinking(lib.DataModel):
        """Step-by-step reasoning followed by the numerical answer."""

        thinking: str = Field(description="Your step by step thinking")
        answer: float = Field(description="The numerical answer")

    def math_arrays(rows: list[tuple[str, str, float]]) -> tuple[Any, Any]:
        x = np.array([MathQuestion(question=q) for q, _, _ in rows], dtype="object")
        y = np.array(
            [NumericalAnswerWithThinking(thinking=t, answer=a) for _, t, a in rows], dtype="object"
        )
        return x, y

    train = math_arrays(read_gsm8k(data, "train", args.train))
    test = math_arrays(read_gsm8k(data, "test", args.test))
    return MathQuestion, NumericalAnswerWithThinking, "answer", train, test


def _kwargs_for(function: Any, **kwargs: Any) -> dict[str, Any]:
    parameters = inspect.signature(function).parameters
    return {k: v for k, v in kwargs.items() if k in parameters}


async def run(lib: Any, args: argparse.Namespace) -> dict[str, Any]:
    input_model, output_model, field, (x_train, y_train), (x_test, y_test) = build_task(lib, args)
    if args.lib == "optimizer_core" and args.lm == "local":
        # The bundled path: what LocalModelServer.language_model() returns
        # (schema inside a json_object response_format, 2 requests in flight).
        from optimizer_core.local_models import LocalLanguageModel

        lm = LocalLanguageModel(
            model=f"openai/{args.alias}", api_base=args.api_base, max_concurrency=2, timeout=300
        )
    else:
        lm = lib.LanguageModel(model=f"openai/{args.alias}", api_base=args.api_base)
    inputs = lib.Input(data_model=input_model)
    outputs = await lib.Generator(data_model=output_model, language_model=lm)(inputs)
    program = lib.Program(inputs=inputs, outputs=outputs, name=args.task)

    if args.optimizer == "omega":
        if args.lib == "optimizer_core":
            from optimizer_core.local_models import LocalEmbeddingModel

            em = LocalEmbeddingModel()
        else:
            em = lib.EmbeddingModel(model="openai/minilm", api_base=args.api_base)
        optimizer = lib.optimizers.OMEGA(
            language_model=lm, embedding_model=em, population_size=args.population_size
        )
    else:
        optimizer = lib.optimizers.RandomFewShot(nb_min_examples=1, nb_max_examples=2)
    program.compile(reward=lib.rewards.ExactMatch(in_mask=[field]), optimizer=optimizer)

    async def evaluate_n() -> list[float]:
        rewards = []
        for _ in range(args.evals):
            logs = await program.evaluate(
                **_kwargs_for(
                    program.evaluate, x=x_test, y=y_test, batch_size=args.batch_size, verbose=0
                )
            )
            value = logs.get("reward") if isinstance(logs, dict) else logs[0]
            rewards.append(float(value))
        return rewards

    started = time.perf_counter()
    before = await evaluate_n()
    fit_start = time.perf_counter()
    history = await program.fit(
        **_kwargs_for(
            program.fit,
            x=x_train,
            y=y_train,
            epochs=args.epochs,
            batch_size=args.batch_size,
            verbose=0,
        )
    )
    fit_s = time.perf_counter() - fit_start
    after = await evaluate_n()
    logs = getattr(history, "history", history)
    return {
        "before": before,
        "after": after,
        "fit_wall_s": fit_s,
        "wall_s": time.perf_counter() - started,
        "history": {str(k): [float(v) for v in vs] for k, vs in dict(logs).items()},
        "sizes": {"train": len(x_train), "test": len(x_test)},
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lib", required=True, choices=["optimizer_core", "synalinks"])
    parser.add_argument("--api-base", required=True)
    parser.add_argument("--alias", default="smollm2")
    parser.add_argument("--lm", default="local", choices=["local", "plain"])
    parser.add_argument("--task", required=True, choices=["banking77", "gsm8k"])
    parser.add_argument("--optimizer", required=True, choices=["random_few_shot", "omega"])
    parser.add_argument("--train", type=int, default=12)
    parser.add_argument("--test", type=int, default=12)
    parser.add_argument("--evals", type=int, default=5)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--population-size", type=int, default=4)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--data-dir", required=True)
    args = parser.parse_args()
    random.seed(args.seed)
    import numpy as np

    np.random.seed(args.seed)
    if args.lib == "optimizer_core":
        import optimizer_core as lib
    else:
        import synalinks as lib  # type: ignore[no-redef]
    import litellm  # noqa: F401  (imported up front on both sides)

    result = asyncio.run(run(lib, args))
    result["lib"] = args.lib
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
