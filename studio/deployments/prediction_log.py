"""The prediction log: what a deployment's predictions took and gave, kept for review.

Where the owner turns it on (``Deployment.log_predictions``), each prediction, from the
predict endpoint or a batch job, may be kept as a `PredictionLog` row: its input, its
output (or why it failed, redacted as the endpoint's answer is), the target that
answered, latency, tokens and cost. ``log_sample_rate`` keeps that share of them
(``random.random() < rate`` per prediction); ``log_retention_days`` says how long a row
stays: `sweep` (the periodic ``deployments.sweep_prediction_logs`` task) deletes older
rows, a chunk at a time, so a large delete never holds the table for long.

Why written this way: logging must not slow predict down. `record` builds the rows in
memory once the answer is computed and writes them with one ``bulk_create`` (one per
request, one per batch chunk); nothing is read first. The caller runs it in the same
transaction as the request's usage update, so logging adds one INSERT statement and
no commit of its own: a commit is a disk sync (SQLite's WAL, PostgreSQL's), and it
costs several times what the INSERT does. A queue to a worker would take the write off
the request too, but sending the task is itself a write to the broker (see
``bench/prediction_log`` for the figures).

The list (`page`) is newest first with keyset paging on ``(created_at, id)``: the
cursor is the last row's pair, and the next page is the rows before it, an index range
(``predlog_newest``, or the index of the filter given: target, failed, verdict), never
an OFFSET that walks the rows it skips. The output filter (``output_field`` and
``output_value``) compares one key of the output JSON (SQLite JSON1, PostgreSQL jsonb);
no index serves it, so one page looks at `OUTPUT_SCAN_WINDOW` rows at most (the other
filters' rows, newest first) and says where to go on from when they hold less than a page.
"""

from __future__ import annotations

import base64
import binascii
import json
import random
import re
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db.models import Q, QuerySet
from django.db.models.fields.json import KeyTransform
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from studio.deployments.exceptions import DeploymentError
from studio.deployments.models import Deployment, PredictionLog

PAGE_DEFAULT = 50
PAGE_MAX = 200
OUTPUT_SCAN_WINDOW = 20_000
"""Rows one page of the output filter looks at, at most (it has no index: see `page`)."""
SWEEP_CHUNK = 5000
"""Rows one DELETE of the sweep removes (each is a short transaction of its own)."""
FIELD_PATTERN = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")


# Writing ----------------------------------------------------------------------------------------


def keeps(rate: float) -> bool:
    """Whether one prediction is kept at sampling ``rate`` (0: none, 1: all)."""
    return rate >= 1.0 or (rate > 0.0 and random.random() < rate)


def record(
    deployment: Deployment,
    *,
    target_id: int,
    source: str,
    rows: Iterable[tuple[Any, Any]],
    batch_id: int | None = None,
) -> int:
    """Keep the sampled share of these predictions, in one insert.

    Args:
        rows: ``(input, prediction)`` pairs, each prediction with ``output``, ``error``
            (already redacted), ``latency_s``, ``prompt_tokens``, ``completion_tokens``
            and ``cost``.

    Returns:
        How many rows were kept (0 when logging is off).
    """
    if not deployment.log_predictions:
        return 0
    rate, now = deployment.log_sample_rate, timezone.now()
    kept = [
        PredictionLog(
            deployment_id=deployment.pk,
            target_id=target_id,
            source=source,
            batch_id=batch_id,
            inputs=value,
            outputs=prediction.output,
            failed=prediction.output is None,
            error=(prediction.error or "") if prediction.output is None else "",
            latency_s=prediction.latency_s,
            prompt_tokens=prediction.prompt_tokens,
            completion_tokens=prediction.completion_tokens,
            cost=prediction.cost,
            created_at=now,
        )
        for value, prediction in rows
        if keeps(rate)
    ]
    if kept:
        PredictionLog.objects.bulk_create(kept)
    return len(kept)


# Retention --------------------------------------------------------------------------------------


def sweep(*, now: datetime | None = None, chunk: int = SWEEP_CHUNK) -> int:
    """Delete each deployment's rows older than its retention, ``chunk`` rows per DELETE.

    Returns:
        How many rows were deleted.
    """
    now = now or timezone.now()
    deleted = 0
    for deployment_id, days in Deployment.objects.values_list("pk", "log_retention_days"):
        old = PredictionLog.objects.filter(
            deployment_id=deployment_id, created_at__lt=now - timedelta(days=days)
        )
        while ids := list(old.values_list("pk", flat=True)[:chunk]):
            deleted += PredictionLog.objects.filter(pk__in=ids).delete()[0]
    return deleted


# Reading ----------------------------------------------------------------------------------------


def encode_cursor(row: PredictionLog) -> str:
    return _encode(row.created_at, row.pk)


def _encode(created_at: datetime, pk: int) -> str:
    text = f"{created_at.isoformat()}|{pk}"
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def _decode_cursor(cursor: str) -> tuple[datetime, int]:
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        moment, pk = text.split("|")
        created_at = datetime.fromisoformat(moment)
        return created_at, int(pk)
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise DeploymentError(
            "not a cursor this list gave: pass the `next` of the previous page", path="cursor"
        ) from None


