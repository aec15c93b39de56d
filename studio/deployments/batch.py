"""Batch prediction: a deployment's program over a dataset split, in the background.

`start_batch` creates a queued `BatchJob` for the deployment's current target
(a later switch does not change what the job runs) and enqueues
``deployments.run_batch`` on the "training" queue: a large dataset can keep a
worker busy for as long as a run does. `execute_batch` (the task's body) claims
the job, predicts the rows in chunks of `CHUNK` (concurrently within a chunk),
appends one JSON line per row to the job's results file, and after each chunk
stores the progress and the usage, and emits a ``progress`` event
(`studio.deployments.events`), which the browser follows on ``ws/batches/<id>/``.

A row that does not fit the program's input DataModel, or whose prediction
fails, gets its error in its line; the job goes on. A worker that dies leaves a
job whose heartbeat goes stale: the task's next delivery claims it again and
resumes after the last complete line of its results file.

Results (JSON Lines, one per row)::

    {"index": 0, "input": {...}, "expected": {...}, "output": {...} | null, "error": null | "..."}

and as CSV (`csv_rows`): ``index``, ``input.<field>``..., ``expected.<field>``...,
``output.<field>``..., ``error``, nested values as JSON text.
"""

from __future__ import annotations

import csv
import io
import json
import logging
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

from asgiref.sync import async_to_sync, sync_to_async
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from studio.celery import enqueue
from studio.deployments import events, services
from studio.deployments.exceptions import DeploymentError
from studio.deployments.models import BatchJob, Deployment, DeploymentUsage
from studio.providers.redaction import redact

logger = logging.getLogger(__name__)

State = BatchJob.State
JsonDict = dict[str, Any]
CHUNK = 16
"""Rows predicted concurrently between two progress reports."""
SPLITS = ("all", "train", "test")
RUN_BATCH_TASK = "deployments.run_batch"


# Starting -------------------------------------------------------------------------------------


def _properties(schema: Any) -> list[str]:
    properties = schema.get("properties") if isinstance(schema, dict) else None
    return list(properties) if isinstance(properties, dict) else []


def result_columns(
    *,
    single_input: bool,
    input_schemas: list[JsonDict],
    output_schemas: list[JsonDict],
    expected: Any,
) -> list[str]:
    """The CSV header: index, each input / expected / output field, error."""

    def fields(prefix: str, schemas: list[JsonDict], single: bool) -> list[str]:
        if single:
            return [f"{prefix}.{name}" for name in _properties(schemas[0]["schema"])]
        return [
            f"{prefix}[{index}].{name}"
            for index, entry in enumerate(schemas)
            for name in _properties(entry["schema"])
        ]

    return [
        "index",
        *fields("input", input_schemas, single_input),
        *[f"expected.{name}" for name in _properties(expected)],
        *fields("output", output_schemas, len(output_schemas) == 1),
        "error",
    ]


def start_batch(deployment: Deployment, *, dataset: Any, split: str = "all") -> BatchJob:
    """Queue a batch prediction of ``dataset`` (its ``split``) with the deployment's program.

    Raises:
        DeploymentError: the dataset is not valid (yet), or the split is unknown.
    """
    from studio.datasets.models import Dataset

    if split not in SPLITS:
        raise DeploymentError(f"`split` must be one of {list(SPLITS)}, got {split!r}", path="split")
    if dataset.status != Dataset.Status.VALID:
        raise DeploymentError(
            f"dataset {dataset.name!r} is {dataset.status}: only a valid dataset can be predicted",
            path="dataset",
        )
    target = deployment.target
    assert target is not None
    with transaction.atomic():
        job = BatchJob.objects.create(
            owner=deployment.owner,
            deployment=deployment,
            target=target,
            dataset=dataset,
            dataset_name=dataset.name,
            split=split,
            columns=result_columns(
                single_input=target.single_input,
                input_schemas=target.input_schemas,
                output_schemas=target.output_schemas,
                expected=dataset.output_schema,
            ),
        )
        job.results.name = f"batches/{job.pk}.jsonl"
        job.save(update_fields=["results"])
        events.emit(job.pk, "state", {"state": State.QUEUED})
        transaction.on_commit(lambda: enqueue(RUN_BATCH_TASK, job.pk))
    return job


