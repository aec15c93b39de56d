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

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from studio.celery import enqueue
from studio.common.exceptions import FieldError
from studio.common.lifecycle import stale_after
from studio.programs.documents import validate_document
from studio.runs import resources
from studio.runs.config import metric_names, validate_compile_config, validate_fit_config
from studio.runs.events import RUN_EVENTS
from studio.runs.exceptions import InvalidTransition, RunConfigError
from studio.runs.judges import Judges, output_fields
from studio.runs.models import Checkpoint, Run
from studio.scorers import references

logger = logging.getLogger(__name__)

State = Run.State
TERMINAL = {State.SUCCEEDED, State.FAILED, State.CANCELLED, State.BUDGET_SPENT}


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


RUN_TRAINING_TASK = "runs.run_training"
"""The task that trains a run (`tasks.run_training`), queued by name: tasks call services."""


def _enqueue(run_id: int) -> None:
    transaction.on_commit(lambda: enqueue(RUN_TRAINING_TASK, run_id))


def _check_owned(obj: Any, owner: Any, field: str, owner_of: Any) -> None:
    if obj is None or owner_of(obj) != owner.pk:
        raise RunConfigError("not found", path=field)


# Lifecycle ------------------------------------------------------------------------------------


def transition(run: Run | int, *, to: str, error: str = "", **fields: Any) -> bool:
    """Move a run to state ``to`` if its current state allows it (per `Run.TRANSITIONS`).

    The update is conditional on the current state, so two processes racing for
    the same run cannot both win (`studio.common.lifecycle`). Sets ``started_at`` on
    the first start, ``finished_at`` on a terminal state, stores ``error`` and
    ``fields``, and emits a ``state`` event when it moved.

    Returns:
        Whether the run moved.
    """
    run_id = run if isinstance(run, int) else run.pk
    return Run.lifecycle.transition(run_id, to=to, error=error, **fields)


def _check_document(document: Any) -> None:
    """Refuse a stored version now if the worker's safe loader would refuse it."""
    errors = validate_document(document)
    if errors:
        at = "program_version.document"
        raise RunConfigError(
            FieldError(f"{at}.{e.path}" if e.path else at, e.message) for e in errors
        )


def _judges(owner: Any, provider: Any, document: Any) -> Judges:
    """What resolves a run's judges, with its program's output fields (for field rules)."""
    from studio.programs.documents import load_program

    return Judges(
        owner=owner, provider=provider, run_output_fields=output_fields(load_program(document))
    )


def start_run(
    *,
    owner: Any,
    program_version: Any,
    dataset: Any,
    provider: Any,
    compile_config: Any,
    fit_config: Any = None,
    name: str = "",
    dataset_version: int | None = None,
) -> Run:
    """Validate a run's configuration, store it queued, and enqueue its training task.

    The run trains and tests on the dataset's version number ``dataset_version``
    (default: its latest version at this moment), recorded on the run.

    Raises:
        RunConfigError: at the path of the offending field (``provider``,
            ``compile_config.optimizer.params``, ``fit_config.epochs``...).
    """
    _check_owned(program_version, owner, "program_version", lambda v: v.program.owner_id)
    _check_owned(dataset, owner, "dataset", lambda d: d.owner_id)
    _check_owned(provider, owner, "provider", lambda p: p.owner_id)
    version = resources.usable_version(dataset, dataset_version, RunConfigError)
    resources.usable_provider(provider, RunConfigError, path="provider")
    _check_document(program_version.document)
    compile_config = validate_compile_config(
        compile_config, _judges(owner, provider, program_version.document), owner=owner
    )
    fit_config = validate_fit_config(fit_config, metrics=metric_names(compile_config))
    with transaction.atomic():
        run = Run.objects.create(
            owner=owner,
            name=name,
            program_version=program_version,
            dataset=dataset,
            dataset_version=version,
            provider=provider,
            compile_config=compile_config,
            fit_config=fit_config,
        )
        references.record_uses(run)
        RUN_EVENTS.emit_sync(run.pk, "state", {"state": State.QUEUED})
        _enqueue(run.pk)
    return run


