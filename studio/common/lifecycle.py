"""The lifecycle of work a worker does: a state table, a claim, a heartbeat, a watcher.

Runs (`studio.runs.models.Run`) and batch prediction jobs
(`studio.deployments.models.BatchJob`) are both rows that a Celery worker takes,
keeps alive while it works and ends in a terminal state, each change sent as a
``state`` event of the row's `EventStream`. `Lifecycle` is that code, once,
parameterised by the model (its ``TRANSITIONS`` table, by label) and its stream.

Choice: every state change is one conditional ``UPDATE`` (``WHERE state IN``
the states the table allows it from), so two processes racing for a row (two
deliveries of one message, a sweep and a live worker, a cancel and a finish)
cannot both win, and the winner alone emits the event. Fields that belong to the
change (a run's results, its usage) are written by the same update, so a row
never shows a terminal state without them. The claim takes a queued row under a
row lock; a running row whose heartbeat is stale is taken over only by models
that say so (batch jobs: the next delivery resumes after the last complete line;
a run is re-queued by the sweep instead, `studio.runs.services.sweep_stale_runs`).

Why not django-fsm or a state library: the table is a dict on the model, the
transitions one UPDATE each; a library would add per-instance ``save`` calls,
which lose races this design cannot lose. Why a watcher task rather than a
heartbeat from training callbacks: a batch (a chunk) can wait minutes on a slow
provider, and a heartbeat written from between batches would go stale while the
worker is alive and well; a cancel read there would wait as long.

`Watcher` runs the work as its own asyncio task beside a loop that refreshes the
heartbeat every `heartbeat_interval` and, for models with a cancel flag, reads
it every `CANCEL_POLL_S` and cancels the work: the LM calls in flight, backoff
sleeps, a fit between batches. A cancel so lands within about a second even on
a provider that never answers. The watcher is also an engine `Callback`: given
to `fit` and `evaluate`, it reads the flag at each batch end as well, so a fit
stops cleanly after the batch (its epoch ends, a partial one without a
checkpoint) and an evaluation at its next batch.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Awaitable, Collection, Mapping
from datetime import timedelta
from typing import Any, TypeVar

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import models, transaction
from django.db.models import Q
from django.utils import timezone

from optimizer_core.callbacks import Callback
from studio.common.event_log import EventStream

logger = logging.getLogger(__name__)

T = TypeVar("T")
ERROR_MAX_CHARS = 10_000
"""Stored error text is cut at this length."""
CANCEL_POLL_S = 1.0
"""How often a watcher reads its row's cancel flag (one indexed row), so a cancel lands
within about this long even while LM calls hang; the heartbeat write keeps its own,
slower pace (`heartbeat_interval`)."""


class JobState(models.TextChoices):
    """The states of a background job that has no cancel (batch jobs, evaluations)."""

    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


JOB_TRANSITIONS: dict[str, set[str]] = {
    JobState.QUEUED: {JobState.RUNNING, JobState.FAILED},
    # Running -> running is a take-over: the next delivery of a job whose worker stopped
    # beating takes it (`Lifecycle(take_over_stale=True)`).
    JobState.RUNNING: {JobState.RUNNING, JobState.SUCCEEDED, JobState.FAILED},
    JobState.SUCCEEDED: set(),
    JobState.FAILED: set(),
}
"""`JobState`'s allowed transitions, as a model's ``TRANSITIONS`` table."""


def heartbeat_interval() -> float:
    """Seconds between two heartbeats of a running row (``STUDIO_RUN_HEARTBEAT_S``)."""
    return float(settings.STUDIO_RUN_HEARTBEAT_S)


def stale_after() -> timedelta:
    """How old a running row's heartbeat may get before its worker counts as lost."""
    return timedelta(seconds=float(settings.STUDIO_RUN_STALE_AFTER_S))


class Cancelled(Exception):
    """The owner cancelled the work while it ran (raised by `Watcher.run`)."""


@dataclasses.dataclass(frozen=True)
class Claim:
    """What a claim got: the row (or None), and when to look again when another worker
    may still hold it (seconds; 0: nothing to wait for)."""

    row: Any
    retry_after: float = 0.0

    def __bool__(self) -> bool:
        return self.row is not None