# Running --------------------------------------------------------------------------------------


def stale_after() -> timedelta:
    """How old a running job's heartbeat may get before another delivery takes it over."""
    return timedelta(seconds=float(settings.STUDIO_RUN_STALE_AFTER_S))


def claim(job_id: int) -> tuple[BatchJob | None, float]:
    """Take a queued job (or a running one whose worker stopped beating).

    Returns:
        ``(job, 0)`` when claimed; ``(None, seconds)`` when another worker may still
        hold it (look again after that long); ``(None, 0)`` when there is nothing to do.
    """
    now = timezone.now()
    with transaction.atomic():
        job = BatchJob.objects.select_for_update().filter(pk=job_id).first()
        if job is None or job.state in (State.SUCCEEDED, State.FAILED):
            return None, 0.0
        if (
            job.state == State.RUNNING
            and job.heartbeat_at
            and job.heartbeat_at > now - stale_after()
        ):
            wait = (job.heartbeat_at + stale_after() - now).total_seconds()
            return None, max(1.0, wait)
        job.state = State.RUNNING
        job.attempts += 1
        job.started_at = job.started_at or now
        job.heartbeat_at = now
        job.save(update_fields=["state", "attempts", "started_at", "heartbeat_at"])
        events.emit(job.pk, "state", {"state": State.RUNNING, "attempt": job.attempts})
    return job, 0.0


def execute_batch(job_id: int) -> float:
    """Claim the job and predict its rows to the end (the Celery task's body).

    Returns:
        0, or the seconds after which to try again: another worker may still hold the job.
    """
    job, wait = claim(job_id)
    if job is None:
        return wait
    try:
        async_to_sync(_run)(job)
    except _JobGone:
        logger.info("batch job %s was deleted while it ran", job_id)
    except Exception as error:
        logger.exception("batch job %s failed", job_id)
        message = f"{type(error).__name__}: {redact(str(error))}"
        _finish(job_id, State.FAILED, error=message)
    return 0.0


class _JobGone(Exception):
    """The job (or its deployment) was deleted while it ran."""


def _finish(job_id: int, state: str, *, error: str = "") -> None:
    with transaction.atomic():
        updated = BatchJob.objects.filter(pk=job_id).update(
            state=state, error=error, finished_at=timezone.now()
        )
        if updated:
            events.emit(job_id, "state", {"state": state, **({"error": error} if error else {})})


