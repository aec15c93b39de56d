"""The memory benchmark's worker child: seed a large run, or train it as the worker does.

``--phase seed`` migrates the throwaway database and stores, for one user, a program
version, a scripted provider, a valid JSON Lines dataset of ``--train-rows`` +
``--test-rows`` generated rows (split by row hash at that test fraction) and one
queued run on it (``services.start_run``); it prints the run's id.

``--phase train`` (a fresh process) imports the Celery task and runs it eagerly
(``run_training.apply``), which is the worker's whole path: claim, dataset version
and rows loaded, evaluation before, fit, evaluation after, every event written,
results stored. It prints the process's peak RSS before and after, with what the
run stored.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.common import studio  # noqa: E402


def seed(args: argparse.Namespace) -> dict[str, Any]:
    from studio.runs import services

    studio.migrate()
    owner = studio.make_user()
    rows = args.train_rows + args.test_rows
    dataset = studio.make_dataset(owner, rows=rows, test_fraction=args.test_rows / rows)
    run = services.start_run(
        owner=owner,
        program_version=studio.make_program_version(owner),
        dataset=dataset,
        provider=studio.make_provider(owner, args.base_url),
        compile_config=studio.COMPILE_CONFIG,
        fit_config={"epochs": 1, "batch_size": 32, "seed": 0},
        name="large run",
    )
    return {"run": run.pk, "rows": rows}


def train(args: argparse.Namespace) -> dict[str, Any]:
    from studio.runs.models import Run, RunEvent
    from studio.runs.tasks import run_training

    baseline_mb = studio.peak_rss_mb()
    began = time.perf_counter()
    run_training.apply(args=[args.run])
    wall_s = time.perf_counter() - began
    peak_mb = studio.peak_rss_mb()
    run = Run.objects.get(pk=args.run)
    test_rows = len(run.before_rewards or [])
    train_rows = run.dataset_version.row_count - test_rows
    return {
        "state": run.state,
        "error": run.error[:500],
        "train_rows": train_rows,
        "test_rows": test_rows,
        "calls": (run.usage or {}).get("calls"),
        "events": RunEvent.objects.filter(run=run).count(),
        "stored_mb": sum(
            len(json.dumps(getattr(run, name)).encode())
            for name in ("before", "after", "trained_document")
        )
        / 1e6,
        "wall_s": wall_s,
        "baseline_mb": baseline_mb,
        "peak_mb": peak_mb,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phase", choices=["seed", "train"], required=True)
    parser.add_argument("--base-url", help="the scripted server (seed)")
    parser.add_argument("--train-rows", type=int, default=10_000)
    parser.add_argument("--test-rows", type=int, default=1_000)
    parser.add_argument("--run", type=int, help="the run to train (train)")
    args = parser.parse_args()
    studio.setup_django()
    report = seed(args) if args.phase == "seed" else train(args)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
