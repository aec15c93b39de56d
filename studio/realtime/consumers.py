"""The websocket of an event stream: stored events after the client's last seq, then live ones.

``ws/runs/<id>/?after=<seq>`` (a run), ``ws/batches/<id>/?after=<seq>`` (a batch
prediction job): one consumer, `EventStreamConsumer`, serves every stream of
`studio.realtime.streams`; each route binds it to its stream. The client is
signed in by its session cookie or an ``Authorization: Token`` handshake header
(`studio.realtime.auth`); otherwise its first message must be
``{"type": "auth", "token": "<key>"}``, within `AUTH_TIMEOUT_S`, and nothing is
sent before it. The consumer checks that the user owns the run (the job) before
it joins its group (close code 4403 when nobody is signed in or the token is
wrong, 4404 when it does not exist or belongs to someone else: another user's
run is not revealed, as in the REST API). It then joins the group, replays the
stored events with ``seq > after``, and streams live ones. Every event is sent
once and in ``seq`` order: a live message already covered by the replay is
dropped, and one that skips ahead (a message the layer lost) first brings the
missing rows from the table.

Messages sent to the client::

    {"type": "event", "run": 7, "seq": 12, "kind": "batch", "payload": {...}, "ts": 1.7e9}
    {"type": "event", "batch": 3, "seq": 4, "kind": "progress", "payload": {...}, "ts": ...}
    {"type": "replayed", "last_seq": 11}   once, after the stored history
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from studio.common.event_log import EventStream
from studio.common.jsondepth import loads
from studio.deployments.events import BATCH_EVENTS
from studio.realtime.auth import user_for_token
from studio.runs.events import RUN_EVENTS

CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
REPLAY_PAGE = 500
AUTH_TIMEOUT_S = 10.0
"""How long a socket without a session may take to send its ``auth`` message."""


class EventStreamConsumer(AsyncJsonWebsocketConsumer):
    """Streams one object's events to its owner; a subclass names the `stream`."""

    stream: EventStream
    object_id: int
    group: str | None = None
    last_seq: int = 0
    awaiting_auth: bool = False
    auth_timer: asyncio.Task[None] | None = None

    async def connect(self) -> None:
        # Accept first so that the close code reaches the client (a refused
        # handshake only shows as HTTP 403).
        await self.accept()
        self.object_id = int(self.scope["url_route"]["kwargs"]["pk"])
        user = self.scope.get("user")
        if user is not None and user.is_authenticated:
            await self.start(user)
            return
        self.awaiting_auth = True
        self.auth_timer = asyncio.ensure_future(self._auth_deadline())

    async def _auth_deadline(self) -> None:
        await asyncio.sleep(AUTH_TIMEOUT_S)
        if self.awaiting_auth:
            self.awaiting_auth = False
            await self.close(code=CLOSE_FORBIDDEN)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        # Any frame is read: a binary or malformed one is no auth message.
        content = None
        if text_data is not None:
            with contextlib.suppress(ValueError):
                content = loads(text_data)
        await self.receive_json(content)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        """Only the first message of a socket without a session means anything."""
        if not self.awaiting_auth:
            return
        self.awaiting_auth = False
        if self.auth_timer is not None:
            self.auth_timer.cancel()
        user = None
        if isinstance(content, dict) and content.get("type") == "auth":
            user = await database_sync_to_async(user_for_token)(content.get("token"))
        if user is None:
            await self.close(code=CLOSE_FORBIDDEN)
            return
        self.scope["user"] = user
        await self.start(user)

    async def start(self, user: Any) -> None:
        """Check ownership, join the object's group, replay, then stream."""
        owner_id = await database_sync_to_async(self.stream.owner_of)(self.object_id)
        if owner_id is None or owner_id != user.pk:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        try:
            self.last_seq = min(max(0, int(query.get("after", ["0"])[0])), 2**63 - 1)
        except ValueError:
            self.last_seq = 0
        self.group = self.stream.group(self.object_id)
        # Join before replaying: an event stored meanwhile is in both, and de-duplicated.
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.catch_up()
        await self.send_json({"type": "replayed", "last_seq": self.last_seq})

    async def disconnect(self, code: int) -> None:
        self.awaiting_auth = False
        if self.auth_timer is not None:
            self.auth_timer.cancel()
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def catch_up(self, upto: int | None = None) -> None:
        """Send the stored events after `last_seq` (up to ``upto``), in pages."""
        while True:
            page = await database_sync_to_async(self.stream.stored)(
                self.object_id, self.last_seq, upto=upto, limit=REPLAY_PAGE
            )
            for message in page:
                await self.send_event(message)
            if len(page) < REPLAY_PAGE:
                return

    async def send_event(self, message: dict[str, Any]) -> None:
        await self.send_json(
            {
                "type": "event",
                self.stream.key: message[self.stream.key],
                "seq": message["seq"],
                "kind": message["kind"],
                "payload": message["payload"],
                "ts": message.get("ts"),
            }
        )
        self.last_seq = message["seq"]

    async def stream_event(self, message: dict[str, Any]) -> None:
        """A live event from the channel layer (type ``<key>.event``)."""
        seq = int(message["seq"])
        if seq <= self.last_seq:
            return  # already sent by the replay or an earlier catch-up
        if seq > self.last_seq + 1:
            # Events in between never arrived live: the table has them (and this one).
            await self.catch_up(upto=seq)
            return
        await self.send_event(message)


class RunEventsConsumer(EventStreamConsumer):
    """A run's events (``ws/runs/<id>/``)."""

    stream = RUN_EVENTS
    run_event = EventStreamConsumer.stream_event  # channel-layer messages of type "run.event"


class BatchEventsConsumer(EventStreamConsumer):
    """A batch prediction job's events (``ws/batches/<id>/``)."""

    stream = BATCH_EVENTS
    batch_event = EventStreamConsumer.stream_event  # type "batch.event"
