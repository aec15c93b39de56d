"""Peak memory of the studio's two processes: the worker training a large run, the web
process serving the runs list.

- worker: in a throwaway studio (SQLite), one process stores a run on a dataset of
  10,000 training rows and 1,000 test rows with a scripted provider (the engine's
  scripted server, in its own process); a fresh process then runs the Celery task
  eagerly (`bench/memory/workload.py`): dataset loading, both evaluations, the fit,
  every event and the stored results count. Its peak RSS (``ru_maxrss``) is
  reported whole and above its footprint once Django and the task are imported.
- web: the lists benchmark's seeding (1,000 runs of about 100 test rows, 200
  datasets, 200 deployments), then a fresh process serving the lists through the
  Django test Client (`bench/lists/workload.py`); its peak RSS, whole and above
  its footprint once signed in.

Target (issue 25): the worker under 500 MB; the web process's figure is reported
beside the worker's target for scale (the issue sets none of its own).

    .venv/bin/python bench/memory/run.py [--train-rows 10000] [--test-rows 1000] [--runs 1000]
    .venv/bin/python bench/memory/run.py --only worker      # or --only web

The figures also go to ``bench/results/memory.json``. A benchmark reports, it does
not judge: the exit status is 0 whatever the figures (1 only when it could not run).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run as a script: make `bench` importable

from bench.common import studio  # noqa: E402
from bench.common.tables import column_widths, table_line, table_rule  # noqa: E402

HERE = Path(__file__).resolve().parent
WORKER = HERE / "workload.py"
LISTS = HERE.parent / "lists" / "workload.py"
DEFAULT_OUTPUT = ROOT / "bench" / "results" / "memory.json"
TARGET_WORKER_MB = 500.0


def child(script: Path, env: dict[str, str], *arguments: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(script), *arguments],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"{script.name} {arguments[1]} exited {done.returncode}:\n{done.stderr}")
    return json.loads(lines[-1])


def worker(args: argparse.Namespace) -> dict[str, Any]:
    sizes = [f"--train-rows={args.train_rows}", f"--test-rows={args.test_rows}"]
    with studio.throwaway_studio(args.backend) as env, studio.scripted_server() as base_url:
        env = studio.allowed_outgoing(env, base_url)
        seeded = child(WORKER, env, "--phase", "seed", f"--base-url={base_url}", *sizes)
        trained = child(
            WORKER, {**env, "CELERY_TASK_ALWAYS_EAGER": "True"}, "--phase", "train",
            f"--run={seeded['run']}",
        )  # fmt: skip
    return trained


def web(args: argparse.Namespace) -> dict[str, Any]:
    sizes = [f"--runs={args.runs}", f"--deployments={min(200, args.runs // 2)}"]
    with studio.throwaway_studio(args.backend) as env, studio.scripted_server() as base_url:
        env = {**studio.allowed_outgoing(env, base_url), "CELERY_TASK_ALWAYS_EAGER": "True"}
        seeded = child(LISTS, env, "--phase", "seed", f"--base-url={base_url}", *sizes)
        served = child(LISTS, env, "--phase", "measure", f"--requests={args.requests}")
    return {"seeded": seeded, **served}


def table(report: dict[str, Any]) -> str:
    header = ["process", "what", "peak MB", "above base", "target", "met", "wall s"]
    body = []
    if "worker" in report:
        w = report["worker"]
        body.append(
            [
                "worker",
                f"run on {w['train_rows']:,} train / {w['test_rows']:,} test rows "
                f"({w['calls']:,} LM calls, {w['events']:,} events), {w['state']}",
                f"{w['peak_mb']:.0f}",
                f"{w['peak_mb'] - w['baseline_mb']:.0f}",
                f"< {TARGET_WORKER_MB:.0f}",
                "yes" if w["peak_mb"] < TARGET_WORKER_MB else "NO",
                f"{w['wall_s']:.0f}",
            ]
        )
    if "web" in report:
        s = report["web"]
        requests = sum(figures["requests"] for figures in s["lists"].values())
        body.append(
            [
                "web",
                f"{requests} timed list pages at {s['seeded']['runs']:,} runs "
                f"(runs, datasets, deployments)",
                f"{s['peak_mb']:.0f}",
                f"{s['peak_mb'] - s['baseline_mb']:.0f}",
                "",
                "",
                "",
            ]
        )
    widths = column_widths(header, body)
    return "\n".join(
        [table_line(header, widths), table_rule(widths), *(table_line(r, widths) for r in body)]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train-rows", type=int, default=10_000)
    parser.add_argument("--test-rows", type=int, default=1_000)
    parser.add_argument("--runs", type=int, default=1000, help="runs seeded for the web figure")
    parser.add_argument("--requests", type=int, default=50, help="timed requests per list")
    parser.add_argument("--only", choices=["worker", "web"])
    parser.add_argument("--backend", choices=studio.BACKENDS, default="sqlite")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args()
    report: dict[str, Any] = {"backend": args.backend}
    try:
        if args.only in (None, "worker"):
            report["worker"] = worker(args)
        if args.only in (None, "web"):
            report["web"] = web(args)
    except RuntimeError as error:
        print(f"could not run: {error}", file=sys.stderr)
        return 1
    load = os.getloadavg()
    print(table(report))
    print(
        f"database {args.backend}; peak = ru_maxrss of the measured process, above base = "
        f"minus its peak once Django is set up; load average {load[0]:.1f} {load[1]:.1f} "
        f"{load[2]:.1f}"
    )
    report["measured_at"] = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    report["load_average"] = load
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
