"""Background work on datasets: row-by-row validation of an upload, version 1's row index."""

from __future__ import annotations

import logging

from celery import shared_task

from studio.datasets import services
from studio.datasets.models import Dataset

logger = logging.getLogger(__name__)


@shared_task(name=services.VALIDATE_DATASET_TASK)
def validate_dataset(dataset_id: int) -> str:
    """Validate every row of a dataset; returns its resulting status.

    A dataset deleted before the worker gets to it is skipped. Whatever fails,
    the dataset ends ``invalid`` with the reason, never left ``validating``.
    """
    dataset = Dataset.objects.filter(pk=dataset_id).first()
    if dataset is None:
        return "missing"
    try:
        return str(services.validate_dataset(dataset).status)
    except Exception as error:
        logger.exception("dataset %s: validation failed", dataset_id)
        services.mark_invalid(dataset_id, services.failure_reason(error))
        return str(Dataset.Status.INVALID)


@shared_task(name=services.INDEX_DATASET_TASK)
def index_dataset(dataset_id: int) -> str:
    """Build a valid dataset's version 1 row index and digest (nothing when it has them)."""
    dataset = Dataset.objects.filter(pk=dataset_id).first()
    if dataset is None:
        return "missing"
    return services.index_dataset(dataset).digest or "not indexed"
