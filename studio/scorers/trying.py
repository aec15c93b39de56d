"""Trying a code reward on rows of a dataset: each row's score, feedback, error and prints.

The code runs in the sandbox (`optimizer_core.sandbox`, a process of its own with no
network, files or environment), never in the web process: the request waits for the
sandbox's answers. It is bounded twice: at most `MAX_ROWS` rows, and each row within
the sandbox's limits for a try (`TRY_LIMITS`: 2 s of CPU, 5 s on the clock); code
that loops on every row costs a few time limits, not one per row, because the
sandbox gives up on a batch after its third replaced process.

y_true is the row's targets (its output fields). y_pred is, per the request, the
row's own fields renamed (``prediction_fields``: ``{"answer": "output.answer"}`` or
a bare field name, looked up in the targets then the inputs), JSON typed in
(``prediction``: one object for every row, or a list with one per row), or, with
neither, a copy of the targets: what a perfect program would answer.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from optimizer_core.sandbox import SandboxLimits
from studio.scorers.exceptions import TryError, VersionNotFound
from studio.scorers.models import Scorer
from studio.scorers.services import check_text, code_function

JsonDict = dict[str, Any]

#: The most rows one try scores.
MAX_ROWS = 50
#: The per-row limits of a try (tighter on the clock than a run's: someone is waiting).
TRY_LIMITS = SandboxLimits(cpu_time_s=2.0, wall_time_s=5.0)


def _dataset_version(owner: Any, dataset_id: int, number: int | None) -> Any:
    from studio.datasets import versions
    from studio.datasets.models import Dataset

    dataset = Dataset.objects.filter(owner=owner, pk=dataset_id).first()
    if dataset is None:
        raise TryError("not found", path="dataset")
    if dataset.status != Dataset.Status.VALID:
        raise TryError(f"dataset is {dataset.status}, not valid", path="dataset")
    version = (
        versions.latest_version(dataset)
        if number is None
        else versions.get_version(dataset, number)
    )
    if version is None:
        raise TryError(f"dataset {dataset.name!r} has no version {number}", path="dataset_version")
    version.dataset = dataset
    return version


def _pick_rows(version: Any, indices: list[int] | None, limit: int) -> list[tuple[int, Any]]:
    from studio.datasets import versions

    wanted = set(indices) if indices is not None else None
    found: dict[int, Any] = {}
    last = max(wanted) if wanted else limit - 1
    seen = 0
    for position, row in enumerate(versions.iter_rows(version)):
        if position > last:
            break
        seen = position + 1
        if wanted is None or position in wanted:
            found[position] = row
    if indices is None:
        return sorted(found.items())
    missing = [index for index in indices if index not in found]
    if missing:
        raise TryError(f"no row {missing[0]}: this version has {seen} row(s), from 0", path="rows")
    return [(index, found[index]) for index in indices]


def _field(row: Any, path: str) -> Any:
    section, _, name = path.partition(".")
    if name and section in ("input", "output"):
        values = row.input if section == "input" else row.output
        if name not in (values or {}):
            raise TryError(f"the row has no {section} field {name!r}", path="prediction_fields")
        return values[name]
    for values in (row.output or {}, row.input or {}):
        if path in values:
            return values[path]
    raise TryError(f"the row has no field {path!r}", path="prediction_fields")


def _predictions(rows: list[tuple[int, Any]], fields: Any, typed: Any, given: bool) -> list[Any]:
    if given:
        if isinstance(typed, list):
            if len(typed) != len(rows):
                raise TryError(
                    f"expected {len(rows)} predictions (one per row), got {len(typed)}",
                    path="prediction",
                )
            return list(typed)
        return [typed for _ in rows]
    if fields:
        return [{key: _field(row, str(path)) for key, path in fields.items()} for _, row in rows]
    return [dict(row.output or {}) for _, row in rows]


def try_scorer(
    *,
    scorer: Scorer,
    owner: Any,
    dataset: int,
    dataset_version: int | None = None,
    rows: list[int] | None = None,
    limit: int = 5,
    source: str | None = None,
    version: int | None = None,
    prediction_fields: dict[str, str] | None = None,
    prediction: Any = None,
    prediction_given: bool = False,
) -> JsonDict:
    """Score rows of one of the owner's datasets with a version (or unsaved ``source``).

    Returns:
        ``{"version", "rows": [{index, y_true, y_pred, score, feedback, error, output}],
        "mean_score", "failed", "elapsed_s"}``; a row whose code raised, timed out or
        broke a limit has its ``error`` and scores 0.

    Raises:
        VersionNotFound: no version ``version``.
        SourceInvalid, SourceTooLarge: the unsaved source is refused.
        TryError: at ``dataset``, ``dataset_version``, ``rows``, ``prediction(_fields)``.
    """
    number: int | None = None
    if source is None:
        stored = (
            scorer.versions.filter(number=version).first() if version else scorer.latest_version
        )
        if stored is None:
            raise VersionNotFound(version or 0)
        source, number = stored.source, stored.number
    else:
        check_text(source)  # loading it is the try's first step: its failure is at `source`
    if rows is not None and len(rows) > MAX_ROWS:
        raise TryError(f"at most {MAX_ROWS} rows, got {len(rows)}", path="rows")
    if not 1 <= limit <= MAX_ROWS:
        raise TryError(f"must be in [1, {MAX_ROWS}], got {limit}", path="limit")
    chosen = _dataset_version(owner, dataset, dataset_version)
    picked = _pick_rows(chosen, rows, limit)
    predictions = _predictions(picked, prediction_fields, prediction, prediction_given)
    try:
        function = code_function(source, kind=scorer.kind, name=scorer.name, limits=TRY_LIMITS)
    except (TypeError, ValueError) as error:
        raise TryError(str(error), path="source") from None

    async def score() -> list[Any]:
        from optimizer_core.exceptions import UserCodeError

        try:
            return await function.score_rows(
                (row.output, y_pred) for (_, row), y_pred in zip(picked, predictions, strict=True)
            )
        except UserCodeError as error:
            raise TryError(str(error), path="source") from None
        finally:
            await function.close()

    started = time.perf_counter()
    results = asyncio.run(score())
    elapsed = time.perf_counter() - started
    answered = [
        {
            "index": index,
            "y_true": row.output,
            "y_pred": y_pred,
            "score": result.score,
            "feedback": result.feedback,
            "error": result.error,
            "output": result.output,
        }
        for (index, row), y_pred, result in zip(picked, predictions, results, strict=True)
    ]
    return {
        "version": number,
        "rows": answered,
        "mean_score": sum(r["score"] for r in answered) / len(answered) if answered else None,
        "failed": sum(1 for r in answered if r["error"]),
        "elapsed_s": elapsed,
    }
