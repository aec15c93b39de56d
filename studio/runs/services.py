"""Domain operations on runs: start, cancel, fork, state transitions, the stale-run sweep.

Views and tasks call these; they hold the rules (who may use what, which state
may follow which, when a task is enqueued).
"""

from __future__ import annotations

import logging
import os
import socket
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from studio.celery import enqueue
from studio.programs.documents import validate_document
from studio.runs.config import validate_compile_config, validate_fit_config
from studio.runs.events import emit_sync
from studio.runs.exceptions import InvalidTransition
from studio.runs.models import Checkpoint, Run

logger = logging.getLogger(__name__)

State = Run.State
TERMINAL = {State.SUCCEEDED, State.FAILED, State.CANCELLED, State.BUDGET_SPENT}


def stale_after() -> timedelta:
    """How old a running run's heartbeat may get before the sweep re-queues it."""
    return timedelta(seconds=float(settings.STUDIO_RUN_STALE_AFTER_S))


def heartbeat_interval() -> float:
    """Seconds between heartbeats of a running run (besides one per batch)."""
    return float(settings.STUDIO_RUN_HEARTBEAT_S)


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


RUN_TRAINING_TASK = "runs.run_training"
"""The task that trains a run (`tasks.run_training`), queued by name: tasks call services."""


def _enqueue(run_id: int) -> None:
    transaction.on_commit(lambda: enqueue(RUN_TRAINING_TASK, run_id))


def _check_owned(obj: Any, owner: Any, field: str, owner_of: Any) -> None:
    if obj is None or owner_of(obj) != owner.pk:
        raise ValidationError({field: "not found"})


# Lifecycle ------------------------------------------------------------------------------------


def transition(run: Run | int, *, to: str, error: str = "", **fields: Any) -> bool:
    """Move a run to state ``to`` if its current state allows it (per `Run.TRANSITIONS`).

    The update is conditional on the current state, so two processes racing for
    the same run cannot both win. Sets ``started_at`` on the first start,
    ``finished_at`` on a terminal state, and stores ``error``. Emits a ``state``
    event when it moved.

    Returns:
        Whether the run moved.
    """
    run_id = run if isinstance(run, int) else run.pk
    allowed_from = [src for src, targets in Run.TRANSITIONS.items() if to in targets]
    now = timezone.now()
    updates: dict[str, Any] = {"state": to, **fields}
    if error:
        updates["error"] = error[:10_000]
    if to in TERMINAL:
        updates["finished_at"] = now
    query = Run.objects.filter(pk=run_id, state__in=allowed_from)
    if to == State.RUNNING:
        query.filter(started_at__isnull=True).update(started_at=now)
    moved = query.update(**updates) == 1
    if moved:
        payload: dict[str, Any] = {"state": to}
        if error:
            payload["error"] = error[:10_000]
        emit_sync(run_id, "state", payload)
    return moved


def _check_document(document: Any) -> None:
    """Refuse a stored version now if the worker's safe loader would refuse it."""
    errors = validate_document(document)
    if errors:
        at = "program_version.document"
        raise ValidationError({f"{at}.{e.path}" if e.path else at: e.message for e in errors})


def start_run(
    *,
    owner: Any,
    program_version: Any,
    dataset: Any,
    provider: Any,
    compile_config: Any,
    fit_config: Any = None,
    name: str = "",
) -> Run:
    """Validate a run's configuration, store it queued, and enqueue its training task.

    Raises:
        ValidationError: keyed by the offending field (``provider``,
            ``compile_config.optimizer.params``, ``fit_config.epochs``...).
    """
    _check_owned(program_version, owner, "program_version", lambda v: v.program.owner_id)
    _check_owned(dataset, owner, "dataset", lambda d: d.owner_id)
    _check_owned(provider, owner, "provider", lambda p: p.owner_id)
    if dataset.status != "valid":
        raise ValidationError({"dataset": f"dataset is {dataset.status}, not valid"})
    if provider.kind != "language":
        raise ValidationError({"provider": "an embedding provider cannot run a program"})
    _check_document(program_version.document)
    compile_config = validate_compile_config(compile_config)
    fit_config = validate_fit_config(fit_config)
    with transaction.atomic():
        run = Run.objects.create(
            owner=owner,
            name=name,
            program_version=program_version,
            dataset=dataset,
            provider=provider,
            compile_config=compile_config,
            fit_config=fit_config,
        )
        emit_sync(run.pk, "state", {"state": State.QUEUED})
        _enqueue(run.pk)
    return run


