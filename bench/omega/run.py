"""OMEGA benchmark: LM and embedding calls per epoch, optimizer_core against synalinks.

Runs `workload.py` beside this file (the training guide's program compiled with
``OMEGA(language_model=lm, embedding_model=em, population_size=N)``) in each
library's own interpreter against one local scripted server per run, for each
population size, and prints side by side, per epoch: the task LM calls, the
optimizer's LM calls (mutations and crossovers), the embedding requests and the
texts they held, the population at each epoch end; then the fit wall time and
the rewards. Everything goes to ``bench/results/omega.json``.

    .venv/bin/python bench/omega/run.py                  # ~2 min on 2 cores
    .venv/bin/python bench/omega/run.py --libs optimizer_core --populations 10

The server runs in this process (a background thread) with no latency. Its
responder (`bench/omega/responder.py`) notes each request's arrival time and
kind (task, mutation, crossover, told apart by the request's schema and
content), its embedder the arrival time and the number of texts; the workload
reports the wall-clock time of each epoch's end, seen by a callback, and the
requests are split into epochs with those times. Both libraries run the
optimizer's epoch-end work (the competition and its embeddings) before the
callbacks' ``on_epoch_end``, so it falls in its own epoch.

A benchmark reports, it does not judge: the exit status is 0 whatever the
figures, and non-zero only when the benchmark itself could not run.
"""

from __future__ import annotations

import argparse
import bisect
import datetime
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
from bench.common.stats import history_at, median_of, median_series  # noqa: E402
from bench.common.tables import column_widths, table_line, table_rule  # noqa: E402
from bench.common.workloads import run_workload  # noqa: E402
from bench.omega import responder as omega_responder  # noqa: E402

WORKLOAD = Path(__file__).resolve().with_name("workload.py")
DEFAULT_OUTPUT = ROOT / "bench" / "results" / "omega.json"

KINDS = ("task", "mutation", "crossover")


class Trace:
    """The server's responder and embedder, noting every request's arrival time and kind."""

    def __init__(self, responder: Callable[[dict[str, Any]], Any]) -> None:
        from optimizer_core.testing.scripted_server import default_embedder

        self.responder = responder
        self.default_embedder = default_embedder
        self.chats: list[tuple[float, str]] = []
        self.embeddings: list[tuple[float, tuple[str, ...]]] = []
        self._lock = threading.Lock()

    def respond(self, request: dict[str, Any]) -> Any:
        arrival = time.time()
        kind = omega_responder.request_kind(request)
        with self._lock:
            self.chats.append((arrival, kind))
        return self.responder(request)

    def embed(self, texts: list[str]) -> list[list[float]]:
        arrival = time.time()
        with self._lock:
            self.embeddings.append((arrival, tuple(texts)))
        vectors: list[list[float]] = self.default_embedder(texts)
        return vectors


def split_by_epoch(
    arrivals: list[tuple[float, Any]],
    fit_start: float,
    epoch_ends: list[float],
) -> dict[str, Any]:
    """Which epoch each arrival falls in: ``(end of epoch i-1, end of epoch i]``.

    Returns ``{"epochs": [[values...] per epoch], "before": [...], "after": [...]}``:
    ``before`` holds what came before fit (the warm-up), ``after`` what came after
    the last epoch's end (``on_train_end``).
    """
    epochs: list[list[Any]] = [[] for _ in epoch_ends]
    before: list[Any] = []
    after: list[Any] = []
    for arrival, value in arrivals:
        if arrival < fit_start:
            before.append(value)
            continue
        index = bisect.bisect_left(epoch_ends, arrival)
        (epochs[index] if index < len(epoch_ends) else after).append(value)
    return {"epochs": epochs, "before": before, "after": after}


def count_requests(trace: Trace, fit_start: float, epoch_ends: list[float]) -> dict[str, Any]:
    """Per-epoch counts of each request kind, embedding requests and embedded texts."""
    chats = split_by_epoch(list(trace.chats), fit_start, epoch_ends)
    embeds = split_by_epoch(list(trace.embeddings), fit_start, epoch_ends)
    out: dict[str, Any] = {}
    for kind in KINDS:
        out[f"{kind}_calls"] = [sum(v == kind for v in epoch) for epoch in chats["epochs"]]
    out["optimizer_calls"] = [
        m + c for m, c in zip(out["mutation_calls"], out["crossover_calls"], strict=True)
    ]
    out["embedding_requests"] = [len(epoch) for epoch in embeds["epochs"]]
    out["embedded_texts"] = [sum(len(texts) for texts in epoch) for epoch in embeds["epochs"]]
    out["distinct_embedded_texts"] = [
        len({text for texts in epoch for text in texts}) for epoch in embeds["epochs"]
    ]
    out["chat_before_fit"] = len(chats["before"])
    out["chat_after_last_epoch"] = len(chats["after"])
    out["embedding_requests_after_last_epoch"] = len(embeds["after"])
    out["embedded_texts_after_last_epoch"] = sum(len(texts) for texts in embeds["after"])
    distinct = list(dict.fromkeys(text for _, texts in trace.embeddings for text in texts))
    out["distinct_embedded_texts_in_run"] = len(distinct)
    out["embedded_text_samples"] = [text[:300] for text in distinct[:3]]
    return out


