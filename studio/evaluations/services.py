"""Starting an evaluation: what each side names is checked, then the row is queued.

`start_evaluation` resolves each side (candidate, baseline) to what a worker
evaluates: a program version with the provider its owner picked (default: their
default language provider), or a deployment's current target with the provider
the deployment predicts with (`studio.deployments.services.provider_for`; a
provider given with a deployment replaces it). The dataset version (default: the
latest), the split and the reward (checked as a run's reward is,
`studio.runs.config.build_reward`) are fixed at this moment, so the evaluation
measures what was asked even if a deployment switches while it waits. Every
problem is a `EvaluationError` (400) naming its field (``candidate_provider``,
``dataset_version``, ``reward.name``...). The work itself is
`studio.evaluations.execution`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from django.db import transaction

from studio.celery import enqueue
from studio.common.exceptions import DomainError
from studio.evaluations.events import EVALUATION_EVENTS
from studio.evaluations.models import Evaluation
from studio.runs import resources

JsonDict = dict[str, Any]
State = Evaluation.State

RUN_EVALUATION_TASK = "evaluations.run_evaluation"
SPLITS = ("test", "train", "all")
DEFAULT_REWARD: JsonDict = {"name": "exact_match", "params": {}}


class EvaluationError(DomainError):
    """An evaluation request that cannot be honoured; ``path`` names the field."""


@dataclasses.dataclass(frozen=True)
class Side:
    """What one side of an evaluation names: a version or a deployment, and a provider."""

    version: Any = None
    deployment: Any = None
    provider: Any = None


@dataclasses.dataclass(frozen=True)
class _Resolved:
    version: Any
    deployment: Any
    target: Any
    provider: Any


def _check_owned(row: Any, owner: Any, path: str, owner_id: Any) -> None:
    if row is not None and owner_id(row) != owner.pk:
        raise EvaluationError("not found", path=path)


def _resolve(owner: Any, name: str, side: Side) -> _Resolved:
    from studio.deployments.exceptions import NotServable
    from studio.deployments.services import provider_for
    from studio.providers.services import default_provider

    _check_owned(side.version, owner, f"{name}_version", lambda v: v.program.owner_id)
    _check_owned(side.deployment, owner, f"{name}_deployment", lambda d: d.owner_id)
    _check_owned(side.provider, owner, f"{name}_provider", lambda p: p.owner_id)
    if (side.version is None) == (side.deployment is None):
        raise EvaluationError(
            f"name either a program version (`{name}_version`) or a deployment "
            f"(`{name}_deployment`)",
            path=name,
        )
    provider_path = f"{name}_provider"
    if side.deployment is not None:
        target = side.deployment.target
        if target is None:
            raise EvaluationError("the deployment serves nothing yet", path=f"{name}_deployment")
        provider = side.provider
        if provider is None:
            try:
                provider = provider_for(side.deployment, target)
            except NotServable as error:
                raise EvaluationError(str(error), path=f"{name}_deployment") from None
        return _Resolved(
            version=target.program_version,
            deployment=side.deployment,
            target=target,
            provider=resources.usable_provider(provider, EvaluationError, path=provider_path),
        )
    provider = side.provider or default_provider(owner)
    if provider is None:
        raise EvaluationError(
            "required: you have no default language provider to evaluate the version with",
            path=provider_path,
        )
    return _Resolved(
        version=side.version,
        deployment=None,
        target=None,
        provider=resources.usable_provider(provider, EvaluationError, path=provider_path),
    )


def _output_fields(side: _Resolved) -> list[str] | None:
    """The output fields of a side's program (what a field rule may name); None: its
    document does not load (the worker fails it, saying so)."""
    from studio.programs.documents import DocumentInvalid, load_program
    from studio.runs.judges import output_fields

    document = side.target.document if side.target is not None else side.version.document
    try:
        return output_fields(load_program(document))
    except DocumentInvalid:
        return None


def _checked_reward(owner: Any, reward: Any, sides: dict[str, _Resolved]) -> JsonDict:
    """The reward as stored, resolved as a run's is (`studio.runs.config.validate_reward`):
    a judge's provider (default: the baseline's) and program, owned and filled in; a code
    reward pinned to its version; field rules naming fields both sides' outputs have."""
    from studio.runs.config import validate_reward
    from studio.runs.exceptions import RunConfigError
    from studio.runs.judges import Judges

    if reward is None:
        reward = DEFAULT_REWARD
    candidate, baseline = (_output_fields(sides[name]) for name in ("candidate", "baseline"))
    both = None
    if candidate is not None and baseline is not None:
        both = [field for field in candidate if field in baseline]
    judges = Judges(owner=owner, provider=sides["baseline"].provider, run_output_fields=both)
    try:
        return validate_reward(reward, judges, owner=owner, path="reward")
    except RunConfigError as error:
        raise EvaluationError(error.errors) from None


def start_evaluation(
    *,
    owner: Any,
    candidate: Side,
    baseline: Side,
    dataset: Any,
    dataset_version: int | None = None,
    split: str = "test",
    reward: Any = None,
) -> Evaluation:
    """Check what the evaluation names, store it queued and enqueue its task.

    Raises:
        EvaluationError: at the path of the offending field.
    """
    sides = {"candidate": _resolve(owner, "candidate", candidate)}
    sides["baseline"] = _resolve(owner, "baseline", baseline)
    _check_owned(dataset, owner, "dataset", lambda d: d.owner_id)
    version = resources.usable_version(dataset, dataset_version, EvaluationError)
    if split not in SPLITS:
        raise EvaluationError(f"must be one of {list(SPLITS)}, got {split!r}", path="split")
    fields: JsonDict = {"reward": _checked_reward(owner, reward, sides)}
    for name, side in sides.items():
        fields |= {
            f"{name}_version": side.version,
            f"{name}_deployment": side.deployment,
            f"{name}_target": side.target,
            f"{name}_provider": side.provider,
        }
    with transaction.atomic():
        evaluation = Evaluation.objects.create(
            owner=owner,
            dataset=dataset,
            dataset_version=version,
            split=split,
            **fields,
        )
        EVALUATION_EVENTS.emit_sync(evaluation.pk, "state", {"state": State.QUEUED})
        transaction.on_commit(lambda: enqueue(RUN_EVALUATION_TASK, evaluation.pk))
    return evaluation
