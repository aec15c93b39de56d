"""OMEGA on the bundled model: its wall time against RandomFewShot's, its slowest LM call.

For each task (the studio's demo, support-ticket topics; a BANKING77 subset of five
intents) the runner trains the same one-Generator program twice on the bundled
SmolLM2-135M (`LocalModelServer`, as `bench/templates` does), once with
RandomFewShot and once with OMEGA, each with its catalogue defaults (the
constructor's: `studio.runs.catalogue` lists them) and the run form's quick start
(2 epochs, batch 8, no validation split, ``validate_start=True`` as a studio run),
and records per run:

- wall time of the run (test rows before, fit, test rows after) and of the fit alone;
- LM calls (the program's and the optimizer's), the longest call (from the call to
  its answer, queueing for a server slot included) and the longest request (one
  attempt with the server);
- test reward at temperature 0 before and after, with the paired 95% interval
  (`optimizer_core.stats.compare_paired`);
- for OMEGA, its mutation and crossover proposals: how many answers parsed (the
  language model's `_answer` seam) and, from the optimizer's own events
  (``on_optimizer_event``: ``initial``, ``candidate``, ``proposal_skipped``), how
  many proposals differ from their parent in the fields the model writes.

The LM calls are counted at the language model's seams (`_call`, `_transport`,
`_answer`, wrapped on the instance): a call whose schema holds only the task's
output field is the program's; any other is the optimizer's. The runs of a task
alternate (RFS, OMEGA; then OMEGA, RFS for the next task or repeat), so load from
other work on the machine falls on both alike. The table puts RFS and OMEGA side
by side with the ratio and the targets (OMEGA's run at most 3x RFS's, no LM request
above 30 s). Writes ``bench/results/omega_local.json``.

    .venv/bin/python bench/omega_local/run.py --quick      # 24 training, 20 test rows
    .venv/bin/python bench/omega_local/run.py              # 100 training, 100 test rows
    .venv/bin/python bench/omega_local/run.py --tasks demo --repeats 2

BANKING77 is read from ``../shared/data/banking77`` (``--data-dir``); without it the
task is skipped with a message naming the missing file. A benchmark reports, it
does not judge: exit 0 whatever the figures, non-zero only when it could not run
(no bundled model: it says how to install it).
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import dataclasses
import datetime
import json
import logging
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.common.tables import column_widths, table_line, table_rule  # noqa: E402

DEFAULT_OUTPUT = ROOT / "bench" / "results" / "omega_local.json"
DATA = ROOT.parent / "shared" / "data"
BANKING_INTENTS = (
    "card_arrival",
    "lost_or_stolen_card",
    "exchange_rate",
    "pin_blocked",
    "top_up_failed",
)
BANKING_DESCRIPTION = (
    "Tags an online bank's customer messages with one of five intents: card_arrival, "
    "lost_or_stolen_card, exchange_rate, pin_blocked or top_up_failed."
)
OPTIMIZERS = ("RandomFewShot", "OMEGA")
TARGET_RATIO = 3.0
TARGET_CALL_S = 30.0


def load() -> list[float]:
    try:
        return [round(value, 2) for value in os.getloadavg()]
    except OSError:
        return []


# Tasks ------------------------------------------------------------------------------------


@dataclasses.dataclass
class Task:
    name: str
    description: str
    input_model: Any
    output_model: Any
    field: str
    x_train: Any
    y_train: Any
    x_test: Any
    y_test: Any


def demo_task(train: int, test: int) -> Task:
    """The studio's demo: its program's description and data, support-ticket topics.

    The demo dataset is the first 200 support tickets, half held out; here the
    shipped split's first `train` training and `test` test rows (topics balanced).
    """
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings.test")
    import django

    django.setup()
    from optimizer_core.datasets import support_tickets
    from studio.accounts.services import DEMO_PROGRAM_DESCRIPTION

    (x_train, y_train), _ = support_tickets.load_data(limit=train)
    _, (x_test, y_test) = support_tickets.load_data(limit=test)
    return Task(
        "demo",
        DEMO_PROGRAM_DESCRIPTION,
        support_tickets.SupportMessage,
        support_tickets.SupportTopic,
        "topic",
        x_train,
        y_train,
        x_test,
        y_test,
    )


def banking_rows(path: Path, count: int) -> list[tuple[str, str]]:
    """The first rows of the five intents, taken in turn (so the intents stay balanced)."""
    by_intent: dict[str, list[str]] = {intent: [] for intent in BANKING_INTENTS}
    with open(path, newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if row["category"] in by_intent:
                by_intent[row["category"]].append(row["text"])
    rows: list[tuple[str, str]] = []
    for index in range(max(len(v) for v in by_intent.values())):
        for intent in BANKING_INTENTS:
            if index < len(by_intent[intent]):
                rows.append((by_intent[intent][index], intent))
    return rows[:count]


def banking_task(data_dir: Path, train: int, test: int) -> Task | str:
    """Five BANKING77 intents, or why not (the missing file)."""
    from optimizer_core.datasets import banking77
    from optimizer_core.datasets._arrays import object_array

    folder = data_dir / "banking77"
    for name in ("train.csv", "test.csv"):
        if not (folder / name).is_file():
            return f"banking77 skipped: {folder / name} is missing (see ../shared/data/README.md)"
    intent_model = banking77.get_output_data_model(categories=list(BANKING_INTENTS), path=folder)

    def arrays(rows: list[tuple[str, str]]) -> tuple[Any, Any]:
        return (
            object_array([banking77.BankingQuery(text=text) for text, _ in rows]),
            object_array([intent_model(intent=intent) for _, intent in rows]),
        )

    x_train, y_train = arrays(banking_rows(folder / "train.csv", train))
    x_test, y_test = arrays(banking_rows(folder / "test.csv", test))
    return Task(
        "banking77",
        BANKING_DESCRIPTION,
        banking77.BankingQuery,
        intent_model,
        "intent",
        x_train,
        y_train,
        x_test,
        y_test,
    )


# Counting at the language model's seams ---------------------------------------------------


class CallMeter:
    """Wraps a language model's `_call`, `_transport` and `_answer` on the instance.

    A call's kind is ``"task"`` when its schema's properties are exactly the task's
    output field, ``"optimizer"`` otherwise (OMEGA's mutation and crossover programs
    answer with the variable's fields).
    """

    def __init__(self, lm: Any, field: str) -> None:
        self.field = field
        self.calls: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []
        self.answers: dict[str, dict[str, int]] = {}
        call, transport, answer = lm._call, lm._transport, lm._answer

        async def timed_call(ask: Any) -> Any:
            kind = self.kind(None if ask.output is None else ask.output.schema)
            started = time.perf_counter()
            try:
                return await call(ask)
            finally:
                self.calls.append({"kind": kind, "s": time.perf_counter() - started})

        async def timed_transport(request: Any) -> Any:
            kind = self.kind(request.schema)
            started = time.perf_counter()
            response = await transport(request)
            self.requests.append(
                {
                    "kind": kind,
                    "s": time.perf_counter() - started,
                    "max_tokens": request.max_tokens,
                    "prompt_tokens": response.prompt_tokens,
                    "completion_tokens": response.completion_tokens,
                    "finish_reason": response.finish_reason,
                }
            )
            return response

        def counted_answer(ask: Any, response: Any) -> Any:
            kind = self.kind(None if ask.output is None else ask.output.schema)
            counts = self.answers.setdefault(kind, {"parsed": 0, "failed": 0})
            try:
                result = answer(ask, response)
            except Exception:
                counts["failed"] += 1
                raise
            counts["parsed"] += 1
            return result

        lm._call, lm._transport, lm._answer = timed_call, timed_transport, counted_answer

    def kind(self, schema: dict[str, Any] | None) -> str:
        properties = set((schema or {}).get("properties") or {})
        return "task" if properties == {self.field} else "optimizer"

    def mark(self) -> tuple[int, int]:
        return len(self.calls), len(self.requests)

    def summary(self, since: tuple[int, int] = (0, 0)) -> dict[str, Any]:
        calls, requests = self.calls[since[0] :], self.requests[since[1] :]

        def longest(items: list[dict[str, Any]], kind: str | None = None) -> float | None:
            times = [i["s"] for i in items if kind is None or i["kind"] == kind]
            return max(times) if times else None

        slowest = max(requests, key=lambda r: r["s"], default=None)
        return {
            "calls": len(calls),
            "task_calls": sum(c["kind"] == "task" for c in calls),
            "optimizer_calls": sum(c["kind"] == "optimizer" for c in calls),
            "requests": len(requests),
            "longest_call_s": longest(calls),
            "longest_task_call_s": longest(calls, "task"),
            "longest_optimizer_call_s": longest(calls, "optimizer"),
            "longest_request_s": longest(requests),
            "longest_optimizer_request_s": longest(requests, "optimizer"),
            "slowest_request": slowest,
            "truncated_requests": sum(r["finish_reason"] == "length" for r in requests),
            "optimizer_requests": [r for r in requests if r["kind"] == "optimizer"],
        }


def proposal_counter() -> Any:
    """A callback that sorts OMEGA's proposals by outcome, from the optimizer's events."""
    import optimizer_core as oc

    class ProposalCounter(oc.callbacks.Callback):
        def __init__(self) -> None:
            super().__init__()
            self.values: dict[str, dict[str, Any]] = {}
            self.proposals: list[dict[str, Any]] = []

        def on_optimizer_event(self, event: str, payload: dict[str, Any] | None = None) -> Any:
            payload = payload or {}
            if event == "initial":
                candidate = payload["candidate"]
                self.values[candidate["id"]] = candidate["value"]
            elif event == "candidate":
                candidate = payload["candidate"]
                self.values[candidate["id"]] = candidate["value"]
                if candidate.get("operation") in ("mutation", "crossover"):
                    written = _written(candidate["value"])
                    parents = [self.values.get(p) for p in candidate.get("parents") or []]
                    same = any(p is not None and _written(p) == written for p in parents)
                    self.proposals.append(
                        {
                            "operation": candidate["operation"],
                            "outcome": "same as a parent" if same else "differs",
                            "value": written,
                            "reward": candidate.get("reward"),
                        }
                    )
            elif event == "proposal_skipped":
                self.proposals.append(
                    {
                        "operation": payload.get("operation"),
                        "outcome": "no valid answer",
                        "reason": payload.get("reason"),
                    }
                )
            return None

    return ProposalCounter()


def _written(value: dict[str, Any]) -> dict[str, Any]:
    """The fields OMEGA's language model writes (it keeps the parent's examples)."""
    return {k: v for k, v in value.items() if k != "examples"}


# One run ----------------------------------------------------------------------------------


def build_optimizer(name: str, lm: Any, em: Any, seed: int) -> Any:
    import optimizer_core as oc

    if name == "OMEGA":
        return oc.optimizers.OMEGA(language_model=lm, embedding_model=em, seed=seed)
    return oc.optimizers.RandomFewShot(seed=seed)


async def measure(
    task: Task,
    optimizer_name: str,
    server: Any,
    args: argparse.Namespace,
    build: Any = build_optimizer,
) -> dict:
    """One run; `build(name, lm, em, seed)` makes its optimizer (bench/omega_feedback passes
    its own, to set OMEGA's settings)."""
    import optimizer_core as oc

    lm = server.language_model()
    em = server.embedding_model()
    meter = CallMeter(lm, task.field)
    inputs = oc.Input(data_model=task.input_model)
    outputs = await oc.Generator(data_model=task.output_model, language_model=lm)(inputs)
    program = oc.Program(
        inputs=inputs, outputs=outputs, name=f"{task.name}_program", description=task.description
    )
    program.compile(
        reward=oc.rewards.ExactMatch(in_mask=[task.field]),
        optimizer=build(optimizer_name, lm, em, args.seed),
    )
    counter = proposal_counter()
    load_before = load()
    started = time.perf_counter()
    before = await program.evaluate(
        task.x_test, task.y_test, verbose=0, temperature=0.0, seed=0, return_examples=True
    )
    fit_mark, fit_started = meter.mark(), time.perf_counter()
    await program.fit(
        task.x_train,
        task.y_train,
        epochs=args.epochs,
        batch_size=args.batch_size,
        validation_split=0.0,
        validate_start=True,
        seed=args.seed,
        verbose=0,
        callbacks=[counter],
    )
    fit_s = time.perf_counter() - fit_started
    fit_calls = meter.summary(fit_mark)
    after = await program.evaluate(
        task.x_test, task.y_test, verbose=0, temperature=0.0, seed=0, return_examples=True
    )
    wall_s = time.perf_counter() - started
    comparison = oc.stats.compare_paired(before.rewards, after.rewards)
    proposals = counter.proposals
    return {
        "task": task.name,
        "optimizer": optimizer_name,
        "rows": {"train": len(task.x_train), "test": len(task.x_test)},
        "wall_s": wall_s,
        "fit_s": fit_s,
        "load_before": load_before,
        "load_after": load(),
        "lm": meter.summary(),
        "fit_lm": {k: v for k, v in fit_calls.items() if k != "optimizer_requests"},
        "answers": meter.answers,
        "before": before.logs,
        "after": after.logs,
        "comparison": dataclasses.asdict(comparison),
        # Each test row's reward, in row order, to pair two runs on the same rows.
        "before_rewards": before.rewards,
        "after_rewards": after.rewards,
        "verdict": comparison.describe(),
        "proposals": proposals,
        "proposals_total": len(proposals),
        "proposals_differ": sum(p["outcome"] == "differs" for p in proposals),
        "instructions": {v.name: v.get("instructions") for v in program.trainable_variables},
    }


# Report -----------------------------------------------------------------------------------


def _s(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} s"


def _ratio(a: float | None, b: float | None) -> str:
    return "-" if a is None or not b else f"{a / b:.2f}x"


def _reward(run: dict[str, Any]) -> str:
    c = run["comparison"]
    return (
        f"{c['mean_before']:.2f} -> {c['mean_after']:.2f} "
        f"({c['difference']:+.2f} [{c['ci_low']:+.2f}, {c['ci_high']:+.2f}])"
    )


def _tokens(lm: dict[str, Any]) -> str:
    requests = lm["optimizer_requests"]
    if not requests:
        return "-"
    bounds = sorted({r["max_tokens"] for r in requests})
    written = max(r["completion_tokens"] for r in requests)
    return f"{'/'.join(str(b) for b in bounds)}; {written}"


def _share(run: dict[str, Any]) -> str:
    total = run["proposals_total"]
    if not total:
        return "-"
    parsed = total - sum(p["outcome"] == "no valid answer" for p in run["proposals"])
    return f"{parsed}/{total} parse, {run['proposals_differ']}/{total} differ"


def table(rfs: dict[str, Any], omega: dict[str, Any]) -> list[str]:
    """The side-by-side table of one task (medians are not taken: one run per cell)."""
    r, o = rfs["lm"], omega["lm"]
    longest = TARGET_CALL_S
    body = [
        [
            "run wall (before + fit + after)",
            _s(rfs["wall_s"]),
            _s(omega["wall_s"]),
            _ratio(omega["wall_s"], rfs["wall_s"]),
            f"<= {TARGET_RATIO:.0f}x",
        ],
        [
            "fit wall",
            _s(rfs["fit_s"]),
            _s(omega["fit_s"]),
            _ratio(omega["fit_s"], rfs["fit_s"]),
            "",
        ],
        [
            "LM calls (task + optimizer)",
            f"{r['task_calls']} + {r['optimizer_calls']}",
            f"{o['task_calls']} + {o['optimizer_calls']}",
            _ratio(o["calls"], r["calls"]),
            "",
        ],
        [
            "longest LM request (with the server)",
            _s(r["longest_request_s"]),
            _s(o["longest_request_s"]),
            "",
            f"<= {longest:.0f} s",
        ],
        ["  of which mutation/crossover", "-", _s(o["longest_optimizer_request_s"]), "", ""],
        ["  their max_tokens; most tokens written", "-", _tokens(o), "", ""],
        [
            "longest call, slot queue included",
            _s(r["longest_call_s"]),
            _s(o["longest_call_s"]),
            "",
            "",
        ],
        ["test reward before -> after [95% CI]", _reward(rfs), _reward(omega), "", ""],
        ["verdict", rfs["comparison"]["verdict"], omega["comparison"]["verdict"], "", ""],
        ["mutation/crossover answers", "-", _share(omega), "", ""],
        ["load average before", str(rfs["load_before"]), str(omega["load_before"]), "", ""],
    ]
    header = ["figure", "RFS", "OMEGA", "ratio", "target"]
    widths = column_widths(header, body)
    return [table_line(header, widths), table_rule(widths), *(table_line(b, widths) for b in body)]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--tasks", nargs="+", default=["demo", "banking77"], choices=["demo", "banking77"]
    )
    parser.add_argument("--quick", action="store_true", help="24 training, 20 test rows")
    parser.add_argument("--train", type=int, default=None, help="training rows (default 100)")
    parser.add_argument("--test", type=int, default=None, help="test rows (default 100)")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=1, help="runs of each optimizer per task")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data-dir", type=Path, default=DATA)
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args(argv)
    args.train = args.train or (24 if args.quick else 100)
    args.test = args.test or (20 if args.quick else 100)
    return args


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from optimizer_core.local_models import LocalModelServer, bundled_model_missing

    # litellm logs every completion at INFO; the runner prints its own lines.
    os.environ.setdefault("LITELLM_LOG", "WARNING")
    logging.getLogger("LiteLLM").setLevel(logging.WARNING)
    missing = bundled_model_missing()
    if missing:
        raise SystemExit(f"the bundled model is missing: {missing}")
    tasks: list[Task] = []
    skipped: list[str] = []
    for name in args.tasks:
        found = (
            demo_task(args.train, args.test)
            if name == "demo"
            else banking_task(args.data_dir, args.train, args.test)
        )
        if isinstance(found, str):
            print(found)
            skipped.append(found)
        else:
            tasks.append(found)
    runs: list[dict[str, Any]] = []
    tables: dict[str, list[str]] = {}
    started = time.perf_counter()
    flip = False
    with LocalModelServer(watchdog_interval=5.0) as server:
        for task in tasks:
            for repeat in range(args.repeats):
                order = list(reversed(OPTIMIZERS)) if flip else list(OPTIMIZERS)
                flip = not flip
                pair: dict[str, dict[str, Any]] = {}
                for name in order:
                    result = await measure(task, name, server, args)
                    result["repeat"] = repeat
                    runs.append(result)
                    pair[name] = result
                    print(
                        f"{task.name} {name}: {result['wall_s']:.0f} s (fit "
                        f"{result['fit_s']:.0f} s), {result['lm']['calls']} LM calls, longest "
                        f"request {result['lm']['longest_request_s']:.1f} s; "
                        f"reward {_reward(result)}; load {result['load_before']}",
                        flush=True,
                    )
                lines = table(pair["RandomFewShot"], pair["OMEGA"])
                tables[f"{task.name} #{repeat + 1}"] = lines
                print(f"\n{task.name}, run {repeat + 1} (order: {', '.join(order)})")
                print("\n".join(lines) + "\n", flush=True)
    return {
        "benchmark": "omega_local",
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "command": " ".join(["python bench/omega_local/run.py", *sys.argv[1:]]),
        "settings": {
            "train": args.train,
            "test": args.test,
            "epochs": args.epochs,
            "batch_size": args.batch_size,
            "seed": args.seed,
            "repeats": args.repeats,
        },
        "environment": {
            "platform": platform.platform(),
            "cpu_count": os.cpu_count(),
            "python": platform.python_version(),
        },
        "total_s": time.perf_counter() - started,
        "skipped": skipped,
        "tables": tables,
        "runs": runs,
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    report = asyncio.run(run(args))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2, default=str) + "\n")
    shown = args.output.relative_to(ROOT) if args.output.is_relative_to(ROOT) else args.output
    print(f"wrote {shown} ({report['total_s'] / 60:.1f} min)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