def run_one(lib: str, population: int, args: argparse.Namespace) -> dict[str, Any]:
    """One workload process against a fresh server: its JSON plus the per-epoch counts."""
    from optimizer_core.testing.scripted_server import ScriptedServer

    base: dict[str, Any] = {"lib": lib, "population_size": population}
    python = interpreter(lib)
    if not python.exists():
        return {**base, "error": f"no interpreter at {python}"}
    trace = Trace(omega_responder.respond)
    server = ScriptedServer(trace.respond, embedder=trace.embed).start_in_thread()
    try:
        command = [
            str(python),
            str(WORKLOAD),
            "--lib",
            lib,
            "--api-base",
            server.base_url,
            "--population-size",
            str(population),
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
            return {**base, **(done.error or {})}
        stats = server.stats
        result: dict[str, Any] = {
            **base,
            "server_chat_requests": stats.chat_requests,
            "server_embedding_requests": stats.embedding_requests,
            "max_in_flight": stats.max_in_flight,
        }
        if done.report is None:
            result.update(done.error or {})
            return result
        result.update(done.report)
        result["warnings"] = _warning_lines(done.stderr)
        result.update(
            count_requests(trace, result["fit_start_unix"], list(result["epoch_end_unix"]))
        )
        return result
    finally:
        server.stop()


def _warning_lines(stderr: str) -> list[str]:
    """Distinct warning lines of the workload's stderr (e.g. a skipped mutation), first 20."""
    seen: list[str] = []
    for line in stderr.splitlines():
        line = line.strip()
        if "warn" in line.lower() and line not in seen:
            seen.append(line)
    return seen[:20]


# Table -------------------------------------------------------------------------------------


def _ok(runs: list[dict[str, Any]], lib: str, population: int) -> list[dict[str, Any]]:
    return [
        r
        for r in runs
        if r["lib"] == lib and r["population_size"] == population and "error" not in r
    ]


def _population_series(run: dict[str, Any]) -> list[float]:
    return [sum(v or 0 for v in epoch.values()) for epoch in run.get("population_per_epoch", [])]


def build_table(runs: list[dict[str, Any]], populations: list[int]) -> list[dict[str, Any]]:
    """Rows of metric | optimizer_core | synalinks, per population size.

    A per-epoch row holds the series (``per_epoch``) and its total; a scalar row
    its value. ``ratio`` is optimizer_core / synalinks on the totals or values.
    """
    rows: list[dict[str, Any]] = []

    def add_series(metric: str, key: str, population: int, total: bool = True) -> None:
        row: dict[str, Any] = {"metric": metric, "population_size": population, "per_epoch": True}
        for lib in LIBS:
            if key == "population":
                values = [_population_series(r) for r in _ok(runs, lib, population)]
                series = (
                    [statistics.median(v[i] for v in values) for i in range(min(map(len, values)))]
                    if values
                    else None
                )
            else:
                series = median_series(_ok(runs, lib, population), key)
            row[lib] = series
            row[f"{lib}_total"] = sum(series) if series is not None and total else None
        ours, ref = row["optimizer_core_total"], row["synalinks_total"]
        row["ratio"] = ours / ref if ours is not None and ref else None
        rows.append(row)

    def add_value(
        metric: str, pick: Callable[[dict[str, Any]], Any], population: int, unit: str = ""
    ) -> None:
        row: dict[str, Any] = {
            "metric": metric,
            "population_size": population,
            "per_epoch": False,
            "unit": unit,
        }
        for lib in LIBS:
            row[lib] = median_of(_ok(runs, lib, population), pick)
        ours, ref = row["optimizer_core"], row["synalinks"]
        row["ratio"] = ours / ref if ours is not None and ref else None
        rows.append(row)

    for population in populations:
        add_series("task LM calls per epoch", "task_calls", population)
        add_series("optimizer LM calls per epoch", "optimizer_calls", population)
        add_series("  of which crossovers", "crossover_calls", population)
        add_series("embedding requests per epoch", "embedding_requests", population)
        add_series("texts embedded per epoch", "embedded_texts", population)
        add_series("  distinct texts per epoch", "distinct_embedded_texts", population, total=False)
        add_series("population at epoch end", "population", population, total=False)
        add_value(
            "final population size",
            lambda r: sum(v or 0 for v in (r.get("final_population") or {}).values()),
            population,
        )
        add_value(
            "LM calls after the last epoch",
            lambda r: r.get("chat_after_last_epoch"),
            population,
        )
        add_value("fit wall time @ 0 ms", lambda r: r.get("fit_wall_s"), population, "s")
        add_value("reward, last epoch", history_at("reward", -1), population)
        add_value("val_reward, first epoch", history_at("val_reward", 0), population)
        add_value("val_reward, last epoch", history_at("val_reward", -1), population)
    return rows


def _fmt_number(value: float | None, unit: str = "") -> str:
    if value is None:
        return "n/a"
    if unit == "s":
        return f"{value:.2f}"
    if float(value).is_integer():
        return f"{value:.0f}"
    return f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}"


