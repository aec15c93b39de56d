"""Training one run: what the Celery task does.

`execute_run(run_id)` claims a queued run, rebuilds its program from JSON (the
program version's document, a fork's starting document, or the run's last
checkpoint when it resumes after a lost worker), points every Generator at the
run's provider, evaluates the program on the test split (at the run's evaluation
temperature, 0 by default: once; above 0: N times), fits it with the run's
callbacks (`studio.runs.callbacks`: events, checkpoints; the engine's
`EarlyStopping` when ``fit_config.early_stopping`` is set, an ``early_stopped``
event saying where it stopped) and its watcher
(`studio.common.lifecycle.Watcher`: heartbeat, cancel), evaluates it again the
same way and stores the trained document, with each test row's reward before and
after.

The claim is the one call into `studio.runs.services`; what the run finds is
stored, and its state changed, by the run's lifecycle (`Run.lifecycle`: `store`
while it runs, one `transition` at its end with its results). Every event goes
through the run's stream (`studio.runs.events`): a `RunEvent` row, then a
channel-layer message. The async training code reaches the database through
``sync_to_async`` (thread-sensitive), so under ``async_to_sync`` every query runs
in the task's own thread and connection.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from typing import Any

import numpy as np
from asgiref.sync import async_to_sync, sync_to_async
from django.conf import settings

from optimizer_core.callbacks import EarlyStopping
from optimizer_core.exceptions import BudgetExhausted, LanguageModelError
from optimizer_core.language_models import Budget
from optimizer_core.programs import FailureRule, Program
from studio.common.lifecycle import Cancelled, Watcher
from studio.programs.documents import load_program, storable_document
from studio.providers.redaction import redact
from studio.runs import resources, services
from studio.runs.callbacks import (
    CheckpointWriter,
    EvaluationProgress,
    RunEventLogger,
    RunUsage,
    jsonable,
)
from studio.runs.config import (
    budget_caps,
    build_compile_objects,
    evaluation_settings,
    needs_embedding_model,
)
from studio.runs.exceptions import RunConfigError
from studio.runs.judges import Judges
from studio.runs.models import Run
from studio.runs.significance import paired_gain, rows_digest
from studio.scorers import references

logger = logging.getLogger(__name__)

State = Run.State
MAX_STORED_EXAMPLES = 1000


# The program -----------------------------------------------------------------------------------


def build_program(
    document: dict[str, Any],
    compile_config: dict[str, Any],
    language_model: Any,
    *,
    restore_optimizer_state: bool,
    embedding_model: Any = None,
    judges: Judges | None = None,
    library: references.Library | None = None,
) -> Program:
    """A program from its JSON document, compiled from the run's config, calling the provider.

    Args:
        document: `Program.to_json()` output.
        compile_config: the run's compile config (see `studio.runs.config`).
        language_model: the provider's model; it replaces every module's model.
        restore_optimizer_state: carry the document's optimizer state over (resume, fork).
        judges: the judges' providers and programs, fetched (`studio.runs.judges`).
        library: the owner's code rewards and metrics the config names, read up front.
    """
    state = document.get("optimizer_state")
    program = load_program({**document, "compile_config": None, "optimizer_state": None})
    program.set_language_model(language_model)
    program.compile(
        **build_compile_objects(
            compile_config, language_model, embedding_model, judges, library=library
        )
    )
    if restore_optimizer_state and state and program.optimizer is not None:
        program.optimizer.set_state(state)
    return program


# An evaluation ends with the model's error as soon as one batch of it failed whole, rather
# than wait out each remaining batch of a provider that is down (fit keeps its default rule).
EVALUATION_FAILURES = FailureRule(whole_batch=True)


def summarize(runs: list[dict[str, float]]) -> dict[str, dict[str, float]]:
    """Mean and standard deviation of each figure over repeated evaluations."""
    keys = sorted({key for logs in runs for key in logs})
    summary = {}
    for key in keys:
        values = np.array([float(logs.get(key, 0.0)) for logs in runs])
        summary[key] = {"mean": float(values.mean()), "std": float(values.std())}
    return summary


# The run ---------------------------------------------------------------------------------------


@dataclasses.dataclass
class _Context:
    run: Run
    document: dict[str, Any]
    initial_epoch: int
    restore_optimizer_state: bool
    resumed_from: int | None
    language_model: Any
    embedding_model: Any
    library: references.Library
    x_train: list[Any]
    y_train: list[Any]
    x_test: list[Any]
    y_test: list[Any]
    judges: Judges


def _load_context(run_id: int) -> _Context:
    run = Run.objects.select_related(
        "program_version", "dataset", "dataset_version", "provider"
    ).get(pk=run_id)
    if run.provider is None:
        raise ValueError("the run's provider was deleted")
    checkpoint = run.checkpoints.order_by("-epoch").first()
    if checkpoint is not None:
        document, initial_epoch, restore, resumed = (
            checkpoint.document,
            checkpoint.epoch,
            True,
            checkpoint.epoch,
        )
    elif run.initial_document is not None:
        document, initial_epoch, restore, resumed = (
            run.initial_document,
            run.fork_epoch or 0,
            True,
            None,
        )
    else:
        document, initial_epoch, restore, resumed = run.program_version.document, 0, False, None
    version = run.dataset_version
    if version is None:  # a run created without a version trains on the latest, recorded
        version = resources.latest_version(run.dataset)
        Run.lifecycle.store(run.pk, dataset_version=version)
        run.dataset_version = version
    x_train, y_train = resources.load_examples(run.dataset, split="train", version=version)
    x_test, y_test = resources.load_examples(run.dataset, split="test", version=version)
    language_model = resources.build_language_model(run.provider)
    # The judges' providers and program versions, read here: the program is built in
    # the event loop, which does not reach the database.
    judges = Judges(
        owner=run.owner, provider=run.provider, language_model=language_model, live=True
    )
    judges.fetch(run.compile_config)
    return _Context(
        run=run,
        document=document,
        initial_epoch=initial_epoch,
        restore_optimizer_state=restore,
        resumed_from=resumed,
        language_model=language_model,
        embedding_model=resources.default_embedding_model(run.owner)
        if needs_embedding_model(run.compile_config)
        else None,
        library=references.Library(run.compile_config, run.owner, RunConfigError),
        x_train=x_train,
        y_train=y_train,
        x_test=x_test,
        y_test=y_test,
        judges=judges,
    )


def execute_run(run_id: int) -> None:
    """Claim the run and train it to a terminal state (or until its worker dies).

    A run that is not queued (already claimed, cancelled, finished) is left alone.
    The claim is this module's one call into `studio.runs.services` (who may take
    a run is a service's rule); every later state change is the run's own
    (`Run.lifecycle`), each with the fields that belong to it.
    """
    if not services.claim_run(run_id):
        logger.info("run %s is not queued; nothing to do", run_id)
        return
    async_to_sync(train_claimed_run)(run_id)


async def _evaluations(
    program: Program,
    ctx: _Context,
    log: RunEventLogger,
    watcher: Watcher,
    *,
    phase: str,
) -> tuple[dict[str, Any], list[float]]:
    """The phase's evaluations on the test split: their summary, and each row's mean reward.

    Returns:
        ``({"runs", "summary", "examples"}, rewards)``: ``examples`` are the last
        evaluation's rows (at most `MAX_STORED_EXAMPLES`); ``rewards`` has every
        row, in row order, the mean over the repeats.
    """
    fit_config = ctx.run.fit_config
    runs: list[dict[str, float]] = []
    examples: list[dict[str, Any]] = []
    reward_sums = [0.0] * len(ctx.x_test)
    temperature, seed, evaluations = evaluation_settings(fit_config)
    for index in range(evaluations):
        watcher.check()
        batch_size = int(fit_config.get("batch_size", 32))
        progress = EvaluationProgress(
            log,
            phase=phase,
            index=index,
            evaluations=evaluations,
            rows=len(ctx.x_test),
            batch_size=batch_size,
        )
        evaluation = await program.evaluate(
            ctx.x_test,
            ctx.y_test,
            batch_size=batch_size,
            verbose=0,
            callbacks=[
                log,
                watcher,
                progress,
            ],
            failure_rule=EVALUATION_FAILURES,
            return_examples=True,
            temperature=temperature,
            seed=seed,
        )
        logs = evaluation.logs
        for row, reward in enumerate(evaluation.rewards):
            reward_sums[row] += reward
        examples = [
            {
                "input": e.input,
                "expected": e.expected,
                "output": e.output,
                "reward": e.reward,
                # What the reward said of the row beside its score (None: nothing).
                "feedback": e.feedback,
                "error": e.error,
                # What each module got and said on this row, the branch it took (the run
                # page's per-example trace).
                "trace": [step.as_json() for step in e.trace],
            }
            for e in evaluation.examples
        ]
        runs.append(logs)
        await log.emit("evaluation", {"phase": phase, "index": index, "logs": logs})
    result = {
        "runs": runs,
        "summary": summarize(runs),
        "examples": examples[:MAX_STORED_EXAMPLES],
    }
    await log.emit("evaluation_summary", {"phase": phase, "summary": result["summary"]})
    await log.emit("evaluation_examples", {"phase": phase, "examples": result["examples"]})
    return jsonable(result), jsonable([total / evaluations for total in reward_sums])


async def train_claimed_run(run_id: int) -> None:
    """Train a run this worker has claimed (state running) to its end.

    The training runs under the run's `Watcher` (heartbeat, cancel): a cancelled
    run ends ``cancelled`` with the events written so far; a run whose budget
    ran out before training began ends ``budget_spent``; any other error fails
    it, with the name of the provider that failed when one did (a judge's own, or the run's).
    """
    watcher = Watcher(Run.lifecycle, run_id)
    log: RunEventLogger | None = None
    provider = ""
    ctx: _Context | None = None
    try:
        ctx = await sync_to_async(_load_context)(run_id)
        provider = ctx.run.provider.name if ctx.run.provider is not None else ""
        log = _event_logger(ctx, watcher)
        await watcher.run(_train(ctx, log, watcher))
    except Cancelled:
        await _end(run_id, State.CANCELLED, log)
    except BudgetExhausted as error:
        # Spent before training began (the evaluation before it): nothing trained to store.
        assert log is not None  # the budget exists once the logger does
        usage = log.usage()
        await log.emit("budget_spent", {"cap": error.cap, "budget": usage.get("budget")})
        await _end(run_id, State.BUDGET_SPENT, log, error=str(error))
    except Exception as error:
        logger.exception("run %s failed", run_id)
        message = redact(str(error))
        if isinstance(error, LanguageModelError):
            # The provider that failed: a judge's own, else the run's.
            judge = ctx.judges.provider_that_raised(error) if ctx is not None else None
            failed = judge.name if judge is not None else provider
            if failed:
                message = f"provider {failed!r}: {message}"
        if log is not None:
            with contextlib.suppress(Exception):
                await log.emit("error", {"type": type(error).__name__, "message": message})
        await _end(run_id, State.FAILED, log, error=f"{type(error).__name__}: {message}")
    finally:
        if ctx is not None:  # the code rewards' sandbox processes end with the run
            await ctx.library.close()


def _before_rewards(run_id: int) -> Any:
    """The rewards stored before training (this attempt's, or an earlier one's on a resume)."""
    return Run.objects.filter(pk=run_id).values_list("before_rewards", flat=True).first()


async def _end(
    run_id: int, state: str, log: RunEventLogger | None, *, error: str = "", **fields: Any
) -> None:
    """The run's last state change, with its usage (and what else ``fields`` stores)."""
    if log is not None:
        fields["usage"] = log.usage()
    await sync_to_async(Run.lifecycle.transition)(run_id, to=state, error=error, **fields)


