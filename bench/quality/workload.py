"""One quality run, identical for optimizer_core and the reference library.

Run by each library's own interpreter (the runner `run.py` does it)::

    .venv/bin/python bench/quality/workload.py --lib optimizer_core --api-base URL ...
    bench/.venv-ref/bin/python bench/quality/workload.py --lib synalinks --api-base URL ...

Builds ``Input -> Generator`` for the task with the guide's API and:

1. predicts the test rows (the proxy pins evaluation requests to temperature 0);
2. fits the program (``--epochs`` on the training rows, candidates scored on the
   validation rows), stopping at the first batch end past ``--budget`` training
   calls (counted by the proxy); at each epoch end the variables are saved;
3. predicts the test rows again with the trained program, and with each epoch's
   saved variables (the points of the reward-versus-calls curve).

Each test row is scored the same way on both sides (the target field equal to the
expected one), so the runner can pair the rewards row by row. Prints one JSON
line. The rows are read here from the files, so both libraries get the same ones;
nothing is imported from ``bench`` or ``optimizer_core`` (this also runs in the
reference venv). Valid on Python 3.11 and 3.12. No ``from __future__ import
annotations``: the data models are built inside a function with a ``Literal``.
"""

import argparse
import asyncio
import csv
import inspect
import json
import os
import random
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any, Literal

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("OPENAI_API_KEY", "sk-local-no-key")

BANKING_INTENTS = ["card_arrival", "lost_or_stolen_card", "exchange_rate", "pin_blocked"]
SUPPORT_TOPICS = ["refund", "delivery", "address", "password"]
SUPPORT_FILE = Path(__file__).resolve().parents[2] / "optimizer_core/datasets/support_tickets.csv"
SUPPORT_TEST_ROWS = 200  # the file's last rows are its test split (support_tickets.TEST_ROWS)


def round_robin(rows: list[tuple[str, str]], labels: list[str]) -> list[tuple[str, str]]:
    """Rows reordered label by label in turn, so any prefix is balanced."""
    by_label = {label: [r for r in rows if r[1] == label] for label in labels}
    mixed: list[tuple[str, str]] = []
    for i in range(max(len(v) for v in by_label.values())):
        for label in labels:
            if i < len(by_label[label]):
                mixed.append(by_label[label][i])
    return mixed


def read_banking(data: Path, split: str) -> list[tuple[str, str]]:
    with open(data / "banking77" / f"{split}.csv", newline="", encoding="utf-8") as handle:
        rows = [(r["text"], r["category"]) for r in csv.DictReader(handle)]
    return round_robin([r for r in rows if r[1] in BANKING_INTENTS], BANKING_INTENTS)


def read_support() -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    with open(SUPPORT_FILE, newline="", encoding="utf-8") as handle:
        rows = [(r["message"], r["topic"]) for r in csv.DictReader(handle)]
    return rows[:-SUPPORT_TEST_ROWS], rows[-SUPPORT_TEST_ROWS:]


def split_rows(args: argparse.Namespace) -> tuple[list[Any], list[Any], list[Any]]:
    """(train, validation, test) rows: the same for both libraries."""
    if args.task == "banking77":
        pool, test = (
            read_banking(Path(args.data_dir), "train"),
            read_banking(Path(args.data_dir), "test"),
        )
    else:
        pool, test = read_support()
    train = pool[: args.train]
    val = pool[args.train : args.train + args.val]
    return train, val, test[: args.test]


