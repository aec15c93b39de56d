"""Background work on datasets: row-by-row validation of an upload."""

from __future__ import annotations

from celery import shared_task

from studio.datasets import services
from studio.datasets.models import Dataset


@shared_task(name="datasets.validate_dataset")
def validate_dataset(dataset_id: int) -> str:
    """Validate every row of a dataset; returns its resulting status.

    A dataset deleted before the worker gets to it is skipped.
    """
    dataset = Dataset.objects.filter(pk=dataset_id).first()
    if dataset is None:
        return "missing"
    return str(services.validate_dataset(dataset).status)