def _event_logger(ctx: _Context, watcher: Watcher) -> RunEventLogger:
    """The run's event logger, its usage meter and (with caps) the budget of its models.

    One budget is shared by every model of the run (task model, optimizer, judge,
    embeddings), less what the run's earlier attempts spent.
    """
    models = [m for m in (ctx.language_model, ctx.embedding_model) if m is not None]
    models += list(ctx.judges.models.values())  # judges on providers of their own
    base = dict(ctx.run.usage or {})
    caps = budget_caps(ctx.run.fit_config)
    budget = Budget.from_usage(base, **caps) if caps is not None else None
    for model in models:
        model.budget = budget
    return RunEventLogger(
        ctx.run.pk,
        usage=RunUsage(models, base=base, budget=budget),
        initial_epoch=ctx.initial_epoch,
        watcher=watcher,
    )


def _early_stopping(fit_config: dict[str, Any]) -> EarlyStopping | None:
    """The engine's `EarlyStopping` of ``fit_config.early_stopping``; None when it is off."""
    chosen = fit_config.get("early_stopping")
    if not chosen:
        return None
    return EarlyStopping(
        monitor=str(chosen["monitor"]),
        min_delta=float(chosen.get("min_delta", 0.0)),
        patience=int(chosen.get("patience", 1)),
        mode="max",  # every figure a run logs is a reward or a metric: higher is better
        restore_best_variables=bool(chosen.get("restore_best_variables", False)),
    )


