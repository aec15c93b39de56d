"""Deployment operations: deploy, switch, rollback, predict, and the usage they cost.

A deployment serves one target at a time: a succeeded run's trained document,
or a saved program version. The program is rebuilt from that document through
`studio.programs.documents.load_program` (the studio's one loader, safe mode)
and pointed at the owner's provider with `Program.set_language_model`: the
run's provider for a run, the owner's default language provider for a version.

Inputs are checked before any model is called: each against the deployment's
``max_input_bytes`` (a larger one is a 413, `InputTooLarge`), then against the
program's input DataModels; every problem answers with its field path
(``input.query``, ``inputs[2].query``), the first `MAX_LISTED` of them listed. Each
prediction request records its cost (LM calls, tokens, cost, latency, from the engine's
`Usage` accounting) in the deployment's `DeploymentUsage` row of the day, and, where
the owner turned logging on, keeps the predictions themselves
(`studio.deployments.prediction_log`, one bulk insert per request).
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import json
import time
from typing import Any

import pydantic
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from optimizer_core.language_models import Usage
from studio.common.exceptions import FieldError
from studio.common.sizes import describe_size
from studio.deployments import prediction_log
from studio.deployments.exceptions import (
    DeploymentError,
    InputInvalid,
    InputTooLarge,
    NotServable,
    PredictionFailed,
)
from studio.deployments.models import (
    LOG_RETENTION_DAYS_RANGE,
    MAX_INPUT_BYTES_RANGE,
    Deployment,
    DeploymentTarget,
    DeploymentUsage,
)
from studio.programs.documents import DocumentInvalid, load_program
from studio.programs.models import ProgramVersion
from studio.providers.redaction import redact
from studio.runs.models import Run

JsonDict = dict[str, Any]
Reason = DeploymentTarget.Reason

MAX_INPUTS = 100
"""Inputs one prediction request may carry; larger sets go through a batch job."""
MAX_LISTED = 20
"""Problems one refusal lists (50,000 unknown keys are 20 and a count of the rest)."""

_USAGE_FIELDS = ("prompt_tokens", "completion_tokens", "cost")


# Targets -------------------------------------------------------------------------------------


def _target_fields(*, run: Run | None, program_version: ProgramVersion | None) -> JsonDict:
    """What a target row holds for a run or a version, once its program rebuilds."""
    if (run is None) == (program_version is None):
        raise DeploymentError("give either `run` or `program_version`, not both or neither")
    if run is not None:
        if run.state != Run.State.SUCCEEDED or not run.trained_document:
            raise DeploymentError(
                f"run {run.pk} is {run.state}: only a succeeded run has a trained program",
                path="run",
            )
        document, version, path = run.trained_document, run.program_version, "run"
    else:
        assert program_version is not None
        document, version, path = program_version.document, program_version, "program_version"
    try:
        program = load_program(document)
    except DocumentInvalid as error:
        raise DeploymentError(
            [
                FieldError(path, f"the program does not load: {e.path}: {e.message}")
                for e in error.errors
            ]
        ) from None
    config = program.get_config()
    return {
        "run": run,
        "program_version": version,
        "single_input": bool(config.get("single_input", True)),
        "input_schemas": [
            {"name": name, "schema": symbol.data_model.get_schema()}
            for name, symbol in zip(config["inputs"], program.inputs, strict=True)
        ],
        "output_schemas": [
            {"name": name, "schema": symbol.data_model.get_schema()}
            for name, symbol in zip(config["outputs"], program.outputs, strict=True)
        ],
    }


def _checked_max_input_bytes(value: int) -> int:
    low, high = MAX_INPUT_BYTES_RANGE
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise DeploymentError(
            f"the largest input must be from {low:,} to {high:,} bytes, got {value!r}",
            path="max_input_bytes",
        )
    return value


def deploy(
    *,
    owner: Any,
    name: str,
    run: Run | None = None,
    program_version: ProgramVersion | None = None,
    max_input_bytes: int | None = None,
) -> Deployment:
    """Serve a run's trained program (or a version's) under ``name``.

    Args:
        max_input_bytes: the largest input it takes (default: `MAX_INPUT_BYTES_DEFAULT`).

    Raises:
        DeploymentError: the name is taken, the run has no trained program, the
            document does not load, or ``max_input_bytes`` is out of its range.
    """
    settings = (
        {}
        if max_input_bytes is None
        else {"max_input_bytes": _checked_max_input_bytes(max_input_bytes)}
    )
    fields = _target_fields(run=run, program_version=program_version)
    taken = DeploymentError(f"you already have a deployment named {name!r}", path="name")
    if Deployment.objects.filter(owner=owner, name=name).exists():
        raise taken
    try:
        with transaction.atomic():
            deployment = Deployment.objects.create(owner=owner, name=name, **settings)
            target = DeploymentTarget.objects.create(
                deployment=deployment, reason=Reason.DEPLOY, **fields
            )
            deployment.target = target
            deployment.save(update_fields=["target", "updated_at"])
    except IntegrityError:  # the same name, created in between
        raise taken from None
    return deployment


def _move(deployment: Deployment, fields: JsonDict, reason: str) -> Deployment:
    """Make a new target current and the current one previous, in one row update."""
    with transaction.atomic():
        locked = Deployment.objects.select_for_update().get(pk=deployment.pk)
        target = DeploymentTarget.objects.create(deployment=locked, reason=reason, **fields)
        Deployment.objects.filter(pk=locked.pk).update(
            target=target, previous_id=locked.target_id, updated_at=timezone.now()
        )
    deployment.refresh_from_db()
    return deployment


def switch(
    deployment: Deployment,
    *,
    run: Run | None = None,
    program_version: ProgramVersion | None = None,
) -> Deployment:
    """Serve another run's program (or a version) from now on; the current one is kept
    as the previous target for `rollback`. Callers see the old program or the new one,
    never a mix: both pointers change in one update.

    Raises:
        DeploymentError: as for `deploy`; the deployment is then unchanged.
    """
    return _move(
        deployment, _target_fields(run=run, program_version=program_version), Reason.SWITCH
    )


def _checked_log_settings(
    log_predictions: bool | None, log_sample_rate: float | None, log_retention_days: int | None
) -> JsonDict:
    changes: JsonDict = {}
    if log_predictions is not None:
        if not isinstance(log_predictions, bool):
            raise DeploymentError(f"true or false, got {log_predictions!r}", path="log_predictions")
        changes["log_predictions"] = log_predictions
    if log_sample_rate is not None:
        if (
            isinstance(log_sample_rate, bool)
            or not isinstance(log_sample_rate, int | float)
            or not 0.0 <= log_sample_rate <= 1.0
        ):
            raise DeploymentError(
                f"the share of predictions kept, from 0 to 1, got {log_sample_rate!r}",
                path="log_sample_rate",
            )
        changes["log_sample_rate"] = float(log_sample_rate)
    if log_retention_days is not None:
        low, high = LOG_RETENTION_DAYS_RANGE
        if (
            isinstance(log_retention_days, bool)
            or not isinstance(log_retention_days, int)
            or not low <= log_retention_days <= high
        ):
            raise DeploymentError(
                f"days from {low} to {high}, got {log_retention_days!r}",
                path="log_retention_days",
            )
        changes["log_retention_days"] = log_retention_days
    return changes


def configure(
    deployment: Deployment,
    *,
    max_input_bytes: int | None = None,
    log_predictions: bool | None = None,
    log_sample_rate: float | None = None,
    log_retention_days: int | None = None,
) -> Deployment:
    """Change a deployment's settings (those given); it serves the same target.

    Args:
        log_predictions: keep its predictions in the prediction log.
        log_sample_rate: the share of them kept, 0 to 1.
        log_retention_days: how long a logged prediction is kept, 1 to 365 days.

    Raises:
        DeploymentError: a setting is out of its range; nothing changed.
    """
    changes: JsonDict = {}
    if max_input_bytes is not None:
        changes["max_input_bytes"] = _checked_max_input_bytes(max_input_bytes)
    changes.update(_checked_log_settings(log_predictions, log_sample_rate, log_retention_days))
    if changes:
        Deployment.objects.filter(pk=deployment.pk).update(**changes, updated_at=timezone.now())
        deployment.refresh_from_db()
    return deployment


def rollback(deployment: Deployment) -> Deployment:
    """Serve the previous target again (the current one becomes previous: a second
    rollback undoes the first).

    Raises:
        NotServable: the deployment was never switched.
    """
    previous = deployment.previous
    if previous is None:
        raise NotServable("nothing to roll back to: this deployment was never switched")
    fields = {
        "run": previous.run,
        "program_version": previous.program_version,
        "single_input": previous.single_input,
        "input_schemas": previous.input_schemas,
        "output_schemas": previous.output_schemas,
    }
    return _move(deployment, fields, Reason.ROLLBACK)


def delete_deployment(deployment: Deployment) -> None:
    """Delete a deployment, its history, usage, prediction log and batch jobs (their
    result files too)."""
    files = [job.results for job in deployment.batches.all() if job.results]
    with transaction.atomic():
        deployment.delete()
    for file in files:
        file.storage.delete(file.name)


# The program and its provider ----------------------------------------------------------------


def provider_for(deployment: Deployment, target: DeploymentTarget) -> Any:
    """The provider a target's program calls: its run's provider, else the owner's default.

    Raises:
        NotServable: there is no provider to call.
    """
    from studio.providers.services import default_provider

    if target.run_id is not None:
        provider = target.run.provider
        if provider is None:
            raise NotServable(
                f"run {target.run_id}'s provider was deleted: switch the deployment to "
                "another run or to a program version (served with your default provider)"
            )
        return provider
    provider = default_provider(deployment.owner)
    if provider is None:
        raise NotServable(
            "a program version is served with your default language provider: "
            "set one on the providers page"
        )
    return provider


def language_model_for(deployment: Deployment, target: DeploymentTarget) -> Any:
    """The model a target's program calls, from `provider_for`.

    Raises:
        NotServable: there is no provider to call, or it cannot be used.
    """
    from studio.providers.services import build_language_model, preflight

    provider = provider_for(deployment, target)
    preflight(provider)  # OutgoingRefused (400): the policy refuses where it points
    try:
        return build_language_model(provider)
    except Exception as error:  # a key that no longer decrypts, a provider of the wrong kind
        raise NotServable(
            f"provider {provider.name!r} cannot be used: {redact(str(error))}"
        ) from None


def build_program(target: DeploymentTarget, language_model: Any) -> Any:
    """The target's program, every module calling ``language_model``."""
    program = load_program(target.document)
    program.set_language_model(language_model)
    return program


