"""Batch prediction: a deployment's program over a dataset split, in the background.

`start_batch` creates a queued `BatchJob` for the deployment's current target
(a later switch does not change what the job runs) and enqueues
``deployments.run_batch`` on the "training" queue: a large dataset can keep a
worker busy for as long as a run does. `execute_batch` (the task's body) claims
the job, predicts the rows in chunks of `CHUNK` (concurrently within a chunk),
appends one JSON line per row to the job's results file, and after each chunk
stores the progress and the usage, logs the chunk's predictions where the deployment
keeps them (`studio.deployments.prediction_log`, one insert per chunk; the setting is
read again each chunk, so turning it off stops a running job's logging), and emits a
``progress`` event
(`studio.deployments.events`), which the browser follows on ``ws/batches/<id>/``.
Its states follow `BatchJob.TRANSITIONS`, changed by `BatchJob.lifecycle` only,
the same claim, heartbeat and watcher as a run's (`studio.common.lifecycle`).

A row larger than the deployment's ``max_input_bytes``, one that does not fit the
program's input DataModel, or one whose prediction fails gets its error in its line
(nothing is sent to the model for the first two); the job goes on. A worker that dies leaves a
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
from pathlib import Path
from typing import Any

from asgiref.sync import async_to_sync, sync_to_async
from django.db import transaction

from optimizer_core.language_models import Usage
from studio.celery import enqueue
from studio.common.lifecycle import Claim, Watcher
from studio.deployments import prediction_log, services
from studio.deployments.events import BATCH_EVENTS
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
        BATCH_EVENTS.emit_sync(job.pk, "state", {"state": State.QUEUED})
        transaction.on_commit(lambda: enqueue(RUN_BATCH_TASK, job.pk))
    return job


# Running --------------------------------------------------------------------------------------


def claim(job_id: int) -> Claim:
    """Take a queued job (or a running one whose worker stopped beating).

    Returns:
        The `Claim`: the job when claimed; else the seconds after which to look again
        when another worker may still hold it (0: there is nothing to do).
    """
    return BatchJob.lifecycle.claim(job_id)


def execute_batch(job_id: int) -> float:
    """Claim the job and predict its rows to the end (the Celery task's body).

    The prediction runs under the job's `Watcher`, which keeps its heartbeat.

    Returns:
        0, or the seconds after which to try again: another worker may still hold the job.
    """
    claimed = claim(job_id)
    if not claimed:
        return claimed.retry_after
    try:
        async_to_sync(Watcher(BatchJob.lifecycle, job_id).run)(_run(claimed.row))
    except _JobGone:
        logger.info("batch job %s was deleted while it ran", job_id)
    except Exception as error:
        logger.exception("batch job %s failed", job_id)
        message = f"{type(error).__name__}: {redact(str(error))}"
        BatchJob.lifecycle.transition(job_id, to=State.FAILED, error=message)
    return 0.0


class _JobGone(Exception):
    """The job (or its deployment) was deleted while it ran."""


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
    BatchJob.lifecycle.store(job.pk, total=len(inputs), processed=done, failures=failures)
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
    job: BatchJob,
    path: Path,
    lines: list[JsonDict],
    predictions: list[Any],
    usage: JsonDict,
    logged: list[tuple[Any, Any]],
) -> JsonDict:
    with path.open("a", encoding="utf-8") as handle:
        handle.write("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
    with transaction.atomic():  # one commit for the chunk's usage and its log
        services.record_usage(
            job.deployment_id,
            source=DeploymentUsage.Source.BATCH,
            usage=usage["delta"],
            predictions=predictions,
        )
        deployment = Deployment.objects.filter(pk=job.deployment_id).only(
            "log_predictions", "log_sample_rate"
        )
        for current in deployment:
            prediction_log.record(
                current,
                target_id=job.target_id,
                source=DeploymentUsage.Source.BATCH,
                rows=logged,
                batch_id=job.pk,
            )
    if not BatchJob.lifecycle.store(
        job.pk, processed=usage["processed"], failures=usage["failures"], usage=usage["total"]
    ):
        raise _JobGone
    return BATCH_EVENTS.record(
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
    await BATCH_EVENTS.emit(
        job.pk, "progress", {"processed": processed, "total": len(inputs), "failures": failures}
    )
    before = language_model.usage.snapshot()
    for start in range(processed, len(inputs), CHUNK):
        rows = list(range(start, min(start + CHUNK, len(inputs))))
        problems = {
            index: services.row_problems(
                job.deployment, job.target, program, inputs[index], "input"
            )
            for index in rows
        }
        runnable = [index for index in rows if not problems[index]]
        predicted = dict(
            zip(
                runnable,
                await services.predict_values(
                    program, [inputs[i] for i in runnable], language_model
                ),
                strict=True,
            )
        )
        lines, predictions = [], list(predicted.values())
        logged: list[tuple[Any, Any]] = []
        for index in rows:
            prediction = predicted.get(index)
            error = (
                prediction.error
                if prediction is not None
                else "; ".join(f"{p.path}: {p.message}" for p in problems[index])
            )
            output = prediction.output if prediction is not None else None
            failures += output is None
            logged.append(
                (
                    inputs[index],
                    prediction or services.Prediction(output=None, error=error, latency_s=0.0),
                )
            )
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
        message = await sync_to_async(_save_chunk)(
            job,
            path,
            lines,
            predictions,
            {
                "delta": Usage.diff(after, before),
                "total": Usage.combine(after, base_usage),
                "processed": processed,
                "failures": failures,
                "total_rows": len(inputs),
            },
            logged,
        )
        before = after
        await BATCH_EVENTS.publish(message)
    usage = Usage.combine(language_model.usage.snapshot(), base_usage)
    await BATCH_EVENTS.emit(job.pk, "usage", usage)
    await sync_to_async(BatchJob.lifecycle.transition)(job.pk, to=State.SUCCEEDED)


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