@dataclasses.dataclass(frozen=True)
class Lifecycle:
    """The states of one kind of row and the only code that changes them.

    The model has ``state`` (its ``State`` choices include ``queued`` and
    ``running``), ``error``, ``attempts``, ``heartbeat_at``, ``started_at``,
    ``finished_at`` and ``TRANSITIONS`` (``{state: {states it may move to}}``; a
    state with none is terminal).

    Args:
        model: the model, by label (``"runs.Run"``).
        events: the stream its ``state`` events go to.
        cancel_field: its boolean "the owner asked to cancel" column, if it has one
            (a claim then cancels a queued row that carries it, and the watcher polls it).
        take_over_stale: whether a claim takes over a running row whose heartbeat is
            stale (else only a queued row is claimed).
    """

    model: str
    events: EventStream
    cancel_field: str | None = None
    take_over_stale: bool = False

    def _model(self) -> Any:
        from django.apps import apps

        return apps.get_model(self.model)

    @property
    def transitions(self) -> Mapping[str, Collection[str]]:
        table: Mapping[str, Collection[str]] = self._model().TRANSITIONS
        return table

    @property
    def terminal(self) -> frozenset[str]:
        """The states nothing follows."""
        return frozenset(state for state, targets in self.transitions.items() if not targets)

    # State changes ---------------------------------------------------------------------------

    def transition(
        self,
        pk: int,
        *,
        to: str,
        error: str = "",
        event: dict[str, Any] | None = None,
        where: Q | None = None,
        **fields: Any,
    ) -> bool:
        """Move row ``pk`` to state ``to`` if its state allows it, with ``fields``.

        Sets ``started_at`` on the first start, ``finished_at`` on a terminal
        state, stores ``error``, and emits a ``state`` event (``{state, error?,
        **event}``) when it moved.

        Args:
            where: a further condition of the move (the sweep's "heartbeat still old").

        Returns:
            Whether the row moved.
        """
        model = self._model()
        allowed_from = [src for src, targets in self.transitions.items() if to in targets]
        now = timezone.now()
        updates: dict[str, Any] = {"state": to, **fields}
        if error:
            updates["error"] = error[:ERROR_MAX_CHARS]
        if to in self.terminal:
            updates["finished_at"] = now
        query = model.objects.filter(pk=pk, state__in=allowed_from)
        if where is not None:
            query = query.filter(where)
        with transaction.atomic():
            if to == model.State.RUNNING:
                query.filter(started_at__isnull=True).update(started_at=now)
            moved: bool = query.update(**updates) == 1
            if moved:
                payload: dict[str, Any] = {"state": to}
                if error:
                    payload["error"] = error[:ERROR_MAX_CHARS]
                self.events.emit_sync(pk, "state", {**payload, **(event or {})})
        return moved

    def claim(self, pk: int, **fields: Any) -> Claim:
        """Take a queued row for this worker (queued -> running, one more attempt).

        A row delivered twice is claimed once. A queued row whose cancel flag is
        set is cancelled instead; a running one whose heartbeat is stale is taken
        over when the model allows it, and one whose heartbeat is fresh answers
        with the seconds after which it would be stale.

        Args:
            **fields: stored with the claim (a run's ``worker``).
        """
        model, now = self._model(), timezone.now()
        with transaction.atomic():
            row = model.objects.select_for_update().filter(pk=pk).first()
            if row is None or row.state in self.terminal:
                return Claim(None)
            if row.state == model.State.RUNNING:
                if not self.take_over_stale:
                    return Claim(None)
                if row.heartbeat_at and row.heartbeat_at > now - stale_after():
                    wait = (row.heartbeat_at + stale_after() - now).total_seconds()
                    return Claim(None, max(1.0, wait))
            elif self.cancel_field and getattr(row, self.cancel_field):
                self.transition(pk, to=model.State.CANCELLED)
                return Claim(None)
            attempts = row.attempts + 1
            moved = self.transition(
                pk,
                to=model.State.RUNNING,
                event={"attempt": attempts},
                heartbeat_at=now,
                attempts=attempts,
                **fields,
            )
            if not moved:
                return Claim(None)
            row.refresh_from_db()
        return Claim(row)

    # While it runs ---------------------------------------------------------------------------

    def store(self, pk: int, **fields: Any) -> bool:
        """Write fields of a running row (what its work has found so far).

        Returns:
            Whether the row is still running (and was written).
        """
        model = self._model()
        written: bool = model.objects.filter(pk=pk, state=model.State.RUNNING).update(**fields) == 1
        return written

    def heartbeat(self, pk: int) -> bool:
        """Record that the row's worker is alive; returns whether a cancel was requested."""
        self.store(pk, heartbeat_at=timezone.now())
        return self.cancel_requested(pk)

    def cancel_requested(self, pk: int) -> bool:
        """Whether the owner asked to cancel the row (always False without a cancel flag)."""
        if self.cancel_field is None:
            return False
        rows = self._model().objects.filter(pk=pk)
        return bool(rows.values_list(self.cancel_field, flat=True).first())


