"""A batch job's progress: `BatchEvent` rows, then messages on its group (``batch_<id>``).

The batch jobs' stream of `studio.common.event_log`, written and served exactly as
a run's (`studio.runs.events`): replay-then-live, reconnect after ``seq`` and
cross-process delivery without a server come with it. Events (``kind``: payload):
``state`` ({state, error?, attempt?}), ``progress`` ({processed, total,
failures}), ``usage`` (the job's LM usage so far).

No model import here: the realtime app (and its channel layer) reads this stream.
"""

from __future__ import annotations

from studio.common.event_log import EventStream

BATCH_EVENTS = EventStream(
    key="batch", route="batches", event_model="deployments.BatchEvent", parent_field="job"
)
