"""How a run's training reaches the studio: the callbacks `fit` and `evaluate` get.

`RunEventLogger` writes every event through the run's stream
(`studio.runs.events`: a `RunEvent` row, then a channel-layer message), with the
run's LM usage (`RunUsage`, the engine's `Usage.combine` of its models and of
what earlier attempts stored). `CheckpointWriter` stores a `Checkpoint` per
epoch. `EvaluationProgress` reports the rows an evaluation on the test split has
done. Each is configured by its constructor. The heartbeat and the cancel are
the run's `studio.common.lifecycle.Watcher`'s, which `fit` gets beside them.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable
from typing import Any, cast

import numpy as np
from asgiref.sync import sync_to_async

from optimizer_core.callbacks import Callback
from optimizer_core.datamodels import to_json
from optimizer_core.language_models import Usage
from studio.common.lifecycle import Watcher
from studio.programs.documents import storable_document
from studio.runs.events import RUN_EVENTS
from studio.runs.models import Checkpoint, Run


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


class RunUsage:
    """What a run has spent: its models' usage now, plus what its earlier attempts stored.

    Args:
        models: the run's models (the task model first: its concurrency bound is shown).
        base: the usage stored by earlier attempts of the run (``Run.usage``).
        budget: the run's `Budget`, when it has caps (its spend and caps are shown).
    """

    def __init__(
        self, models: list[Any], *, base: dict[str, Any] | None = None, budget: Any = None
    ) -> None:
        self.models = list(models)
        self.base = dict(base or {})
        self.budget = budget

    def snapshot(self) -> dict[str, Any]:
        """`Usage.combine` of the models and the base, with the budget (JSON-ready)."""
        total = Usage.combine(*(model.usage.snapshot() for model in self.models), self.base)
        if self.budget is not None:
            total["budget"] = self.budget.snapshot()
        elif "budget" in self.base:
            total["budget"] = self.base["budget"]
        return cast(dict[str, Any], jsonable(total))


# The callbacks ---------------------------------------------------------------------------------


class RunEventLogger(Callback):
    """Reports a run's training as `RunEvent`s, with its LM usage.

    Events (``kind``: payload): ``train_begin``, ``epoch_begin``, ``batch`` (progress,
    running logs and ``usage``, the figures of a ``usage`` event), ``optimizer`` (an
    optimizer's candidates and populations), ``epoch`` (the epoch's logs), ``variables``
    (trainable values at epoch end), ``usage`` (also stored on the run), ``train_end``.

    Args:
        run_id: the run reported on.
        usage: what the run has spent (`RunUsage`).
        initial_epoch: the epoch training starts from (resume, fork).
        watcher: the run's watcher (``train_end`` says whether it was cancelled).
    """

    def __init__(
        self,
        run_id: int,
        *,
        usage: RunUsage,
        initial_epoch: int = 0,
        watcher: Watcher | None = None,
    ) -> None:
        super().__init__()
        self.run_id = run_id
        self.meter = usage
        self.initial_epoch = initial_epoch
        self.epoch = initial_epoch
        self.watcher = watcher

    async def emit(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        return await RUN_EVENTS.emit(self.run_id, kind, jsonable(payload))

    def usage(self) -> dict[str, Any]:
        return self.meter.snapshot()

    async def report_usage(self) -> dict[str, Any]:
        """Store the usage so far on the run and send it as a ``usage`` event."""
        usage = self.usage()
        await sync_to_async(Run.lifecycle.store)(self.run_id, usage=usage)
        await self.emit("usage", usage)
        return usage

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

    async def on_optimizer_event(self, event: str, payload: dict[str, Any] | None = None) -> None:
        await self.emit("optimizer", {"event": event, "epoch": self.epoch, **(payload or {})})

    async def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        await self.emit("epoch", {"epoch": epoch, "logs": logs or {}})
        variables = {v.name: v.get_trainable_json() for v in self.program.trainable_variables}
        await self.emit("variables", {"epoch": epoch, "variables": variables})
        await self.report_usage()

    async def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        cancelled = self.watcher is not None and self.watcher.cancelled
        await self.emit("train_end", {"logs": logs or {}, "cancelled": cancelled})


class CheckpointWriter(Callback):
    """Stores a `Checkpoint` of the run's program after each epoch, then says so.

    The document is storable (`storable_document`: what the run was built from,
    with the trained values); the run's ``current_epoch`` follows. A cancelled
    epoch is partial: no checkpoint of it.

    Args:
        run_id: the run.
        source_document: the document the run's program was built from.
        watcher: the run's watcher (its ``cancelled``).
    """

    def __init__(
        self, run_id: int, *, source_document: dict[str, Any], watcher: Watcher | None = None
    ) -> None:
        super().__init__()
        self.run_id = run_id
        self.source_document = source_document
        self.watcher = watcher

    async def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if self.watcher is not None and self.watcher.cancelled:
            return
        document = jsonable(storable_document(self.program.to_json(), self.source_document))
        await sync_to_async(_save_checkpoint)(self.run_id, epoch + 1, document, logs or {})
        await RUN_EVENTS.emit(self.run_id, "checkpoint", {"epoch": epoch + 1})


class EvaluationProgress(Callback):
    """Reports an evaluation's progress as ``evaluation_progress`` events.

    Payload: ``{phase, index, evaluations, rows_done, rows, usage}``: which of the
    run's repeated evaluations ("before" or "after" training), the test rows done
    (at each batch end: `evaluate` reports no finer), and the run's LM usage so far.
    One event at the start and one at the end; in between at most one every
    ``min_interval_s`` (the rest are dropped: a later one says more).

    Args:
        callback: the run's `RunEventLogger` (its ``emit`` and ``usage``).
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
        callback: RunEventLogger,
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
    Run.lifecycle.store(run_id, current_epoch=epoch)
