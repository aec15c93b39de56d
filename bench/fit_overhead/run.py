"""Fit-overhead benchmark: optimizer_core against the reference library synalinks.

Runs `workload.py` beside this file (one training script, the training
guide's program) in each library's own interpreter against one local scripted
OpenAI-compatible server, once with no server latency and once with 100 ms per
request, and prints side by side: the wall time of ``fit``, the LM calls the
server counted, the most requests it had in flight, the client's CPU time per
LM call, and the final rewards. The table also goes to
``bench/results/fit_overhead.json``.

    .venv/bin/python bench/fit_overhead/run.py            # both libraries, ~2-3 min
    .venv/bin/python bench/fit_overhead/run.py --libs synalinks --latencies 0.1

The reference library lives in ``bench/.venv-ref`` (Python 3.12), built on
first use by ``bench/common/setup_reference.sh``. The server runs in this process, in a
background thread, so its counters are read directly; the workloads are
separate processes, so their CPU time is the client's alone.

A benchmark reports, it does not judge: the exit status is 0 whatever the
figures, and non-zero only when the benchmark itself could not run.
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import json
import os
import platform
import statistics
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run as a script: make `bench` importable

from bench.common.reference import (  # noqa: E402
    LIBS,
    interpreter,
    reference_pins,
    setup_reference,
    workload_env,
)
from bench.common.stats import history_at, median_of  # noqa: E402
from bench.common.tables import column_widths, table_line, table_rule  # noqa: E402
from bench.common.workloads import run_workload  # noqa: E402
from bench.fit_overhead.responder import examples_in, respond  # noqa: E402

WORKLOAD = Path(__file__).resolve().with_name("workload.py")
DEFAULT_OUTPUT = ROOT / "bench" / "results" / "fit_overhead.json"

CPU_TARGET = 1 / 5
WALL_TARGET = 1 / 2


def load_server() -> type[Any]:
    from optimizer_core.testing.scripted_server import ScriptedServer

    return ScriptedServer


class RequestTrace:
    """Wraps the responder to note when each request arrived and how many examples it held.

    The server calls the responder after its latency sleep, so the arrival time is
    the call time less the latency.
    """

    def __init__(self, responder: Callable[[dict[str, Any]], Any], latency: float) -> None:
        self.responder = responder
        self.latency = latency
        self.arrivals: list[float] = []
        self.examples: list[int] = []
        self._lock = threading.Lock()

    def __call__(self, request: dict[str, Any]) -> Any:
        arrival = time.time() - self.latency
        examples = examples_in(request)
        with self._lock:
            self.arrivals.append(arrival)
            self.examples.append(examples)
        return self.responder(request)

    def summary(self, fit_start: float | None, fit_end: float | None) -> dict[str, Any]:
        if not self.arrivals:
            return {}
        # Only fit's requests: the warm-up prediction before fit is left out.
        arrivals = sorted(a for a in self.arrivals if fit_start is None or a >= fit_start)
        if not arrivals:
            return {}
        out: dict[str, Any] = {
            "mean_examples_in_prompt": statistics.fmean(self.examples),
            "max_examples_in_prompt": max(self.examples),
        }
        if fit_start is not None and fit_end is not None:
            out["first_request_after_s"] = arrivals[0] - fit_start
            out["after_last_answer_s"] = fit_end - (arrivals[-1] + self.latency)
        if self.latency > 0:
            # Requests sent together arrive together; a gap of half the latency
            # or more means the client waited for answers: a new round.
            gaps = [b - a for a, b in itertools.pairwise(arrivals)]
            out["request_rounds"] = 1 + sum(gap >= self.latency / 2 for gap in gaps)
        return out


def run_one(
    lib: str,
    latency: float,
    args: argparse.Namespace,
    server_class: type[Any],
    workload: Path = WORKLOAD,
) -> dict[str, Any]:
    """One workload process against a fresh server; the workload's JSON plus server counters.

    `workload` is the script to run (default this benchmark's; bench/merged_fit runs its
    own program through the same server, counters and command line).
    """
    python = interpreter(lib)
    if not python.exists():
        return {"lib": lib, "latency_s": latency, "error": f"no interpreter at {python}"}
    trace = RequestTrace(respond, latency)
    server = server_class(trace, latency=latency).start_in_thread()
    try:
        command = [
            str(python),
            str(workload),
            "--lib",
            lib,
            "--api-base",
            server.base_url,
            "--rows",
            str(args.rows),
            "--epochs",
            str(args.epochs),
            "--batch-size",
            str(args.batch_size),
            "--seed",
            str(args.seed),
        ]
        done = run_workload(command, env=workload_env(lib), cwd=ROOT, timeout=args.timeout)
        if done.timed_out:
            return {"lib": lib, "latency_s": latency, **(done.error or {})}
        stats = server.stats
        result: dict[str, Any] = {
            "lib": lib,
            "latency_s": latency,
            "process_wall_s": done.wall_s,
            "lm_calls": stats.chat_requests,
            "max_in_flight": stats.max_in_flight,
        }
        if args.dump_requests and stats.requests:
            result["first_request"] = stats.requests[0]
        if done.report is None:
            result.update(done.error or {})
            return result
        result.update(done.report)
        # The warm-up prediction before fit is not part of fit's calls.
        result["lm_calls"] -= int(result.get("warmup_requests", 0))
        result.update(trace.summary(result.get("fit_start_unix"), result.get("fit_end_unix")))
        if result["lm_calls"]:
            result["cpu_per_call_ms"] = 1000 * result["fit_cpu_s"] / result["lm_calls"]
        return result
    finally:
        server.stop()


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
        pick: Callable[[list[dict[str, Any]]], float | None],
        latency: float,
        target: float | None = None,
    ) -> None:
        ours, ref = pick(ok("optimizer_core", latency)), pick(ok("synalinks", latency))
        ratio = ours / ref if ours is not None and ref else None
        row: dict[str, Any] = {
            "metric": metric,
            "unit": unit,
            "latency_ms": round(latency * 1000),
            "optimizer_core": ours,
            "synalinks": ref,
            "ratio": ratio,
            "target_ratio_max": target,
            "meets_target": None if target is None or ratio is None else ratio <= target,
        }
        rows.append(row)

    for latency in latencies:
        ms = round(latency * 1000)
        wall_target = WALL_TARGET if ms == 100 else None
        add(
            f"fit wall time @ {ms} ms",
            "s",
            lambda rs: median_of(rs, "fit_wall_s"),
            latency,
            wall_target,
        )
    for latency in latencies:
        ms = round(latency * 1000)
        add(f"LM calls @ {ms} ms", "calls", lambda rs: median_of(rs, "lm_calls"), latency)
        add(
            f"max requests in flight @ {ms} ms",
            "requests",
            lambda rs: median_of(rs, "max_in_flight"),
            latency,
        )
        add(
            f"client CPU per LM call @ {ms} ms",
            "ms",
            lambda rs: median_of(rs, "cpu_per_call_ms"),
            latency,
            CPU_TARGET,
        )
        add(f"client CPU in fit @ {ms} ms", "s", lambda rs: median_of(rs, "fit_cpu_s"), latency)
        add(
            f"first request after fit start @ {ms} ms",
            "s",
            lambda rs: median_of(rs, "first_request_after_s"),
            latency,
        )
        if latency > 0:
            add(
                f"request rounds @ {ms} ms",
                "rounds",
                lambda rs: median_of(rs, "request_rounds"),
                latency,
            )
    last = latencies[-1]
    ms = round(last * 1000)
    add(
        f"reward, first epoch @ {ms} ms",
        "",
        lambda rs: median_of(rs, history_at("reward", 0)),
        last,
    )
    add(
        f"reward, last epoch @ {ms} ms",
        "",
        lambda rs: median_of(rs, history_at("reward", -1)),
        last,
    )
    add(
        f"val_reward, first epoch @ {ms} ms",
        "",
        lambda rs: median_of(rs, history_at("val_reward", 0)),
        last,
    )
    add(
        f"val_reward, last epoch @ {ms} ms",
        "",
        lambda rs: median_of(rs, history_at("val_reward", -1)),
        last,
    )
    add(
        f"mean few-shot examples per prompt @ {ms} ms",
        "",
        lambda rs: median_of(rs, "mean_examples_in_prompt"),
        last,
    )
    add(
        "start-up: import library + litellm",
        "s",
        lambda rs: median_of(rs, "import_s"),
        latencies[0],
    )
    return rows


def _fmt(value: Any, unit: str = "") -> str:
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "NO"
    if unit in ("calls", "requests", "rounds"):
        return f"{value:.0f}"
    if unit == "ms":
        return f"{value:.2f}"
    return f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}"


def print_table(rows: list[dict[str, Any]]) -> None:
    header = ("metric", "optimizer_core", "synalinks", "ratio", "target", "met")
    body = []
    for row in rows:
        unit = row["unit"]
        name = f"{row['metric']} ({unit})" if unit else row["metric"]
        target = f"<= {row['target_ratio_max']:.2f}" if row["target_ratio_max"] else ""
        met = "" if row["meets_target"] is None else _fmt(row["meets_target"])
        ratio = "n/a" if row["ratio"] is None else f"{row['ratio']:.2f}"
        body.append(
            (
                name,
                _fmt(row["optimizer_core"], unit),
                _fmt(row["synalinks"], unit),
                ratio,
                target,
                met,
            )
        )
    widths = column_widths(header, body)
    print(table_line(header, widths))
    print(table_rule(widths))
    for cells in body:
        print(table_line(cells, widths))
    print("ratio = optimizer_core / synalinks (lower is better except for rewards)")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Fit-overhead benchmark: optimizer_core vs synalinks"
    )
    parser.add_argument("--libs", nargs="+", choices=LIBS, default=list(LIBS))
    parser.add_argument(
        "--latencies",
        nargs="+",
        type=float,
        default=[0.0, 0.1],
        help="server latency per request, seconds (default 0 0.1)",
    )
    parser.add_argument("--rows", type=int, default=50, help="dataset rows (default 50)")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeats", type=int, default=3, help="runs per setting; medians shown")
    parser.add_argument("--timeout", type=float, default=240, help="seconds per workload run")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument(
        "--skip-setup",
        action="store_true",
        help="do not build bench/.venv-ref (synalinks runs fail if it is missing)",
    )
    parser.add_argument(
        "--dump-requests",
        action="store_true",
        help="keep each run's first chat request in the JSON (to compare formats)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if "synalinks" in args.libs and not args.skip_setup and not setup_reference():
        args.libs = [lib for lib in args.libs if lib != "synalinks"]
    server_class = load_server()

    started = time.perf_counter()
    runs: list[dict[str, Any]] = []
    for latency in args.latencies:
        # Interleave the libraries so a change in machine load hits both alike.
        for repeat in range(args.repeats):
            for lib in args.libs:
                run = run_one(lib, latency, args, server_class)
                run["repeat"] = repeat
                runs.append(run)
                if "error" in run:
                    print(f"{lib} @ {latency * 1000:.0f} ms: FAILED ({run['error']})")
                    print("  " + run.get("stderr_tail", "").strip().replace("\n", "\n  ")[-1500:])
                else:
                    print(
                        f"{lib} @ {latency * 1000:.0f} ms: fit {run['fit_wall_s']:.2f} s, "
                        f"{run['lm_calls']} LM calls, CPU {run['cpu_per_call_ms']:.2f} ms/call"
                    )

    rows = build_table(runs, args.latencies)
    print()
    print_table(rows)

    report = {
        "benchmark": "fit_overhead",
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "command": " ".join(
            ["python bench/fit_overhead/run.py", *(argv if argv is not None else sys.argv[1:])]
        ),
        "config": {
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
        },
        "targets": {"cpu_per_call_ratio_max": CPU_TARGET, "fit_wall_100ms_ratio_max": WALL_TARGET},
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
