"""`StudioCallback`: how a run's training reaches the studio, and the JSON helpers it needs.

The callback writes every event through `studio.runs.events.emit` (a `RunEvent`
row, then a channel-layer message), stores a `Checkpoint` per epoch, refreshes
the run's heartbeat per batch and stops the training when the run is cancelled.
"""

from __future__ import annotations

import contextlib
import math
from typing import Any

import numpy as np
from asgiref.sync import sync_to_async
from django.utils import timezone

from optimizer_core.callbacks import Callback
from optimizer_core.datamodels import to_json
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

    async def on_test_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        # Evaluations before and after training run in batches: stop at the next one.
        if self.cancelled:
            raise RunCancelled


def _save_checkpoint(
    run_id: int, epoch: int, document: dict[str, Any], logs: dict[str, Any]
) -> None:
    Checkpoint.objects.update_or_create(
        run_id=run_id, epoch=epoch, defaults={"document": document, "logs": jsonable(logs)}
    )
    Run.objects.filter(pk=run_id).update(current_epoch=epoch, heartbeat_at=timezone.now())