# Inputs ---------------------------------------------------------------------------------------


def _join(base: str, loc: tuple[Any, ...]) -> str:
    path = base
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def _model_errors(model: type[Any], value: Any, path: str) -> list[FieldError]:
    try:
        model.model_validate(value)
    except pydantic.ValidationError as error:
        return [FieldError(_join(path, tuple(e["loc"])), e["msg"]) for e in error.errors()]
    return []


def input_size(value: Any) -> int:
    """An input's size as its model is sent it: compact JSON, UTF-8 bytes."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return len(text.encode("utf-8", "surrogatepass"))


def size_error(value: Any, path: str, limit: int) -> FieldError | None:
    """Why one input is too large for a deployment that takes ``limit`` bytes, or None."""
    size = input_size(value)
    if size <= limit:
        return None
    return FieldError(
        path,
        f"this input is {describe_size(size)}, larger than this deployment takes: "
        f"{describe_size(limit)} per input (its max_input_bytes setting)",
    )


def capped(problems: list[FieldError], path: str) -> list[FieldError]:
    """The first `MAX_LISTED` problems, and at ``path`` how many more there are."""
    if len(problems) <= MAX_LISTED:
        return problems
    more = len(problems) - MAX_LISTED
    return [*problems[:MAX_LISTED], FieldError(path, f"and {more:,} more problems, not listed")]


def input_errors(target: DeploymentTarget, program: Any, value: Any, path: str) -> list[FieldError]:
    """What is wrong with one prediction input (``[]``: it fits the program).

    A program with one Input takes one object; one with several takes a list, one
    object per Input, in order.
    """
    models = [symbol.data_model for symbol in program.inputs]
    if target.single_input:
        return _model_errors(models[0], value, path)
    if not isinstance(value, list) or len(value) != len(models):
        return [FieldError(path, f"a list of {len(models)} objects, one per program input")]
    found: list[FieldError] = []
    for index, (model, item) in enumerate(zip(models, value, strict=True)):
        found.extend(_model_errors(model, item, f"{path}[{index}]"))
    return found


def output_errors(program: Any, value: Any, path: str) -> list[FieldError]:
    """What is wrong with an output given for the program (``[]``: it fits its output
    DataModels): one object for a program with one output, else a list, one per output."""
    models = [symbol.data_model for symbol in program.outputs]
    if len(models) == 1:
        return _model_errors(models[0], value, path)
    if not isinstance(value, list) or len(value) != len(models):
        return [FieldError(path, f"a list of {len(models)} objects, one per program output")]
    found: list[FieldError] = []
    for index, (model, item) in enumerate(zip(models, value, strict=True)):
        found.extend(_model_errors(model, item, f"{path}[{index}]"))
    return found


def row_problems(
    deployment: Deployment, target: DeploymentTarget, program: Any, value: Any, path: str
) -> list[FieldError]:
    """What stops one batch row from being predicted: its size, else its fit (capped)."""
    too_large = size_error(value, path, deployment.max_input_bytes)
    if too_large is not None:
        return [too_large]
    return capped(input_errors(target, program, value, path), path)


# Predictions ----------------------------------------------------------------------------------


@dataclasses.dataclass
class Prediction:
    """One input's result: its output JSON, or why there is none; seconds it took, and
    the tokens and cost of the model calls it made (0 where they could not be told apart)."""

    output: Any
    error: str | None
    latency_s: float
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0


@dataclasses.dataclass
class _Spent:
    owner: object
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0


# The prediction a model call belongs to: each prediction runs in its own task, which
# sets this, and the call's usage record is counted where the call is made (same task).
_SPENDING: contextvars.ContextVar[_Spent | None] = contextvars.ContextVar(
    "deployment_prediction_spending", default=None
)


def _output_json(output: Any) -> Any:
    if output is None:
        return None
    if isinstance(output, list):
        items = [_output_json(item) for item in output]
        return None if any(item is None for item in items) else items
    return output.get_json()


async def predict_values(
    program: Any, values: list[Any], language_model: Any = None
) -> list[Prediction]:
    """Run the program on each value concurrently (the model bounds its requests in flight).

    Args:
        language_model: the model the program calls; given, each prediction carries the
            tokens and cost of its own calls.
    """
    owner = object()

    def count(record: Any) -> None:
        spent = _SPENDING.get()
        if spent is not None and spent.owner is owner:
            spent.prompt_tokens += record.prompt_tokens
            spent.completion_tokens += record.completion_tokens
            spent.cost += record.cost

    async def one(value: Any) -> Prediction:
        spent = _Spent(owner)
        _SPENDING.set(spent)  # this task's own context (gather runs each in a task)
        started = time.perf_counter()
        trace = await program.trace(value)
        output = _output_json(trace.output)
        error = None
        if output is None:
            reason = next((step.error for step in trace.steps if step.error), None)
            error = redact(str(reason)) if reason else "the program gave no output"
        return Prediction(
            output=output,
            error=error,
            latency_s=time.perf_counter() - started,
            prompt_tokens=spent.prompt_tokens,
            completion_tokens=spent.completion_tokens,
            cost=spent.cost,
        )

    if language_model is not None:
        language_model.usage.add_listener(count)
    try:
        return list(await asyncio.gather(*(one(value) for value in values)))
    finally:
        if language_model is not None:
            language_model.usage.remove_listener(count)


def record_usage(
    deployment_id: int,
    *,
    source: str,
    usage: JsonDict,
    predictions: list[Prediction],
    requests: int = 1,
) -> None:
    """Add one request's (or batch chunk's) cost to the deployment's row of the day.

    Args:
        usage: what this request spent (`Usage.diff` of two snapshots of its model).
    """
    row, _ = DeploymentUsage.objects.get_or_create(
        deployment_id=deployment_id, day=timezone.localdate(), source=source
    )
    DeploymentUsage.objects.filter(pk=row.pk).update(
        requests=F("requests") + requests,
        predictions=F("predictions") + len(predictions),
        failures=F("failures") + sum(p.output is None for p in predictions),
        lm_calls=F("lm_calls") + int(usage.get("calls", 0)),
        latency_s=F("latency_s") + sum(p.latency_s for p in predictions),
        **{key: F(key) + usage.get(key, 0) for key in _USAGE_FIELDS},
    )


def predict(deployment: Deployment, *, values: list[Any], path: str) -> JsonDict:
    """Predict each value with the deployment's current program.

    Args:
        values: the inputs (one for a single ``input``).
        path: where the inputs sit in the request (``"input"``, or ``"inputs"`` for a list).

    Returns:
        ``{"target", "predictions": [Prediction], "usage", "latency_s"}``.

    Raises:
        InputTooLarge: an input is larger than the deployment's ``max_input_bytes``
            (nothing was called).
        InputInvalid: an input does not fit the program (nothing was called).
        NotServable: there is no provider to call.
        OutgoingRefused: the outgoing-request policy refuses where the provider points.
    """
    from studio.providers.services import refusal_of

    def where(index: int) -> str:
        return path if path == "input" else f"{path}[{index}]"

    oversized = [
        problem
        for index, value in enumerate(values)
        if (problem := size_error(value, where(index), deployment.max_input_bytes))
    ]
    if oversized:
        raise InputTooLarge(capped(oversized, path))
    target = DeploymentTarget.objects.select_related("run__provider", "program_version").get(
        pk=deployment.target_id
    )
    language_model = language_model_for(deployment, target)
    program = build_program(target, language_model)
    problems: list[FieldError] = []
    for index, value in enumerate(values):
        problems.extend(input_errors(target, program, value, where(index)))
    if problems:
        raise InputInvalid(capped(problems, path))
    started, spent_before = time.perf_counter(), language_model.usage.snapshot()
    predictions = asyncio.run(predict_values(program, values, language_model))
    latency = time.perf_counter() - started
    usage = Usage.diff(language_model.usage.snapshot(), spent_before)
    with transaction.atomic():  # one commit (a disk sync) for the usage and the log
        record_usage(
            deployment.pk, source=DeploymentUsage.Source.API, usage=usage, predictions=predictions
        )
        prediction_log.record(
            deployment,
            target_id=target.pk,
            source=DeploymentUsage.Source.API,
            rows=list(zip(values, predictions, strict=True)),
        )
    refused = refusal_of(language_model.last_error)
    if refused is not None:  # the policy refused a connection a call opened: a 400
        raise refused
    if path == "input" and predictions[0].output is None:
        raise PredictionFailed(predictions[0].error or "the prediction failed")
    return {"target": target, "predictions": predictions, "usage": usage, "latency_s": latency}


# Usage ----------------------------------------------------------------------------------------

_TOTALS = (
    "requests",
    "predictions",
    "failures",
    "lm_calls",
    "prompt_tokens",
    "completion_tokens",
    "cost",
    "latency_s",
)


def usage_totals(rows: Any) -> JsonDict:
    """Sums of usage rows, with tokens and the mean latency per prediction."""
    totals: JsonDict = {key: 0 for key in _TOTALS}
    totals["cost"] = totals["latency_s"] = 0.0
    for row in rows:
        for key in _TOTALS:
            totals[key] += getattr(row, key)
    totals["total_tokens"] = totals["prompt_tokens"] + totals["completion_tokens"]
    totals["mean_latency_s"] = (
        totals["latency_s"] / totals["predictions"] if totals["predictions"] else 0.0
    )
    return totals
