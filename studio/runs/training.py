"""Training one run: what the Celery task does, and the callback that reports it.

`execute_run(run_id)` claims a queued run, rebuilds its program from JSON (the
program version's document, a fork's starting document, or the run's last
checkpoint when it resumes after a lost worker), points every Generator at the
run's provider, evaluates the program on the test split N times, fits it with a
`StudioCallback`, evaluates it N times again and stores the trained document.

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
import math
from typing import Any

import numpy as np
from asgiref.sync import async_to_sync, sync_to_async
from django.utils import timezone

from optimizer_core.callbacks import Callback
from optimizer_core.datamodels import to_json
from optimizer_core.exceptions import AuthenticationError, LanguageModelError
from optimizer_core.programs import Program
from studio.programs.services import load_program
from studio.providers.redaction import redact
from studio.runs import adapters, services
from studio.runs.config import build_compile_objects, needs_embedding_model
from studio.runs.events import emit
from studio.runs.models import Checkpoint, Run

logger = logging.getLogger(__name__)

State = Run.State
MAX_STORED_EXAMPLES = 1000


class RunCancelled(Exception):
    """The user cancelled the run while it was evaluating."""


def jsonable(value: Any) -> Any:
    """A copy of ``value`` that any JSON column accepts (NaN / inf become None)."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, bool | int | str) or value is None:
        return value
    if isinstance(value, float | np.floating):
        number = float(value)
        return number if math.isfinite(number) else None
    if isinstance(value, np.integer):
        return int(value)
    with contextlib.suppress(TypeError):
        return jsonable(to_json(value))
    return str(value)


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
    for module in program.modules:
        if getattr(module, "language_model", None) is not None:
            module.language_model = language_model
    program.compile(**build_compile_objects(compile_config, language_model, embedding_model))
    if restore_optimizer_state and state and program.optimizer is not None:
        program.optimizer.set_state(state)
    return program


async def evaluate_with_examples(
    program: Program,
    x: list[Any],
    y: list[Any],
    *,
    batch_size: int,
    callbacks: list[Callback] | None = None,
    language_model: Any = None,
) -> tuple[dict[str, float], list[dict[str, Any]]]:
    """Score the program on (x, y): the `evaluate` figures plus each row's result.

    Args:
        language_model: the program's model; when every prediction of a batch fails
            because of it, the evaluation stops with its error (as `fit` does) rather
            than wait out each remaining batch of a provider that is down.

    Returns:
        ``({"reward": mean, <metric>: value, ["failures": n]}, [{input, expected,
        output, reward}, ...])``.
    """
    assert program.reward is not None
    outputs: list[Any] = []
    for start in range(0, len(x), batch_size):
        failed_calls = language_model.usage.failures if language_model is not None else 0
        batch = list(
            await program.predict(
                x[start : start + batch_size], batch_size=batch_size, verbose=0, callbacks=callbacks
            )
        )
        if language_model is not None and all(output is None for output in batch):
            _raise_if_the_model_failed(language_model, failed_calls, len(batch))
        outputs.extend(batch)
    rewards = await asyncio.gather(
        *(program.reward(target, output) for target, output in zip(y, outputs, strict=True))
    )
    for metric in program.metrics:
        metric.reset_state()
        for target, output in zip(y, outputs, strict=True):
            await metric.update_state(target, output)
    logs: dict[str, float] = {"reward": float(np.mean(rewards)) if rewards else 0.0}
    for name, metric in zip(program.metric_names(), program.metrics, strict=True):
        logs[name] = float(metric.result())
    failures = sum(output is None for output in outputs)
    if failures:
        logs["failures"] = failures
    examples = [
        {"input": xi, "expected": yi, "output": to_json(out), "reward": float(r)}
        for xi, yi, out, r in zip(x, y, outputs, rewards, strict=True)
    ]
    return logs, examples


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


# Usage -----------------------------------------------------------------------------------------

_SUMMED = (
    "calls",
    "failures",
    "retries",
    "cached_calls",
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "cost",
    "total_latency_s",
)


def combined_usage(models: list[Any], base: dict[str, Any]) -> dict[str, Any]:
    """The models' `Usage.snapshot()` added to what earlier attempts of the run spent."""
    total: dict[str, Any] = {key: base.get(key, 0) for key in _SUMMED}
    total["max_in_flight"] = int(base.get("max_in_flight", 0))
    for model in models:
        snapshot = model.usage.snapshot()
        for key in _SUMMED:
            total[key] += snapshot.get(key, 0)
        total["max_in_flight"] = max(total["max_in_flight"], snapshot.get("max_in_flight", 0))
    calls = total["calls"]
    total["mean_latency_s"] = total["total_latency_s"] / calls if calls else 0.0
    return jsonable(total)


# The callback ----------------------------------------------------------------------------------


