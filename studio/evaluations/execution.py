"""Running an evaluation: both sides on the same rows, then their paired verdict.

`execute_evaluation` (the task's body) claims the evaluation, loads the split of
its dataset version once, and evaluates the baseline then the candidate on
those rows with every module's model pinned to temperature 0 and the seed
`SEED` (so the same prompt gets the same answer and a difference is the
programs', not sampling noise), each scored by the evaluation's reward, built
as a run's is (`studio.runs.judges.Judges`: a judge on the provider the stored
reward names; a code reward from the owner's library, in the sandbox). Each
side's per-row rewards are stored as soon as it is done; the end stores
``result``: `studio.runs.significance.comparison` of baseline (before) against
candidate (after), plus ``regression`` (the verdict is a significant loss) and
both means, in one transition to ``succeeded``. Any failure (a provider that
is down: a whole batch failed ends the evaluation, as a run's evaluations do;
a program that no longer loads; fewer than two rows) ends it ``failed`` with
its error, secrets redacted. The work runs under the evaluation's `Watcher`
(heartbeat), as a batch job's does.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from asgiref.sync import async_to_sync, sync_to_async

from optimizer_core.language_models import Usage
from studio.common.lifecycle import Claim, Watcher
from studio.evaluations.events import EVALUATION_EVENTS
from studio.evaluations.models import Evaluation
from studio.programs.documents import load_program
from studio.providers.redaction import redact
from studio.runs import resources
from studio.runs.config import build_reward, needs_embedding_model, reward_library
from studio.runs.judges import Judges
from studio.runs.significance import comparison
from studio.runs.training import EVALUATION_FAILURES
from studio.scorers import references

logger = logging.getLogger(__name__)

State = Evaluation.State
JsonDict = dict[str, Any]

SEED = 0
"""The seed every LM call of an evaluation carries (where the provider takes one)."""
BATCH_SIZE = 32
"""Rows predicted together."""
REGRESSION = "significant loss"
"""The verdict that makes an evaluation a regression."""


@dataclasses.dataclass
class _Program:
    side: str
    program: Any
    language_model: Any


@dataclasses.dataclass
class _Context:
    evaluation: Evaluation
    inputs: list[Any]
    targets: list[Any]
    sides: list[_Program]
    judges: Judges
    library: references.Library


class _Gone(Exception):
    """The evaluation was deleted while it ran."""


def claim(evaluation_id: int) -> Claim:
    """Take a queued evaluation (or a running one whose worker stopped beating)."""
    return Evaluation.lifecycle.claim(evaluation_id)


def execute_evaluation(evaluation_id: int) -> float:
    """Claim the evaluation and run it to its end (the Celery task's body).

    Returns:
        0, or the seconds after which to try again: another worker may still hold it.
    """
    claimed = claim(evaluation_id)
    if not claimed:
        return claimed.retry_after
    watcher = Watcher(Evaluation.lifecycle, evaluation_id)
    try:
        async_to_sync(watcher.run)(_run(evaluation_id, watcher))
    except _Gone:
        logger.info("evaluation %s was deleted while it ran", evaluation_id)
    except Exception as error:
        logger.exception("evaluation %s failed", evaluation_id)
        message = f"{type(error).__name__}: {redact(str(error))}"
        Evaluation.lifecycle.transition(evaluation_id, to=State.FAILED, error=message)
    return 0.0


def _document(evaluation: Evaluation, side: str) -> dict[str, Any]:
    target = getattr(evaluation, f"{side}_target")
    if target is not None:
        document: dict[str, Any] = target.document
        return document
    version = getattr(evaluation, f"{side}_version")
    if version is None:
        raise ValueError(f"the {side}'s program version or deployment target was deleted")
    document = version.document
    return document


def _program(
    evaluation: Evaluation,
    side: str,
    language_model: Any,
    judges: Judges,
    library: references.Library,
) -> _Program:
    document = _document(evaluation, side)
    program = load_program({**document, "compile_config": None, "optimizer_state": None})
    program.set_language_model(language_model)
    embedding_model = (
        resources.default_embedding_model(evaluation.owner)
        if needs_embedding_model({"reward": evaluation.reward})
        else None
    )
    # Resolved as a run's reward is: a judge on its own provider (stored; default the
    # baseline's, for both sides), a code reward from the owner's library, pinned.
    reward = build_reward(
        evaluation.reward,
        path="reward",
        language_model=language_model,
        embedding_model=embedding_model,
        judges=judges,
        library=library,
    )
    program.compile(reward=reward)
    return _Program(side=side, program=program, language_model=language_model)


def _language_model(evaluation: Evaluation, side: str) -> Any:
    provider = getattr(evaluation, f"{side}_provider")
    if provider is None:
        raise ValueError(f"the {side}'s provider was deleted")
    return resources.build_language_model(provider)


def _prepare(evaluation_id: int) -> _Context:
    try:
        evaluation = Evaluation.objects.select_related(
            "owner",
            "dataset",
            "dataset_version",
            "candidate_version",
            "candidate_target__run",
            "candidate_target__program_version",
            "candidate_provider",
            "baseline_version",
            "baseline_target__run",
            "baseline_target__program_version",
            "baseline_provider",
        ).get(pk=evaluation_id)
    except Evaluation.DoesNotExist:
        raise _Gone from None
    if evaluation.dataset is None or evaluation.dataset_version is None:
        raise ValueError("the dataset (or its version) was deleted")
    inputs, targets = resources.load_examples(
        evaluation.dataset, split=evaluation.split, version=evaluation.dataset_version
    )
    if len(inputs) < 2:
        raise ValueError(
            f"the {evaluation.split!r} split of the dataset's version has {len(inputs)} row(s): "
            "a paired comparison needs at least 2"
        )
    models = {side: _language_model(evaluation, side) for side in ("baseline", "candidate")}
    # The judge's provider and program, and the code reward's source, read here: the
    # evaluation runs in an event loop that does not reach the database.
    judges = Judges(
        owner=evaluation.owner,
        provider=evaluation.baseline_provider,
        language_model=models["baseline"],
        live=True,
    )
    judges.fetch({"reward": evaluation.reward})
    library = reward_library(evaluation.reward, evaluation.owner)
    sides = [
        _program(evaluation, side, models[side], judges, library)
        for side in ("baseline", "candidate")
    ]
    return _Context(evaluation, inputs, targets, sides, judges, library)


def _store(evaluation_id: int, **fields: Any) -> None:
    if not Evaluation.lifecycle.store(evaluation_id, **fields):
        raise _Gone


async def _run(evaluation_id: int, watcher: Watcher) -> None:
    ctx = await sync_to_async(_prepare)(evaluation_id)
    try:
        await _evaluate(evaluation_id, watcher, ctx)
    finally:  # the code reward's sandbox processes end with the evaluation
        await ctx.library.close()


async def _evaluate(evaluation_id: int, watcher: Watcher, ctx: _Context) -> None:
    rewards: dict[str, list[float]] = {}
    for side in ctx.sides:
        evaluation = await side.program.evaluate(
            ctx.inputs,
            ctx.targets,
            batch_size=BATCH_SIZE,
            verbose=0,
            callbacks=[watcher],
            failure_rule=EVALUATION_FAILURES,
            return_examples=True,
            temperature=0.0,
            seed=SEED,
        )
        rewards[side.side] = [float(reward) for reward in evaluation.rewards]
        await sync_to_async(_store)(evaluation_id, **{f"{side.side}_rewards": rewards[side.side]})
        await EVALUATION_EVENTS.emit(
            evaluation_id, "progress", {"side": side.side, "rows": len(rewards[side.side])}
        )
    models = [side.language_model for side in ctx.sides]
    models += list(ctx.judges.models.values())  # judges on providers of their own
    usage = Usage.combine(*(model.usage.snapshot() for model in models))
    await EVALUATION_EVENTS.emit(evaluation_id, "usage", usage)
    result = verdict(rewards["baseline"], rewards["candidate"])
    await sync_to_async(Evaluation.lifecycle.transition)(
        evaluation_id, to=State.SUCCEEDED, result=result, usage=usage
    )


def verdict(baseline: list[float], candidate: list[float]) -> JsonDict:
    """The paired comparison of the candidate against the baseline, row by row.

    Returns:
        `studio.runs.significance.comparison` (baseline as ``before``), with
        ``mean_baseline``, ``mean_candidate`` and ``regression``.
    """
    result = comparison(baseline, candidate)
    return {
        **result,
        "mean_baseline": result["mean_before"],
        "mean_candidate": result["mean_after"],
        "regression": result["verdict"] == REGRESSION,
    }
