"""Deployments: a trained program served under a stable name, its targets, usage, batch jobs.

A `Deployment` points at one `DeploymentTarget` (a succeeded run's trained
document, or a saved program version) and remembers the one before it, so a
switch and a rollback are each one row update. Targets are never edited: each
deploy, switch and rollback appends one, which makes the history. Usage is
counted per deployment, day and source (API calls or batch jobs); where the owner
turns it on, each prediction is also kept as a `PredictionLog` row (sampled, swept
after the deployment's retention: `studio.deployments.prediction_log`). A `BatchJob`
predicts a dataset in the background; its progress is a `BatchEvent` log, the
same shape as a run's `RunEvent` (see `studio.common.event_log`).
"""

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from studio.common.lifecycle import Lifecycle
from studio.common.models import BackgroundJob, Event
from studio.deployments.events import BATCH_EVENTS

NAME_MAX_LENGTH = 50

MAX_INPUT_BYTES_DEFAULT = 256 * 1024
"""The largest prediction input a new deployment takes, as compact UTF-8 JSON."""
MAX_INPUT_BYTES_RANGE = (1024, 4 * 1024 * 1024)
"""What an owner may set it to: 1 kB to 4 MB (about a million tokens, past any model's
context; and under the 10 MB a request body may hold)."""
LOG_RETENTION_DAYS_DEFAULT = 30
LOG_RETENTION_DAYS_RANGE = (1, 365)
"""How long logged predictions are kept: a day to a year."""


class Deployment(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="deployments"
    )
    name = models.SlugField(max_length=NAME_MAX_LENGTH, help_text="unique per owner; in the URL")
    # Both pointers change in one UPDATE (switch, rollback); null only while being created.
    target = models.ForeignKey(
        "DeploymentTarget", on_delete=models.SET_NULL, null=True, related_name="+"
    )
    previous = models.ForeignKey(
        "DeploymentTarget", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    max_input_bytes = models.PositiveIntegerField(
        default=MAX_INPUT_BYTES_DEFAULT,
        validators=[
            MinValueValidator(MAX_INPUT_BYTES_RANGE[0]),
            MaxValueValidator(MAX_INPUT_BYTES_RANGE[1]),
        ],
        help_text="the largest input (compact UTF-8 JSON) a prediction or a batch row may "
        "carry; a larger one is refused before any model is called",
    )
    # Off by default: a log keeps what callers send (possibly personal data), which is
    # the owner's decision to make, not the studio's.
    log_predictions = models.BooleanField(
        default=False, help_text="keep each prediction (inputs, output, cost) for review"
    )
    log_sample_rate = models.FloatField(
        default=1.0,
        validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text="the share of predictions kept when logging is on, 0 to 1",
    )
    log_retention_days = models.PositiveSmallIntegerField(
        default=LOG_RETENTION_DAYS_DEFAULT,
        validators=[
            MinValueValidator(LOG_RETENTION_DAYS_RANGE[0]),
            MaxValueValidator(LOG_RETENTION_DAYS_RANGE[1]),
        ],
        help_text="days a logged prediction is kept; a periodic sweep deletes older ones",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "name"], name="deployment_name_per_owner")
        ]

    def __str__(self) -> str:
        return self.name


