"""Code rewards and metrics of an account's library, their immutable versions, and their uses.

A `Scorer` is Python a user wrote (``def reward(y_true, y_pred)``, or ``def metric``
for a metric), stored as text: the studio never runs it in its own interpreter, only
in `optimizer_core.sandbox`. Saving makes a new `ScorerVersion`, as saving a program
does; a run names a version through its compile config (`studio.scorers.references`)
and a `ScorerUse` row records it, which is what keeps a used scorer from being
deleted (409) while the run exists.
"""

from django.conf import settings
from django.db import models


class Scorer(models.Model):
    class Kind(models.TextChoices):
        REWARD = "reward", "reward"
        METRIC = "metric", "metric"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="scorers"
    )
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True, default="")
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.REWARD)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "name"], name="scorer_name_per_owner")
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def entry(self) -> str:
        """The function the code defines: ``reward`` for a reward, ``metric`` for a metric."""
        return str(self.kind)

    @property
    def latest_version(self) -> "ScorerVersion | None":
        return self.versions.order_by("-number").first()


class ScorerVersion(models.Model):
    scorer = models.ForeignKey(Scorer, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    source = models.TextField(help_text="the Python code, run only in the sandbox")
    message = models.CharField(max_length=500, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["scorer", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["scorer", "number"], name="version_number_per_scorer")
        ]

    def __str__(self) -> str:
        return f"{self.scorer.name} v{self.number}"


class ScorerUse(models.Model):
    """A run's reward or metric is this version: the version cannot go while the run stays."""

    run = models.ForeignKey("runs.Run", on_delete=models.CASCADE, related_name="scorer_uses")
    version = models.ForeignKey(ScorerVersion, on_delete=models.PROTECT, related_name="uses")
    slot = models.CharField(max_length=60, help_text="compile_config.reward, ...metrics[0]")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["run", "slot"], name="scorer_use_per_run_slot")
        ]
