"""Runs, their events (the single event path) and their per-epoch checkpoints."""

from django.conf import settings
from django.db import models

from studio.common.lifecycle import Lifecycle
from studio.common.models import Event
from studio.runs.events import RUN_EVENTS


class Run(models.Model):
    class State(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"
        CANCELLED = "cancelled"
        # A hard cap of fit_config (max_calls / max_tokens / max_cost) was reached: the
        # best program found so far is stored, with its evaluation when the held-back
        # share of the budget covered it (studio.runs.training).
        BUDGET_SPENT = "budget_spent"

    # Allowed transitions; anything else is a bug or a race and is refused.
    TRANSITIONS: dict[str, set[str]] = {
        State.QUEUED: {State.RUNNING, State.CANCELLED, State.FAILED},
        State.RUNNING: {
            State.SUCCEEDED,
            State.FAILED,
            State.CANCELLED,
            State.QUEUED,
            State.BUDGET_SPENT,
        },
        State.SUCCEEDED: set(),
        State.FAILED: set(),
        State.CANCELLED: set(),
        State.BUDGET_SPENT: set(),
    }
    #: The only code that changes `state` (claim, transitions, heartbeat, cancel flag).
    #: A running run whose worker was lost is re-queued by the sweep, not taken over.
    lifecycle = Lifecycle("runs.Run", RUN_EVENTS, cancel_field="cancel_requested")
    #: What no list shows, tens of kB a run each (the documents, every test row's examples,
    #: rewards and keys): the runs and deployments lists leave these columns unread.
    HEAVY_FIELDS = (
        "initial_document",
        "trained_document",
        "before",
        "after",
        "before_rewards",
        "after_rewards",
        "test_row_keys",
    )

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="runs"
    )
    name = models.CharField(max_length=200, blank=True, default="")
    program_version = models.ForeignKey(
        "programs.ProgramVersion", on_delete=models.PROTECT, related_name="runs"
    )
    dataset = models.ForeignKey("datasets.Dataset", on_delete=models.PROTECT, related_name="runs")
    dataset_version = models.ForeignKey(
        "datasets.DatasetVersion",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="runs",
        help_text="the version trained and tested on (null until the worker reads the rows "
        "of a run created without one: the dataset's latest then)",
    )
    provider = models.ForeignKey(
        "providers.Provider", on_delete=models.SET_NULL, null=True, blank=True, related_name="runs"
    )
    compile_config = models.JSONField(help_text="reward, metrics, optimizer and their parameters")
    fit_config = models.JSONField(
        help_text="epochs, batch_size, validation_split, seed, evaluations"
    )
    state = models.CharField(max_length=20, choices=State.choices, default=State.QUEUED)
    error = models.TextField(blank=True, default="")
    cancel_requested = models.BooleanField(default=False)
    parent = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="forks"
    )
    fork_epoch = models.PositiveIntegerField(null=True, blank=True)
    initial_document = models.JSONField(
        null=True, blank=True, help_text="Program.to_json() a fork starts from (else the version's)"
    )
    attempts = models.PositiveIntegerField(default=0, help_text="times a worker claimed the run")
    current_epoch = models.PositiveIntegerField(default=0)
    before = models.JSONField(null=True, blank=True, help_text="evaluations before training")
    after = models.JSONField(null=True, blank=True, help_text="evaluations after training")
    before_rewards = models.JSONField(
        null=True,
        blank=True,
        help_text="each test row's reward before training, in row order (mean over repeats)",
    )
    after_rewards = models.JSONField(
        null=True,
        blank=True,
        help_text="each test row's reward after training, in row order (mean over repeats)",
    )
    gain = models.JSONField(
        null=True,
        blank=True,
        help_text="after against before on the test rows, paired (significance.comparison): "
        "stored when the run ends, so that a list shows the verdict without the rows",
    )
    test_rows_digest = models.CharField(
        max_length=64,
        blank=True,
        default="",
        help_text="sha256 of the test rows evaluated (inputs and targets, in order): "
        "two runs are compared row by row only when theirs are equal",
    )
    test_row_keys = models.JSONField(
        null=True,
        blank=True,
        help_text="each test row's key (64 bits of its sha256, as dataset versions hash "
        "rows), in row order: two runs pair on the rows whose keys they share",
    )
    trained_document = models.JSONField(
        null=True, blank=True, help_text="Program.to_json() at the end"
    )
    usage = models.JSONField(
        default=dict, blank=True, help_text="LM calls, tokens, cost, latency, failures"
    )
    worker = models.CharField(max_length=200, blank=True, default="")
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["state", "heartbeat_at"], name="run_state_heartbeat"),
            # The runs list's page: a user's newest first, found without reading every run
            # (SQLite otherwise reads each row whole, test rows and all, to sort them).
            models.Index(fields=["owner", "-created_at"], name="run_owner_created"),
        ]

    def __str__(self) -> str:
        return self.name or f"run {self.pk}"


class RunEvent(Event):
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="events")

    class Meta:
        ordering = ["run", "seq"]
        constraints = [models.UniqueConstraint(fields=["run", "seq"], name="event_seq_per_run")]


class Checkpoint(models.Model):
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="checkpoints")
    epoch = models.PositiveIntegerField(help_text="epochs completed (1-based)")
    document = models.JSONField(help_text="Program.to_json() after this epoch")
    logs = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run", "epoch"]
        constraints = [
            models.UniqueConstraint(fields=["run", "epoch"], name="checkpoint_per_epoch")
        ]