def cancel_run(run: Run) -> Run:
    """Cancel a queued run now, or ask a running one to stop.

    The running run's worker reads the request within about a second
    (`studio.runs.training.CANCEL_POLL_S`) and cancels its training there, LM
    calls in flight included; the run then ends ``cancelled``.

    Raises:
        InvalidTransition: the run has already finished.
    """
    with transaction.atomic():
        current = Run.objects.select_for_update().get(pk=run.pk)
        if current.state in TERMINAL:
            raise InvalidTransition(f"run {run.pk} is {current.state}: it cannot be cancelled")
        Run.objects.filter(pk=run.pk).update(cancel_requested=True)
        # A queued run stops here; a running one (or one a worker just claimed)
        # stops when its worker sees cancel_requested (see studio.runs.training._watch).
        if not (current.state == State.QUEUED and transition(run.pk, to=State.CANCELLED)):
            emit_sync(run.pk, "cancel_requested", {})
    run.refresh_from_db()
    return run


def fork_run(
    *,
    run: Run,
    epoch: int,
    owner: Any = None,
    fit_config: Any = None,
    compile_config: Any = None,
    name: str = "",
) -> Run:
    """A new run that starts from ``run``'s checkpoint after ``epoch`` epochs.

    It keeps the parent's program version, dataset and provider, and its
    configurations unless new ones are given; it trains epochs ``epoch`` to
    ``fit_config.epochs`` (as `fit(initial_epoch=epoch)` would).

    Raises:
        ValidationError: no such checkpoint (``epoch``) or a bad configuration.
    """
    checkpoint = Checkpoint.objects.filter(run=run, epoch=epoch).first()
    if checkpoint is None:
        epochs = list(run.checkpoints.values_list("epoch", flat=True))
        raise ValidationError({"epoch": f"run {run.pk} has no checkpoint {epoch}; it has {epochs}"})
    compile_config = validate_compile_config(
        compile_config if compile_config is not None else run.compile_config
    )
    fit_config = validate_fit_config({**run.fit_config, **(fit_config or {})})
    if fit_config["epochs"] <= epoch:
        raise ValidationError(
            {"fit_config.epochs": f"must be > the fork epoch {epoch}, got {fit_config['epochs']}"}
        )
    with transaction.atomic():
        fork = Run.objects.create(
            owner=owner or run.owner,
            name=name or f"{run.name or f'run {run.pk}'} @ epoch {epoch}",
            program_version=run.program_version,
            dataset=run.dataset,
            provider=run.provider,
            compile_config=compile_config,
            fit_config=fit_config,
            parent=run,
            fork_epoch=epoch,
            initial_document=checkpoint.document,
            current_epoch=epoch,
        )
        emit_sync(fork.pk, "state", {"state": State.QUEUED, "parent": run.pk, "fork_epoch": epoch})
        _enqueue(fork.pk)
    return fork


# Workers --------------------------------------------------------------------------------------


def claim_run(run_id: int, *, worker: str | None = None) -> bool:
    """Take a queued run for this worker (queued -> running); False if it is not queued.

    A message delivered twice (acks_late redelivery plus a sweep's re-queue) is
    harmless: only one worker's claim succeeds.
    """
    now = timezone.now()
    with transaction.atomic():
        run = Run.objects.select_for_update().filter(pk=run_id).first()
        if run is None or run.state != State.QUEUED:
            return False
        if run.cancel_requested:
            transition(run_id, to=State.CANCELLED)
            return False
        return transition(
            run_id,
            to=State.RUNNING,
            worker=worker or worker_name(),
            heartbeat_at=now,
            attempts=run.attempts + 1,
        )


def heartbeat(run_id: int) -> bool:
    """Record that the run's worker is alive; returns whether a cancel was requested."""
    Run.objects.filter(pk=run_id, state=State.RUNNING).update(heartbeat_at=timezone.now())
    return cancel_requested(run_id)


def cancel_requested(run_id: int) -> bool:
    """Whether the run's owner asked to cancel it (a read only; the worker polls it)."""
    return bool(Run.objects.filter(pk=run_id).values_list("cancel_requested", flat=True).first())


def sweep_stale_runs(*, older_than: timedelta | None = None) -> list[int]:
    """Re-queue running runs whose worker stopped sending heartbeats.

    The re-queued task resumes from the run's last checkpoint.

    Returns:
        The ids of the runs re-queued.
    """
    cutoff = timezone.now() - (older_than if older_than is not None else stale_after())
    stale = Run.objects.filter(state=State.RUNNING).filter(
        Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at__isnull=True, started_at__lt=cutoff)
    )
    requeued: list[int] = []
    for run_id, worker in stale.values_list("pk", "worker"):
        with transaction.atomic():
            # Conditional on the heartbeat still being old: a live worker wins the race.
            moved = (
                Run.objects.filter(pk=run_id, state=State.RUNNING)
                .filter(Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at__isnull=True))
                .update(state=State.QUEUED, worker="")
            )
            if not moved:
                continue
            emit_sync(run_id, "state", {"state": State.QUEUED, "reason": f"worker {worker} lost"})
            _enqueue(run_id)
        requeued.append(run_id)
        logger.warning("run %s: worker %s lost, re-queued", run_id, worker)
    return requeued
