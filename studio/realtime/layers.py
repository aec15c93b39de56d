"""The embedded channel layer: live run events across processes, with no server.

In the embedded deployment the web server (daphne) and the Celery worker are
separate processes and nothing else runs: no Redis. Channels' in-memory layer
only reaches consumers of its own process, so a worker's `group_send` would
never arrive at a browser.

Choice: the database is already the event log. Every run event is a `RunEvent`
row written (and committed) *before* it is sent, so this layer does not carry
run events at all: `group_send` to a run group (``run_<id>``) is dropped, and a
consumer's `receive` polls the `RunEvent` table for rows of the run groups it
joined, after the highest ``seq`` it was handed. A row is visible in every
process once committed, so a worker's events reach the web process with at most
one poll interval of delay (50 ms by default) and one small indexed query per
connected socket and interval. Everything else (other groups, direct sends
within one process) behaves exactly as Channels' `InMemoryChannelLayer`.

Why not a SQLite-backed message queue: it would write every event a second
time and need expiry and cleanup; the rows already exist, are ordered by
``seq`` and are what a reconnecting client replays anyway.

The scaled-out deployment uses channels-redis instead (``CHANNEL_REDIS_URL``).
"""

from __future__ import annotations

import asyncio
import collections
from typing import Any

from channels.db import database_sync_to_async
from channels.layers import InMemoryChannelLayer

from studio.runs.groups import run_id_of_group

POLL_BATCH = 500


def _last_seq(run_id: int) -> int:
    from django.db.models import Max

    from studio.runs.models import RunEvent

    return RunEvent.objects.filter(run_id=run_id).aggregate(last=Max("seq"))["last"] or 0


def _events_after(cursors: dict[int, int]) -> list[dict[str, Any]]:
    from studio.runs.events import event_message
    from studio.runs.models import RunEvent

    messages: list[dict[str, Any]] = []
    for run_id, seq in cursors.items():
        rows = RunEvent.objects.filter(run_id=run_id, seq__gt=seq).order_by("seq")[:POLL_BATCH]
        messages.extend(event_message(row) for row in rows)
    return messages


class RunEventPollingLayer(InMemoryChannelLayer):
    """`InMemoryChannelLayer` whose run groups are fed from the `RunEvent` table.

    Args:
        poll_interval: seconds between polls of a waiting receiver (default 0.05).
        **kwargs: passed to `InMemoryChannelLayer` (expiry, capacity...).
    """

    def __init__(self, poll_interval: float = 0.05, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if poll_interval <= 0:
            raise ValueError(f"`poll_interval` must be > 0, got {poll_interval}")
        self.poll_interval = poll_interval
        # channel -> {run id -> last seq handed to it}
        self._cursors: dict[str, dict[int, int]] = {}
        self._polled: dict[str, collections.deque[dict[str, Any]]] = {}

    async def group_add(self, group: str, channel: str) -> None:
        await super().group_add(group, channel)
        run_id = run_id_of_group(group)
        if run_id is not None:
            # From now on: what was stored before is the consumer's replay to do.
            last = await database_sync_to_async(_last_seq)(run_id)
            self._cursors.setdefault(channel, {})[run_id] = last

    async def group_discard(self, group: str, channel: str) -> None:
        await super().group_discard(group, channel)
        run_id = run_id_of_group(group)
        cursors = self._cursors.get(channel)
        if run_id is not None and cursors is not None:
            cursors.pop(run_id, None)
            if not cursors:
                self._cursors.pop(channel, None)
                self._polled.pop(channel, None)

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        if run_id_of_group(group) is not None:
            return  # the committed RunEvent row is the message; receivers poll for it
        await super().group_send(group, message)

    async def receive(self, channel: str) -> dict[str, Any]:
        while True:
            queue = self.channels.get(channel)
            if queue is not None and not queue.empty():
                message: dict[str, Any] = await super().receive(channel)
                return message
            polled = self._polled.get(channel)
            if polled:
                return polled.popleft()
            cursors = self._cursors.get(channel)
            if cursors:
                found = await database_sync_to_async(_events_after)(dict(cursors))
                for item in found:
                    cursors[item["run"]] = max(cursors.get(item["run"], 0), item["seq"])
                if found:
                    self._polled.setdefault(channel, collections.deque()).extend(found)
                    continue
            try:
                message = await asyncio.wait_for(super().receive(channel), self.poll_interval)
            except TimeoutError:
                continue
            return message

    async def flush(self) -> None:
        await super().flush()
        self._cursors.clear()
        self._polled.clear()