def build_models(lib: Any, task: str) -> tuple[Any, Any, str, str]:
    """(input DataModel, output DataModel, input field, output field) of the task."""
    from pydantic import Field

    if task == "banking77":
        intent_type = Literal[tuple(BANKING_INTENTS)]  # type: ignore[valid-type]

        class BankingQuery(lib.DataModel):
            """A customer's message to an online bank."""

            text: str = Field(description="The customer's message")

        class BankingIntent(lib.DataModel):
            """The intent of the customer's message."""

            intent: intent_type = Field(description="The intent of the message")  # type: ignore

        return BankingQuery, BankingIntent, "text", "intent"

    class SupportMessage(lib.DataModel):
        """A customer's message to an online shop."""

        message: str = Field(description="The customer's message")

    class SupportTopic(lib.DataModel):
        """The topic of a customer's message."""

        topic: str = Field(description="The topic of the message", max_length=16)

    return SupportMessage, SupportTopic, "message", "topic"


def _kwargs_for(function: Any, **kwargs: Any) -> dict[str, Any]:
    parameters = inspect.signature(function).parameters
    return {k: v for k, v in kwargs.items() if k in parameters}


class Proxy:
    """The runner's proxy: its phase and its counters."""

    def __init__(self, api_base: str) -> None:
        self.root = api_base.rsplit("/v1", 1)[0]

    def mode(self, mode: str) -> None:
        request = urllib.request.Request(
            f"{self.root}/bench/mode",
            data=json.dumps({"mode": mode}).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        urllib.request.urlopen(request, timeout=30).read()

    def counters(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"{self.root}/bench/counters", timeout=30) as response:
            counters: dict[str, Any] = json.loads(response.read())
        return counters


async def run(lib: Any, args: argparse.Namespace) -> dict[str, Any]:
    import numpy as np

    input_model, output_model, in_field, out_field = build_models(lib, args.task)
    train, val, test = split_rows(args)

    def arrays(rows: list[tuple[str, str]]) -> tuple[Any, Any]:
        x = np.array([input_model(**{in_field: t}) for t, _ in rows], dtype="object")
        y = np.array([output_model(**{out_field: c}) for _, c in rows], dtype="object")
        return x, y

    (x_train, y_train), (x_val, y_val), (x_test, _) = arrays(train), arrays(val), arrays(test)
    proxy = Proxy(args.api_base)
    if args.lib == "optimizer_core":
        # The bundled path: what LocalModelServer.language_model() returns
        # (the schema inside a json_object response_format).
        from optimizer_core.local_models import LocalLanguageModel

        lm = LocalLanguageModel(model=f"openai/{args.alias}", api_base=args.api_base, timeout=300)
    else:
        lm = lib.LanguageModel(model=f"openai/{args.alias}", api_base=args.api_base)
    inputs = lib.Input(data_model=input_model)
    outputs = await lib.Generator(data_model=output_model, language_model=lm)(inputs)
    program = lib.Program(inputs=inputs, outputs=outputs, name=args.task)

    ours = args.lib == "optimizer_core"
    extra = json.loads(args.optimizer_args or "{}")
    if ours:
        extra.setdefault("seed", args.seed)  # the reference's optimizers take no seed
    if args.optimizer == "omega":
        if ours:
            from optimizer_core.local_models import LocalEmbeddingModel

            em = LocalEmbeddingModel()
        else:
            em = lib.EmbeddingModel(model="openai/minilm", api_base=args.api_base)
        optimizer = lib.optimizers.OMEGA(language_model=lm, embedding_model=em, **extra)
    else:
        optimizer = lib.optimizers.RandomFewShot(**extra)
    program.compile(reward=lib.rewards.ExactMatch(in_mask=[out_field]), optimizer=optimizer)

    async def test_rewards() -> list[float]:
        proxy.mode("eval")
        try:
            predictions = await program.predict(
                **_kwargs_for(program.predict, x=x_test, batch_size=args.batch_size, verbose=0)
            )
        finally:
            proxy.mode("fit")
        rewards = []
        for prediction, (_, expected) in zip(predictions, test, strict=True):
            got = None if prediction is None else prediction.get_json().get(out_field)
            rewards.append(float(got == expected))
        return rewards

    snapshots = Path(tempfile.mkdtemp(prefix="quality-"))
    marks: list[dict[str, Any]] = []
    fit_start_calls = proxy.counters()["fit_calls"]

    def fit_calls() -> int:
        return int(proxy.counters()["fit_calls"]) - fit_start_calls

    class Follow(lib.callbacks.Callback):
        """Stops at the first batch end past the budget; saves the variables per epoch."""

        def on_train_batch_end(self, batch: Any, logs: Any = None) -> None:
            if fit_calls() >= args.budget:
                program.stop_training = True

        def on_epoch_end(self, epoch: Any, logs: Any = None) -> None:
            path = snapshots / f"epoch{int(epoch)}.variables.json"
            program.save_variables(str(path))
            marks.append(
                {
                    "epoch": int(epoch),
                    "fit_calls": fit_calls(),
                    "path": str(path),
                    "logs": {str(k): float(v) for k, v in dict(logs or {}).items()},
                }
            )

    started = time.perf_counter()
    before = await test_rewards()
    fit_start = time.perf_counter()
    fit_start_calls = proxy.counters()["fit_calls"]
    history = await program.fit(
        **_kwargs_for(
            program.fit,
            x=x_train,
            y=y_train,
            validation_data=(x_val, y_val),
            epochs=args.epochs,
            batch_size=args.batch_size,
            minibatch_size=args.minibatch_size,
            validate_start=True,  # as the studio's runs do (ours only: filtered for synalinks)
            callbacks=[Follow()],
            verbose=0,
            seed=args.seed,
        )
    )
    fit_s = time.perf_counter() - fit_start
    total_fit_calls = fit_calls()
    final = snapshots / "final.variables.json"
    program.save_variables(str(final))
    after = await test_rewards()
    curve = [{"fit_calls": 0, "rewards": before, "label": "before"}]
    for mark in marks[:-1]:  # the last epoch's program is (about) the trained one
        program.load_variables(mark["path"])
        curve.append(
            {
                "fit_calls": mark["fit_calls"],
                "rewards": await test_rewards(),
                "label": mark["epoch"],
            }
        )
    program.load_variables(str(final))
    curve.append({"fit_calls": total_fit_calls, "rewards": after, "label": "after"})
    variables = json.loads(final.read_text(encoding="utf-8"))
    logs = getattr(history, "history", history)
    return {
        "before": before,
        "after": after,
        "curve": curve,
        "epochs_run": [m["epoch"] for m in marks],
        "epoch_logs": [m["logs"] for m in marks],
        "fit_calls": total_fit_calls,
        "fit_wall_s": fit_s,
        "wall_s": time.perf_counter() - started,
        "history": {str(k): [float(v) for v in vs] for k, vs in dict(logs).items()},
        "sizes": {"train": len(train), "val": len(val), "test": len(test)},
        "trained": _trained_state(variables),
    }


def _trained_state(document: Any) -> Any:
    """The trained instructions and examples, wherever each library keeps them."""
    found: list[Any] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "instructions" in node and "examples" in node:
                found.append(
                    {
                        "instructions": node.get("instructions"),
                        "examples": [
                            {"inputs": e.get("inputs"), "outputs": e.get("outputs")}
                            for e in node.get("examples") or []
                            if isinstance(e, dict)
                        ],
                    }
                )
                return
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(document)
    return found[:1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lib", required=True, choices=["optimizer_core", "synalinks"])
    parser.add_argument("--api-base", required=True)
    parser.add_argument("--alias", default="smollm2")
    parser.add_argument("--task", required=True, choices=["support_tickets", "banking77"])
    parser.add_argument("--optimizer", required=True, choices=["random_few_shot", "omega"])
    parser.add_argument("--optimizer-args", default="", help="JSON of extra optimizer arguments")
    parser.add_argument("--train", type=int, default=48)
    parser.add_argument("--val", type=int, default=16)
    parser.add_argument("--test", type=int, default=100)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--minibatch-size", type=int, default=4)
    parser.add_argument("--budget", type=int, default=200)
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
