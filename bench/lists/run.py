"""The studio's lists at scale: runs, datasets and deployments pages, latency and size.

For each database (the embedded SQLite, PostgreSQL at ``STUDIO_TEST_PG``), in a
throwaway studio: one process seeds one user's 1,000 runs of about 100 test rows
each (one trained for real on the scripted server, the others carrying its stored
results), 200 datasets and 200 deployments (`workload.py --phase seed`); a fresh
process then requests ``GET /api/runs/?page=1`` (a page of 50), ``GET
/api/datasets/`` and ``GET /api/deployments/`` through the Django test Client (the
whole middleware, DRF and serializer stack, no socket), 5 times to warm up and 50
times timed (`workload.py --phase measure`).

Targets (issue 25): the runs page p95 < 100 ms and <= 2 KB per run; the datasets
and deployments lists are measured the same way, beside the same targets.

    .venv/bin/python bench/lists/run.py [--runs 1000] [--requests 50] [--backends sqlite,postgresql]

The figures also go to ``bench/results/lists.json``. A benchmark reports, it does
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

WORKLOAD = Path(__file__).resolve().with_name("workload.py")
DEFAULT_OUTPUT = ROOT / "bench" / "results" / "lists.json"
TARGET_P95_MS = 100.0
TARGET_BYTES_PER_ROW = 2048


def child(env: dict[str, str], *arguments: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(WORKLOAD), *arguments],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"{' '.join(arguments[:2])} exited {done.returncode}:\n{done.stderr}")
    return json.loads(lines[-1])


def seed_and_measure(backend: str, args: argparse.Namespace) -> dict[str, Any]:
    sizes = [
        f"--runs={args.runs}",
        f"--test-rows={args.test_rows}",
        f"--datasets={args.datasets}",
        f"--deployments={args.deployments}",
    ]
    with studio.throwaway_studio(backend) as env, studio.scripted_server() as base_url:
        env = {**studio.allowed_outgoing(env, base_url), "CELERY_TASK_ALWAYS_EAGER": "True"}
        seeded = child(env, "--phase", "seed", f"--base-url={base_url}", *sizes)
        measured = child(
            env, "--phase", "measure", f"--requests={args.requests}", f"--warmup={args.warmup}"
        )
    return {"backend": backend, "seeded": seeded, **measured}


def met(value: float | None, target: float) -> str:
    return "" if value is None else ("yes" if value < target else "NO")


def table(results: list[dict[str, Any]]) -> str:
    header = [
        "database",
        "list",
        "rows",
        "p50 ms",
        "p95 ms",
        "target",
        "met",
        "CPU p50",
        "CPU p95",
        "KB/page",
        "bytes/row",
        "target",
        "met",
        "queries",
    ]
    body = []
    for result in results:
        for name, figures in result["lists"].items():
            per_row = figures["bytes_per_row"]
            body.append(
                [
                    result["backend"],
                    name,
                    f"{figures['rows']}",
                    f"{figures['p50_ms']:.1f}",
                    f"{figures['p95_ms']:.1f}",
                    f"< {TARGET_P95_MS:.0f}",
                    met(figures["p95_ms"], TARGET_P95_MS),
                    f"{figures['cpu_p50_ms']:.1f}",
                    f"{figures['cpu_p95_ms']:.1f}",
                    f"{figures['page_bytes'] / 1000:.1f}",
                    "" if per_row is None else f"{per_row:,.0f}",
                    f"<= {TARGET_BYTES_PER_ROW:,}",
                    met(per_row, TARGET_BYTES_PER_ROW + 1),
                    f"{figures['queries']}",
                ]
            )
    widths = column_widths(header, body)
    return "\n".join(
        [table_line(header, widths), table_rule(widths), *(table_line(r, widths) for r in body)]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000, help="runs seeded (default 1,000)")
    parser.add_argument("--test-rows", type=int, default=100, help="about this many per run")
    parser.add_argument("--datasets", type=int, default=200)
    parser.add_argument("--deployments", type=int, default=None, help="default: 200, or runs/2")
    parser.add_argument("--requests", type=int, default=50, help="timed requests per list")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--backends", default=",".join(studio.BACKENDS))
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args()
    if args.deployments is None:
        args.deployments = min(200, args.runs // 2)
    results, failed = [], []
    for backend in args.backends.split(","):
        try:
            results.append(seed_and_measure(backend, args))
        except RuntimeError as error:
            print(f"{backend}: could not run: {error}", file=sys.stderr)
            failed.append(backend)
    if not results:
        return 1
    load = os.getloadavg()
    print(table(results))
    for result in results:
        seeded = result["seeded"]
        stored = ", ".join(f"{k} {v:.1f}" for k, v in seeded["stored_kb_per_run"].items())
        print(
            f"{result['backend']}: {seeded['runs']} runs of {seeded['test_rows']} test rows "
            f"(stored KB per run: {stored}), {seeded['datasets']} datasets, "
            f"{seeded['deployments']} deployments; serving process peak RSS "
            f"{result['peak_mb']:.0f} MB ({result['baseline_mb']:.0f} MB after sign-in)"
        )
    print(
        f"ms; CPU: the serving process's own (not PostgreSQL's); test Client (no socket); "
        f"{args.requests} timed requests per list after {args.warmup}; "
        f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}"
    )
    if failed:
        print(f"left out (could not run): {', '.join(failed)}")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(
        json.dumps(
            {
                "measured_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
                "load_average": load,
                "results": results,
            },
            indent=2,
        )
        + "\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
