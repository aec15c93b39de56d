"""Celery tasks of the deployments app: thin, they take ids and call services."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from studio.deployments import prediction_log
from studio.deployments.batch import RUN_BATCH_TASK, execute_batch

SWEEP_PREDICTION_LOGS_TASK = "deployments.sweep_prediction_logs"


@shared_task(
    name=RUN_BATCH_TASK,
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    max_retries=None,
)
def run_batch(self: Any, job_id: int) -> None:
    """Predict batch job ``job_id`` (routed to the "training" queue: it may be long).

    When another worker may still hold the job (a second delivery of the message),
    look again once that worker's heartbeat would be stale.
    """
    wait = execute_batch(job_id)
    if wait:
        raise self.retry(countdown=wait)


@shared_task(name=SWEEP_PREDICTION_LOGS_TASK)
def sweep_prediction_logs() -> int:
    """Delete logged predictions older than their deployment's retention (periodic)."""
    return prediction_log.sweep()
