"""Training cost: LM calls per epoch and fit wall time, both optimizers, against synalinks.

Runs `workload.py` beside this file in each library's own interpreter against
one local scripted server per run (`bench/omega/responder.py` answers the task
and OMEGA's requests) and prints, per workload, side by side with ratios: the
LM calls of each epoch (task and optimizer chat requests; embeddings apart),
the final ``val_reward``, and at 100 ms per chat request the fit wall time and
the rounds of requests (embedding requests are answered at once, so OMEGA's
figure is its chat rounds, not the reference's embedding calls, one per text).
Everything goes to ``bench/results/training_cost.json``.

    .venv/bin/python bench/training_cost/run.py                 # every workload, 3 repeats
    .venv/bin/python bench/training_cost/run.py --workloads omega-seed --repeats 1
    .venv/bin/python bench/training_cost/run.py --core-root /tmp/before --libs optimizer_core

``--core-root`` runs optimizer_core from another tree (e.g. ``git archive <commit>
optimizer_core | tar -x -C /tmp/before``) for a before/after table.

A benchmark reports, it does not judge: the exit status is 0 whatever the
figures, and non-zero only when the benchmark itself could not run.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import datetime
import itertools
import json
import os
import platform
import sys
import threading
import time
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
from bench.common.stats import median, median_of, median_series  # noqa: E402
from bench.common.tables import column_widths, table_line, table_rule  # noqa: E402
from bench.common.workloads import run_workload  # noqa: E402
from bench.omega import responder as omega_responder  # noqa: E402
from bench.omega.run import split_by_epoch  # noqa: E402

WORKLOAD = Path(__file__).resolve().with_name("workload.py")
DEFAULT_OUTPUT = ROOT / "bench" / "results" / "training_cost.json"

CALLS_TARGET = 1.0
WALL_TARGET = 0.5
REWARD_TARGET = 1.0  # at least the reference's


@dataclasses.dataclass(frozen=True)
class Workload:
    """One training run's settings (validation_split 0.2, each library's defaults otherwise)."""

    name: str
    optimizer: str
    rows: int
    epochs: int
    batch_size: int
    latencies: tuple[float, ...]
    about: str


WORKLOADS = (
    Workload("rfs-seed", "random_few_shot", 40, 3, 8, (0.0, 0.1), "RandomFewShot, the seed run"),
    Workload("omega-seed", "omega", 40, 2, 8, (0.0, 0.1), "OMEGA, the seed run"),
    Workload("rfs-800", "random_few_shot", 800, 1, 32, (0.0,), "RandomFewShot, 800 rows"),
    Workload("rfs-50", "random_few_shot", 50, 3, 8, (0.0,), "bench/fit_overhead's run"),
    Workload("omega-b4", "omega", 40, 4, 4, (0.0,), "bench/omega's run (population 10)"),
)


class Trace:
    """The server's responder and embedder, noting each request's arrival and kind."""

    def __init__(self, latency: float) -> None:
        from optimizer_core.testing.scripted_server import default_embedder

        self.latency = latency
        self.default_embedder = default_embedder
        self.chats: list[tuple[float, str]] = []
        self.embeddings: list[tuple[float, int]] = []
        self._lock = threading.Lock()

    async def respond(self, request: dict[str, Any]) -> Any:
        # Chat requests only wait the latency: the embeddings are answered at once.
        arrival = time.time()
        kind = omega_responder.request_kind(request)
        with self._lock:
            self.chats.append((arrival, kind))
        await asyncio.sleep(self.latency)
        return omega_responder.respond(request)

    def embed(self, texts: list[str]) -> list[list[float]]:
        arrival = time.time()
        with self._lock:
            self.embeddings.append((arrival, len(texts)))
        vectors: list[list[float]] = self.default_embedder(texts)
        return vectors

    def counts(self, fit_start: float, epoch_ends: list[float]) -> dict[str, Any]:
        chats = split_by_epoch(list(self.chats), fit_start, epoch_ends)
        embeds = split_by_epoch(list(self.embeddings), fit_start, epoch_ends)
        out: dict[str, Any] = {
            "lm_calls": [len(epoch) for epoch in chats["epochs"]],
            "task_calls": [sum(k == "task" for k in epoch) for epoch in chats["epochs"]],
            "optimizer_calls": [sum(k != "task" for k in epoch) for epoch in chats["epochs"]],
            "embedding_requests": [len(epoch) for epoch in embeds["epochs"]],
            "lm_calls_after_last_epoch": len(chats["after"]),
        }
        if self.latency > 0:
            # Requests sent together arrive together; a gap of half the latency or
            # more means the client waited for answers: a new round.
            arrivals = sorted(a for a, _ in self.chats if a >= fit_start)
            gaps = [b - a for a, b in itertools.pairwise(arrivals)]
            out["request_rounds"] = 1 + sum(gap >= self.latency / 2 for gap in gaps)
        return out


def run_one(
    lib: str, workload: Workload, latency: float, args: argparse.Namespace
) -> dict[str, Any]:
    """One workload process against a fresh server: its JSON plus the per-epoch counts."""
    from optimizer_core.testing.scripted_server import ScriptedServer

    base: dict[str, Any] = {"lib": lib, "workload": workload.name, "latency_s": latency}
    python = interpreter(lib)
    if not python.exists():
        return {**base, "error": f"no interpreter at {python}"}
    trace = Trace(latency)
    server = ScriptedServer(trace.respond, embedder=trace.embed)
    server.start_in_thread()
    try:
        command = [
            str(python),
            str(WORKLOAD),
            "--lib",
            lib,
            "--api-base",
            server.base_url,
            "--optimizer",
            workload.optimizer,
            "--rows",
            str(workload.rows),
            "--epochs",
            str(workload.epochs),
            "--batch-size",
            str(workload.batch_size),
            "--seed",
            str(args.seed),
        ]
        if args.minibatch_size is not None:
            command += ["--minibatch-size", str(args.minibatch_size)]
        env = workload_env(lib)
        if lib == "optimizer_core" and args.core_root is not None:
            env["PYTHONPATH"] = str(args.core_root)
        done = run_workload(command, env=env, cwd=ROOT, timeout=args.timeout)
        if done.report is None:
            return {**base, **(done.error or {"error": "no report"})}
        result: dict[str, Any] = {**base, **done.report}
        result["max_in_flight"] = server.stats.max_in_flight
        result.update(trace.counts(result["fit_start_unix"], list(result["epoch_end_unix"])))
        return result
    finally:
        server.stop()


def _ok(runs: list[dict[str, Any]], lib: str, name: str, latency: float | None = None) -> list[Any]:
    return [
        r
        for r in runs
        if r["lib"] == lib
        and r["workload"] == name
        and "error" not in r
        and (latency is None or r["latency_s"] == latency)
    ]


def _total(value: Any) -> Any:
    return sum(value) if isinstance(value, list) else value


def _last_val_reward(run: dict[str, Any]) -> float | None:
    series = (run.get("history") or {}).get("val_reward") or []
    return series[-1] if series else None


def build_table(runs: list[dict[str, Any]], workloads: list[Workload]) -> list[dict[str, Any]]:
    """One row per figure: ours, the reference's, the ratio, the target and whether it is met."""
    rows: list[dict[str, Any]] = []

    def add(
        workload: Workload,
        metric: str,
        ours: Any,
        ref: Any,
        *,
        unit: str = "",
        target: str | None = None,
        met: bool | None = None,
    ) -> None:
        a, b = _total(ours), _total(ref)
        ratio = a / b if a is not None and b else None
        rows.append(
            {
                "workload": workload.name,
                "metric": metric,
                "unit": unit,
                "optimizer_core": ours,
                "synalinks": ref,
                "ratio": ratio,
                "target": target,
                "met": met,
            }
        )

    for workload in workloads:
        first = workload.latencies[0]
        ours_runs = _ok(runs, "optimizer_core", workload.name, first)
        ref_runs = _ok(runs, "synalinks", workload.name, first)
        ours_calls = median_series(ours_runs, "lm_calls")
        ref_calls = median_series(ref_runs, "lm_calls")
        per_epoch_met = None
        if ours_calls and ref_calls:
            per_epoch_met = all(
                a <= b * CALLS_TARGET for a, b in zip(ours_calls, ref_calls, strict=False)
            )
        ms = round(first * 1000)
        add(
            workload,
            f"LM calls per epoch @ {ms} ms",
            ours_calls,
            ref_calls,
            unit="calls",
            target="<= 1.00 each epoch",
            met=per_epoch_met,
        )
        add(
            workload,
            "  of which optimizer calls",
            median_series(ours_runs, "optimizer_calls"),
            median_series(ref_runs, "optimizer_calls"),
            unit="calls",
        )
        if workload.optimizer == "omega":
            add(
                workload,
                "embedding requests per epoch",
                median_series(ours_runs, "embedding_requests"),
                median_series(ref_runs, "embedding_requests"),
                unit="calls",
            )
        ours_reward = median(map(_last_val_reward, _ok(runs, "optimizer_core", workload.name)))
        ref_reward = median(map(_last_val_reward, _ok(runs, "synalinks", workload.name)))
        reward_met = None
        if ours_reward is not None and ref_reward is not None:
            reward_met = ours_reward >= ref_reward * REWARD_TARGET
        add(
            workload,
            "val_reward, last epoch",
            ours_reward,
            ref_reward,
            target=">= 1.00",
            met=reward_met,
        )
        for latency in workload.latencies:
            if latency <= 0:
                continue
            ms = round(latency * 1000)
            ours_lat = _ok(runs, "optimizer_core", workload.name, latency)
            ref_lat = _ok(runs, "synalinks", workload.name, latency)
            wall, ref_wall = median_of(ours_lat, "fit_wall_s"), median_of(ref_lat, "fit_wall_s")
            wall_met = None if wall is None or not ref_wall else wall / ref_wall <= WALL_TARGET
            add(
                workload,
                f"fit wall time @ {ms} ms",
                wall,
                ref_wall,
                unit="s",
                target="<= 0.50",
                met=wall_met,
            )
            add(
                workload,
                f"request rounds @ {ms} ms",
                median_of(ours_lat, "request_rounds"),
                median_of(ref_lat, "request_rounds"),
                unit="rounds",
            )
    return rows