def cancel_run(run: Run) -> Run:
    """Cancel a queued run now, or ask a running one to stop.

    The running run's worker reads the request within about a second
    (`studio.common.lifecycle.CANCEL_POLL_S`) and cancels its training there, LM
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
        # stops when its worker sees cancel_requested (its `Watcher`).
        if not (current.state == State.QUEUED and transition(run.pk, to=State.CANCELLED)):
            RUN_EVENTS.emit_sync(run.pk, "cancel_requested", {})
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
        RunConfigError: no such checkpoint (``epoch``) or a bad configuration.
    """
    checkpoint = Checkpoint.objects.filter(run=run, epoch=epoch).first()
    if checkpoint is None:
        epochs = list(run.checkpoints.values_list("epoch", flat=True))
        raise RunConfigError(
            f"run {run.pk} has no checkpoint {epoch}; it has {epochs}", path="epoch"
        )
    compile_config = validate_compile_config(
        compile_config if compile_config is not None else run.compile_config,
        _judges(owner or run.owner, run.provider, run.program_version.document),
        owner=owner or run.owner,
    )
    fit_config = validate_fit_config(
        {**run.fit_config, **(fit_config or {})}, metrics=metric_names(compile_config)
    )
    if fit_config["epochs"] <= epoch:
        raise RunConfigError(
            f"must be > the fork epoch {epoch}, got {fit_config['epochs']}",
            path="fit_config.epochs",
        )
    with transaction.atomic():
        fork = Run.objects.create(
            owner=owner or run.owner,
            name=name or f"{run.name or f'run {run.pk}'} @ epoch {epoch}",
            program_version=run.program_version,
            dataset=run.dataset,
            dataset_version=run.dataset_version,
            provider=run.provider,
            compile_config=compile_config,
            fit_config=fit_config,
            parent=run,
            fork_epoch=epoch,
            initial_document=checkpoint.document,
            current_epoch=epoch,
        )
        references.record_uses(fork)
        RUN_EVENTS.emit_sync(
            fork.pk, "state", {"state": State.QUEUED, "parent": run.pk, "fork_epoch": epoch}
        )
        _enqueue(fork.pk)
    return fork


# Workers ------------------------------------------------------------------------------------


def claim_run(run_id: int, *, worker: str | None = None) -> bool:
    """Take a queued run for this worker (queued -> running); False if it is not queued.

    A message delivered twice (acks_late redelivery plus a sweep's re-queue) is
    harmless: only one worker's claim succeeds. A queued run with a cancel request
    is cancelled instead.
    """
    return bool(Run.lifecycle.claim(run_id, worker=worker or worker_name()))


def sweep_stale_runs(*, older_than: timedelta | None = None) -> list[int]:
    """Re-queue running runs whose worker stopped sending heartbeats.

    The re-queued task resumes from the run's last checkpoint.

    Returns:
        The ids of the runs re-queued.
    """
    cutoff = timezone.now() - (older_than if older_than is not None else stale_after())
    stale = Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at__isnull=True, started_at__lt=cutoff)
    requeued: list[int] = []
    for run_id, worker in Run.objects.filter(stale, state=State.RUNNING).values_list(
        "pk", "worker"
    ):
        with transaction.atomic():
            # Conditional on the heartbeat still being old: a live worker wins the race.
            moved = Run.lifecycle.transition(
                run_id,
                to=State.QUEUED,
                event={"reason": f"worker {worker} lost"},
                where=Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at__isnull=True),
                worker="",
            )
            if not moved:
                continue
            _enqueue(run_id)
        requeued.append(run_id)
        logger.warning("run %s: worker %s lost, re-queued", run_id, worker)
    return requeued
