"""`StudioCallback`: how a run's training reaches the studio, and the JSON helpers it needs.

The callback writes every event through `studio.runs.events.emit` (a `RunEvent`
row, then a channel-layer message), stores a `Checkpoint` per epoch, refreshes
the run's heartbeat per batch and stops the training when the run is cancelled.
`EvaluationProgress` reports the rows an evaluation on the test split has done.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from asgiref.sync import sync_to_async
from django.utils import timezone

from optimizer_core.callbacks import Callback
from optimizer_core.datamodels import to_json
from studio.programs.documents import storable_document
from studio.runs import services
from studio.runs.events import emit
from studio.runs.models import Checkpoint, Run


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
    "total_queue_ms",
    "total_provider_ms",
)


def combined_usage(models: list[Any], base: dict[str, Any], budget: Any = None) -> dict[str, Any]:
    """The models' `Usage.snapshot()` added to what earlier attempts of the run spent.

    Also: mean queueing and provider time per call, the first model's concurrency
    bound now and its history (this attempt's), and the run's `Budget` (spent vs caps).
    """
    total: dict[str, Any] = {key: base.get(key, 0) for key in _SUMMED}
    total["max_in_flight"] = int(base.get("max_in_flight", 0))
    for model in models:
        snapshot = model.usage.snapshot()
        for key in _SUMMED:
            total[key] += snapshot.get(key, 0)
        total["max_in_flight"] = max(total["max_in_flight"], snapshot.get("max_in_flight", 0))
    calls = total["calls"]
    total["mean_latency_s"] = total["total_latency_s"] / calls if calls else 0.0
    total["mean_queue_ms"] = total["total_queue_ms"] / calls if calls else 0.0
    total["mean_provider_ms"] = total["total_provider_ms"] / calls if calls else 0.0
    if models:
        first = models[0].usage.snapshot()
        total["concurrency_bound"] = first.get("concurrency_bound")
        total["max_concurrency"] = first.get("max_concurrency")
        total["concurrency_history"] = first.get("concurrency_history", [])
    else:
        for key in ("concurrency_bound", "max_concurrency", "concurrency_history"):
            if key in base:
                total[key] = base[key]
    if budget is not None:
        total["budget"] = budget.snapshot()
    elif "budget" in base:
        total["budget"] = base["budget"]
    return jsonable(total)


# The callback ----------------------------------------------------------------------------------


class StudioCallback(Callback):
    """Reports a run's training as `RunEvent`s, checkpoints each epoch, obeys cancel.

    Events (``kind``: payload): ``train_begin``, ``epoch_begin``, ``batch`` (progress,
    running logs and ``usage``, the figures of a ``usage`` event), ``optimizer`` (an
    optimizer's candidates and populations), ``epoch`` (the epoch's logs), ``variables``
    (trainable values at epoch end), ``checkpoint``, ``usage``, ``train_end``. Every
    batch end refreshes the run's heartbeat and reads ``cancel_requested``; when set,
    training stops after the batch.

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
        self.budget: Any = None
        #: the document the run's program was built from (see `storable_document`)
        self.source_document: dict[str, Any] = {}

    async def emit(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        return await emit(self.run_id, kind, jsonable(payload))

    def request_stop(self) -> None:
        """Stop training after the current batch (a cancel was requested)."""
        self.cancelled = True
        if self.program is not None:
            self.program.stop_training = True

    def usage(self) -> dict[str, Any]:
        return combined_usage(self.language_models, self.usage_base, self.budget)

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
            {
                "epoch": self.epoch,
                "batch": batch,
                "steps": self.params.get("steps"),
                "logs": logs,
                # The LM usage so far, so the run page need not wait for the epoch's end.
                "usage": self.usage(),
            },
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
            document = jsonable(storable_document(program.to_json(), self.source_document))
            await sync_to_async(_save_checkpoint)(self.run_id, epoch + 1, document, logs or {})
            await self.emit("checkpoint", {"epoch": epoch + 1})
        await self.emit_usage()

    async def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        await self.emit("train_end", {"logs": logs or {}, "cancelled": self.cancelled})

    async def on_test_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        # Evaluations before and after training run in batches: stop at the next one.
        if self.cancelled:
            raise RunCancelled


class EvaluationProgress(Callback):
    """Reports an evaluation's progress as ``evaluation_progress`` events.

    Payload: ``{phase, index, evaluations, rows_done, rows, usage}``: which of the
    run's repeated evaluations ("before" or "after" training), the test rows done
    (at each batch end: `evaluate` reports no finer), and the run's LM usage so far.
    One event at the start and one at the end; in between at most one every
    ``min_interval_s`` (the rest are dropped: a later one says more).

    Args:
        callback: the run's `StudioCallback` (its ``emit`` and ``usage``).
        phase: "before" or "after".
        index: 0-based, which evaluation of the phase.
        evaluations: how many the phase runs.
        rows: test rows evaluated.
        batch_size: rows per batch of the evaluation.
        min_interval_s: the least time between two events (default 0.25: 4 a second).
        clock: seconds, monotonic (tests pass their own).
    """

    def __init__(
        self,
        callback: StudioCallback,
        *,
        phase: str,
        index: int,
        evaluations: int,
        rows: int,
        batch_size: int,
        min_interval_s: float = 0.25,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self.callback = callback
        self.phase = phase
        self.index = index
        self.evaluations = evaluations
        self.rows = rows
        self.batch_size = batch_size
        self.min_interval_s = min_interval_s
        self.clock = clock
        self.last_sent: float | None = None

    async def report(self, rows_done: int, *, force: bool = False) -> None:
        now = self.clock()
        if not force and self.last_sent is not None and now - self.last_sent < self.min_interval_s:
            return
        self.last_sent = now
        await self.callback.emit(
            "evaluation_progress",
            {
                "phase": self.phase,
                "index": self.index,
                "evaluations": self.evaluations,
                "rows_done": rows_done,
                "rows": self.rows,
                "usage": self.callback.usage(),
            },
        )

    async def on_test_begin(self, logs: dict[str, Any] | None = None) -> None:
        await self.report(0, force=True)

    async def on_test_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        done = min(self.rows, (batch + 1) * self.batch_size)
        await self.report(done, force=done >= self.rows)


def _save_checkpoint(
    run_id: int, epoch: int, document: dict[str, Any], logs: dict[str, Any]
) -> None:
    Checkpoint.objects.update_or_create(
        run_id=run_id, epoch=epoch, defaults={"document": document, "logs": jsonable(logs)}
    )
    Run.objects.filter(pk=run_id).update(current_epoch=epoch, heartbeat_at=timezone.now())