def _fmt_cell(row: dict[str, Any], lib: str) -> str:
    if not row["per_epoch"]:
        return _fmt_number(row[lib], row.get("unit", ""))
    series = row[lib]
    if series is None:
        return "n/a"
    text = "/".join(_fmt_number(v) for v in series)
    total = row[f"{lib}_total"]
    return text if total is None else f"{text} = {_fmt_number(total)}"


def format_table(rows: list[dict[str, Any]]) -> str:
    header = ("metric", "optimizer_core", "synalinks", "ratio")
    body = []
    for row in rows:
        unit = row.get("unit", "")
        name = f"{row['metric']} ({unit})" if unit else row["metric"]
        name = f"{name} [pop {row['population_size']}]"
        ratio = "n/a" if row["ratio"] is None else f"{row['ratio']:.2f}"
        body.append((name, _fmt_cell(row, "optimizer_core"), _fmt_cell(row, "synalinks"), ratio))
    widths = column_widths(header, body)
    out = [table_line(header, widths), table_rule(widths)]
    previous = None
    for row, cells in zip(rows, body, strict=True):
        if previous is not None and row["population_size"] != previous:
            out.append(table_rule(widths))
        previous = row["population_size"]
        out.append(table_line(cells, widths))
    out.append(
        "per-epoch cells: epoch 1/epoch 2/... = total; ratio = optimizer_core / synalinks "
        "(on totals); medians over the repeats"
    )
    return "\n".join(out)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="OMEGA benchmark: optimizer_core vs synalinks")
    parser.add_argument("--libs", nargs="+", choices=LIBS, default=list(LIBS))
    parser.add_argument("--populations", nargs="+", type=int, default=[10, 20])
    parser.add_argument("--rows", type=int, default=40, help="dataset rows (default 40)")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeats", type=int, default=3, help="runs per setting; medians shown")
    parser.add_argument("--timeout", type=float, default=240, help="seconds per workload run")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument(
        "--skip-setup",
        action="store_true",
        help="do not build bench/.venv-ref (synalinks runs fail if it is missing)",
    )
    return parser.parse_args(argv)


def _progress(run: dict[str, Any]) -> str:
    head = f"{run['lib']} @ population {run['population_size']}"
    if "error" in run:
        tail = run.get("stderr_tail", "").strip().replace("\n", "\n  ")[-1500:]
        return f"{head}: FAILED ({run['error']})\n  {tail}"
    return (
        f"{head}: fit {run['fit_wall_s']:.2f} s, task {sum(run['task_calls'])}, "
        f"optimizer {sum(run['optimizer_calls'])} LM calls, "
        f"{sum(run['embedding_requests'])} embedding requests "
        f"({sum(run['embedded_texts'])} texts)"
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if "synalinks" in args.libs and not args.skip_setup and not setup_reference():
        args.libs = [lib for lib in args.libs if lib != "synalinks"]

    started = time.perf_counter()
    runs: list[dict[str, Any]] = []
    for population in args.populations:
        for repeat in range(args.repeats):
            # Interleave the libraries so a change in machine load hits both alike.
            for lib in args.libs:
                run = run_one(lib, population, args)
                run["repeat"] = repeat
                runs.append(run)
                print(_progress(run), flush=True)

    rows = build_table(runs, args.populations)
    table = format_table(rows)
    print()
    print(table)

    report = {
        "benchmark": "omega",
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "command": " ".join(
            ["python bench/omega/run.py", *(argv if argv is not None else sys.argv[1:])]
        ),
        "config": {
            "rows": args.rows,
            "epochs": args.epochs,
            "batch_size": args.batch_size,
            "validation_split": 0.2,
            "seed": args.seed,
            "repeats": args.repeats,
            "populations": args.populations,
            "latency_s": 0.0,
            "optimizer": "OMEGA(language_model=lm, embedding_model=em, population_size=N)",
            "reward": "ExactMatch(in_mask=['answer'])",
        },
        "environment": {
            "platform": platform.platform(),
            "cpu_count": os.cpu_count(),
            "runner_python": platform.python_version(),
            "reference_venv_pins": reference_pins(),
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
    sys.exit(main())
