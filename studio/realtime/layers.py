"""The embedded channel layer: live events across processes, with no server.

In the embedded deployment the web server (daphne) and the Celery worker are
separate processes and nothing else runs: no Redis. Channels' in-memory layer
only reaches consumers of its own process, so a worker's `group_send` would
never arrive at a browser.

Choice: the database is already the event log. Every run event is a `RunEvent`
row written (and committed) *before* it is sent, so this layer does not carry
run events at all: `group_send` to a run group (``run_<id>``) is dropped, and a
consumer's `receive` polls the `RunEvent` table for rows of the run groups it
joined, after the highest ``seq`` it was handed. Every stream of
`studio.realtime.streams` is fed the same way (batch prediction jobs: their
``batch_<id>`` groups from the `BatchEvent` table). A row is visible in every
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

from studio.realtime.streams import stream_of_group

POLL_BATCH = 500


def _last_seq(group: str) -> int:
    found = stream_of_group(group)
    assert found is not None
    stream, pk = found
    return stream.last_seq(pk)


def _events_after(cursors: dict[str, int]) -> list[tuple[str, dict[str, Any]]]:
    """``(group, message)`` of the stored events after each group's cursor."""
    messages: list[tuple[str, dict[str, Any]]] = []
    for group, seq in cursors.items():
        found = stream_of_group(group)
        if found is not None:
            stream, pk = found
            messages.extend((group, m) for m in stream.stored(pk, seq, limit=POLL_BATCH))
    return messages


class RunEventPollingLayer(InMemoryChannelLayer):
    """`InMemoryChannelLayer` whose stream groups are fed from their events tables.

    Args:
        poll_interval: seconds between polls of a waiting receiver (default 0.05).
        **kwargs: passed to `InMemoryChannelLayer` (expiry, capacity...).
    """

    def __init__(self, poll_interval: float = 0.05, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if poll_interval <= 0:
            raise ValueError(f"`poll_interval` must be > 0, got {poll_interval}")
        self.poll_interval = poll_interval
        # channel -> {stream group -> last seq handed to it}
        self._cursors: dict[str, dict[str, int]] = {}
        self._polled: dict[str, collections.deque[dict[str, Any]]] = {}

    async def group_add(self, group: str, channel: str) -> None:
        await super().group_add(group, channel)
        if stream_of_group(group) is not None:
            # From now on: what was stored before is the consumer's replay to do.
            last = await database_sync_to_async(_last_seq)(group)
            self._cursors.setdefault(channel, {})[group] = last

    async def group_discard(self, group: str, channel: str) -> None:
        await super().group_discard(group, channel)
        cursors = self._cursors.get(channel)
        if cursors is not None and group in cursors:
            cursors.pop(group, None)
            if not cursors:
                self._cursors.pop(channel, None)
                self._polled.pop(channel, None)

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        if stream_of_group(group) is not None:
            return  # the committed event row is the message; receivers poll for it
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
                for group, item in found:
                    cursors[group] = max(cursors.get(group, 0), item["seq"])
                if found:
                    self._polled.setdefault(channel, collections.deque()).extend(
                        m for _, m in found
                    )
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