def _moment(value: str, path: str) -> datetime:
    parsed = parse_datetime(value)
    if parsed is None:
        raise DeploymentError(
            f"an ISO 8601 date and time (2026-12-02T14:00:00Z), got {value!r}", path=path
        )
    return parsed if timezone.is_aware(parsed) else parsed.replace(tzinfo=UTC)


def _flag(value: str, path: str) -> bool:
    if value.lower() in {"true", "1"}:
        return True
    if value.lower() in {"false", "0"}:
        return False
    raise DeploymentError(f"true or false, got {value!r}", path=path)


def _number(value: str, path: str, low: int, high: int) -> int:
    try:
        number = int(value)
    except ValueError:
        number = low - 1
    if not low <= number <= high:
        raise DeploymentError(f"a whole number from {low} to {high}, got {value!r}", path=path)
    return number


def _output_value(text: str) -> Any:
    """A query value as the JSON it reads as (``3``, ``true``, ``"3"``), else the string."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def filtered(deployment: Deployment, params: dict[str, str]) -> QuerySet[PredictionLog]:
    """The deployment's rows that ``params`` (the list's query) select, newest first.

    Raises:
        DeploymentError: a parameter that does not parse, named by its path.
    """
    return _output_filter(_indexed(deployment, params), params)


def _indexed(deployment: Deployment, params: dict[str, str]) -> QuerySet[PredictionLog]:
    """The rows the filters with an index select (all but the output filter), newest first."""
    rows = PredictionLog.objects.filter(deployment=deployment)
    if params.get("since"):
        rows = rows.filter(created_at__gte=_moment(params["since"], "since"))
    if params.get("until"):
        rows = rows.filter(created_at__lt=_moment(params["until"], "until"))
    if params.get("target"):
        rows = rows.filter(target_id=_number(params["target"], "target", 1, 2**63 - 1))
    if params.get("failed"):
        # `failed__in`: `failed=True` compiles to a bare `AND "failed"`, which SQLite
        # cannot match against the (deployment, failed, ...) index.
        rows = rows.filter(failed__in=[_flag(params["failed"], "failed")])
    if params.get("verdict"):
        verdict = params["verdict"]
        if verdict not in {*PredictionLog.Verdict.values, "none"}:
            raise DeploymentError(f"right, wrong or none, got {verdict!r}", path="verdict")
        rows = rows.filter(verdict=None if verdict == "none" else verdict)
    return rows.order_by("-created_at", "-id")


def _output_filter(
    rows: QuerySet[PredictionLog], params: dict[str, str]
) -> QuerySet[PredictionLog]:
    field, value = params.get("output_field"), params.get("output_value")
    if not field and value is None:
        return rows
    if not field or not FIELD_PATTERN.fullmatch(field):
        raise DeploymentError(
            "the name of an output field (letters, digits, _), given with output_value",
            path="output_field",
        )
    if value is None:
        raise DeploymentError("give the value output_field must have", path="output_value")
    return rows.annotate(output_key=KeyTransform(field, "outputs")).filter(
        output_key=_output_value(value)
    )


def _before(
    rows: QuerySet[PredictionLog], created_at: datetime, pk: int
) -> QuerySet[PredictionLog]:
    """The rows after position ``(created_at, pk)`` in the newest-first order."""
    # A range on the index's leading columns, then the ties of that instant dropped.
    return rows.filter(created_at__lte=created_at).exclude(Q(created_at=created_at) & Q(pk__gte=pk))


def page(deployment: Deployment, params: dict[str, str]) -> tuple[list[PredictionLog], str | None]:
    """One page of `filtered` rows after ``params["cursor"]`` (``limit``, default 50).

    The output filter has no index, so one request looks at `OUTPUT_SCAN_WINDOW` rows at
    most (those the other filters select, newest first): when they hold fewer matches than
    a page, the page is short, even empty, and ``next`` goes on from the last row looked at.

    Returns:
        The rows and the cursor of the next page (None: this is the last).
    """
    limit = _number(params["limit"], "limit", 1, PAGE_MAX) if params.get("limit") else PAGE_DEFAULT
    rows = _indexed(deployment, params)
    if params.get("cursor"):
        rows = _before(rows, *_decode_cursor(params["cursor"]))
    scanned_to: tuple[datetime, int] | None = None
    matching = _output_filter(rows, params)
    if matching is not rows:  # bound the scan by the window's last row, found by the index
        edge = list(
            rows.values_list("created_at", "pk")[OUTPUT_SCAN_WINDOW - 1 : OUTPUT_SCAN_WINDOW]
        )
        if edge:
            scanned_to = edge[0]
            matching = matching.filter(created_at__gte=scanned_to[0]).exclude(
                Q(created_at=scanned_to[0]) & Q(pk__lt=scanned_to[1])
            )
    found = list(matching.select_related(None)[: limit + 1])
    if len(found) > limit:
        return found[:limit], encode_cursor(found[limit - 1])
    return found, _encode(*scanned_to) if scanned_to is not None else None
