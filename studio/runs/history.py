"""A run's epoch history: each epoch's logs, from its ``epoch`` events, and their CSV.

The logs are what `fit` reported at each epoch's end (``reward``, each metric,
their ``val_`` twins, ``failures`` when a prediction failed), read from the run's
``epoch`` events; an epoch trained twice (a resumed run redoes an unfinished one)
counts once, the last report. The CSV is the engine's own (`epochs_csv`, the
format `CSVLogger` writes): a script's log and a run's download read alike.
A fork's rows are the epochs it trained itself, as `fit(initial_epoch=...)`
logs them; what it inherits is the run detail's ``inherited_epochs``.
"""

from __future__ import annotations

from typing import Any

from optimizer_core.callbacks.csv_logger import epochs_csv, epochs_csv_columns
from studio.runs.config import history_keys, metric_names
from studio.runs.exceptions import RunConfigError
from studio.runs.models import Run, RunEvent

EpochRow = tuple[int, dict[str, Any]]


def epoch_logs(run: Run) -> list[EpochRow]:
    """``[(epoch, logs)]``, by epoch (0-based, as the ``epoch`` events number them)."""
    by_epoch: dict[int, dict[str, Any]] = {}
    for payload in (
        RunEvent.objects.filter(run=run, kind="epoch")
        .order_by("seq")
        .values_list("payload", flat=True)
    ):
        by_epoch[int(payload["epoch"])] = dict(payload.get("logs") or {})
    return [(epoch, by_epoch[epoch]) for epoch in sorted(by_epoch)]


def _expected_columns(run: Run) -> list[str]:
    """The header of a run with no epoch yet: the figures its epochs will log."""
    try:
        metrics = metric_names(run.compile_config)
    except RunConfigError:  # a config the engine no longer builds: no figures to name
        return ["epoch"]
    validation = float((run.fit_config or {}).get("validation_split") or 0.0) > 0
    return ["epoch", *sorted(history_keys(metrics, validation=validation))]


def history_csv(run: Run) -> str:
    """The run's epochs as CSV: ``epoch`` and every logged key, sorted; a row per epoch.

    Before its first epoch, the header alone: the figures the run will log.
    """
    rows = epoch_logs(run)
    columns = epochs_csv_columns(rows) if rows else _expected_columns(run)
    return epochs_csv(rows, columns=columns)
