"""The websocket of a run: its stored events after the client's last seq, then live ones.

``ws/runs/<id>/?after=<seq>``. The consumer checks that the signed-in user owns
the run before it joins the run's group (close code 4403 when nobody is signed
in, 4404 when the run does not exist or belongs to someone else: another user's
run is not revealed, as in the REST API). It then joins the group, replays the
stored events with ``seq > after``, and streams live ones. Every event is sent
once and in ``seq`` order: a live message already covered by the replay is
dropped, and one that skips ahead (a message the layer lost) first brings the
missing rows from the table.

Messages sent to the client::

    {"type": "event", "run": 7, "seq": 12, "kind": "batch", "payload": {...}, "ts": 1.7e9}
    {"type": "replayed", "last_seq": 11}   once, after the stored history
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from studio.realtime.groups import run_group

CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
REPLAY_PAGE = 500


def _owner_of(run_id: int) -> int | None:
    from studio.runs.models import Run

    return Run.objects.filter(pk=run_id).values_list("owner_id", flat=True).first()


def _stored_events(run_id: int, after: int, upto: int | None) -> list[dict[str, Any]]:
    from studio.runs.events import event_message
    from studio.runs.models import RunEvent

    rows = RunEvent.objects.filter(run_id=run_id, seq__gt=after).order_by("seq")
    if upto is not None:
        rows = rows.filter(seq__lte=upto)
    return [event_message(row) for row in rows[:REPLAY_PAGE]]


class RunEventsConsumer(AsyncJsonWebsocketConsumer):
    """Streams one run's events to its owner."""

    run_id: int
    group: str | None = None
    last_seq: int = 0

    async def connect(self) -> None:
        # Accept first so that the close code reaches the client (a refused
        # handshake only shows as HTTP 403).
        await self.accept()
        self.run_id = int(self.scope["url_route"]["kwargs"]["run_id"])
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_FORBIDDEN)
            return
        owner_id = await database_sync_to_async(_owner_of)(self.run_id)
        if owner_id is None or owner_id != user.pk:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        try:
            self.last_seq = max(0, int(query.get("after", ["0"])[0]))
        except ValueError:
            self.last_seq = 0
        self.group = run_group(self.run_id)
        # Join before replaying: an event stored meanwhile is in both, and de-duplicated.
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.catch_up()
        await self.send_json({"type": "replayed", "last_seq": self.last_seq})

    async def disconnect(self, code: int) -> None:
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def catch_up(self, upto: int | None = None) -> None:
        """Send the stored events after `last_seq` (up to ``upto``), in pages."""
        while True:
            page = await database_sync_to_async(_stored_events)(self.run_id, self.last_seq, upto)
            for message in page:
                await self.send_event(message)
            if len(page) < REPLAY_PAGE:
                return

    async def send_event(self, message: dict[str, Any]) -> None:
        await self.send_json(
            {
                "type": "event",
                "run": message["run"],
                "seq": message["seq"],
                "kind": message["kind"],
                "payload": message["payload"],
                "ts": message.get("ts"),
            }
        )
        self.last_seq = message["seq"]

    async def run_event(self, message: dict[str, Any]) -> None:
        """A live event from the channel layer (type ``run.event``)."""
        seq = int(message["seq"])
        if seq <= self.last_seq:
            return  # already sent by the replay or an earlier catch-up
        if seq > self.last_seq + 1:
            # Events in between never arrived live: the table has them (and this one).
            await self.catch_up(upto=seq)
            return
        await self.send_event(message)