class Watcher(Callback):
    """Keeps one running row's heartbeat and obeys its cancel flag while work runs.

    As a callback of `fit` / `evaluate` it also reads the flag at each batch end:
    a fit stops after the batch (``stop_training``), an evaluation raises
    `Cancelled` at its next batch.

    Args:
        lifecycle: the row's lifecycle.
        pk: the row.

    Example:
        ```python
        watcher = Watcher(Run.lifecycle, run.pk)
        try:
            await watcher.run(train(run))
        except Cancelled:
            Run.lifecycle.transition(run.pk, to=Run.State.CANCELLED)
        ```
    """

    def __init__(self, lifecycle: Lifecycle, pk: int) -> None:
        super().__init__()
        self.lifecycle = lifecycle
        self.pk = pk
        self.cancelled = False
        """Whether a cancel was requested (the work is being cancelled, or was)."""

    def check(self) -> None:
        """Raise `Cancelled` when a cancel was requested (between two phases of the work)."""
        if self.cancelled:
            raise Cancelled

    async def poll(self) -> bool:
        """Read the cancel flag now (besides the watch's own pace); whether it is set."""
        if not self.cancelled and await sync_to_async(self.lifecycle.cancel_requested)(self.pk):
            self.cancelled = True
        return self.cancelled

    async def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        if await self.poll() and self.program is not None:
            self.program.stop_training = True

    async def on_test_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self.check()  # the evaluations before and after training run in batches

    async def run(self, work: Awaitable[T]) -> T:
        """Await ``work`` as its own task beside the watch; `Cancelled` when it was cancelled.

        A cancel of the calling task itself (this worker stopping) propagates as
        ``CancelledError`` and takes the work down with it.
        """
        task = asyncio.ensure_future(work)
        watch = asyncio.ensure_future(self._watch(task))
        try:
            return await task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if not self.cancelled or (current is not None and current.cancelling()):
                raise  # this worker itself is stopping, not a cancel of the work
            raise Cancelled from None
        finally:
            watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watch
            if not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task

    async def _watch(self, task: asyncio.Task[Any]) -> None:
        loop = asyncio.get_running_loop()
        beat = heartbeat_interval()
        poll = beat if self.lifecycle.cancel_field is None else min(CANCEL_POLL_S, beat)
        last_beat = loop.time()
        while not task.done():
            await asyncio.sleep(poll)
            if self.cancelled:
                # Cancelled already: again, should the code it interrupted have swallowed it.
                task.cancel()
                continue
            try:
                if loop.time() - last_beat >= beat:
                    last_beat = loop.time()
                    requested = await sync_to_async(self.lifecycle.heartbeat)(self.pk)
                else:
                    requested = await sync_to_async(self.lifecycle.cancel_requested)(self.pk)
            except Exception:
                logger.warning(
                    "%s %s: heartbeat failed; retrying",
                    self.lifecycle.model,
                    self.pk,
                    exc_info=True,
                )
                continue
            if requested:
                self.cancelled = True
                task.cancel()
