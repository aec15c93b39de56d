"""The columns every background job and every event log share, as abstract models.

A batch job and an evaluation are both a row a worker claims, keeps alive and ends
(`studio.common.lifecycle`): `BackgroundJob` holds their state, error, usage and
times. Runs, batch jobs and evaluations each keep an event log (`studio.common.event_log`):
`Event` holds an entry's number in its log, its kind and payload. Each concrete model adds
the row it belongs to and its own constraints.
"""

from django.db import models

from studio.common.lifecycle import JOB_TRANSITIONS, JobState


class BackgroundJob(models.Model):
    """A job without a cancel flag, taken by a worker: `JobState` and its transitions."""

    State = JobState
    # Running -> running is a take-over: the next delivery of a job whose worker stopped
    # beating takes it (`Lifecycle(take_over_stale=True)`).
    TRANSITIONS = JOB_TRANSITIONS

    state = models.CharField(max_length=10, choices=JobState.choices, default=JobState.QUEUED)
    error = models.TextField(blank=True, default="")
    usage = models.JSONField(default=dict, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True
        ordering = ["-created_at", "-id"]


class Event(models.Model):
    """One entry of an event log: its number in the log (from 1), kind and payload."""

    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=40)
    payload = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True
