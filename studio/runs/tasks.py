"""Celery tasks of the runs app: thin, they take ids and call services."""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from celery.signals import worker_ready

from studio.runs import services
from studio.runs.training import execute_run

logger = logging.getLogger(__name__)


@shared_task(name=services.RUN_TRAINING_TASK, acks_late=True, reject_on_worker_lost=True)
def run_training(run_id: int) -> None:
    """Train run ``run_id`` (claims it first; resumes from its last checkpoint)."""
    execute_run(run_id)


@shared_task(name="runs.sweep_stale_runs")
def sweep_stale_runs() -> list[int]:
    """Re-queue running runs whose worker stopped sending heartbeats."""
    return services.sweep_stale_runs()


@worker_ready.connect
def _sweep_on_worker_start(**_: Any) -> None:
    # A worker that starts after a crash picks up the runs the dead one held.
    try:
        sweep_stale_runs()
    except Exception:
        logger.warning("stale-run sweep at worker start failed", exc_info=True)
