"""The owner's review of a logged prediction: right or wrong, the correct output, a note.

A correction must be an output the program could have given: it is checked against the
output DataModels of the target that made the prediction (the program rebuilt from its
document, as `studio.deployments.services.output_errors` does), each problem answered
at its path (``correction.answer``).
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from studio.deployments import services
from studio.deployments.exceptions import DeploymentError
from studio.deployments.models import PredictionLog
from studio.programs.documents import load_program

NOTE_MAX_LENGTH = 10_000
_UNSET: Any = object()


def review(
    row: PredictionLog,
    *,
    verdict: Any = _UNSET,
    correction: Any = _UNSET,
    note: Any = _UNSET,
) -> PredictionLog:
    """Set the review fields given (None clears a verdict or a correction).

    Raises:
        DeploymentError: the correction does not fit the target's outputs (each field
            named under ``correction``), or a note is too long; nothing is changed.
    """
    changes: dict[str, Any] = {}
    if verdict is not _UNSET:
        if verdict is not None and verdict not in PredictionLog.Verdict.values:
            raise DeploymentError(f"right, wrong or null, got {verdict!r}", path="verdict")
        changes["verdict"] = verdict
    if correction is not _UNSET:
        if correction is not None:
            program = load_program(row.target.document)
            problems = services.output_errors(program, correction, "correction")
            if problems:
                raise DeploymentError(services.capped(problems, "correction"))
        changes["correction"] = correction
    if note is not _UNSET:
        if not isinstance(note, str) or len(note) > NOTE_MAX_LENGTH:
            raise DeploymentError(f"a text of at most {NOTE_MAX_LENGTH:,} characters", path="note")
        changes["note"] = note
    if changes:
        changes["reviewed_at"] = timezone.now()
        for key, value in changes.items():
            setattr(row, key, value)
        row.save(update_fields=list(changes))
    return row
