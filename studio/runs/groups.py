"""Channel-layer group names and the message type a run's events travel as.

The runs app owns them: `events` sends on a run's group, and the realtime app
(consumers, the embedded layer) reads the same names, so realtime depends on
runs and never the other way. No Django import here: the channel layer loads
this before the apps are ready.
"""

from __future__ import annotations

import re

RUN_EVENT_TYPE = "run.event"
_RUN_GROUP = re.compile(r"^run_(\d+)$")


def run_group(run_id: int) -> str:
    """The group every event of run ``run_id`` is sent on."""
    return f"run_{int(run_id)}"


def run_id_of_group(group: str) -> int | None:
    """The run id a group name belongs to, or None for any other group."""
    match = _RUN_GROUP.match(group)
    return int(match.group(1)) if match else None
