"""Celery tasks of the evaluations app: thin, they take ids and call the execution."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from studio.evaluations.execution import execute_evaluation
from studio.evaluations.services import RUN_EVALUATION_TASK


@shared_task(
    name=RUN_EVALUATION_TASK,
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    max_retries=None,
)
def run_evaluation(self: Any, evaluation_id: int) -> None:
    """Evaluate ``evaluation_id`` (routed to the "training" queue: two passes over a split).

    When another worker may still hold it (a second delivery of the message), look
    again once that worker's heartbeat would be stale.
    """
    wait = execute_evaluation(evaluation_id)
    if wait:
        raise self.retry(countdown=wait)