def _resume_point(path: Path) -> int:
    """Complete lines already written (a partial last line, from a dead worker, is cut)."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
        return 0
    data = path.read_bytes()
    complete = data.rfind(b"\n") + 1
    if complete != len(data):
        with path.open("r+b") as handle:
            handle.truncate(complete)
    return data[:complete].count(b"\n")


def _prepare(job: BatchJob) -> JsonDict:
    from studio.datasets.services import load_examples

    job = BatchJob.objects.select_related(
        "deployment__owner", "target__run__provider", "target__program_version", "dataset"
    ).get(pk=job.pk)
    if job.dataset is None:
        raise ValueError("the dataset was deleted")
    inputs, expected = load_examples(job.dataset, split=job.split)
    language_model = services.language_model_for(job.deployment, job.target)
    program = services.build_program(job.target, language_model)
    path = Path(job.results.path)
    done = _resume_point(path)
    failures = 0
    if done:
        with path.open(encoding="utf-8") as handle:
            failures = sum(json.loads(line)["output"] is None for line in handle)
    BatchJob.objects.filter(pk=job.pk).update(total=len(inputs), processed=done, failures=failures)
    return {
        "job": job,
        "inputs": list(inputs),
        "expected": list(expected),
        "language_model": language_model,
        "program": program,
        "path": path,
        "done": done,
        "failures": failures,
    }


def _save_chunk(
    job: BatchJob, path: Path, lines: list[JsonDict], predictions: list[Any], usage: JsonDict
) -> JsonDict:
    with path.open("a", encoding="utf-8") as handle:
        handle.write("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
    services.record_usage(
        job.deployment_id,
        source=DeploymentUsage.Source.BATCH,
        usage=usage["delta"],
        predictions=predictions,
    )
    updated = BatchJob.objects.filter(pk=job.pk).update(
        processed=usage["processed"],
        failures=usage["failures"],
        usage=usage["total"],
        heartbeat_at=timezone.now(),
    )
    if not updated:
        raise _JobGone
    return events.record_event(
        job.pk,
        "progress",
        {
            "processed": usage["processed"],
            "total": usage["total_rows"],
            "failures": usage["failures"],
        },
    )


async def _run(job: BatchJob) -> None:
    try:
        ctx = await sync_to_async(_prepare)(job)
    except BatchJob.DoesNotExist:
        raise _JobGone from None
    job, program, language_model = ctx["job"], ctx["program"], ctx["language_model"]
    inputs, expected, path = ctx["inputs"], ctx["expected"], ctx["path"]
    processed, failures = ctx["done"], ctx["failures"]
    base_usage = dict(job.usage or {})
    await events.publish(
        await sync_to_async(events.record_event)(
            job.pk, "progress", {"processed": processed, "total": len(inputs), "failures": failures}
        )
    )
    before = language_model.usage.snapshot()
    for start in range(processed, len(inputs), CHUNK):
        rows = list(range(start, min(start + CHUNK, len(inputs))))
        problems = {
            index: services.input_errors(job.target, program, inputs[index], "input")
            for index in rows
        }
        runnable = [index for index in rows if not problems[index]]
        predicted = dict(
            zip(
                runnable,
                await services.predict_values(program, [inputs[i] for i in runnable]),
                strict=True,
            )
        )
        lines, predictions = [], list(predicted.values())
        for index in rows:
            prediction = predicted.get(index)
            error = (
                prediction.error
                if prediction is not None
                else "; ".join(f"{p.path}: {p.message}" for p in problems[index])
            )
            output = prediction.output if prediction is not None else None
            failures += output is None
            lines.append(
                {
                    "index": index,
                    "input": inputs[index],
                    "expected": expected[index] if index < len(expected) else None,
                    "output": output,
                    "error": error,
                }
            )
        processed = rows[-1] + 1
        after = language_model.usage.snapshot()
        total = services.usage_delta(after, {})
        for key, value in base_usage.items():
            if key in total:
                total[key] += value
        message = await sync_to_async(_save_chunk)(
            job,
            path,
            lines,
            predictions,
            {
                "delta": services.usage_delta(after, before),
                "total": total,
                "processed": processed,
                "failures": failures,
                "total_rows": len(inputs),
            },
        )
        before = after
        await events.publish(message)
    usage = services.usage_delta(language_model.usage.snapshot(), {})
    for key, value in base_usage.items():
        if key in usage:
            usage[key] += value
    await events.publish(await sync_to_async(events.record_event)(job.pk, "usage", usage))
    await sync_to_async(_finish)(job.pk, State.SUCCEEDED)


# Results --------------------------------------------------------------------------------------


def iter_lines(job: BatchJob, *, chunk_size: int = 64 * 1024) -> Iterator[bytes]:
    """The results file as it is now, in chunks (the JSON Lines download)."""
    try:
        handle = job.results.open("rb")
    except (FileNotFoundError, ValueError):
        return
    with handle:
        while chunk := handle.read(chunk_size):
            yield chunk


def _lookup(record: Any, column: str) -> Any:
    value = record
    for part in column.replace("[", ".[").split("."):
        if not part:
            continue
        if part.startswith("["):
            index = int(part[1:-1])
            value = value[index] if isinstance(value, list) and index < len(value) else None
        else:
            value = value.get(part) if isinstance(value, dict) else None
        if value is None:
            return ""
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return value


def csv_rows(job: BatchJob) -> Iterator[str]:
    """The results as CSV text, a header then one row per line of the results file."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)

    def take() -> str:
        text = buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
        return text

    writer.writerow(job.columns)
    yield take()
    try:
        handle = job.results.open("rb")
    except (FileNotFoundError, ValueError):
        return
    with handle:
        for raw in handle:
            if not raw.endswith(b"\n"):
                break  # a line being written right now
            record = json.loads(raw)
            writer.writerow([_lookup(record, column) for column in job.columns])
            yield take()
