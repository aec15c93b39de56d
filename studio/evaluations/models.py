"""Evaluations: a candidate program against a baseline on one dataset version (the gate).

An `Evaluation` names two *sides*, each a saved program version (with the provider
the owner picks) or a deployment (the target it serves at launch, with the
provider it predicts with). Both are evaluated on the same rows of one dataset
version at temperature 0 and a fixed seed, and their per-row rewards compared
pair by pair (`studio.runs.significance.comparison`, baseline first): ``result``
holds the verdict, its 95% interval and ``regression`` (a significant loss).
Its states follow `TRANSITIONS`, changed by `Evaluation.lifecycle` only, as a
`BatchJob`'s are (`studio.common.lifecycle`); its events are `EvaluationEvent` rows.
"""

from django.conf import settings
from django.db import models

from studio.common.lifecycle import Lifecycle
from studio.common.models import BackgroundJob, Event
from studio.evaluations.events import EVALUATION_EVENTS

SIDES = ("candidate", "baseline")


def _side() -> tuple[models.ForeignKey, ...]:
    """The fields of one side (candidate, baseline): a version or a deployment, and a provider."""

    def pointer(to: str, help_text: str = "") -> models.ForeignKey:
        return models.ForeignKey(
            to,
            on_delete=models.SET_NULL,
            null=True,
            blank=True,
            related_name="+",
            help_text=help_text,
        )

    return (
        pointer(
            "programs.ProgramVersion",
            "the program version evaluated (a deployment's: its target's)",
        ),
        pointer("deployments.Deployment"),
        pointer(
            "deployments.DeploymentTarget",
            "the deployment's target at launch (a switch changes nothing)",
        ),
        pointer("providers.Provider", "the provider its program calls"),
    )


class Evaluation(BackgroundJob):
    """A paired evaluation of a candidate against a baseline, queued for a worker."""

    #: The only code that changes `state` (claim, transitions, heartbeat).
    lifecycle = Lifecycle("evaluations.Evaluation", EVALUATION_EVENTS, take_over_stale=True)

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="evaluations"
    )
    candidate_version, candidate_deployment, candidate_target, candidate_provider = _side()
    baseline_version, baseline_deployment, baseline_target, baseline_provider = _side()
    dataset = models.ForeignKey(
        "datasets.Dataset", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    dataset_version = models.ForeignKey(
        "datasets.DatasetVersion",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    split = models.CharField(max_length=5, default="test")
    reward = models.JSONField(
        default=dict,
        help_text='{"name": ..., "params": {...}} as resolved: a judge\'s "provider" (and '
        '"program") ids filled in, a code reward pinned to its version',
    )
    candidate_rewards = models.JSONField(null=True, blank=True, help_text="per row, row order")
    baseline_rewards = models.JSONField(null=True, blank=True, help_text="per row, row order")
    result = models.JSONField(null=True, blank=True)


class EvaluationEvent(Event):
    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="events")

    class Meta:
        ordering = ["evaluation", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["evaluation", "seq"], name="event_seq_per_evaluation")
        ]
