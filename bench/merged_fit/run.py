"""Fit overhead of a three-module program: optimizer_core against the reference synalinks.

The program of `workload.py` beside this file, ``Input -> Generator(Draft) ->
Generator(Answer)`` with the last Generator reading the question and the draft
merged (``x0 + x1``), is fitted by each library in its own interpreter against
one local scripted server per run (`bench/fit_overhead/responder.py`), with no
latency and with 100 ms per request. Printed side by side, with the ratio and
the issue's target: the wall time of ``fit``, the LM calls the server counted,
the rounds of requests, the client CPU per call, the rewards, the few-shot
examples per prompt. Everything, with the machine's load average before and
after each run (the machine is shared: read the figures with it), goes to
``bench/results/merged_fit.json``.

    .venv/bin/python bench/merged_fit/run.py                 # both libraries, 3 repeats
    .venv/bin/python bench/merged_fit/run.py --repeats 1 --latencies 0.1

Targets (issue 20): fit wall time at 100 ms at most 0.5x the reference's, LM calls
at most 1.0x. A benchmark reports, it does not judge: the exit status is 0 whatever
the figures, non-zero only when the benchmark itself could not run.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run as a script: make `bench` importable

from bench.common.reference import LIBS, reference_pins, setup_reference  # noqa: E402
from bench.common.stats import history_at, median_of  # noqa: E402
from bench.common.tables import column_widths, table_line, table_rule  # noqa: E402
from bench.fit_overhead.run import load_server, run_one  # noqa: E402

WORKLOAD = Path(__file__).resolve().with_name("workload.py")
DEFAULT_OUTPUT = ROOT / "bench" / "results" / "merged_fit.json"

WALL_TARGET = 0.5
CALLS_TARGET = 1.0


def load() -> list[float]:
    """The 1, 5 and 15 minute load averages (empty where the system has none)."""
    try:
        return [round(value, 2) for value in os.getloadavg()]
    except OSError:
        return []


def build_table(runs: list[dict[str, Any]], latencies: list[float]) -> list[dict[str, Any]]:
    """Rows of metric | optimizer_core | synalinks | ratio | target, from the successful runs."""

    def ok(lib: str, latency: float) -> list[dict[str, Any]]:
        return [
            r for r in runs if r["lib"] == lib and r["latency_s"] == latency and "error" not in r
        ]

    rows: list[dict[str, Any]] = []

    def add(
        metric: str,
        unit: str,
        pick: str | Callable[[dict[str, Any]], Any],
        latency: float,
        target: float | None = None,
    ) -> None:
        ours = median_of(ok("optimizer_core", latency), pick)
        ref = median_of(ok("synalinks", latency), pick)
        ratio = ours / ref if ours is not None and ref else None
        rows.append(
            {
                "metric": metric,
                "unit": unit,
                "latency_ms": round(latency * 1000),
                "optimizer_core": ours,
                "synalinks": ref,
                "ratio": ratio,
                "target_ratio_max": target,
                "meets_target": None if target is None or ratio is None else ratio <= target,
            }
        )

    for latency in latencies:
        ms = round(latency * 1000)
        add(f"fit wall time @ {ms} ms", "s", "fit_wall_s", latency, WALL_TARGET if ms else None)
    for latency in latencies:
        ms = round(latency * 1000)
        add(f"LM calls @ {ms} ms", "calls", "lm_calls", latency, CALLS_TARGET)
        if latency > 0:
            add(f"request rounds @ {ms} ms", "rounds", "request_rounds", latency)
        add(f"client CPU per LM call @ {ms} ms", "ms", "cpu_per_call_ms", latency)
    last = latencies[-1]
    ms = round(last * 1000)
    for key, index, label in (
        ("val_reward", 0, "val_reward, first epoch"),
        ("val_reward", -1, "val_reward, last epoch"),
    ):
        add(f"{label} @ {ms} ms", "", history_at(key, index), last)
    add(f"mean few-shot examples per prompt @ {ms} ms", "", "mean_examples_in_prompt", last)
    return rows


def _fmt(value: Any, unit: str) -> str:
    if value is None:
        return "n/a"
    if unit in ("calls", "rounds"):
        return f"{value:.0f}"
    if unit == "ms":
        return f"{value:.2f}"
    return f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}"


def format_table(rows: list[dict[str, Any]]) -> str:
    header = ("metric", "optimizer_core", "synalinks", "ratio", "target", "met")
    body = []
    for row in rows:
        unit = row["unit"]
        body.append(
            (
                f"{row['metric']} ({unit})" if unit else row["metric"],
                _fmt(row["optimizer_core"], unit),
                _fmt(row["synalinks"], unit),
                "n/a" if row["ratio"] is None else f"{row['ratio']:.2f}",
                f"<= {row['target_ratio_max']:.2f}" if row["target_ratio_max"] else "",
                "" if row["meets_target"] is None else ("yes" if row["meets_target"] else "NO"),
            )
        )
    widths = column_widths(header, body)
    lines = [table_line(header, widths), table_rule(widths)]
    lines += [table_line(cells, widths) for cells in body]
    lines.append("ratio = optimizer_core / synalinks (lower is better except for rewards)")
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--libs", nargs="+", choices=LIBS, default=list(LIBS))
    parser.add_argument("--latencies", nargs="+", type=float, default=[0.0, 0.1])
    parser.add_argument("--rows", type=int, default=50, help="dataset rows (default 50)")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeats", type=int, default=3, help="runs per setting; medians shown")
    parser.add_argument("--timeout", type=float, default=400, help="seconds per workload run")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument("--skip-setup", action="store_true", help="do not build bench/.venv-ref")
    args = parser.parse_args(argv)
    args.dump_requests = False  # what bench/fit_overhead's run_one reads
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if "synalinks" in args.libs and not args.skip_setup and not setup_reference():
        args.libs = [lib for lib in args.libs if lib != "synalinks"]
    server_class = load_server()
    started = time.perf_counter()
    runs: list[dict[str, Any]] = []
    load_before = load()
    for latency in args.latencies:
        for repeat in range(args.repeats):
            for lib in args.libs:  # interleaved, so a change in load hits both alike
                before = load()
                run = run_one(lib, latency, args, server_class, workload=WORKLOAD)
                run.update({"repeat": repeat, "load_before": before, "load_after": load()})
                runs.append(run)
                if "error" in run:
                    print(f"{lib} @ {latency * 1000:.0f} ms: FAILED ({run['error']})")
                    print("  " + run.get("stderr_tail", "").strip()[-1500:])
                else:
                    print(
                        f"{lib} @ {latency * 1000:.0f} ms: fit {run['fit_wall_s']:.2f} s, "
                        f"{run['lm_calls']} LM calls, load {run['load_before']}"
                    )
    rows = build_table(runs, args.latencies)
    print()
    print(format_table(rows))
    load_after = load()
    print(f"load average (1, 5, 15 min): {load_before} before, {load_after} after")
    report = {
        "benchmark": "merged_fit",
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "command": " ".join(
            ["python bench/merged_fit/run.py", *(argv if argv is not None else sys.argv[1:])]
        ),
        "config": {
            "program": "Input(Query) -> Generator(Draft) -> Generator(Answer) on x0 + x1",
            "rows": args.rows,
            "epochs": args.epochs,
            "batch_size": args.batch_size,
            "validation_split": 0.2,
            "seed": args.seed,
            "repeats": args.repeats,
            "latencies_s": args.latencies,
            "optimizer": "RandomFewShot(nb_min_examples=1, nb_max_examples=3)",
            "reward": "ExactMatch(in_mask=['answer'])",
        },
        "environment": {
            "platform": platform.platform(),
            "cpu_count": os.cpu_count(),
            "runner_python": platform.python_version(),
            "reference_venv_pins": reference_pins(),
            "load_before": load_before,
            "load_after": load_after,
        },
        "targets": {"fit_wall_100ms_ratio_max": WALL_TARGET, "lm_calls_ratio_max": CALLS_TARGET},
        "table": rows,
        "runs": runs,
        "total_s": time.perf_counter() - started,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    shown = args.output.relative_to(ROOT) if args.output.is_relative_to(ROOT) else args.output
    print(f"\nwrote {shown} ({report['total_s']:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
