"""Channel-layer group names and the message type a batch job's events travel as.

As `studio.runs.groups` for runs: the deployments app owns them, and the
realtime app (its consumer, the embedded layer) reads them. No Django import
here: the channel layer loads this before the apps are ready.
"""

from __future__ import annotations

import re

BATCH_EVENT_TYPE = "batch.event"
_BATCH_GROUP = re.compile(r"^batch_(\d+)$")


def batch_group(job_id: int) -> str:
    """The group every event of batch job ``job_id`` is sent on."""
    return f"batch_{int(job_id)}"


def batch_id_of_group(group: str) -> int | None:
    """The batch job id a group name belongs to, or None for any other group."""
    match = _BATCH_GROUP.match(group)
    return int(match.group(1)) if match else None
