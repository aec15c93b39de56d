"""The event logs of the studio: a stored row first, then a channel-layer message.

A stream is a kind of object whose history is a table of rows ``(parent, seq,
kind, payload, created_at)``: runs (`RunEvent`, `studio.runs.events`) and batch
prediction jobs (`BatchEvent`, `studio.deployments.events`). `EventStream` is
the one writer and reader of every such log, parameterised by what differs:
the table (by model label), its foreign key to the object, and the key that
names the object in a message (``"run"``), from which the group
(``run_<id>``) and the message type (``run.event``) follow.

Choice: every event is written with the object's next ``seq`` (1, 2, 3... with
no gap) inside one transaction, and only then sent on the object's group. A
client that misses a live message (it connected late, the layer dropped it, the
socket reconnected) reads the rows after its last ``seq``, so the stored history
and the live stream never disagree; the websocket consumer
(`studio.realtime.consumers`) replays, then streams, and the embedded layer
(`studio.realtime.layers`) does not carry these messages at all, it reads the
committed rows. The seq is the row count's successor under a lock of the
object's row (``select_for_update``; SQLite's write lock serialises writers
instead), and the unique ``(parent, seq)`` constraint plus a retry covers any
writer that slips past the lock.

Why not a counter column on the object: it would add a write to the object's
row (the run's, which the watcher and the API also update) per event, and a
column per kind of object. Why not one generic events table for every kind of
object (a content-type key): the runs' table is the hot path of training and
its foreign key keeps the rows' integrity and their index; two tables of one
shape cost nothing, because this module is what both share. Why not rows of a
batch job in `RunEvent`: a batch job is no run, and a nullable second parent
would make every run query care.

Nothing here imports a model: the channel layer reads the streams' group names
(`studio.realtime.streams`) before the apps are ready, so the tables are
reached by label, when first used.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import time
from typing import Any

from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from django.db import IntegrityError, OperationalError, transaction

logger = logging.getLogger(__name__)

SEQ_RETRIES = 20
"""Attempts at allocating a seq before an event write gives up (a lost race is retried)."""

JsonDict = dict[str, Any]


@dataclasses.dataclass(frozen=True)
class EventStream:
    """One kind of object whose events are stored, then sent, then served by the websocket.

    Args:
        key: the object's name in a message (``"run"``: ``{"run": 7, "seq": ...}``);
            its group is ``<key>_<id>`` and its message type ``<key>.event``.
        route: the websocket path segment (``"runs"``: ``ws/runs/<id>/``).
        event_model: the events table, by label (``"runs.RunEvent"``).
        parent_field: the table's foreign key to the object (``"run"``); the object
            has an ``owner``.

    Example:
        ```python
        RUN_EVENTS = EventStream(
            key="run", route="runs", event_model="runs.RunEvent", parent_field="run"
        )
        await RUN_EVENTS.emit(run.pk, "epoch", {"epoch": 0, "logs": logs})
        ```
    """

    key: str
    route: str
    event_model: str
    parent_field: str

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z][a-z0-9]*", self.key):
            raise ValueError(f"`key` must be lower-case letters and digits, got {self.key!r}")

    # Names ------------------------------------------------------------------------------------

    @property
    def message_type(self) -> str:
        """The channel-layer message type (``run.event``: the consumer's ``run_event``)."""
        return f"{self.key}.event"

    def group(self, pk: int) -> str:
        """The group every event of object ``pk`` is sent on."""
        return f"{self.key}_{int(pk)}"

    def id_of_group(self, group: str) -> int | None:
        """The object's id a group name belongs to, or None for another stream's group."""
        match = re.fullmatch(rf"{self.key}_(\d+)", group)
        return int(match.group(1)) if match else None

    # Tables -----------------------------------------------------------------------------------

    def _events(self) -> Any:
        from django.apps import apps

        return apps.get_model(self.event_model)

    def _parents(self) -> Any:
        return self._events()._meta.get_field(self.parent_field).related_model

    def owner_of(self, pk: int) -> int | None:
        """The id of the object's owner, or None when there is no such object."""
        return self._parents().objects.filter(pk=pk).values_list("owner_id", flat=True).first()

    def message(self, row: Any) -> JsonDict:
        """The JSON a client receives for a stored event (also the channel-layer message)."""
        return {
            "type": self.message_type,
            self.key: getattr(row, f"{self.parent_field}_id"),
            "seq": row.seq,
            "kind": row.kind,
            "payload": row.payload,
            "ts": row.created_at.timestamp(),  # write time, seconds since the epoch
        }

    def stored(self, pk: int, after: int, *, upto: int | None = None, limit: int) -> list[JsonDict]:
        """Messages of the stored events with ``after < seq <= upto``, at most ``limit``."""
        rows = self._events().objects.filter(**{self.parent_field: pk, "seq__gt": after})
        if upto is not None:
            rows = rows.filter(seq__lte=upto)
        return [self.message(row) for row in rows.order_by("seq")[:limit]]

    def last_seq(self, pk: int) -> int:
        """The seq of the object's last stored event (0 when none)."""
        from django.db.models import Max

        rows = self._events().objects.filter(**{self.parent_field: pk})
        last: int | None = rows.aggregate(last=Max("seq"))["last"]
        return last or 0

    # Writing ----------------------------------------------------------------------------------

    def record(self, pk: int, kind: str, payload: JsonDict | None = None) -> JsonDict:
        """Store one event with the object's next seq and return its message (nothing sent)."""
        from django.db.models import Max

        events, body = self._events(), dict(payload or {})
        for attempt in range(SEQ_RETRIES):
            try:
                with transaction.atomic():
                    self._parents().objects.select_for_update().filter(pk=pk).values_list(
                        "pk"
                    ).get()
                    rows = events.objects.filter(**{self.parent_field: pk})
                    last = rows.aggregate(last=Max("seq"))["last"]
                    event = events.objects.create(
                        **{f"{self.parent_field}_id": pk},
                        seq=(last or 0) + 1,
                        kind=kind,
                        payload=body,
                    )
                return self.message(event)
            except IntegrityError:
                continue  # another writer took this seq: read the max again
            except OperationalError as error:
                # SQLite (embedded mode) answers "database is locked" when two processes
                # upgrade to a write at once; wait a little and try again.
                if "locked" not in str(error) or transaction.get_connection().in_atomic_block:
                    raise
                time.sleep(0.05 * (attempt + 1))
        raise RuntimeError(f"could not allocate an event seq for {self.key} {pk}")

    async def publish(self, message: JsonDict) -> None:
        """Send a stored event's message on its object's group; a layer failure is only logged."""
        layer = get_channel_layer()
        if layer is None:
            return
        try:
            await layer.group_send(self.group(message[self.key]), message)
        except Exception:
            # The row is stored: clients catch up from the table.
            logger.warning(
                "channel layer send failed for %s %s", self.key, message[self.key], exc_info=True
            )

    async def emit(self, pk: int, kind: str, payload: JsonDict | None = None) -> JsonDict:
        """Store then send one event (from async code: training, batch prediction)."""
        message = await sync_to_async(self.record)(pk, kind, payload)
        await self.publish(message)
        return message

    def emit_sync(self, pk: int, kind: str, payload: JsonDict | None = None) -> JsonDict:
        """Store then send one event (from sync code: services, views, the sweep).

        Inside a transaction the message is sent once it commits, when the row is
        visible to readers (a rolled back event is never sent).
        """
        message = self.record(pk, kind, payload)
        transaction.on_commit(lambda: async_to_sync(self.publish)(message))
        return message