def _cell(value: Any, unit: str) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, list):
        numbers = "/".join(f"{v:.0f}" for v in value)
        return f"{numbers} = {sum(value):.0f}" if len(value) > 1 else numbers
    if unit in ("calls", "rounds"):
        return f"{value:.0f}"
    if unit == "s":
        return f"{value:.2f}"
    return f"{value:.3f}"


def format_table(rows: list[dict[str, Any]]) -> str:
    header = ("workload", "metric", "optimizer_core", "synalinks", "ratio", "target", "met")
    body = []
    for row in rows:
        met = "" if row["met"] is None else ("yes" if row["met"] else "NO")
        body.append(
            (
                row["workload"],
                row["metric"] + (f" ({row['unit']})" if row["unit"] else ""),
                _cell(row["optimizer_core"], row["unit"]),
                _cell(row["synalinks"], row["unit"]),
                "n/a" if row["ratio"] is None else f"{row['ratio']:.2f}",
                row["target"] or "",
                met,
            )
        )
    widths = column_widths(header, body)
    lines = [table_line(header, widths), table_rule(widths)]
    lines += [table_line(cells, widths) for cells in body]
    lines.append(
        "per-epoch cells: epoch 1/epoch 2/... = total; ratio = optimizer_core / synalinks "
        "(on totals); medians over the repeats"
    )
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    names = [w.name for w in WORKLOADS]
    parser.add_argument("--libs", nargs="+", choices=LIBS, default=list(LIBS))
    parser.add_argument("--workloads", nargs="+", choices=names, default=names)
    parser.add_argument("--repeats", type=int, default=3, help="runs per setting; medians shown")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--minibatch-size", type=int, default=None, help="fit's minibatch_size (both libraries)"
    )
    parser.add_argument("--timeout", type=float, default=300, help="seconds per workload run")
    parser.add_argument(
        "--core-root", type=Path, default=None, help="run optimizer_core from this checkout"
    )
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument(
        "--skip-setup",
        action="store_true",
        help="do not build bench/.venv-ref (synalinks runs fail if it is missing)",
    )
    return parser.parse_args(argv)


