"""Code-reward overhead: a reward in the sandbox against the built-in ExactMatch, per row.

Scores the same rows (DataModels, as the trainer passes them) with
``ExactMatch(in_mask=["answer"])`` and with the same comparison written as a code
reward (``MeanRewardWrapper(fn=CodeFunction(...))``), the way the trainer does:
each batch's rows gathered concurrently. For each batch size it times every batch,
divides by its rows, and reports p50 and p95 of that per-row time over all batches
of all repeats, for both rewards, and their difference (the sandbox's overhead
per scored row). It also times the start-up of a sandbox (the process, the
runtime, loading the code) and the first row after it, and, with ``--compile``,
the one-time compilation of the runtime into a scratch cache.

Target (issue 19): at most 2 ms of overhead per row, p50, once warm.

    .venv/bin/python bench/code_reward/run.py [--rows 1000] [--batch-sizes 1,4,32] [--repeats 3]
    .venv/bin/python bench/code_reward/run.py --compile     # + the one-time compile (minutes)

The table also goes to ``bench/results/code_reward.json``. The machine's load
average is printed beside it: the figures mean little on a busy machine. A
benchmark reports, it does not judge: the exit status is 0 whatever the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run as a script: make `bench` importable

import optimizer_core as synalinks  # noqa: E402
from bench.common.tables import column_widths, table_line, table_rule  # noqa: E402
from optimizer_core.sandbox import CodeFunction, runtime  # noqa: E402

DEFAULT_OUTPUT = ROOT / "bench" / "results" / "code_reward.json"
TARGET_MS = 2.0

SOURCE = """
def reward(y_true, y_pred):
    return float(y_true["answer"] == y_pred["answer"])
"""


class Answer(synalinks.DataModel):
    answer: str


def make_rows(count: int) -> list[tuple[Answer, Answer]]:
    """Half right, half wrong, answers of a few words (as a classifier's)."""
    return [
        (Answer(answer=f"topic {i % 7} of the message"), Answer(answer=f"topic {i % 5} of it"))
        for i in range(count)
    ]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def quantiles(values: list[float]) -> dict[str, float]:
    return {"p50": percentile(values, 0.5), "p95": percentile(values, 0.95)}


async def per_row_ms(reward: Any, rows: list[Any], batch_size: int, repeats: int) -> list[float]:
    """Milliseconds per row of each batch, over `repeats` passes (after one warm-up batch)."""
    await asyncio.gather(*(reward(y, p) for y, p in rows[:batch_size]))
    times: list[float] = []
    for _ in range(repeats):
        for start in range(0, len(rows), batch_size):
            batch = rows[start : start + batch_size]
            began = time.perf_counter()
            await asyncio.gather(*(reward(y, p) for y, p in batch))
            times.append((time.perf_counter() - began) * 1000 / len(batch))
    return times


async def start_up(samples: int) -> dict[str, Any]:
    """Seconds from nothing to a loaded sandbox, and the first row's milliseconds after it."""
    starts, firsts = [], []
    for _ in range(samples):
        function = CodeFunction(SOURCE)
        began = time.perf_counter()
        problem = await function.check()
        starts.append(time.perf_counter() - began)
        if problem:
            raise SystemExit(f"the code reward does not load: {problem}")
        began = time.perf_counter()
        await function({"answer": "a"}, {"answer": "a"})
        firsts.append((time.perf_counter() - began) * 1000)
        await function.close()
    return {
        "samples": samples,
        "start_s_median": statistics.median(starts),
        "start_s_max": max(starts),
        "first_row_ms_median": statistics.median(firsts),
    }


def compile_once() -> float:
    """Seconds to compile the runtime into a scratch cache (what `make` does once)."""
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["OPTIMIZER_CORE_CACHE_DIR"] = scratch
        try:
            began = time.perf_counter()
            runtime.prepare(force=True)
            return time.perf_counter() - began
        finally:
            del os.environ["OPTIMIZER_CORE_CACHE_DIR"]


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    runtime.prepare()  # compiled already by make; else once here, before any timing
    rows = make_rows(args.rows)
    exact = synalinks.rewards.ExactMatch(in_mask=["answer"])
    function = CodeFunction(SOURCE, name="same_answer")
    code = synalinks.rewards.MeanRewardWrapper(fn=function, in_mask=["answer"])
    by_size = []
    try:
        for size in args.batch_sizes:
            exact_ms = await per_row_ms(exact, rows, size, args.repeats)
            code_ms = await per_row_ms(code, rows, size, args.repeats)
            by_size.append(
                {
                    "batch_size": size,
                    "batches": len(code_ms),
                    "exact_match_ms": quantiles(exact_ms),
                    "code_reward_ms": quantiles(code_ms),
                    # The difference of the two rewards' percentiles.
                    "overhead_ms": {
                        q: quantiles(code_ms)[q] - quantiles(exact_ms)[q] for q in ("p50", "p95")
                    },
                }
            )
        assert function.rows_failed == 0, list(function.errors)[:3]
    finally:
        await function.close()
    return {
        "rows": args.rows,
        "repeats": args.repeats,
        "by_batch_size": by_size,
        "start_up": await start_up(args.start_samples),
        "compile_s": compile_once() if args.compile else None,
    }


def report(results: dict[str, Any]) -> str:
    header = ["per scored row", "ExactMatch p50", "p95", "code reward p50", "p95",
              "overhead p50", "p95", "target p50"]  # fmt: skip
    body = []
    for entry in results["by_batch_size"]:
        e, c, o = entry["exact_match_ms"], entry["code_reward_ms"], entry["overhead_ms"]
        body.append(
            [f"batch of {entry['batch_size']} ({entry['batches']} batches)",
             f"{e['p50']:.3f} ms", f"{e['p95']:.3f} ms", f"{c['p50']:.3f} ms", f"{c['p95']:.3f} ms",
             f"{o['p50']:.3f} ms", f"{o['p95']:.3f} ms", f"<= {TARGET_MS:g} ms"]
        )  # fmt: skip
    widths = column_widths(header, body)
    lines = [table_line(header, widths), table_rule(widths)]
    lines += [table_line(line, widths) for line in body]
    start = results["start_up"]
    lines.append("")
    lines.append(
        f"start-up of a sandbox (process, runtime, loading the code): median "
        f"{start['start_s_median']:.2f} s, max {start['start_s_max']:.2f} s over "
        f"{start['samples']}; first row after it {start['first_row_ms_median']:.1f} ms"
    )
    if results["compile_s"] is not None:
        lines.append(
            f"one-time compile of the runtime (make does it): {results['compile_s']:.0f} s"
        )
    load = results["machine"]["load_average"]
    lines.append(
        f"{results['rows']} rows x {results['repeats']} repeats; load average "
        f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} on {results['machine']['cpus']} CPUs"
        + (" (busy: figures are inflated)" if load[0] > 0.5 * results["machine"]["cpus"] else "")
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument(
        "--batch-sizes", type=lambda text: [int(p) for p in text.split(",")], default=[1, 4, 32]
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--start-samples", type=int, default=5)
    parser.add_argument("--compile", action="store_true", help="also time the one-time compile")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args(argv)
    results = asyncio.run(measure(args))
    results["machine"] = {
        "cpus": os.cpu_count(),
        "load_average": list(os.getloadavg()),
        "python": platform.python_version(),
        "platform": platform.platform(),
    }
    results["date"] = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    results["target_overhead_ms_p50"] = TARGET_MS
    print(report(results))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=2) + "\n")
    print(f"written to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