class StudioCallback(Callback):
    """Reports a run's training as `RunEvent`s, checkpoints each epoch, obeys cancel.

    Events (``kind``: payload): ``train_begin``, ``epoch_begin``, ``batch`` (progress
    and running logs), ``optimizer`` (an optimizer's candidates and populations),
    ``epoch`` (the epoch's logs), ``variables`` (trainable values at epoch end),
    ``checkpoint``, ``usage``, ``train_end``. Every batch end refreshes the run's
    heartbeat and reads ``cancel_requested``; when set, training stops after the batch.

    Args:
        run_id: the run reported on.
        initial_epoch: the epoch training starts from (resume, fork).
        language_models: the models whose usage is reported.
        usage_base: usage spent by earlier attempts of this run.
    """

    def __init__(
        self,
        run_id: int,
        *,
        initial_epoch: int = 0,
        language_models: list[Any] | None = None,
        usage_base: dict[str, Any] | None = None,
    ) -> None:
        super().__init__()
        self.run_id = run_id
        self.initial_epoch = initial_epoch
        self.language_models = list(language_models or [])
        self.usage_base = dict(usage_base or {})
        self.epoch = initial_epoch
        self.cancelled = False

    async def emit(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        return await emit(self.run_id, kind, jsonable(payload))

    def request_stop(self) -> None:
        """Stop training after the current batch (a cancel was requested)."""
        self.cancelled = True
        if self.program is not None:
            self.program.stop_training = True

    def usage(self) -> dict[str, Any]:
        return combined_usage(self.language_models, self.usage_base)

    async def emit_usage(self) -> None:
        usage = self.usage()
        await sync_to_async(Run.objects.filter(pk=self.run_id).update)(usage=usage)
        await self.emit("usage", usage)

    async def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        await self.emit(
            "train_begin",
            {
                "epochs": self.params.get("epochs"),
                "steps": self.params.get("steps"),
                "initial_epoch": self.initial_epoch,
            },
        )

    async def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self.epoch = epoch
        await self.emit("epoch_begin", {"epoch": epoch})

    async def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        await self.emit(
            "batch",
            {"epoch": self.epoch, "batch": batch, "steps": self.params.get("steps"), "logs": logs},
        )
        if await sync_to_async(services.heartbeat)(self.run_id):
            self.request_stop()

    async def on_optimizer_event(self, event: str, payload: dict[str, Any] | None = None) -> None:
        await self.emit("optimizer", {"event": event, "epoch": self.epoch, **(payload or {})})

    async def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        await self.emit("epoch", {"epoch": epoch, "logs": logs or {}})
        program = self.program
        variables = {v.name: v.get_trainable_json() for v in program.trainable_variables}
        await self.emit("variables", {"epoch": epoch, "variables": variables})
        if not self.cancelled:  # a cancelled epoch is partial: no checkpoint of it
            document = jsonable(program.to_json())
            await sync_to_async(_save_checkpoint)(self.run_id, epoch + 1, document, logs or {})
            await self.emit("checkpoint", {"epoch": epoch + 1})
        await self.emit_usage()

    async def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        await self.emit("train_end", {"logs": logs or {}, "cancelled": self.cancelled})

    async def on_predict_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        # Evaluations before and after training predict in batches: stop at the next one.
        if self.cancelled:
            raise RunCancelled


def _save_checkpoint(
    run_id: int, epoch: int, document: dict[str, Any], logs: dict[str, Any]
) -> None:
    Checkpoint.objects.update_or_create(
        run_id=run_id, epoch=epoch, defaults={"document": document, "logs": jsonable(logs)}
    )
    Run.objects.filter(pk=run_id).update(current_epoch=epoch, heartbeat_at=timezone.now())


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
) -> dict[str, Any]:
    fit_config = ctx.run.fit_config
    runs: list[dict[str, float]] = []
    examples: list[dict[str, Any]] = []
    for index in range(int(fit_config.get("evaluations", 3))):
        if callback.cancelled:
            raise RunCancelled
        logs, examples = await evaluate_with_examples(
            program,
            ctx.x_test,
            ctx.y_test,
            batch_size=int(fit_config.get("batch_size", 32)),
            callbacks=[callback],
            language_model=ctx.language_model,
        )
        runs.append(logs)
        await callback.emit("evaluation", {"phase": phase, "index": index, "logs": logs})
    result = {
        "runs": runs,
        "summary": summarize(runs),
        "examples": examples[:MAX_STORED_EXAMPLES],
    }
    await callback.emit("evaluation_summary", {"phase": phase, "summary": result["summary"]})
    await callback.emit("evaluation_examples", {"phase": phase, "examples": result["examples"]})
    return jsonable(result)


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
    callback.language_models = [m for m in (ctx.language_model, ctx.embedding_model) if m]
    callback.usage_base = dict(run.usage or {})
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
    if run.before is None:
        before = await _evaluations(program, ctx, callback, phase="before")
        await sync_to_async(Run.objects.filter(pk=run_id).update)(before=before)
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
        verbose=0,
        callbacks=[callback],
    )
    if callback.cancelled:
        raise RunCancelled
    after = await _evaluations(program, ctx, callback, phase="after")
    trained = jsonable(program.to_json())
    usage = callback.usage()
    await sync_to_async(Run.objects.filter(pk=run_id).update)(
        after=after, trained_document=trained, usage=usage
    )
    await callback.emit("usage", usage)
    await sync_to_async(services.transition)(run_id, to=State.SUCCEEDED)