def _progress(run: dict[str, Any]) -> str:
    where = f"{run['lib']} {run['workload']} @ {run['latency_s'] * 1000:.0f} ms"
    if "error" in run:
        tail = str(run.get("stderr_tail", "")).strip().replace("\n", "\n  ")[-1500:]
        return f"{where}: FAILED ({run['error']})\n  {tail}"
    return (
        f"{where}: fit {run['fit_wall_s']:.2f} s, LM calls {run['lm_calls']}, "
        f"val_reward {_last_val_reward(run)}"
        + (f", {run['request_rounds']} rounds" if "request_rounds" in run else "")
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if "synalinks" in args.libs and not args.skip_setup and not setup_reference():
        args.libs = [lib for lib in args.libs if lib != "synalinks"]
    workloads = [w for w in WORKLOADS if w.name in args.workloads]
    started = time.perf_counter()
    runs: list[dict[str, Any]] = []
    for workload in workloads:
        for latency in workload.latencies:
            # Interleave the libraries so a change in machine load hits both alike.
            for repeat in range(args.repeats):
                for lib in args.libs:
                    run = run_one(lib, workload, latency, args)
                    run["repeat"] = repeat
                    runs.append(run)
                    print(_progress(run), flush=True)

    rows = build_table(runs, workloads)
    table = format_table(rows)
    print()
    print(table)
    report = {
        "benchmark": "training_cost",
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "command": " ".join(
            ["python bench/training_cost/run.py", *(argv if argv is not None else sys.argv[1:])]
        ),
        "workloads": [dataclasses.asdict(w) for w in workloads],
        "config": {
            "repeats": args.repeats,
            "seed": args.seed,
            "validation_split": 0.2,
            "minibatch_size": args.minibatch_size,
            "core_root": None if args.core_root is None else str(args.core_root),
        },
        "environment": {
            "platform": platform.platform(),
            "cpu_count": os.cpu_count(),
            "load_average": list(os.getloadavg()),
            "reference_venv_pins": reference_pins(),
        },
        "targets": {
            "calls_per_epoch_ratio_max": CALLS_TARGET,
            "fit_wall_100ms_ratio_max": WALL_TARGET,
            "val_reward_ratio_min": REWARD_TARGET,
        },
        "table": rows,
        "table_text": table,
        "runs": runs,
        "total_s": time.perf_counter() - started,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    shown = args.output.relative_to(ROOT) if args.output.is_relative_to(ROOT) else args.output
    print(f"\nwrote {shown} ({report['total_s']:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["WORKLOADS", "Workload", "build_table", "format_table", "main"]
