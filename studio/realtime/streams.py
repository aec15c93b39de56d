"""The event logs the websocket serves: one row shape, one consumer, one embedded layer.

Every stream is a `studio.common.event_log.EventStream`, defined by the app that
owns its table (runs: `studio.runs.events`, batch prediction jobs:
`studio.deployments.events`). Because their shape is the same, the realtime app
serves them all alike: `studio.realtime.consumers` checks the owner, replays the
rows after the client's ``seq`` and streams live ones, and the embedded layer
(`studio.realtime.layers`) feeds their groups by polling their tables. A new
stream is one entry in `STREAMS` (and its route follows).

Those apps' event modules import no model, so the channel layer can read the
streams before the apps are ready; the realtime app depends on them, never they
on it.
"""

from __future__ import annotations

from studio.common.event_log import EventStream
from studio.deployments.events import BATCH_EVENTS
from studio.runs.events import RUN_EVENTS

STREAMS = (RUN_EVENTS, BATCH_EVENTS)


def stream_of_group(group: str) -> tuple[EventStream, int] | None:
    """The stream a group belongs to and its object's id, or None for any other group."""
    for stream in STREAMS:
        pk = stream.id_of_group(group)
        if pk is not None:
            return stream, pk
    return None
