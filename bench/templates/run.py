"""The "new program" templates on the bundled model: does the one that trains learn?

Builds a template of `studio.programs.templates` (default ``route_then_answer``, the
one that fits the shipped ``support_tickets`` data set; ``--templates all`` measures
the four, those made for questions reading each message as a query whose answer is
its topic word: see `task`), points it at the bundled SmolLM2 served by
`LocalModelServer`, evaluates it on test rows at temperature 0, trains it with the
template's own compile config on training rows, evaluates again on the same rows,
and states the change with its sample size and paired 95% interval
(`optimizer_core.stats.compare_paired`): "significant gain", "significant loss" or
"no detectable change". Also the LM calls and the wall time, the trained examples
(and for a Branch, how the rows were routed), how many test rows each module ran,
skipped or failed on, and the machine's load average. The
report goes to ``bench/results/templates.json``.

    .venv/bin/python bench/templates/run.py                         # route_then_answer
    .venv/bin/python bench/templates/run.py --templates single_generator route_then_answer
    .venv/bin/python bench/templates/run.py --templates all --train 16 --test 40 --epochs 1
    .venv/bin/python bench/templates/run.py --train 40 --test 100 --epochs 2

A benchmark reports, it does not judge: exit 0 whatever the figures, non-zero only
when it could not run (no bundled model: it says how to install it).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import datetime
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

DEFAULT_OUTPUT = ROOT / "bench" / "results" / "templates.json"


def load() -> list[float]:
    try:
        return [round(value, 2) for value in os.getloadavg()]
    except OSError:
        return []


def task(name: str, train: int, test: int) -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    """The small task a template is measured on: the shipped support tickets.

    A template made for them (``route_then_answer``) reads them as they are; one
    made for questions reads each message as a ``query`` whose right ``answer`` is
    its topic word (the same rows, so the four shapes are scored on one task).
    """
    from optimizer_core.datasets import support_tickets
    from optimizer_core.datasets._arrays import object_array
    from studio.programs import templates

    (x_train, y_train), (x_test, y_test) = support_tickets.load_data()
    x_train, y_train = x_train[:train], y_train[:train]
    x_test, y_test = x_test[:test], y_test[:test]
    if templates.get(name).dataset == "support_tickets":
        return (x_train, y_train), (x_test, y_test)

    def questions(xs: Any) -> Any:
        return object_array([templates.Question(query=x.message) for x in xs])

    def answers(ys: Any) -> Any:
        return object_array([templates.Answer(answer=y.topic) for y in ys])

    return (questions(x_train), answers(y_train)), (questions(x_test), answers(y_test))


async def measure(name: str, lm: Any, args: argparse.Namespace) -> dict[str, Any]:
    import optimizer_core as oc
    from studio.programs import templates

    template = templates.get(name)
    (x_train, y_train), (x_test, y_test) = task(name, args.train, args.test)
    program = await template.build(lm)
    # The template's own compile config, its optimizer seeded for a repeatable run.
    optimizer = oc.optimizers.serialize(program.optimizer)
    optimizer["config"]["seed"] = args.seed
    program.compile(
        reward=program.reward, optimizer=oc.optimizers.deserialize(optimizer),
        metrics=program.metrics,
    )  # fmt: skip
    calls_start = lm.usage.snapshot().get("calls", 0)
    started = time.perf_counter()
    before = await program.evaluate(x_test, y_test, verbose=0, temperature=0.0, seed=0,
                                    return_examples=True)  # fmt: skip
    history = await program.fit(
        x_train, y_train, epochs=args.epochs, batch_size=args.batch_size,
        validation_split=args.validation_split, seed=args.seed, verbose=0,
    )  # fmt: skip
    after = await program.evaluate(x_test, y_test, verbose=0, temperature=0.0, seed=0,
                                   return_examples=True)  # fmt: skip
    wall_s = time.perf_counter() - started
    comparison = oc.stats.compare_paired(before.rewards, after.rewards)
    routes: dict[str, dict[str, int]] = {}
    for example in after.examples:
        router = next((s for s in example.trace if s.taken is not None), None)
        if router is not None:
            expected = example.expected or {}
            truth = expected.get("topic", expected.get("answer", "?"))
            label = ",".join(router.taken or []) or "(failed)"
            routes.setdefault(truth, {}).setdefault(label, 0)
            routes[truth][label] += 1
    modules: dict[str, dict[str, int]] = {}
    for example in after.examples:
        for step in example.trace:
            state = "failed" if step.error else "skipped" if step.skipped else "ran"
            counts = modules.setdefault(step.module, {"ran": 0, "skipped": 0, "failed": 0})
            counts[state] += 1
    return {
        "template": name,
        "rows": {"train": len(x_train), "test": len(x_test)},
        "epochs": args.epochs,
        "batch_size": args.batch_size,
        "before": before.logs,
        "after": after.logs,
        "comparison": dataclasses.asdict(comparison),
        "verdict": comparison.describe(),
        "history": {k: list(v) for k, v in history.history.items()},
        "lm_calls": lm.usage.snapshot().get("calls", 0) - calls_start,
        "wall_s": wall_s,
        "examples": {v.name: v.get("examples") for v in program.trainable_variables},
        "instructions": {v.name: v.get("instructions") for v in program.trainable_variables},
        "routes_after": routes,
        "modules_after": modules,
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--templates", nargs="+", default=["route_then_answer"],
        help="template names, or 'all' (default route_then_answer)",
    )  # fmt: skip
    parser.add_argument("--train", type=int, default=48, help="training rows (default 48)")
    parser.add_argument("--test", type=int, default=100, help="test rows (default 100)")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--validation-split", type=float, default=0.25)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    return parser.parse_args(argv)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from optimizer_core.local_models import LocalModelServer, bundled_model_missing

    missing = bundled_model_missing()
    if missing:
        raise SystemExit(f"the bundled model is missing: {missing}")
    from studio.programs import templates

    names = [t.name for t in templates.TEMPLATES] if args.templates == ["all"] else args.templates
    results = []
    with LocalModelServer(watchdog_interval=5.0) as server:
        for name in names:
            lm = server.language_model()
            load_before = load()
            result = await measure(name, lm, args)
            result.update({"load_before": load_before, "load_after": load()})
            results.append(result)
            print(
                f"{name}: test reward {result['before']['reward']:.3f} -> "
                f"{result['after']['reward']:.3f}; {result['verdict']} "
                f"({result['lm_calls']} LM calls, {result['wall_s']:.0f} s, "
                f"load {result['load_before']})"
            )
            print(f"  test rows per module (ran/skipped/failed): {result['modules_after']}")
            if result["routes_after"]:
                print(f"  routes after training (topic: label count): {result['routes_after']}")
    return {
        "benchmark": "templates",
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "command": " ".join(["python bench/templates/run.py", *sys.argv[1:]]),
        "environment": {
            "platform": platform.platform(),
            "cpu_count": os.cpu_count(),
            "python": platform.python_version(),
        },
        "results": results,
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    report = asyncio.run(run(args))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2, default=str) + "\n")
    shown = args.output.relative_to(ROOT) if args.output.is_relative_to(ROOT) else args.output
    print(f"wrote {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