class DeploymentTarget(models.Model):
    """What a deployment served from a moment on: a run's trained program, or a version."""

    class Reason(models.TextChoices):
        DEPLOY = "deploy"
        SWITCH = "switch"
        ROLLBACK = "rollback"

    deployment = models.ForeignKey(Deployment, on_delete=models.CASCADE, related_name="targets")
    run = models.ForeignKey(
        "runs.Run", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    program_version = models.ForeignKey(
        "programs.ProgramVersion", on_delete=models.PROTECT, related_name="+"
    )
    reason = models.CharField(max_length=10, choices=Reason.choices)
    input_schemas = models.JSONField(
        default=list, help_text="[{name, schema}]: the program's Input DataModels"
    )
    single_input = models.BooleanField(
        default=True, help_text="one input object per prediction (else a list, one per input)"
    )
    output_schemas = models.JSONField(
        default=list, help_text="[{name, schema}]: the program's output DataModels"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    @property
    def document(self) -> dict:
        """The program served: the run's trained document, else the version's (both immutable)."""
        if self.run_id is not None:
            return self.run.trained_document
        return self.program_version.document


class DeploymentUsage(models.Model):
    """What a deployment's predictions cost on one day, from one source."""

    class Source(models.TextChoices):
        API = "api"
        BATCH = "batch"

    deployment = models.ForeignKey(Deployment, on_delete=models.CASCADE, related_name="usage")
    day = models.DateField()
    source = models.CharField(max_length=5, choices=Source.choices)
    requests = models.PositiveBigIntegerField(default=0, help_text="HTTP calls / batch chunks")
    predictions = models.PositiveBigIntegerField(default=0)
    failures = models.PositiveBigIntegerField(default=0, help_text="predictions without output")
    lm_calls = models.PositiveBigIntegerField(default=0)
    prompt_tokens = models.PositiveBigIntegerField(default=0)
    completion_tokens = models.PositiveBigIntegerField(default=0)
    cost = models.FloatField(default=0.0, help_text="US dollars, as litellm prices the model")
    latency_s = models.FloatField(default=0.0, help_text="seconds, summed over predictions")

    class Meta:
        ordering = ["-day", "source"]
        constraints = [
            models.UniqueConstraint(
                fields=["deployment", "day", "source"], name="deployment_usage_per_day"
            )
        ]


class BatchJob(BackgroundJob):
    """A deployment's program run over a dataset split in the background."""

    #: The only code that changes `state` (claim, transitions, heartbeat).
    lifecycle = Lifecycle("deployments.BatchJob", BATCH_EVENTS, take_over_stale=True)

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="batch_jobs"
    )
    deployment = models.ForeignKey(Deployment, on_delete=models.CASCADE, related_name="batches")
    # The target at launch: a switch while the job runs does not mix two programs.
    target = models.ForeignKey(DeploymentTarget, on_delete=models.CASCADE, related_name="+")
    dataset = models.ForeignKey(
        "datasets.Dataset", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    dataset_name = models.CharField(max_length=200, blank=True, default="")
    split = models.CharField(max_length=5, default="all")
    total = models.PositiveIntegerField(default=0)
    processed = models.PositiveIntegerField(default=0)
    failures = models.PositiveIntegerField(default=0)
    columns = models.JSONField(default=list, blank=True, help_text="the CSV download's header")
    results = models.FileField(upload_to="batches/", blank=True, help_text="JSON Lines")


class BatchEvent(Event):
    job = models.ForeignKey(BatchJob, on_delete=models.CASCADE, related_name="events")

    class Meta:
        ordering = ["job", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["job", "seq"], name="event_seq_per_batch_job")
        ]


class PredictionLog(models.Model):
    """One prediction a deployment made, kept for review: what came in, what went out.

    Written in bulk after the answer is computed (`studio.deployments.prediction_log`);
    the review fields (``verdict``, ``correction``, ``note``) are the owner's. Each index
    serves one filter of the list, newest first, so a page is an index range whatever
    the table holds.
    """

    class Verdict(models.TextChoices):
        RIGHT = "right"
        WRONG = "wrong"

    # The indexes below lead with the deployment: its own one would only slow inserts.
    deployment = models.ForeignKey(
        Deployment, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    target = models.ForeignKey(DeploymentTarget, on_delete=models.CASCADE, related_name="+")
    source = models.CharField(max_length=5, choices=DeploymentUsage.Source.choices)
    batch = models.ForeignKey(
        BatchJob, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    inputs = models.JSONField(help_text="the input as sent (a list for several program inputs)")
    outputs = models.JSONField(null=True, blank=True, help_text="the output; null: it failed")
    failed = models.BooleanField(default=False)
    error = models.TextField(blank=True, default="", help_text="why it failed (redacted)")
    latency_s = models.FloatField(default=0.0)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    cost = models.FloatField(default=0.0, help_text="US dollars, as litellm prices the model")
    created_at = models.DateTimeField(db_index=False)
    verdict = models.CharField(max_length=5, choices=Verdict.choices, null=True, blank=True)
    correction = models.JSONField(null=True, blank=True, help_text="the right output")
    note = models.TextField(blank=True, default="")
    reviewed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["deployment", "-created_at", "-id"], name="predlog_newest"),
            models.Index(
                fields=["deployment", "target", "-created_at", "-id"], name="predlog_target"
            ),
            models.Index(
                fields=["deployment", "failed", "-created_at", "-id"], name="predlog_failed"
            ),
            models.Index(
                fields=["deployment", "verdict", "-created_at", "-id"], name="predlog_verdict"
            ),
        ]