def _early_stopped(early_stopping: EarlyStopping, fit_config: dict[str, Any]) -> dict[str, Any]:
    """The ``early_stopped`` event: where training stopped, and why (epochs are 0-based)."""
    return {
        "epoch": early_stopping.stopped_epoch,
        "epochs": int(fit_config["epochs"]),
        "monitor": early_stopping.monitor,
        "patience": early_stopping.patience,
        "min_delta": abs(early_stopping.min_delta),
        "best": early_stopping.best,
        "best_epoch": early_stopping.best_epoch,
        "restored_best": early_stopping.restore_best_variables,
    }


async def _train(ctx: _Context, log: RunEventLogger, watcher: Watcher) -> None:
    """Evaluate, fit, evaluate and store the result: the part a cancel interrupts."""
    run = ctx.run
    run_id = run.pk
    budget = log.meter.budget
    if run.fit_config.get("cache", True):
        # The owner's response cache: identical requests of their runs are answered once.
        for model in (ctx.language_model, *ctx.judges.models.values()):
            if hasattr(model, "use_cache"):
                model.use_cache(settings.STUDIO_LM_CACHE_DIR / f"user_{run.owner_id}")
    if ctx.resumed_from is not None:
        await log.emit("resumed", {"from_epoch": ctx.resumed_from, "attempt": run.attempts})
    program = build_program(
        ctx.document,
        run.compile_config,
        ctx.language_model,
        restore_optimizer_state=ctx.restore_optimizer_state,
        embedding_model=ctx.embedding_model,
        judges=ctx.judges,
        library=ctx.library,
    )
    spent_before = budget.snapshot() if budget is not None else None
    if run.before is None:
        before, before_rewards = await _evaluations(program, ctx, log, watcher, phase="before")
        await sync_to_async(Run.lifecycle.store)(
            run_id,
            before=before,
            before_rewards=before_rewards,
            test_rows_digest=rows_digest(ctx.x_test, ctx.y_test),
            test_row_keys=resources.row_keys(ctx.x_test, ctx.y_test),
        )
        # What the evaluation spent, before training's first batch reports more.
        await log.report_usage()
    if budget is not None and spent_before is not None:
        # The evaluation after training is reserved up front: training may not spend
        # what the evaluation before it spent (or, on a resume, a call per test row).
        now = budget.snapshot()
        if run.before is None:
            budget.hold(
                calls=now["calls"] - spent_before["calls"],
                tokens=now["tokens"] - spent_before["tokens"],
                cost=now["cost"] - spent_before["cost"],
            )
        else:
            budget.hold(calls=len(ctx.x_test) * evaluation_settings(run.fit_config)[2])
    fit_config = run.fit_config
    early_stopping = _early_stopping(fit_config)
    await program.fit(
        x=ctx.x_train,
        y=ctx.y_train,
        epochs=int(fit_config["epochs"]),
        batch_size=int(fit_config["batch_size"]),
        validation_split=float(fit_config["validation_split"]),
        shuffle=bool(fit_config["shuffle"]),
        seed=fit_config.get("seed"),
        initial_epoch=ctx.initial_epoch,
        # The starting program competes with the epochs: a run never stores a trained
        # program that does worse than its start on the validation rows.
        validate_start=True,
        verbose=0,
        callbacks=[
            log,
            CheckpointWriter(run_id, source_document=ctx.document, watcher=watcher),
            watcher,
            *([early_stopping] if early_stopping is not None else []),
        ],
    )
    watcher.check()
    if early_stopping is not None and 0 < early_stopping.stopped_epoch < fit_config["epochs"] - 1:
        # Stopped before its last epoch: the run page says so, and why.
        await log.emit("early_stopped", _early_stopped(early_stopping, fit_config))
    # Training kept its best variables; the held-back share now pays for their evaluation.
    spent = budget is not None and budget.exhausted is not None
    after: dict[str, Any] | None = None
    after_rewards: list[float] | None = None
    if budget is not None:
        budget.release()
    try:
        after, after_rewards = await _evaluations(program, ctx, log, watcher, phase="after")
    except BudgetExhausted:
        spent = True  # the evaluation needed more than was held back: stored without it
    before_rewards = await sync_to_async(_before_rewards)(run_id)
    results = {
        "after": after,
        "after_rewards": after_rewards,
        "gain": jsonable(paired_gain(before_rewards, after_rewards)),
        "trained_document": jsonable(storable_document(program.to_json(), ctx.document)),
    }
    await log.emit("usage", log.usage())
    if spent and budget is not None:
        cap = budget.exhausted or "calls"
        await log.emit("budget_spent", {"cap": cap, "budget": budget.snapshot()})
        message = f"budget spent: the cap on {cap} was reached; the best program so far is stored"
        await _end(run_id, State.BUDGET_SPENT, log, error=message, **results)
        return
    await _end(run_id, State.SUCCEEDED, log, **results)
