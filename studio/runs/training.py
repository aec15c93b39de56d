"""Training one run: what the Celery task does.

`execute_run(run_id)` claims a queued run, rebuilds its program from JSON (the
program version's document, a fork's starting document, or the run's last
checkpoint when it resumes after a lost worker), points every Generator at the
run's provider, evaluates the program on the test split (at the run's evaluation
temperature, 0 by default: once; above 0: N times), fits it with a
`StudioCallback` (`studio.runs.callback`), evaluates it again the same way and
stores the trained document, with each test row's reward before and after.

Every event goes through `studio.runs.events.emit`: a `RunEvent` row, then a
channel-layer message. The async training code reaches the database through
``sync_to_async`` (thread-sensitive), so under ``async_to_sync`` every query runs
in the task's own thread and connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from typing import Any

import numpy as np
from asgiref.sync import async_to_sync, sync_to_async
from django.conf import settings

from optimizer_core.callbacks import Callback
from optimizer_core.exceptions import AuthenticationError, BudgetExhausted, LanguageModelError
from optimizer_core.language_models import Budget
from optimizer_core.programs import Program
from studio.programs.documents import load_program, storable_document
from studio.providers.redaction import redact
from studio.runs import adapters, services
from studio.runs.callback import EvaluationProgress, RunCancelled, StudioCallback, jsonable
from studio.runs.config import (
    budget_caps,
    build_compile_objects,
    evaluation_settings,
    needs_embedding_model,
)
from studio.runs.models import Run
from studio.runs.significance import rows_digest

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
) -> Program:
    """A program from its JSON document, compiled from the run's config, calling the provider.

    Args:
        document: `Program.to_json()` output.
        compile_config: the run's compile config (see `studio.runs.config`).
        language_model: the provider's model; it replaces every module's model.
        restore_optimizer_state: carry the document's optimizer state over (resume, fork).
    """
    state = document.get("optimizer_state")
    program = load_program({**document, "compile_config": None, "optimizer_state": None})
    program.set_language_model(language_model)
    program.compile(**build_compile_objects(compile_config, language_model, embedding_model))
    if restore_optimizer_state and state and program.optimizer is not None:
        program.optimizer.set_state(state)
    return program


class _StopWhenTheModelFails(Callback):
    """Ends an evaluation with the model's error once every row of a batch failed because of it.

    As `fit` does, rather than wait out each remaining batch of a provider that is down.

    Args:
        language_model: the program's model.
        rows: the rows evaluated.
        batch_size: rows per batch.
    """

    def __init__(self, language_model: Any, *, rows: int, batch_size: int) -> None:
        super().__init__()
        self.language_model = language_model
        self.rows = rows
        self.batch_size = batch_size
        self.failed_calls = 0
        self.failures = 0

    def on_test_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self.failed_calls = self.language_model.usage.failures

    def on_test_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        failures = int((logs or {}).get("failures", 0))
        in_batch = min(self.batch_size, self.rows - batch * self.batch_size)
        if failures - self.failures >= in_batch:
            _raise_if_the_model_failed(self.language_model, self.failed_calls, in_batch)
        self.failures = failures


def _raise_if_the_model_failed(language_model: Any, failed_calls_before: int, rows: int) -> None:
    cause = getattr(language_model, "last_error", None)
    if cause is None or language_model.usage.failures <= failed_calls_before:
        return  # the rows failed for another reason (the program's own)
    if isinstance(cause, AuthenticationError):
        raise cause
    raise type(cause)(
        f"{rows} predictions in a row failed in an evaluation; last error: {cause}",
        model=cause.model,
    ) from cause


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
    x_train: list[Any]
    y_train: list[Any]
    x_test: list[Any]
    y_test: list[Any]


def _load_context(run_id: int) -> _Context:
    run = Run.objects.select_related("program_version", "dataset", "provider").get(pk=run_id)
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
    x_train, y_train = adapters.load_examples(run.dataset, split="train")
    x_test, y_test = adapters.load_examples(run.dataset, split="test")
    return _Context(
        run=run,
        document=document,
        initial_epoch=initial_epoch,
        restore_optimizer_state=restore,
        resumed_from=resumed,
        language_model=adapters.build_language_model(run.provider),
        embedding_model=adapters.default_embedding_model(run.owner)
        if needs_embedding_model(run.compile_config)
        else None,
        x_train=x_train,
        y_train=y_train,
        x_test=x_test,
        y_test=y_test,
    )


def execute_run(run_id: int) -> None:
    """Claim the run and train it to a terminal state (or until its worker dies).

    A run that is not queued (already claimed, cancelled, finished) is left alone.
    """
    if not services.claim_run(run_id):
        logger.info("run %s is not queued; nothing to do", run_id)
        return
    async_to_sync(train_claimed_run)(run_id)


# How often a running run's worker reads its cancel flag (one indexed row), so a cancel
# lands within about this long even while LM calls hang; the heartbeat write keeps its
# own, slower pace (settings.STUDIO_RUN_HEARTBEAT_S).
CANCEL_POLL_S = 1.0


async def _watch(run_id: int, callback: StudioCallback, training: asyncio.Task[None]) -> None:
    """Send heartbeats and, once a cancel is requested, cancel the training task.

    Cancelling the task cancels what it awaits: the LM calls in flight, backoff
    sleeps, a fit between batches. A run waiting on a provider that never answers
    is cancelled within about `CANCEL_POLL_S`, not when its calls time out.
    """
    loop = asyncio.get_running_loop()
    poll = min(CANCEL_POLL_S, services.heartbeat_interval())
    last_beat = loop.time()
    while not training.done():
        await asyncio.sleep(poll)
        if callback.cancelled:
            # Cancelled already: again, should the code it interrupted have swallowed it.
            training.cancel()
            continue
        try:
            if loop.time() - last_beat >= services.heartbeat_interval():
                last_beat = loop.time()
                requested = await sync_to_async(services.heartbeat)(run_id)
            else:
                requested = await sync_to_async(services.cancel_requested)(run_id)
        except Exception:
            logger.warning("run %s: heartbeat failed; retrying", run_id, exc_info=True)
            continue
        if requested:
            callback.request_stop()
            training.cancel()


async def _evaluations(
    program: Program,
    ctx: _Context,
    callback: StudioCallback,
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
        if callback.cancelled:
            raise RunCancelled
        batch_size = int(fit_config.get("batch_size", 32))
        progress = EvaluationProgress(
            callback,
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
                callback,
                _StopWhenTheModelFails(
                    ctx.language_model, rows=len(ctx.x_test), batch_size=batch_size
                ),
                progress,
            ],
            return_examples=True,
            temperature=temperature,
            seed=seed,
        )
        logs = evaluation.logs
        for row, reward in enumerate(evaluation.rewards):
            reward_sums[row] += reward
        examples = [
            {"input": e.input, "expected": e.expected, "output": e.output, "reward": e.reward}
            for e in evaluation.examples
        ]
        runs.append(logs)
        await callback.emit("evaluation", {"phase": phase, "index": index, "logs": logs})
    result = {
        "runs": runs,
        "summary": summarize(runs),
        "examples": examples[:MAX_STORED_EXAMPLES],
    }
    await callback.emit("evaluation_summary", {"phase": phase, "summary": result["summary"]})
    await callback.emit("evaluation_examples", {"phase": phase, "examples": result["examples"]})
    return jsonable(result), jsonable([total / evaluations for total in reward_sums])


async def train_claimed_run(run_id: int) -> None:
    """Train a run this worker has claimed (state running) to its end.

    The training runs as its own task beside a watcher (`_watch`) that cancels
    it when the user cancels the run; the run then ends ``cancelled`` with the
    events written so far.
    """
    callback = StudioCallback(run_id)
    provider = ""
    training: asyncio.Task[None] | None = None
    watcher: asyncio.Task[None] | None = None
    try:
        try:
            ctx = await sync_to_async(_load_context)(run_id)
            provider = ctx.run.provider.name if ctx.run.provider is not None else ""
            training = asyncio.ensure_future(_train(ctx, callback))
            watcher = asyncio.ensure_future(_watch(run_id, callback, training))
            await training
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if not callback.cancelled or (current is not None and current.cancelling()):
                raise  # this worker itself is stopping, not a cancel of the run
            raise RunCancelled from None
    except RunCancelled:
        await sync_to_async(Run.objects.filter(pk=run_id).update)(usage=callback.usage())
        await sync_to_async(services.transition)(run_id, to=State.CANCELLED)
    except BudgetExhausted as error:
        # Spent before training began (the evaluation before it): nothing trained to store.
        usage = callback.usage()
        await sync_to_async(Run.objects.filter(pk=run_id).update)(usage=usage)
        await callback.emit("budget_spent", {"cap": error.cap, "budget": usage.get("budget")})
        await sync_to_async(services.transition)(run_id, to=State.BUDGET_SPENT, error=str(error))
    except Exception as error:
        logger.exception("run %s failed", run_id)
        message = redact(str(error))
        if provider and isinstance(error, LanguageModelError):
            message = f"provider {provider!r}: {message}"
        reason = f"{type(error).__name__}: {message}"
        with contextlib.suppress(Exception):
            await sync_to_async(Run.objects.filter(pk=run_id).update)(usage=callback.usage())
            await callback.emit("error", {"type": type(error).__name__, "message": message})
        await sync_to_async(services.transition)(run_id, to=State.FAILED, error=reason)
    finally:
        if watcher is not None:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
        if training is not None and not training.done():
            # This worker is stopping: take the training (and its LM calls) down with it.
            training.cancel()
            with contextlib.suppress(BaseException):
                await training


async def _train(ctx: _Context, callback: StudioCallback) -> None:
    """Evaluate, fit, evaluate and store the result: the part a cancel interrupts."""
    run = ctx.run
    run_id = run.pk
    callback.initial_epoch = callback.epoch = ctx.initial_epoch
    callback.source_document = ctx.document
    callback.language_models = [m for m in (ctx.language_model, ctx.embedding_model) if m]
    callback.usage_base = dict(run.usage or {})
    budget = _budget(run.fit_config, callback.usage_base)
    callback.budget = budget
    for model in callback.language_models:
        model.budget = budget
    if run.fit_config.get("cache", True) and hasattr(ctx.language_model, "use_cache"):
        # The owner's response cache: identical requests of their runs are answered once.
        ctx.language_model.use_cache(settings.STUDIO_LM_CACHE_DIR / f"user_{run.owner_id}")
    if ctx.resumed_from is not None:
        await callback.emit("resumed", {"from_epoch": ctx.resumed_from, "attempt": run.attempts})
    program = build_program(
        ctx.document,
        run.compile_config,
        ctx.language_model,
        restore_optimizer_state=ctx.restore_optimizer_state,
        embedding_model=ctx.embedding_model,
    )
    callback.set_program(program)
    spent_before = budget.snapshot() if budget is not None else None
    if run.before is None:
        before, before_rewards = await _evaluations(program, ctx, callback, phase="before")
        await sync_to_async(Run.objects.filter(pk=run_id).update)(
            before=before,
            before_rewards=before_rewards,
            test_rows_digest=rows_digest(ctx.x_test, ctx.y_test),
        )
        # What the evaluation spent, before training's first batch reports more.
        await callback.emit_usage()
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
        callbacks=[callback],
    )
    if callback.cancelled:
        raise RunCancelled
    # Training kept its best variables; the held-back share now pays for their evaluation.
    spent = budget is not None and budget.exhausted is not None
    after: dict[str, Any] | None = None
    after_rewards: list[float] | None = None
    if budget is not None:
        budget.release()
    try:
        after, after_rewards = await _evaluations(program, ctx, callback, phase="after")
    except BudgetExhausted:
        spent = True  # the evaluation needed more than was held back: stored without it
    trained = jsonable(storable_document(program.to_json(), ctx.document))
    usage = callback.usage()
    await sync_to_async(Run.objects.filter(pk=run_id).update)(
        after=after, after_rewards=after_rewards, trained_document=trained, usage=usage
    )
    await callback.emit("usage", usage)
    if spent and budget is not None:
        cap = budget.exhausted or "calls"
        await callback.emit("budget_spent", {"cap": cap, "budget": budget.snapshot()})
        message = f"budget spent: the cap on {cap} was reached; the best program so far is stored"
        await sync_to_async(services.transition)(run_id, to=State.BUDGET_SPENT, error=message)
        return
    await sync_to_async(services.transition)(run_id, to=State.SUCCEEDED)


def _budget(fit_config: dict[str, Any], spent: dict[str, Any]) -> Budget | None:
    """The run's `Budget` (None without caps), less what its earlier attempts spent.

    One budget is shared by every model of the run (task model, optimizer, judge,
    embeddings). Requests sent = calls - cache hits + retries.
    """
    caps = budget_caps(fit_config)
    if caps is None:
        return None
    budget = Budget(**caps)
    budget.calls = max(
        0,
        int(spent.get("calls", 0))
        - int(spent.get("cached_calls", 0))
        + int(spent.get("retries", 0)),
    )
    budget.tokens = int(spent.get("total_tokens", 0))
    budget.cost = float(spent.get("cost", 0.0))
    return budget
