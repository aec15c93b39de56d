"""OMEGA on the bundled model with the reward's feedback in its mutation prompt, and without.

The studio's demo task (support-ticket topics; ``--task banking77`` for bench/omega_local's
five BANKING77 intents, from ``../shared/data``) is trained twice with OMEGA on the
bundled SmolLM2-135M, the same seed and the same rows: once with ``use_feedback=True``
(the default: the worst rows of the mutation prompt carry ExactMatch's feedback,
``topic: expected '<the topic>', got '<the answer>'``, and their reward) and once with
``use_feedback=False`` (the prompt as it was before feedback existed). Everything
else is bench/omega_local's run, reused from there: the program, the run form's
quick start (2 epochs, batch 8, ``validate_start=True``), the test rows at
temperature 0 before and after, the LM calls counted at the model's seams.

Printed per run: test reward before -> after with the paired 95% interval
(`optimizer_core.stats.compare_paired`), wall time and LM calls; then the two
after-training evaluations compared on the same test rows (with feedback minus
without, paired interval). The two runs alternate order across repeats so load
from other work falls on both alike. Writes ``bench/results/omega_feedback.json``.

    .venv/bin/python bench/omega_feedback/run.py --quick   # 24 training, 20 test rows
    .venv/bin/python bench/omega_feedback/run.py           # 100 training, 100 test rows
    .venv/bin/python bench/omega_feedback/run.py --task banking77 \
        --output bench/results/omega_feedback.banking77.json

A benchmark reports, it does not judge: exit 0 whatever the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import datetime
import json
import logging
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.common.tables import column_widths, table_line, table_rule  # noqa: E402
from bench.omega_local.run import (  # noqa: E402
    DATA,
    _reward,
    _s,
    banking_task,
    demo_task,
    measure,
)

DEFAULT_OUTPUT = ROOT / "bench" / "results" / "omega_feedback.json"
SETTINGS = {"with feedback": True, "without feedback": False}


def builder(use_feedback: bool) -> Any:
    """What `measure` calls to make its optimizer: OMEGA with `use_feedback` set."""

    def build(name: str, lm: Any, em: Any, seed: int) -> Any:
        import optimizer_core as oc

        return oc.optimizers.OMEGA(
            language_model=lm, embedding_model=em, seed=seed, use_feedback=use_feedback
        )

    return build


def versus(with_run: dict[str, Any], without_run: dict[str, Any]) -> dict[str, Any]:
    """With feedback minus without, after training, paired on the same test rows."""
    from optimizer_core import stats

    comparison = stats.compare_paired(without_run["after_rewards"], with_run["after_rewards"])
    return {**dataclasses.asdict(comparison), "verdict": comparison.describe()}


def table(runs: dict[str, dict[str, Any]], compared: dict[str, Any]) -> list[str]:
    header = ["figure", *runs]
    body = [
        ["test reward before -> after [95% CI]", *(_reward(r) for r in runs.values())],
        ["verdict", *(r["comparison"]["verdict"] for r in runs.values())],
        ["run wall (before + fit + after)", *(_s(r["wall_s"]) for r in runs.values())],
        ["fit wall", *(_s(r["fit_s"]) for r in runs.values())],
        [
            "LM calls (task + optimizer)",
            *(f"{r['lm']['task_calls']} + {r['lm']['optimizer_calls']}" for r in runs.values()),
        ],
        [
            "mutation/crossover proposals differing",
            *(f"{r['proposals_differ']}/{r['proposals_total']}" for r in runs.values()),
        ],
        ["load average before", *(str(r["load_before"]) for r in runs.values())],
    ]
    widths = column_widths(header, body)
    lines = [table_line(header, widths), table_rule(widths), *(table_line(b, widths) for b in body)]
    lines.append(
        f"after training, with minus without feedback: {compared['difference']:+.3f} "
        f"[{compared['ci_low']:+.3f}, {compared['ci_high']:+.3f}] on {compared['n']} rows "
        f"({compared['verdict']})"
    )
    return lines


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--task",
        default="demo",
        choices=["demo", "banking77"],
        help="the studio's demo (default) or five BANKING77 intents (bench/omega_local's)",
    )
    parser.add_argument("--data-dir", type=Path, default=DATA, help="where banking77/ is")
    parser.add_argument("--quick", action="store_true", help="24 training, 20 test rows")
    parser.add_argument("--train", type=int, default=None, help="training rows (default 100)")
    parser.add_argument("--test", type=int, default=None, help="test rows (default 100)")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=1, help="runs of each setting")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args(argv)
    args.train = args.train or (24 if args.quick else 100)
    args.test = args.test or (20 if args.quick else 100)
    return args


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from optimizer_core.local_models import LocalModelServer, bundled_model_missing

    os.environ.setdefault("LITELLM_LOG", "WARNING")
    logging.getLogger("LiteLLM").setLevel(logging.WARNING)
    missing = bundled_model_missing()
    if missing:
        raise SystemExit(f"the bundled model is missing: {missing}")
    if args.task == "demo":
        task = demo_task(args.train, args.test)
    else:
        found = banking_task(args.data_dir, args.train, args.test)
        if isinstance(found, str):
            raise SystemExit(found)
        task = found
    runs: list[dict[str, Any]] = []
    tables: dict[str, list[str]] = {}
    comparisons: list[dict[str, Any]] = []
    started = time.perf_counter()
    with LocalModelServer(watchdog_interval=5.0) as server:
        for repeat in range(args.repeats):
            order = list(SETTINGS) if repeat % 2 == 0 else list(reversed(SETTINGS))
            pair: dict[str, dict[str, Any]] = {}
            for label in order:
                result = await measure(task, "OMEGA", server, args, builder(SETTINGS[label]))
                result.update(setting=label, use_feedback=SETTINGS[label], repeat=repeat)
                runs.append(result)
                pair[label] = result
                print(
                    f"{label}: {result['wall_s']:.0f} s (fit {result['fit_s']:.0f} s), "
                    f"{result['lm']['calls']} LM calls; reward {_reward(result)}; "
                    f"load {result['load_before']}",
                    flush=True,
                )
            compared = versus(pair["with feedback"], pair["without feedback"])
            compared["repeat"] = repeat
            comparisons.append(compared)
            lines = table({label: pair[label] for label in SETTINGS}, compared)
            tables[f"{task.name} #{repeat + 1}"] = lines
            print(f"\n{task.name}, run {repeat + 1} (order: {', '.join(order)})")
            print("\n".join(lines) + "\n", flush=True)
    return {
        "benchmark": "omega_feedback",
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "command": " ".join(["python bench/omega_feedback/run.py", *sys.argv[1:]]),
        "settings": {
            "task": task.name,
            "train": args.train,
            "test": args.test,
            "epochs": args.epochs,
            "batch_size": args.batch_size,
            "seed": args.seed,
            "repeats": args.repeats,
        },
        "environment": {
            "platform": platform.platform(),
            "cpu_count": os.cpu_count(),
            "python": platform.python_version(),
        },
        "total_s": time.perf_counter() - started,
        "tables": tables,
        "with_vs_without": comparisons,
        "runs": runs,
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    report = asyncio.run(run(args))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2, default=str) + "\n")
    shown = args.output.relative_to(ROOT) if args.output.is_relative_to(ROOT) else args.output
    print(f"wrote {shown} ({report['total_s'] / 60:.1f} min)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
