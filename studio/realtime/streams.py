"""The event logs the websocket serves: one row shape, one consumer, one embedded layer.

A stream is a kind of object whose events are rows ``(parent, seq, kind,
payload, created_at)``, each written (seq 1, 2, 3... with no gap) *before* its
channel-layer message is sent on the object's group. Runs (`RunEvent`, written
by `studio.runs.events`) and batch prediction jobs (`BatchEvent`, written by
`studio.deployments.events`) are the two. Because the shape is the same, the
realtime app serves them all alike: `studio.realtime.consumers` checks the
owner, replays the rows after the client's ``seq`` and streams live ones, and
the embedded layer (`studio.realtime.layers`) feeds their groups by polling
their tables. A new stream is one entry in `STREAMS`.

Each app owns its group names and message type (``<key>_<id>``,
``<key>.event``) in a ``groups`` module without Django imports; the tables
are reached by model label, so the realtime app depends on those apps'
``groups`` only, never they on it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from studio.deployments.groups import BATCH_EVENT_TYPE, batch_group, batch_id_of_group
from studio.runs.groups import RUN_EVENT_TYPE, run_group, run_id_of_group


@dataclasses.dataclass(frozen=True)
class EventStream:
    """One kind of object whose events the websocket serves.

    Args:
        key: the message's id field (``"run"``: ``{"run": 7, "seq": ...}``).
        route: the websocket path segment (``"runs"``: ``ws/runs/<id>/``).
        event_model: the events table, by label (``"runs.RunEvent"``).
        parent_field: its foreign key to the object (``"run"``); the object has an ``owner``.
        message_type: the channel-layer message type (``"run.event"``).
        group: the object's group name from its id.
        id_of_group: the object's id from a group name, None for another stream's group.
    """

    key: str
    route: str
    event_model: str
    parent_field: str
    message_type: str
    group: Callable[[int], str]
    id_of_group: Callable[[str], int | None]

    def _events(self) -> Any:
        from django.apps import apps

        return apps.get_model(self.event_model)

    def owner_of(self, pk: int) -> int | None:
        """The id of the object's owner, or None when there is no such object."""
        parent = self._events()._meta.get_field(self.parent_field).related_model
        return parent.objects.filter(pk=pk).values_list("owner_id", flat=True).first()

    def message(self, row: Any) -> dict[str, Any]:
        """The JSON a client receives for a stored event (also the channel-layer message)."""
        return {
            "type": self.message_type,
            self.key: getattr(row, f"{self.parent_field}_id"),
            "seq": row.seq,
            "kind": row.kind,
            "payload": row.payload,
            "ts": row.created_at.timestamp(),
        }

    def stored(self, pk: int, after: int, *, upto: int | None = None, limit: int) -> list[Any]:
        """Messages of the stored events with ``after < seq <= upto``, at most ``limit``."""
        rows = self._events().objects.filter(**{self.parent_field: pk, "seq__gt": after})
        if upto is not None:
            rows = rows.filter(seq__lte=upto)
        return [self.message(row) for row in rows.order_by("seq")[:limit]]

    def last_seq(self, pk: int) -> int:
        """The seq of the object's last stored event (0 when none)."""
        from django.db.models import Max

        rows = self._events().objects.filter(**{self.parent_field: pk})
        return rows.aggregate(last=Max("seq"))["last"] or 0


RUNS = EventStream(
    key="run",
    route="runs",
    event_model="runs.RunEvent",
    parent_field="run",
    message_type=RUN_EVENT_TYPE,
    group=run_group,
    id_of_group=run_id_of_group,
)
BATCHES = EventStream(
    key="batch",
    route="batches",
    event_model="deployments.BatchEvent",
    parent_field="job",
    message_type=BATCH_EVENT_TYPE,
    group=batch_group,
    id_of_group=batch_id_of_group,
)
STREAMS = (RUNS, BATCHES)


def stream_of_group(group: str) -> tuple[EventStream, int] | None:
    """The stream a group belongs to and its object's id, or None for any other group."""
    for stream in STREAMS:
        pk = stream.id_of_group(group)
        if pk is not None:
            return stream, pk
    return None
